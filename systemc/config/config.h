// The fully resolved configuration of one run. Field defaults are NOT set here: every parameter
// is declared once, with type, unit, default, range and description, in param_table.cpp, and
// default_config() applies those defaults.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "coll/protocol.h"
#include "core/dl_params.h"
#include "core/fault_params.h"
#include "core/switch_params.h"
#include "endpoint/accel_params.h"
#include "network/topology.h"
#include "network/topology_params.h"
#include "traffic/traffic_params.h"
#include "traffic/workload_params.h"

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
  // The deadlock watchdogs' window (config/watchdog.cpp): sim.watchdog_cycles, but never shorter
  // than four of the longest configured round trips plus the longest scheduled link-down interval
  // and the completion timeout, so a long path is not mistaken for a deadlock; 0 = off.
  uint64_t watchdog_window() const;
  core::DownstreamBuffer endpoint_rx;
  core::DlParams dl;  // link.dl.*
  std::string link_errors_text, link_down_text, credit_loss_text;  // faults.* as written
  // Resolved by validate(): what is injected on each link, [2p] accelerator p -> switch and
  // [2p + 1] switch -> accelerator p; empty when nothing is.
  std::vector<core::LinkFaults> link_faults;
  // traffic.kind: synthetic packets (traffic.*) or memory transactions between accelerator
  // endpoints (accel.*, tl.*, txn.*; the switch then has two message classes).
  enum class TrafficKind { kPackets, kTransactions };
  TrafficKind kind = TrafficKind::kPackets;
  traffic::TrafficParams traffic;
  std::string packet_mix_text;  // traffic.packet_mix as written; parsed into traffic.packet_mix
  traffic::MeasureParams measure;
  endpoint::AccelParams accel;        // accel.* and tl.*
  coll::CollParams coll;              // coll.*
  std::string atomic_ops_text;        // accel.atomic_ops as written
  endpoint::TxnWorkload txn;          // txn.*
  std::string txn_mix_text, txn_sizes_text;  // txn.mix, txn.sizes as written
  traffic::WorkloadParams workload;  // workload.*, moe.*, tp.* (`upswitch workload`)
  // partition.pods, faults.port_down (in cycles; as written in port_down_text) and
  // endpoint.completion_timeout_ns (-> accel.completion_timeout_cycles): fault_params.cpp.
  core::FaultParams faults;
  std::string port_down_text;
  std::string switch_down_text;  // faults.switch_down as written (-> faults.switch_down)
  double completion_timeout_ns = 0;
  uint64_t check_interval_cycles = 0;
  double memory_limit_gib = 0;  // sim.memory_limit_gib: 0 = the machine's available memory
  // topology.*, routing.multipath, link.inter_switch_* (config/topology_params.cpp) and the
  // network they describe, built and checked by validate().
  network::TopologyParams topo;
  int inter_switch_latency_cycles = 0, inter_switch_credit_delay_cycles = 0;  // 0 = as the endpoint links
  double inter_switch_gbytes_per_s = 0;                                       // 0 = as the endpoint links
  int port_select = 0;         // endpoint.port_select: index of traffic::PortSelect
  int interleave_bytes = 0;    // endpoint.interleave_bytes
  std::shared_ptr<const network::Topology> topology;
  const network::Topology& network() const { return *topology; }
  bool single_switch() const { return topo.kind == network::TopologyKind::kSingle; }
  // Endpoints that traffic, ranks and traces address: switch.ports on one switch.
  int endpoints() const { return topology ? topology->num_endpoints() : sw.ports; }
  std::string preset;  // the preset the run started from ("" = built-in defaults)
};

// Bad user input. The message is one line naming the key, the value and what is allowed; user
// text echoed in it has its control and non-ASCII bytes escaped (\n, \xNN), so it stays one
// printable line whatever the input (found by tests/fuzz/fuzz_config_yaml).
class ConfigError : public std::runtime_error {
 public:
  explicit ConfigError(const std::string& message) : std::runtime_error(printable(message)) {}

  static std::string printable(const std::string& text) {
    static const char* hex = "0123456789abcdef";
    std::string out;
    out.reserve(text.size());
    for (unsigned char ch : text) {
      if (ch == '\n') {
        out += "\\n";
      } else if (ch == '\t') {
        out += "\\t";
      } else if (ch < 0x20 || ch >= 0x7f) {
        out += "\\x";
        out += hex[ch >> 4];
        out += hex[ch & 15];
      } else {
        out += static_cast<char>(ch);
      }
    }
    return out;
  }
};

}  // namespace upswitch::config
