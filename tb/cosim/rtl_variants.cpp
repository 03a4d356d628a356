#include "cosim/rtl_variants.h"

#include <set>

#include "cosim/verilated_switch.h"

#include "rtl_variant_headers.inc"  // generated: the Verilated classes' headers

namespace upswitch::cosim {
namespace {

std::string list(const std::set<int>& values) {
  std::string s;
  for (int v : values) s += (s.empty() ? "" : ", ") + std::to_string(v);
  return s;
}

[[noreturn]] void reject(const std::string& key, const std::string& value, const std::string& allowed) {
  throw config::ConfigError(key + " = " + value + ": the co-simulation supports " + allowed +
                            " (reference configuration, doc/cosim.md)");
}

void check_int(const char* key, int value, int expected, const RtlVariant& v) {
  if (value != expected)
    reject(key, std::to_string(value), std::to_string(expected) + " for the RTL build " + v.name);
}

}  // namespace

const std::vector<RtlVariant>& rtl_variants() {
  static const std::vector<RtlVariant> table = {
#define UPSW_RTL_VARIANT(name, cls, ports, vcs, vcbuf, shbuf, route, outc, rxvc, rxsh, alloc, iters) \
  {#name, ports, vcs, vcbuf, shbuf, route, outc, rxvc, rxsh, alloc, iters,                         \
   [](bool traceable) -> std::unique_ptr<CycleSwitch> {                                            \
     return std::make_unique<VerilatedSwitch<cls>>(ports, traceable);                              \
   }},
#include "rtl_variants.inc"
#undef UPSW_RTL_VARIANT
  };
  return table;
}

const RtlVariant& match_variant(const config::Config& cfg) {
  const core::SwitchParams& s = cfg.sw;
  if (s.queueing != core::Queueing::kVoq) reject("switch.queueing", s.queueing == core::Queueing::kFifo ? "fifo" : "vc", "voq");
  if (cfg.link_gbytes_per_s != 0) reject("link.gbytes_per_s", std::to_string(cfg.link_gbytes_per_s), "0 (unpaced links)");
  if (!s.routing_table.empty()) reject("switch.routing_table", "a table", "[] (identity)");
  if (s.classes != 1) reject("message classes", std::to_string(s.classes), "1");
  const int alloc = s.allocator == "islip" ? 0 : s.allocator == "separable_input_first" ? 1 : -1;
  if (alloc < 0) reject("switch.allocator", s.allocator, "islip, separable_input_first");
  std::set<int> ports;
  for (const RtlVariant& v : rtl_variants()) ports.insert(v.ports);
  if (!ports.count(s.ports)) reject("switch.ports", std::to_string(s.ports), list(ports));
  for (const RtlVariant& v : rtl_variants()) {
    if (v.ports != s.ports || v.allocator != alloc) continue;
    check_int("switch.vcs", s.vcs, v.vcs, v);
    check_int("switch.vc_buffer_flits", s.vc_buffer_flits, v.vc_buffer_flits, v);
    check_int("switch.shared_buffer_flits", s.shared_buffer_flits, v.shared_buffer_flits, v);
    check_int("switch.routing_cycles", s.routing_cycles, v.routing_cycles, v);
    if (s.output_pipeline_cycles() != v.out_cycles)
      reject("switch.sw_alloc_cycles + xbar_cycles + egress_cycles", std::to_string(s.output_pipeline_cycles()),
             std::to_string(v.out_cycles) + " for the RTL build " + v.name);
    check_int("endpoint.rx_vc_flits", cfg.endpoint_rx.vc_flits, v.rx_vc_flits, v);
    check_int("endpoint.rx_shared_flits", cfg.endpoint_rx.shared_flits, v.rx_shared_flits, v);
    if (alloc == 0) check_int("switch.allocator_iterations", s.allocator_iterations, v.iterations, v);
    return v;
  }
  reject("switch.allocator", s.allocator, "no RTL build for " + std::to_string(s.ports) + " ports");
}

}  // namespace upswitch::cosim
