// Routes of a topology: shortest paths (every equal-cost next hop kept) or up/down paths over
// switch levels, and the check that every route reaches its endpoint. doc/topology.md.
#include <algorithm>
#include <climits>
#include <deque>

#include "network/topology.h"

namespace upswitch::network {
namespace {

constexpr int kFar = INT_MAX / 4;

struct Hop {
  int port;  // output port of the switch
  int to;    // the switch at the other end
};

// Per switch: its ports that lead to other switches.
std::vector<std::vector<Hop>> switch_hops(const Topology& t) {
  std::vector<std::vector<Hop>> hops(t.switches.size());
  for (int s = 0; s < t.num_switches(); ++s)
    for (int q = 0; q < t.switches[static_cast<size_t>(s)].ports; ++q) {
      const PortRef p = t.peer(PortRef{true, s, q});
      if (p.is_switch && !(p == PortRef{true, s, q})) hops[static_cast<size_t>(s)].push_back(Hop{q, p.id});
    }
  return hops;
}

// Per switch: its ports that lead straight to endpoint d.
std::vector<std::vector<int>> direct_ports(const Topology& t, int d) {
  std::vector<std::vector<int>> direct(t.switches.size());
  for (int k = 0; k < t.endpoints[static_cast<size_t>(d)].ports; ++k) {
    const PortRef p = t.peer(PortRef{false, d, k});
    if (p.is_switch) direct[static_cast<size_t>(p.id)].push_back(p.port);
  }
  return direct;
}

}  // namespace

namespace {

// Per switch: its output ports on a shortest (or up/down) path to endpoint d.
std::vector<std::vector<uint16_t>> route_sets_to(const Topology& t, const std::vector<std::vector<Hop>>& hops,
                                                 const std::vector<int>& by_level, int d, bool up_down) {
  const size_t S = t.switches.size();
  std::vector<std::vector<uint16_t>> sets(S);
  const auto direct = direct_ports(t, d);
  if (!up_down) {
    std::vector<int> dist(S, kFar);
    std::deque<int> q;
    for (size_t s = 0; s < S; ++s)
      if (!direct[s].empty()) {
        dist[s] = 0;
        q.push_back(static_cast<int>(s));
      }
    while (!q.empty()) {  // links carry both ways: distances towards d by BFS from its switches
      const int s = q.front();
      q.pop_front();
      for (const Hop& h : hops[static_cast<size_t>(s)])
        if (dist[static_cast<size_t>(h.to)] == kFar) {
          dist[static_cast<size_t>(h.to)] = dist[static_cast<size_t>(s)] + 1;
          q.push_back(h.to);
        }
    }
    for (size_t s = 0; s < S; ++s) {
      auto& set = sets[s];
      if (!direct[s].empty()) {
        set.assign(direct[s].begin(), direct[s].end());
      } else if (dist[s] < kFar) {
        for (const Hop& h : hops[s])
          if (dist[static_cast<size_t>(h.to)] == dist[s] - 1) set.push_back(static_cast<uint16_t>(h.port));
      }
    }
  } else {
    // down[s]: hops to d going only down; up[s]: climbing first, then down (up*down* paths).
    std::vector<int> down(S, kFar), up(S, kFar);
    auto level = [&](int s) { return t.switches[static_cast<size_t>(s)].level; };
    for (auto it = by_level.rbegin(); it != by_level.rend(); ++it) {  // lowest level first
      const auto s = static_cast<size_t>(*it);
      if (!direct[s].empty()) {
        down[s] = 0;
        continue;
      }
      for (const Hop& h : hops[s])
        if (level(h.to) < level(*it)) down[s] = std::min(down[s], down[static_cast<size_t>(h.to)] + 1);
    }
    for (int s0 : by_level) {  // highest level first
      const auto s = static_cast<size_t>(s0);
      up[s] = down[s];
      for (const Hop& h : hops[s])
        if (level(h.to) > level(s0)) up[s] = std::min(up[s], up[static_cast<size_t>(h.to)] + 1);
    }
    for (size_t s = 0; s < S; ++s) {
      auto& set = sets[s];
      if (!direct[s].empty()) {
        set.assign(direct[s].begin(), direct[s].end());
      } else if (down[s] < kFar) {  // reachable downwards: never climb again
        for (const Hop& h : hops[s])
          if (level(h.to) < level(static_cast<int>(s)) && down[static_cast<size_t>(h.to)] == down[s] - 1)
            set.push_back(static_cast<uint16_t>(h.port));
      } else if (up[s] < kFar) {
        for (const Hop& h : hops[s])
          if (level(h.to) > level(static_cast<int>(s)) && up[static_cast<size_t>(h.to)] == up[s] - 1)
            set.push_back(static_cast<uint16_t>(h.port));
      }
    }
  }
  for (auto& set : sets) std::sort(set.begin(), set.end());
  return sets;
}

// Routes of endpoints [0, old_endpoints) as the table holds them, and of the endpoints after
// them computed afresh.
void rebuild_routes(Topology& t, int old_endpoints, bool up_down) {
  const auto hops = switch_hops(t);
  const size_t S = t.switches.size();
  const int E = t.num_endpoints();
  // Switches in order of decreasing level (up/down recursions).
  std::vector<int> by_level(S);
  for (size_t s = 0; s < S; ++s) by_level[s] = static_cast<int>(s);
  std::stable_sort(by_level.begin(), by_level.end(),
                   [&](int a, int b) { return t.switches[static_cast<size_t>(a)].level > t.switches[static_cast<size_t>(b)].level; });
  std::vector<std::vector<std::vector<uint16_t>>> sets(S, std::vector<std::vector<uint16_t>>(static_cast<size_t>(E)));
  for (size_t s = 0; s < S; ++s)
    for (int d = 0; d < old_endpoints; ++d) {
      const size_t i = s * static_cast<size_t>(old_endpoints) + static_cast<size_t>(d);
      sets[s][static_cast<size_t>(d)].assign(t.route_ports.begin() + t.route_begin[i], t.route_ports.begin() + t.route_begin[i + 1]);
    }
  size_t total = 0;  // route ports so far: bounded, since equal-cost choices multiply them
  for (int d = old_endpoints; d < E; ++d) {
    auto to_d = route_sets_to(t, hops, by_level, d, up_down);
    for (size_t s = 0; s < S; ++s) {
      total += to_d[s].size();
      sets[s][static_cast<size_t>(d)] = std::move(to_d[s]);
    }
    if (total > kMaxRoutePorts)
      throw TopologyError("topology: the routes to endpoints 0 .. " + std::to_string(d) + " already hold " +
                          std::to_string(total) + " output ports (equal-cost choices of every switch); expected at most " +
                          std::to_string(kMaxRoutePorts) + " in all (the limit of the route sets, doc/topology.md)");
  }
  t.route_begin.assign(1, 0);
  t.route_ports.clear();
  for (size_t s = 0; s < S; ++s)
    for (int d = 0; d < E; ++d) {
      const auto& set = sets[s][static_cast<size_t>(d)];
      t.route_ports.insert(t.route_ports.end(), set.begin(), set.end());
      t.route_begin.push_back(static_cast<uint32_t>(t.route_ports.size()));
    }
}

}  // namespace

void compute_routes(Topology& t, bool up_down) {
  t.up_down = up_down;
  t.route_begin.clear();
  t.route_ports.clear();
  rebuild_routes(t, 0, up_down);
}

int attach_endpoints(Topology& t, const std::vector<int>& at_switch, int latency_cycles, int credit_delay_cycles) {
  const int old = t.num_endpoints();
  for (int s : at_switch) {
    LinkSpec l;
    l.a = PortRef{false, t.num_endpoints(), 0};
    l.b = PortRef{true, s, t.switches.at(static_cast<size_t>(s)).ports++};
    l.latency_cycles = latency_cycles;
    l.credit_delay_cycles = credit_delay_cycles;
    l.gbytes_per_s = 0;  // one flit per cycle
    t.endpoints.push_back(EndpointSpec{1});
    t.links.push_back(l);
  }
  const std::vector<uint32_t> begin = t.route_begin;
  const std::vector<uint16_t> ports = t.route_ports;
  t.finish();
  t.route_begin = begin;
  t.route_ports = ports;
  if (t.route_begin.size() == t.switches.size() * static_cast<size_t>(old) + 1) rebuild_routes(t, old, t.up_down);
  return old;
}

void check_routes(const Topology& t) {
  const size_t S = t.switches.size();
  const int E = t.num_endpoints();
  if (t.route_begin.size() != S * static_cast<size_t>(E) + 1)
    throw TopologyError("topology: routes are missing (expected one set per switch and endpoint)");
  const std::vector<char> entry = t.entry_switches();
  for (int d = 0; d < E; ++d) {
    // 0 = unseen, 1 = on the current path, 2 = leads to d on every branch.
    std::vector<char> state(S, 0);
    std::vector<int> switches_to(S, 1);
    std::vector<std::pair<int, int>> stack;  // (switch, next route index)
    for (size_t start = 0; start < S; ++start) {
      if (!entry[start] || state[start]) continue;
      stack.emplace_back(static_cast<int>(start), 0);
      state[start] = 1;
      while (!stack.empty()) {
        auto& [s, i] = stack.back();
        const int n = t.route_count(s, d);
        if (n == 0)
          throw TopologyError("topology: switch " + std::to_string(s) + " has no route to endpoint " + std::to_string(d) +
                              " (every endpoint pair must be routable)");
        if (i == n) {
          // Every branch below is done: the most switches a route from here crosses to d.
          int most = 1;
          for (const uint16_t* r = t.routes_begin(s, d); r != t.routes_end(s, d); ++r) {
            const PortRef p = t.peer(PortRef{true, s, *r});
            if (p.is_switch) most = std::max(most, 1 + switches_to[static_cast<size_t>(p.id)]);
          }
          if (most > kMaxRouteSwitches)
            throw TopologyError("topology: a route from switch " + std::to_string(s) + " to endpoint " + std::to_string(d) +
                                " crosses " + std::to_string(most) + " switches; expected at most " +
                                std::to_string(kMaxRouteSwitches) + " (the limit of a route, doc/topology.md)");
          switches_to[static_cast<size_t>(s)] = most;
          state[static_cast<size_t>(s)] = 2;
          stack.pop_back();
          continue;
        }
        const int q = t.routes_begin(s, d)[i++];
        if (q >= t.switches[static_cast<size_t>(s)].ports)
          throw TopologyError("topology: switch " + std::to_string(s) + " routes endpoint " + std::to_string(d) +
                              " to port " + std::to_string(q) + ", which it does not have");
        const PortRef p = t.peer(PortRef{true, s, q});
        if (p == PortRef{true, s, q})
          throw TopologyError("topology: switch " + std::to_string(s) + " routes endpoint " + std::to_string(d) +
                              " to unconnected port " + std::to_string(q));
        if (!p.is_switch) {
          if (p.id != d)
            throw TopologyError("topology: switch " + std::to_string(s) + " routes endpoint " + std::to_string(d) +
                                " to port " + std::to_string(q) + ", which leads to endpoint " + std::to_string(p.id));
          continue;
        }
        const auto next = static_cast<size_t>(p.id);
        if (state[next] == 1)
          throw TopologyError("topology: the routes to endpoint " + std::to_string(d) + " loop through switch " +
                              std::to_string(p.id));
        if (state[next] == 0) {
          state[next] = 1;
          stack.emplace_back(p.id, 0);
        }
      }
    }
  }
}

}  // namespace upswitch::network
