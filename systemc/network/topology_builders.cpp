// The built-in topology kinds (topology.kind single, planes, two_tier) and the entry point that
// builds, routes and checks any topology. doc/topology.md.
#include <string>
#include <vector>

#include "network/topology.h"

namespace upswitch::network {
namespace {

[[noreturn]] void fail(const std::string& msg) { throw TopologyError(msg); }

LinkSpec endpoint_link(int e, int ep_port, int s, int sw_port, const LinkDefaults& d) {
  LinkSpec l;
  l.a = PortRef{false, e, ep_port};
  l.b = PortRef{true, s, sw_port};
  l.latency_cycles = d.latency_cycles;
  l.credit_delay_cycles = d.credit_delay_cycles;
  l.gbytes_per_s = d.gbytes_per_s;
  return l;
}

void check_radix(int ports, const std::string& what, const LinkDefaults& d) {
  if (ports > d.switch_radix)
    fail(what + " needs " + std::to_string(ports) + " ports per switch: expected at most switch.ports = " +
         std::to_string(d.switch_radix));
}

// Every endpoint one port on the single switch.
Topology single(const LinkDefaults& d) {
  Topology t;
  t.kind = TopologyKind::kSingle;
  t.name = "single " + std::to_string(d.switch_radix);
  t.switches.push_back(SwitchSpec{d.switch_radix, 0, 0});
  for (int e = 0; e < d.switch_radix; ++e) {
    t.endpoints.push_back(EndpointSpec{1});
    t.links.push_back(endpoint_link(e, 0, 0, e, d));
  }
  return t;
}

// "[5,4,4,5]", as the topology's name and errors spell topology.plane_links.
std::string list_text(const std::vector<int>& links) {
  std::string text;
  for (int l : links) text += (text.empty() ? "" : ",") + std::to_string(l);
  return "[" + text + "]";
}

// The links of every endpoint on plane s: topology.plane_links[s], or topology.links_per_plane on
// every plane when that list is empty. One line naming the key for a list that does not fit.
std::vector<int> links_on_planes(const TopologyParams& p, const LinkDefaults& d) {
  if (p.plane_links.empty()) {
    check_radix(p.endpoints * p.links_per_plane, "topology.kind = planes with topology.endpoints = " +
                    std::to_string(p.endpoints) + " and topology.links_per_plane = " + std::to_string(p.links_per_plane),
                d);
    return std::vector<int>(static_cast<size_t>(p.planes), p.links_per_plane);
  }
  const std::string text = "topology.plane_links = " + list_text(p.plane_links);
  if (p.links_per_plane != 1)
    fail(text + " with topology.links_per_plane = " + std::to_string(p.links_per_plane) +
         ": expected one of the two (the list gives the links on each plane)");
  if (static_cast<int>(p.plane_links.size()) != p.planes)
    fail(text + ": expected " + std::to_string(p.planes) + " entries, one per plane (topology.planes = " +
         std::to_string(p.planes) + "), or none for topology.links_per_plane links on every plane");
  for (size_t s = 0; s < p.plane_links.size(); ++s) {
    if (p.plane_links[s] < 1) fail(text + ": expected at least 1 link on every plane");
    check_radix(p.endpoints * p.plane_links[s],
                text + " with topology.endpoints = " + std::to_string(p.endpoints) + ": plane " + std::to_string(s), d);
  }
  return p.plane_links;
}

// P switches; endpoint e has L[s] ports on plane s: endpoint port first[s] + l (first[s] = the
// links on the planes before s) to switch s's port e*L[s] + l.
Topology planes(const TopologyParams& p, const LinkDefaults& d) {
  const int E = p.endpoints, P = p.planes;
  if (E < 2) fail("topology.endpoints = " + std::to_string(E) + " with topology.kind = planes: expected at least 2");
  const std::vector<int> L = links_on_planes(p, d);
  std::vector<int> first(static_cast<size_t>(P) + 1, 0);
  for (int s = 0; s < P; ++s) first[static_cast<size_t>(s) + 1] = first[static_cast<size_t>(s)] + L[static_cast<size_t>(s)];
  Topology t;
  t.kind = TopologyKind::kPlanes;
  if (!p.plane_links.empty())
    t.name = "planes " + std::to_string(P) + " x " + std::to_string(E) + " x " + list_text(p.plane_links) + " links";
  else
    t.name = "planes " + std::to_string(P) + " x " + std::to_string(E) +
             (L[0] > 1 ? " x " + std::to_string(L[0]) + " links" : "");
  for (int s = 0; s < P; ++s) t.switches.push_back(SwitchSpec{E * L[static_cast<size_t>(s)], s, 0});
  for (int e = 0; e < E; ++e) {
    t.endpoints.push_back(EndpointSpec{first[static_cast<size_t>(P)]});
    for (int s = 0; s < P; ++s)
      for (int l = 0; l < L[static_cast<size_t>(s)]; ++l)
        t.links.push_back(endpoint_link(e, first[static_cast<size_t>(s)] + l, s, e * L[static_cast<size_t>(s)] + l, d));
  }
  return t;
}

// Per plane a folded Clos: leaves (level 0) with n endpoints and U uplinks each, spread round
// robin over the spines (level 1). Switch ids plane-major, leaves then spines; endpoint port =
// plane.
Topology two_tier(const TopologyParams& p, const LinkDefaults& d) {
  const int Lf = p.leaves, n = p.endpoints_per_leaf, Sp = p.spines, U = p.uplinks_per_leaf, P = p.planes;
  if (Lf < 2 || n < 1 || Sp < 1 || U < 1)
    fail("topology.kind = two_tier: expected topology.leaves >= 2, topology.endpoints_per_leaf >= 1, topology.spines >= 1 "
         "and topology.uplinks_per_leaf >= 1 (got " + std::to_string(Lf) + ", " + std::to_string(n) + ", " +
         std::to_string(Sp) + ", " + std::to_string(U) + ")");
  if (U % Sp != 0)
    fail("topology.uplinks_per_leaf = " + std::to_string(U) + ": expected a multiple of topology.spines = " +
         std::to_string(Sp) + " (each leaf has as many links to every spine)");
  const int E = Lf * n;
  if (p.endpoints != 0 && p.endpoints != E)
    fail("topology.endpoints = " + std::to_string(p.endpoints) + " with topology.kind = two_tier: expected 0 or leaves x "
         "endpoints_per_leaf = " + std::to_string(E));
  check_radix(n + U, "a two_tier leaf (endpoints_per_leaf + uplinks_per_leaf)", d);
  const int spine_ports = Lf * U / Sp;
  check_radix(spine_ports, "a two_tier spine (leaves x uplinks_per_leaf / spines)", d);
  Topology t;
  t.kind = TopologyKind::kTwoTier;
  t.name = "two_tier " + std::to_string(P) + " x (" + std::to_string(Lf) + " leaves x " + std::to_string(n) + ", " +
           std::to_string(Sp) + " spines, " + std::to_string(U) + " uplinks)";
  for (int pl = 0; pl < P; ++pl) {
    for (int l = 0; l < Lf; ++l) t.switches.push_back(SwitchSpec{n + U, pl, 0});
    for (int s = 0; s < Sp; ++s) t.switches.push_back(SwitchSpec{spine_ports, pl, 1});
  }
  for (int e = 0; e < E; ++e) t.endpoints.push_back(EndpointSpec{P});
  for (int e = 0; e < E; ++e)
    for (int pl = 0; pl < P; ++pl) t.links.push_back(endpoint_link(e, pl, pl * (Lf + Sp) + e / n, e % n, d));
  for (int pl = 0; pl < P; ++pl) {
    const int base = pl * (Lf + Sp);
    std::vector<int> next_port(static_cast<size_t>(Sp), 0);
    for (int l = 0; l < Lf; ++l)
      for (int u = 0; u < U; ++u) {
        const int s = u % Sp;
        LinkSpec ls;
        ls.a = PortRef{true, base + l, n + u};
        ls.b = PortRef{true, base + Lf + s, next_port[static_cast<size_t>(s)]++};
        ls.latency_cycles = d.inter_switch_latency_cycles;
        ls.credit_delay_cycles = d.inter_switch_credit_delay_cycles;
        ls.gbytes_per_s = d.inter_switch_gbytes_per_s;
        t.links.push_back(ls);
      }
  }
  return t;
}

}  // namespace

Topology build_topology(const TopologyParams& params, const LinkDefaults& links) {
  Topology t;
  bool up_down = false;
  switch (params.kind) {
    case TopologyKind::kSingle: t = single(links); break;
    case TopologyKind::kPlanes: t = planes(params, links); break;
    case TopologyKind::kTwoTier:
      t = two_tier(params, links);
      up_down = true;
      break;
    case TopologyKind::kFile: t = parse_topology_file(params.file_text, params.file, links); break;
  }
  if (params.kind != TopologyKind::kFile) {
    t.finish();
    compute_routes(t, up_down);
  }
  try {
    check_routes(t);
    const std::string cycle = find_routing_cycle(t);
    if (!cycle.empty())
      throw TopologyError("routing can deadlock: " + cycle +
                          " (a cycle in the channel dependency graph; break it with up_down routing over switch levels "
                          "or a dateline link, doc/topology.md)");
  } catch (const TopologyError& e) {
    if (params.kind != TopologyKind::kFile) throw;
    // A file's routes: the error names the file and its routing line.
    std::string m = e.what();
    if (m.rfind("topology: ", 0) == 0) m = m.substr(10);
    throw TopologyError(params.file + ":" + std::to_string(t.file_routing_line > 0 ? t.file_routing_line : 1) +
                        ": " + (m.rfind("routing", 0) == 0 ? "" : "routing: ") + m);
  }
  return t;
}

}  // namespace upswitch::network
