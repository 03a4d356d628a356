// The fully resolved configuration of one run. Field defaults are NOT set here: every parameter
// is declared once, with type, unit, default, range and description, in param_table.cpp, and
// default_config() applies those defaults.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/switch_params.h"
#include "traffic/traffic_params.h"

namespace upswitch::config {

struct Config {
  core::SwitchParams sw;
  int allocator_index = 0;  // index into core::allocator_names(); validate() sets sw.allocator
  double clock_ghz = 0;
  int flit_bytes = 0;
  int link_latency_cycles = 0;
  int credit_delay_cycles = 0;
  double link_gbytes_per_s = 0;  // TL flit bandwidth per direction; 0 = one flit per core cycle

  // Flits per core cycle a link carries (1 when the link is at least as fast as the core).
  double link_flits_per_cycle() const {
    if (link_gbytes_per_s <= 0) return 1.0;
    const double r = link_gbytes_per_s / (flit_bytes * clock_ghz);
    return r < 1.0 ? r : 1.0;
  }
  core::DownstreamBuffer endpoint_rx;
  traffic::TrafficParams traffic;
  std::string packet_mix_text;  // traffic.packet_mix as written; parsed into traffic.packet_mix
  traffic::MeasureParams measure;
  uint64_t check_interval_cycles = 0;
  std::string preset;  // the preset the run started from ("" = built-in defaults)
};

// Bad user input. The message is one line naming the key, the value and what is allowed.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace upswitch::config
