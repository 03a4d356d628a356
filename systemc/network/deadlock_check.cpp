// The deadlock check of a topology's routing (Dally and Seitz): the channel dependency graph has
// one node per switch-to-switch channel and VC class, and an edge c -> c' when a packet holding c
// may wait for c' next (c' is a route of the switch c leads to, towards a destination some
// packet on c is heading for). Wormhole routing with credit flow control cannot deadlock when
// that graph has no cycle. Datelines split the VCs into two classes: a packet moves to the upper
// class on a dateline link and stays there, which breaks the cycle of a ring. doc/topology.md.
#include <algorithm>

#include "network/topology.h"

namespace upswitch::network {

std::string find_routing_cycle(const Topology& t, const std::vector<uint32_t>* next_begin,
                               const std::vector<uint16_t>* next_ports) {
  const size_t S = t.switches.size();
  const int E = t.num_endpoints();
  const int K = std::max(1, t.vc_classes);
  // Channels: switch output ports that lead to another switch.
  std::vector<std::vector<int>> channel_of(S);  // [switch][port] -> channel id or -1
  std::vector<PortRef> channel_port;
  std::vector<int> channel_to;
  std::vector<char> channel_dateline;
  for (size_t s = 0; s < S; ++s) {
    channel_of[s].assign(static_cast<size_t>(t.switches[s].ports), -1);
    for (int q = 0; q < t.switches[s].ports; ++q) {
      const PortRef here{true, static_cast<int>(s), q};
      const PortRef p = t.peer(here);
      if (!p.is_switch || p == here) continue;
      channel_of[s][static_cast<size_t>(q)] = static_cast<int>(channel_port.size());
      channel_port.push_back(here);
      channel_to.push_back(p.id);
      const int l = t.switch_port_link[s][static_cast<size_t>(q)];
      channel_dateline.push_back(t.links[static_cast<size_t>(l)].dateline ? 1 : 0);
    }
  }
  const size_t C = channel_port.size();
  if (C == 0) return "";
  std::vector<std::vector<int>> edges(C * static_cast<size_t>(K));
  // Per destination: walk from every switch an endpoint injects into, over (channel, class).
  const std::vector<char> entry = t.entry_switches();
  // A walk state is (channel, class, phase): phase 0 routed by `t` so far, phase 1 by the new
  // routes since (a packet routed the old way before the change takes the new way after it).
  const bool change = next_begin && next_ports;
  std::vector<char> seen(C * static_cast<size_t>(K) * 2);
  std::vector<int> work;
  for (int d = 0; d < E; ++d) {
    std::fill(seen.begin(), seen.end(), 0);
    work.clear();
    auto follow = [&](int from_node, int s, int cls, int phase, const uint16_t* q, const uint16_t* end) {
      for (; q != end; ++q) {
        const int c = channel_of[static_cast<size_t>(s)][*q];
        if (c < 0) continue;  // to an endpoint: the packet leaves the network
        const int k = std::min(K - 1, std::max(cls, static_cast<int>(channel_dateline[static_cast<size_t>(c)])));
        const int node = c * K + k;
        if (from_node >= 0) edges[static_cast<size_t>(from_node)].push_back(node);
        const int state = node * 2 + phase;
        if (!seen[static_cast<size_t>(state)]) {
          seen[static_cast<size_t>(state)] = 1;
          work.push_back(state);
        }
      }
    };
    // Routes of switch s towards d, from a packet in class cls.
    auto step = [&](int from_node, int s, int cls, int phase) {
      if (phase == 0) follow(from_node, s, cls, 0, t.routes_begin(s, d), t.routes_end(s, d));
      if (change) {
        const size_t i = static_cast<size_t>(s) * static_cast<size_t>(E) + static_cast<size_t>(d);
        const uint16_t* base = next_ports->data();
        follow(from_node, s, cls, 1, base + (*next_begin)[i], base + (*next_begin)[i + 1]);
      }
    };
    for (size_t s = 0; s < S; ++s)
      if (entry[s]) step(-1, static_cast<int>(s), 0, 0);
    while (!work.empty()) {
      const int state = work.back();
      work.pop_back();
      const int node = state / 2;
      step(node, channel_to[static_cast<size_t>(node / K)], node % K, state % 2);
    }
  }
  for (auto& e : edges) {
    std::sort(e.begin(), e.end());
    e.erase(std::unique(e.begin(), e.end()), e.end());
  }
  // Iterative DFS; the first back edge found closes a cycle, reported from its first channel.
  const size_t N = edges.size();
  std::vector<char> color(N, 0);
  std::vector<int> parent(N, -1);
  std::vector<std::pair<int, size_t>> stack;
  for (size_t root = 0; root < N; ++root) {
    if (color[root]) continue;
    stack.emplace_back(static_cast<int>(root), 0);
    color[root] = 1;
    while (!stack.empty()) {
      auto& [v, i] = stack.back();
      const auto& out = edges[static_cast<size_t>(v)];
      if (i == out.size()) {
        color[static_cast<size_t>(v)] = 2;
        stack.pop_back();
        continue;
      }
      const int w = out[i++];
      if (color[static_cast<size_t>(w)] == 0) {
        color[static_cast<size_t>(w)] = 1;
        parent[static_cast<size_t>(w)] = v;
        stack.emplace_back(w, 0);
      } else if (color[static_cast<size_t>(w)] == 1) {
        std::vector<int> cycle{w};
        for (int x = v; x != w; x = parent[static_cast<size_t>(x)]) cycle.push_back(x);
        std::reverse(cycle.begin() + 1, cycle.end());
        std::string text;
        for (int x : cycle) {
          text += channel_port[static_cast<size_t>(x / K)].name() + (K > 1 ? "/c" + std::to_string(x % K) : "") + " -> ";
        }
        return text + channel_port[static_cast<size_t>(w / K)].name() + (K > 1 ? "/c" + std::to_string(w % K) : "");
      }
    }
  }
  return "";
}

}  // namespace upswitch::network
