#include "top/network_report.h"

#include <algorithm>
#include <sstream>

#include "network/topology_metrics.h"

namespace upswitch::top {

network::PortRef attached_switch_port(const network::Network& net, int endpoint_port) {
  const network::Topology& t = net.topology();
  const int e = net.owner(endpoint_port);
  return t.peer(network::PortRef{false, e, endpoint_port - t.endpoint_first_port(e)});
}

namespace {

struct SwitchFigures {
  uint64_t occ = 0, xbar = 0, stalls = 0, peak = 0;
  int ports = 0;
  void add(const core::SwitchCore& s) {
    const core::SwitchStats& st = s.stats();
    for (int p = 0; p < s.ports(); ++p) {
      occ += st.occupancy_flit_cycles[static_cast<size_t>(p)];
      xbar += st.xbar_flits[static_cast<size_t>(p)];
      stalls += st.credit_stall_cycles[static_cast<size_t>(p)];
      peak = std::max(peak, st.peak_occupancy[static_cast<size_t>(p)]);
    }
    ports += s.ports();
  }
  nlohmann::json json(double window_cycles) const {
    const double port_cycles = window_cycles * ports;
    return {{"mean_buffer_occupancy_flits", static_cast<double>(occ) / port_cycles},
            {"peak_buffer_occupancy_flits", peak},
            {"xbar_utilisation", static_cast<double>(xbar) / port_cycles},
            {"credit_stall_cycles", stalls}};
  }
};

}  // namespace

nlohmann::json network_switch_json(const network::Network& net, double window_cycles) {
  SwitchFigures all;
  for (int s = 0; s < net.switches(); ++s) all.add(net.sw(s));
  return all.json(window_cycles);
}

nlohmann::json switches_json(const network::Network& net, double window_cycles) {
  nlohmann::json a = nlohmann::json::array();
  for (int s = 0; s < net.switches(); ++s) {
    SwitchFigures one;
    one.add(net.sw(s));
    nlohmann::json j = one.json(window_cycles);
    const network::SwitchSpec& spec = net.topology().switches[static_cast<size_t>(s)];
    j["id"] = s;
    j["plane"] = spec.plane;
    j["level"] = spec.level;
    j["ports"] = net.sw(s).ports();
    j["grants"] = net.sw(s).stats().grants;
    a.push_back(j);
  }
  return a;
}

nlohmann::json topology_json(const network::Topology& t, double flit_gbytes_per_s) {
  return topology_json(t, network::measure_topology(t, flit_gbytes_per_s));
}

nlohmann::json topology_json(const network::Topology& t, const network::TopologyMetrics& m) {
  return {{"kind", network::kind_name(t.kind)},
          {"name", t.name},
          {"switches", m.switches},
          {"endpoints", m.endpoints},
          {"endpoint_ports", t.endpoint_ports()},
          {"links", m.links},
          {"inter_switch_links", m.inter_switch_links},
          {"endpoint_gbytes_per_s", m.endpoint_gbytes_per_s},
          {"bisection_gbytes_per_s", m.bisection_gbytes_per_s},
          {"diameter_switches", m.diameter}};
}

void register_switch_stats(stats::Registry& reg, const network::Network& net) {
  for (int s = 0; s < net.switches(); ++s) {
    const core::SwitchStats& st = net.sw(s).stats();
    const std::string p = net.switches() == 1 ? "switch." : "switch" + std::to_string(s) + ".";
    reg.counter(p + "grants", &st.grants, "flits", "flits through the crossbar, whole run");
    reg.counter(p + "allocation_rounds", &st.allocation_rounds, "cycles", "cycles in which the allocator ran");
    if (net.sw(s).params().speculative) {
      reg.counter(p + "speculative_grants", &st.speculative_grants, "flits",
                  "speculative grants that moved a head in its VC-allocation cycle, whole run");
      reg.counter(p + "speculative_wasted", &st.speculative_wasted, "grants",
                  "speculative grants lost to heads whose VC allocation failed, whole run");
    }
    reg.per_port(p + "xbar_flits", &st.xbar_flits, "flits", "per output, measurement window");
    reg.per_port(p + "credit_stall_cycles", &st.credit_stall_cycles, "cycles",
                 "per output: a flit waited for it and it had no downstream credit (window)");
    reg.per_port(p + "peak_occupancy", &st.peak_occupancy, "flits", "per input buffer, whole run");
    if (net.sw(s).params().speedup > 1)
      reg.per_port(p + "output_buffer_peak", &st.output_buffer_peak, "flits",
                   "per output buffer (crossbar speedup), pipeline stages included, whole run");
  }
}

std::vector<std::vector<double>> switch_port_utilisation(const network::Network& net, double window_cycles,
                                                         double flit_gbytes_per_s) {
  const network::Topology& t = net.topology();
  const double w = window_cycles > 0 ? window_cycles : 1;
  std::vector<std::vector<double>> u(static_cast<size_t>(net.switches()));
  for (int s = 0; s < net.switches(); ++s) {
    const core::SwitchStats& st = net.sw(s).stats();
    for (int q = 0; q < net.sw(s).ports(); ++q) {
      const int l = t.switch_port_link[static_cast<size_t>(s)][static_cast<size_t>(q)];
      const network::LinkSpec& ls = t.links[static_cast<size_t>(l)];
      u[static_cast<size_t>(s)].push_back(static_cast<double>(st.xbar_flits[static_cast<size_t>(q)]) / w /
                                          ls.flits_per_cycle(flit_gbytes_per_s));
    }
  }
  return u;
}

std::string links_csv(const network::Network& net, double window_cycles, double flit_gbytes_per_s,
                      const std::vector<uint64_t>& endpoint_port_injected) {
  const network::Topology& t = net.topology();
  std::ostringstream o;
  o.precision(6);
  o << "link,from,to,class,gbytes_per_s,flits,utilisation,accepted_gbytes_per_s,credit_stall_cycles,"
       "peak_occupancy_flits\n";
  const double w = window_cycles > 0 ? window_cycles : 1;
  for (const network::Network::Channel& c : net.channels()) {
    const network::LinkSpec& ls = t.links[static_cast<size_t>(c.link)];
    const double rate = ls.rate_gbytes_per_s(flit_gbytes_per_s);
    uint64_t flits = 0;
    std::string stalls, peak;
    if (c.from.is_switch) {
      const core::SwitchStats& st = net.sw(c.from.id).stats();
      flits = st.xbar_flits[static_cast<size_t>(c.from.port)];
      stalls = std::to_string(st.credit_stall_cycles[static_cast<size_t>(c.from.port)]);
    } else {
      flits = endpoint_port_injected[static_cast<size_t>(t.endpoint_first_port(c.from.id) + c.from.port)];
    }
    if (c.to.is_switch) peak = std::to_string(net.sw(c.to.id).stats().peak_occupancy[static_cast<size_t>(c.to.port)]);
    const char* cls = c.from.is_switch && c.to.is_switch ? "inter_switch" : c.from.is_switch ? "to_endpoint" : "from_endpoint";
    const double gbs = static_cast<double>(flits) / w * flit_gbytes_per_s;
    o << c.link << ',' << c.from.name() << ',' << c.to.name() << ',' << cls << ',' << rate << ',' << flits << ','
      << gbs / rate << ',' << gbs << ',' << stalls << ',' << peak << '\n';
  }
  return o.str();
}

}  // namespace upswitch::top
