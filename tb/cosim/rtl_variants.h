// The Verilated builds of rtl_ref/ linked into this program, one per parameter set (the list
// lives in rtl_ref/CMakeLists.txt), and the check that a configuration is one of them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "config/config.h"
#include "cosim/cycle_switch.h"

namespace upswitch::cosim {

struct RtlVariant {
  const char* name;
  int ports, vcs, vc_buffer_flits, shared_buffer_flits;
  int routing_cycles, out_cycles;  // out = sw_alloc + xbar + egress
  int rx_vc_flits, rx_shared_flits;
  int allocator;  // upsw_pkg::alloc_e: 0 islip, 1 separable_input_first
  int iterations;
  std::unique_ptr<CycleSwitch> (*make)(bool traceable);
};

const std::vector<RtlVariant>& rtl_variants();

// The variant that implements `cfg` exactly, or throws config::ConfigError with one line
// naming the first key outside the reference configuration, its value and what is allowed.
const RtlVariant& match_variant(const config::Config& cfg);

}  // namespace upswitch::cosim
