#include "network/topology_metrics.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <sstream>

namespace upswitch::network {
namespace {

// Dinic's max-flow on a small directed graph.
class MaxFlow {
 public:
  explicit MaxFlow(int n) : adj_(static_cast<size_t>(n)), level_(static_cast<size_t>(n)), it_(static_cast<size_t>(n)) {}
  void add(int u, int v, double cap) {
    adj_[static_cast<size_t>(u)].push_back(static_cast<int>(e_.size()));
    e_.push_back({v, cap});
    adj_[static_cast<size_t>(v)].push_back(static_cast<int>(e_.size()));
    e_.push_back({u, 0});
  }
  double run(int s, int t) {
    double flow = 0;
    while (bfs(s, t)) {
      std::fill(it_.begin(), it_.end(), 0);
      while (const double f = dfs(s, t)) flow += f;
    }
    return flow;
  }

 private:
  struct Edge {
    int to;
    double cap;
  };
  bool bfs(int s, int t) {
    std::fill(level_.begin(), level_.end(), -1);
    std::deque<int> q{s};
    level_[static_cast<size_t>(s)] = 0;
    while (!q.empty()) {
      const int u = q.front();
      q.pop_front();
      for (int id : adj_[static_cast<size_t>(u)]) {
        const Edge& e = e_[static_cast<size_t>(id)];
        if (e.cap > 1e-12 && level_[static_cast<size_t>(e.to)] < 0) {
          level_[static_cast<size_t>(e.to)] = level_[static_cast<size_t>(u)] + 1;
          q.push_back(e.to);
        }
      }
    }
    return level_[static_cast<size_t>(t)] >= 0;
  }
  // One augmenting path of the level graph, found with an explicit stack of edges (not recursion),
  // keeping each node's current arc; the flow it carries, 0 when there is none.
  double dfs(int s, int t) {
    std::vector<int> path;
    int u = s;
    while (u != t) {
      size_t& i = it_[static_cast<size_t>(u)];
      const auto& out = adj_[static_cast<size_t>(u)];
      while (i < out.size()) {
        const Edge& e = e_[static_cast<size_t>(out[i])];
        if (e.cap > 1e-12 && level_[static_cast<size_t>(e.to)] == level_[static_cast<size_t>(u)] + 1) break;
        ++i;
      }
      if (i == out.size()) {  // a dead end: back to the previous node, past this arc
        if (path.empty()) return 0;
        const int id = path.back();
        path.pop_back();
        u = e_[static_cast<size_t>(id ^ 1)].to;
        ++it_[static_cast<size_t>(u)];
        continue;
      }
      path.push_back(out[i]);
      u = e_[static_cast<size_t>(out[i])].to;
    }
    double f = std::numeric_limits<double>::infinity();
    for (int id : path) f = std::min(f, e_[static_cast<size_t>(id)].cap);
    for (int id : path) {
      e_[static_cast<size_t>(id)].cap -= f;
      e_[static_cast<size_t>(id ^ 1)].cap += f;
    }
    return f;
  }
  std::vector<std::vector<int>> adj_;
  std::vector<Edge> e_;
  std::vector<int> level_;
  std::vector<size_t> it_;
};

}  // namespace

bool two_level_clos(const Topology& t) {
  if (t.kind == TopologyKind::kTwoTier) return true;
  if (t.kind != TopologyKind::kFile) return false;
  const size_t S = t.switches.size();
  std::vector<char> has_accel(S, 0);
  for (const LinkSpec& l : t.links)
    for (const auto& [end, other] : {std::pair{l.a, l.b}, std::pair{l.b, l.a}})
      if (end.is_switch && !other.is_switch) has_accel[static_cast<size_t>(end.id)] = 1;
  std::vector<int> spines;
  for (size_t s = 0; s < S; ++s) {
    const int level = t.switches[s].level;
    if (level != 0 && level != 1) return false;
    if (level == 1 && has_accel[s]) return false;
    if (level == 1) spines.push_back(static_cast<int>(s));
  }
  if (spines.empty()) return false;
  for (size_t s = 0; s < S; ++s) {
    if (!has_accel[s]) continue;
    for (int sp : spines) {
      const bool linked = std::any_of(t.links.begin(), t.links.end(), [&](const LinkSpec& l) {
        return l.a.is_switch && l.b.is_switch &&
               ((l.a.id == static_cast<int>(s) && l.b.id == sp) || (l.b.id == static_cast<int>(s) && l.a.id == sp));
      });
      if (!linked) return false;
    }
  }
  return true;
}

TopologyMetrics measure_topology(const Topology& t, double flit_gbytes_per_s) {
  TopologyMetrics m;
  m.switches = t.num_switches();
  m.endpoints = t.num_endpoints();
  m.links = static_cast<int>(t.links.size());
  for (const LinkSpec& l : t.links) m.inter_switch_links += l.inter_switch() ? 1 : 0;
  if (m.endpoints == 0) return m;
  for (int k = 0; k < t.endpoints[0].ports; ++k)
    m.endpoint_gbytes_per_s += t.links[static_cast<size_t>(t.endpoint_port_link[0][static_cast<size_t>(k)])].rate_gbytes_per_s(flit_gbytes_per_s);

  // Bisection: nodes = switches, endpoints, source, sink; each link both ways at its rate.
  const int S = m.switches, E = m.endpoints, src = S + E, sink = S + E + 1;
  MaxFlow mf(S + E + 2);
  auto node = [&](const PortRef& r) { return r.is_switch ? r.id : S + r.id; };
  for (const LinkSpec& l : t.links) {
    const double c = l.rate_gbytes_per_s(flit_gbytes_per_s);
    mf.add(node(l.a), node(l.b), c);
    mf.add(node(l.b), node(l.a), c);
  }
  const double inf = 1e18;
  for (int e = 0; e < E; ++e) {
    if (e < E / 2)
      mf.add(src, S + e, inf);
    else
      mf.add(S + e, sink, inf);
  }
  m.bisection_gbytes_per_s = mf.run(src, sink);

  // Diameter over the routes: the longest path (in switches) from an injection switch to an endpoint.
  int diameter = 0;
  const std::vector<char> entry = t.entry_switches();
  for (int d = 0; d < E; ++d) {
    std::vector<int> depth(static_cast<size_t>(S), -1);  // switches from here to d, memoised
    std::vector<char> busy(static_cast<size_t>(S), 0);
    // An explicit stack, not recursion: (switch, next route index, longest so far).
    struct Frame {
      int s;
      const uint16_t* q;
      int best;
    };
    std::vector<Frame> stack;
    auto walk = [&](int root) -> int {
      if (depth[static_cast<size_t>(root)] >= 0) return depth[static_cast<size_t>(root)];
      busy[static_cast<size_t>(root)] = 1;
      stack.push_back({root, t.routes_begin(root, d), 1});
      int result = 0;
      while (!stack.empty()) {
        Frame& f = stack.back();
        if (f.q == t.routes_end(f.s, d)) {
          busy[static_cast<size_t>(f.s)] = 0;
          result = depth[static_cast<size_t>(f.s)] = f.best;
          stack.pop_back();
          if (!stack.empty()) stack.back().best = std::max(stack.back().best, 1 + result);
          continue;
        }
        const PortRef p = t.peer(PortRef{true, f.s, *f.q++});
        if (!p.is_switch) continue;
        const auto n = static_cast<size_t>(p.id);
        if (depth[n] >= 0) {
          f.best = std::max(f.best, 1 + depth[n]);
        } else if (busy[n]) {
          f.best = std::max(f.best, 1);  // a loop: check_routes refuses those
        } else {
          busy[n] = 1;
          stack.push_back({p.id, t.routes_begin(p.id, d), 1});
        }
      }
      return result;
    };
    for (int s = 0; s < S; ++s)
      if (entry[static_cast<size_t>(s)]) diameter = std::max(diameter, walk(s));
  }
  m.diameter = diameter;
  return m;
}

std::string topology_dot(const Topology& t) {
  std::ostringstream o;
  o << "graph upswitch {\n  // " << t.name << "\n  node [fontname=\"Helvetica\"];\n";
  for (int s = 0; s < t.num_switches(); ++s) {
    const SwitchSpec& sp = t.switches[static_cast<size_t>(s)];
    o << "  sw" << s << " [shape=box, label=\"sw" << s << "\\n" << sp.ports << " ports";
    if (t.kind == TopologyKind::kPlanes || t.kind == TopologyKind::kTwoTier) o << ", plane " << sp.plane;
    if (sp.level >= 0 && t.kind != TopologyKind::kSingle && t.kind != TopologyKind::kPlanes) o << ", level " << sp.level;
    o << "\"];\n";
  }
  for (int e = 0; e < t.num_endpoints(); ++e) o << "  ep" << e << " [shape=ellipse];\n";
  for (const LinkSpec& l : t.links) {
    auto n = [](const PortRef& r) { return std::string(r.is_switch ? "sw" : "ep") + std::to_string(r.id); };
    o << "  " << n(l.a) << " -- " << n(l.b) << " [taillabel=\"" << l.a.port << "\", headlabel=\"" << l.b.port << "\"";
    if (l.dateline) o << ", style=dashed, label=\"dateline\"";
    o << "];\n";
  }
  o << "}\n";
  return o.str();
}

}  // namespace upswitch::network
