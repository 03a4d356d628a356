#include "network/reroute.h"

#include <algorithm>
#include <string>

namespace upswitch::network {
namespace {

bool taken_out(const Topology& t, const std::vector<char>& out, int s, int q) {
  const int l = t.switch_port_link[static_cast<size_t>(s)][static_cast<size_t>(q)];
  return l >= 0 && static_cast<size_t>(l) < out.size() && out[static_cast<size_t>(l)] &&
         t.links[static_cast<size_t>(l)].inter_switch();
}

}  // namespace

void routes_around(const Topology& t, const std::vector<char>& out, std::vector<uint32_t>& begin,
                   std::vector<uint16_t>& ports) {
  const int S = t.num_switches(), E = t.num_endpoints();
  Topology r;
  if (!t.route_tables) {  // the same rule over the links left
    r = t;
    for (size_t l = 0; l < t.links.size() && l < out.size(); ++l)
      if (out[l] && t.links[l].inter_switch())
        for (const PortRef& end : {t.links[l].a, t.links[l].b})
          r.switch_port_link[static_cast<size_t>(end.id)][static_cast<size_t>(end.port)] = -1;
    compute_routes(r, t.up_down);
  }
  begin.assign(1, 0);
  ports.clear();
  for (int s = 0; s < S; ++s)
    for (int d = 0; d < E; ++d) {
      const size_t before = ports.size();
      if (!t.route_tables) {
        ports.insert(ports.end(), r.routes_begin(s, d), r.routes_end(s, d));
      } else {
        for (const uint16_t* q = t.routes_begin(s, d); q != t.routes_end(s, d); ++q)
          if (!taken_out(t, out, s, *q)) ports.push_back(*q);
      }
      if (ports.size() == before) ports.insert(ports.end(), t.routes_begin(s, d), t.routes_end(s, d));
      begin.push_back(static_cast<uint32_t>(ports.size()));
    }
}

std::vector<RouteChange> plan_reroutes(const Topology& t, const std::vector<std::vector<core::DownInterval>>& down) {
  const size_t L = std::min(t.links.size(), down.size());
  std::vector<uint64_t> times;
  for (size_t l = 0; l < L; ++l)
    if (t.links[l].inter_switch())
      for (const core::DownInterval& iv : down[l]) {
        times.push_back(iv.begin);
        times.push_back(iv.end);
      }
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());

  std::vector<RouteChange> plan;
  std::vector<char> was(t.links.size(), 0);
  for (const uint64_t at : times) {
    std::vector<char> out(t.links.size(), 0);
    bool any = false;
    for (size_t l = 0; l < L; ++l)
      if (t.links[l].inter_switch())
        for (const core::DownInterval& iv : down[l])
          if (iv.begin <= at && at < iv.end) out[l] = 1;
    for (char o : out) any = any || o;
    if (out == was) continue;
    RouteChange c;
    c.at = at;
    if (any) {
      routes_around(t, out, c.route_begin, c.route_ports);
    } else {  // every link back: the routes the run started with
      c.route_begin = t.route_begin;
      c.route_ports = t.route_ports;
    }
    Topology before = t;  // the routes in force until the change
    if (!plan.empty()) {
      before.route_begin = plan.back().route_begin;
      before.route_ports = plan.back().route_ports;
    }
    const std::string cycle = find_routing_cycle(before, &c.route_begin, &c.route_ports);
    if (!cycle.empty())
      throw TopologyError("the routes from cycle " + std::to_string(at) +
                          " on (around the links between switches down then), taken by packets routed the old way, "
                          "allow a deadlock: " + cycle);
    was = std::move(out);
    plan.push_back(std::move(c));
  }
  return plan;
}

}  // namespace upswitch::network
