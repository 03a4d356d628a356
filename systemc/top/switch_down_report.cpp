#include "top/switch_down_report.h"

#include <algorithm>
#include <cstdio>

namespace upswitch::top {

nlohmann::json switch_down_json(const network::Topology& t, const std::vector<core::SwitchDown>& down,
                                double flit_gbytes_per_s, double clock_ghz) {
  std::vector<char> out(static_cast<size_t>(t.num_switches()), 0);
  nlohmann::json switches = nlohmann::json::array();
  for (const core::SwitchDown& d : down) {
    out[static_cast<size_t>(d.sw)] = 1;
    switches.push_back({{"switch", d.sw}, {"at_cycle", d.at}, {"at_ns", static_cast<double>(d.at) / clock_ghz}});
  }
  double before_sum = 0, after_sum = 0, least_fraction = 1;
  int ports_before = 0, ports_after = 0, least_ports = 1 << 30;
  const int n = t.num_endpoints();
  for (int e = 0; e < n; ++e) {
    double before = 0, after = 0;
    int kept = 0;
    for (int k = 0; k < t.endpoints[static_cast<size_t>(e)].ports; ++k) {
      const int l = t.endpoint_port_link[static_cast<size_t>(e)][static_cast<size_t>(k)];
      const double rate = t.links[static_cast<size_t>(l)].rate_gbytes_per_s(flit_gbytes_per_s);
      before += rate;
      if (out[static_cast<size_t>(t.peer(network::PortRef{false, e, k}).id)]) continue;
      after += rate;
      ++kept;
    }
    before_sum += before;
    after_sum += after;
    ports_before += t.endpoints[static_cast<size_t>(e)].ports;
    ports_after += kept;
    least_ports = std::min(least_ports, kept);
    least_fraction = std::min(least_fraction, before > 0 ? after / before : 1.0);
  }
  const double per = n > 0 ? 1.0 / n : 0.0;
  return {{"switches", switches},
          {"ports_per_accelerator_before", ports_before * per},
          {"ports_per_accelerator_after", ports_after * per},
          {"least_ports_after", n > 0 ? least_ports : 0},
          {"link_gbytes_per_s_per_accelerator_before", before_sum * per},
          {"link_gbytes_per_s_per_accelerator_after", after_sum * per},
          {"remaining_fraction", before_sum > 0 ? after_sum / before_sum : 1.0},
          {"least_remaining_fraction", least_fraction}};
}

std::string switch_down_line(const nlohmann::json& j) {
  std::string which;
  char buf[256];
  for (const auto& s : j["switches"]) {
    std::snprintf(buf, sizeof buf, "%ssw%d at %.1f ns", which.empty() ? "" : ", ", s["switch"].get<int>(),
                  s["at_ns"].get<double>());
    which += buf;
  }
  std::snprintf(buf, sizeof buf, ": an accelerator keeps %.2f of %.2f links, %.1f of %.1f GB/s (%.1f%%, least %.1f%%)",
                j["ports_per_accelerator_after"].get<double>(), j["ports_per_accelerator_before"].get<double>(),
                j["link_gbytes_per_s_per_accelerator_after"].get<double>(),
                j["link_gbytes_per_s_per_accelerator_before"].get<double>(), 100 * j["remaining_fraction"].get<double>(),
                100 * j["least_remaining_fraction"].get<double>());
  return which + buf;
}

}  // namespace upswitch::top
