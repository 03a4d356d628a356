#include "config/presets.h"

#include "config/param_table.h"
#include "config/value_parse.h"

namespace upswitch::config {

const std::vector<Preset>& presets() {
  static const std::vector<Preset> table = {
      {"ualink-x4",
       "72 ports of UALink x4 (4 x 200G = 800 Gb/s per direction), VOQ + 4-iteration iSLIP, 1.6 GHz, "
       "32-cycle core pipeline, 80 ns links (facts sheet section 5). The default.",
       {}},
      {"tiny",
       "8 ports, 2 VCs, short pipeline and links: quick tests and examples.",
       {{"switch.ports", "8"},
        {"switch.vcs", "2"},
        {"switch.vc_buffer_flits", "8"},
        {"switch.shared_buffer_flits", "16"},
        {"switch.routing_cycles", "2"},
        {"switch.sw_alloc_cycles", "1"},
        {"switch.xbar_cycles", "1"},
        {"switch.egress_cycles", "1"},
        {"link.latency_cycles", "4"},
        {"link.credit_delay_cycles", "4"},
        {"endpoint.rx_vc_flits", "8"},
        {"endpoint.rx_shared_flits", "16"},
        {"sim.warmup_cycles", "2000"},
        {"sim.measure_cycles", "5000"}}},
      {"slotted",
       "The textbook slotted switch used by the theory checks: 1 VC, single-flit packets, no pipeline, "
       "1-cycle links at one flit per cycle and deep buffers, so one cell moves per input and output per cycle.",
       {{"switch.vcs", "1"},
        {"switch.vc_buffer_flits", "256"},
        {"switch.shared_buffer_flits", "0"},
        {"switch.routing_cycles", "0"},
        {"switch.vc_alloc_cycles", "0"},
        {"switch.sw_alloc_cycles", "0"},
        {"switch.xbar_cycles", "0"},
        {"switch.egress_cycles", "0"},
        {"link.latency_cycles", "1"},
        {"link.credit_delay_cycles", "1"},
        {"link.gbytes_per_s", "0"},
        {"endpoint.rx_vc_flits", "256"},
        {"endpoint.rx_shared_flits", "0"},
        {"traffic.packet_flits", "1"}}},
  };
  return table;
}

void apply_preset(Config& c, const std::string& name) {
  for (const Preset& p : presets()) {
    if (p.name != name) continue;
    for (const auto& [key, value] : p.overrides) set_param(c, key, value);
    c.preset = name;
    return;
  }
  std::vector<std::string> names;
  for (const Preset& p : presets()) names.push_back(p.name);
  throw ConfigError("--preset '" + name + "': expected one of " + join(names, ", "));
}

}  // namespace upswitch::config
