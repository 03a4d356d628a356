// The topology layer (issue 18): builders, routes, the route and deadlock checks, the metrics and
// the file format, each against counts, route sets, cuts and cycles worked out by hand.
#include <gtest/gtest.h>

#include <dirent.h>

#include <fstream>
#include <sstream>

#include "network/topology.h"
#include "network/topology_metrics.h"
#include "topology_links.h"

namespace upswitch::network {
namespace {

LinkDefaults links(int radix = 64) { return test_links(radix); }

std::vector<int> routes(const Topology& t, int s, int d) { return {t.routes_begin(s, d), t.routes_end(s, d)}; }

std::string error_of(const TopologyParams& p, const LinkDefaults& d = links()) {
  try {
    build_topology(p, d);
  } catch (const TopologyError& e) {
    return e.what();
  }
  return "";
}

std::string file_error(const std::string& text) {
  TopologyParams p;
  p.kind = TopologyKind::kFile;
  p.file = "t.yaml";
  p.file_text = text;
  return error_of(p);
}

TopologyParams two_tier(int leaves, int per_leaf, int spines, int uplinks, int planes = 1) {
  TopologyParams p;
  p.kind = TopologyKind::kTwoTier;
  p.leaves = leaves;
  p.endpoints_per_leaf = per_leaf;
  p.spines = spines;
  p.uplinks_per_leaf = uplinks;
  p.planes = planes;
  return p;
}

constexpr double kFlit = 102.4;  // GB/s of a one-flit-per-cycle link

TEST(Topology, SingleIsOneSwitchWithOnePortPerEndpoint) {
  const Topology t = build_topology(TopologyParams{}, links(8));
  EXPECT_EQ(t.num_switches(), 1);
  EXPECT_EQ(t.num_endpoints(), 8);
  EXPECT_EQ(t.endpoint_ports(), 8);
  for (int d = 0; d < 8; ++d) EXPECT_EQ(routes(t, 0, d), std::vector<int>{d});
  const TopologyMetrics m = measure_topology(t, kFlit);
  EXPECT_DOUBLE_EQ(m.bisection_gbytes_per_s, 4 * 50.0);  // N/2 links cut
  EXPECT_EQ(m.diameter, 1);
}

TEST(Topology, PlanesGiveEveryEndpointAPortOnEveryPlane) {
  TopologyParams p;
  p.kind = TopologyKind::kPlanes;
  p.endpoints = 6;
  p.planes = 3;
  p.links_per_plane = 2;
  const Topology t = build_topology(p, links(12));
  EXPECT_EQ(t.num_switches(), 3);
  EXPECT_EQ(t.links.size(), 6u * 3 * 2);
  EXPECT_EQ(t.endpoint_ports(), 6 * 6);
  // Endpoint 4's ports on plane 2 are its ports 4 and 5, at switch 2's ports 8 and 9.
  EXPECT_EQ(t.peer(PortRef{false, 4, 5}), (PortRef{true, 2, 9}));
  EXPECT_EQ(routes(t, 2, 4), (std::vector<int>{8, 9}));
  const TopologyMetrics m = measure_topology(t, kFlit);
  EXPECT_DOUBLE_EQ(m.endpoint_gbytes_per_s, 6 * 50.0);
  EXPECT_DOUBLE_EQ(m.bisection_gbytes_per_s, 3 * 6 * 50.0);  // 3 endpoints x 6 links each
  EXPECT_EQ(m.diameter, 1);
  p.endpoints = 7;  // 14 ports > 12
  EXPECT_NE(error_of(p, links(12)).find("needs 14 ports per switch: expected at most switch.ports = 12"), std::string::npos);
}

// DGX H100 wiring (topology.plane_links): 8 endpoints with 5, 4, 4 and 5 links on the 4 planes.
// Counted from the built links: each endpoint has that many links to each switch, ports numbered
// plane by plane, and each switch has endpoints x its plane's links ports.
TEST(Topology, PlaneLinksGiveEachPlaneItsOwnWidth) {
  TopologyParams p;
  p.kind = TopologyKind::kPlanes;
  p.endpoints = 8;
  p.planes = 4;
  p.plane_links = {5, 4, 4, 5};
  const Topology t = build_topology(p, links(64));
  EXPECT_EQ(t.name, "planes 4 x 8 x [5,4,4,5] links");
  ASSERT_EQ(t.num_switches(), 4);
  EXPECT_EQ(t.endpoint_ports(), 8 * 18);
  std::vector<std::vector<int>> count(4, std::vector<int>(8, 0));  // [switch][endpoint]
  for (const LinkSpec& l : t.links) {
    ASSERT_FALSE(l.inter_switch());
    ++count[static_cast<size_t>(l.b.id)][static_cast<size_t>(l.a.id)];
  }
  const std::vector<int> want = {5, 4, 4, 5};
  for (int s = 0; s < 4; ++s) {
    EXPECT_EQ(t.switches[static_cast<size_t>(s)].ports, 8 * want[static_cast<size_t>(s)]) << "switch " << s;
    for (int e = 0; e < 8; ++e) EXPECT_EQ(count[static_cast<size_t>(s)][static_cast<size_t>(e)], want[static_cast<size_t>(s)]);
  }
  // Endpoint 3's links to plane 1 are its ports 5 .. 8 (after plane 0's 5), at switch 1's ports
  // 12 .. 15, and switch 1 routes endpoint 3 over all four.
  EXPECT_EQ(t.peer(PortRef{false, 3, 4}), (PortRef{true, 0, 19}));
  EXPECT_EQ(t.peer(PortRef{false, 3, 5}), (PortRef{true, 1, 12}));
  EXPECT_EQ(t.peer(PortRef{false, 3, 17}), (PortRef{true, 3, 19}));
  EXPECT_EQ(routes(t, 1, 3), (std::vector<int>{12, 13, 14, 15}));
  EXPECT_EQ(routes(t, 3, 3), (std::vector<int>{15, 16, 17, 18, 19}));
  const TopologyMetrics m = measure_topology(t, kFlit);
  EXPECT_DOUBLE_EQ(m.endpoint_gbytes_per_s, 18 * 50.0);
  EXPECT_DOUBLE_EQ(m.bisection_gbytes_per_s, 4 * 18 * 50.0);  // 4 endpoints x 18 links each
  EXPECT_EQ(m.diameter, 1);
  // The same list everywhere is the uniform wiring, port for port.
  TopologyParams even = p, uniform = p;
  even.plane_links = {2, 2, 2, 2};
  uniform.plane_links.clear();
  uniform.links_per_plane = 2;
  const Topology a = build_topology(even, links(64)), b = build_topology(uniform, links(64));
  ASSERT_EQ(a.links.size(), b.links.size());
  for (size_t i = 0; i < a.links.size(); ++i) {
    EXPECT_EQ(a.links[i].a, b.links[i].a);
    EXPECT_EQ(a.links[i].b, b.links[i].b);
  }
  EXPECT_EQ(a.route_ports, b.route_ports);
}

TEST(Topology, PlaneLinksThatDoNotFitAreRefusedNamingTheKey) {
  TopologyParams p;
  p.kind = TopologyKind::kPlanes;
  p.endpoints = 8;
  p.planes = 4;
  p.plane_links = {5, 4, 4};
  EXPECT_NE(error_of(p).find("topology.plane_links = [5,4,4]: expected 4 entries, one per plane (topology.planes = 4)"),
            std::string::npos) << error_of(p);
  p.plane_links = {5, 0, 4, 5};
  EXPECT_NE(error_of(p).find("topology.plane_links = [5,0,4,5]: expected at least 1 link on every plane"),
            std::string::npos) << error_of(p);
  p.plane_links = {5, 4, 4, 9};
  EXPECT_NE(error_of(p).find("topology.plane_links = [5,4,4,9] with topology.endpoints = 8: plane 3 needs 72 ports per "
                             "switch: expected at most switch.ports = 64"),
            std::string::npos) << error_of(p);
  p.plane_links = {5, 4, 4, 5};
  p.links_per_plane = 2;
  EXPECT_NE(error_of(p).find("topology.plane_links = [5,4,4,5] with topology.links_per_plane = 2"), std::string::npos)
      << error_of(p);
}

TEST(Topology, TwoTierRoutesUpThenDownOverEverySpine) {
  // 4 leaves of 4 endpoints, 2 spines, 2 uplinks per leaf (one to each spine): a 2:1 taper.
  const Topology t = build_topology(two_tier(4, 4, 2, 2), links(16));
  ASSERT_EQ(t.num_switches(), 6);  // leaves 0..3, spines 4..5
  EXPECT_EQ(t.switches[4].level, 1);
  EXPECT_EQ(t.switches[4].ports, 4);
  EXPECT_EQ(routes(t, 0, 2), std::vector<int>{2});          // local: its own port
  EXPECT_EQ(routes(t, 0, 9), (std::vector<int>{4, 5}));     // remote: both uplinks
  EXPECT_EQ(routes(t, 4, 9), std::vector<int>{2});          // spine 0: its port to leaf 2
  EXPECT_EQ(routes(t, 5, 13), std::vector<int>{3});         // spine 1: its port to leaf 3
  const TopologyMetrics m = measure_topology(t, kFlit);
  // Cut between leaves {0,1} and {2,3}: their 2 x 2 uplinks (200 GB/s) < 8 endpoint links (400).
  EXPECT_DOUBLE_EQ(m.bisection_gbytes_per_s, 2 * 2 * 50.0);
  EXPECT_EQ(m.diameter, 3);
  EXPECT_EQ(m.inter_switch_links, 8);
  // Planes multiply it.
  EXPECT_DOUBLE_EQ(measure_topology(build_topology(two_tier(4, 4, 2, 2, 3), links(16)), kFlit).bisection_gbytes_per_s,
                   3 * 200.0);
  EXPECT_NE(error_of(two_tier(4, 4, 3, 2)).find("uplinks_per_leaf = 2: expected a multiple of topology.spines = 3"),
            std::string::npos);
}

const char* kRing = R"(switches:
  - {id: 0, ports: 3}
  - {id: 1, ports: 3}
  - {id: 2, ports: 3}
  - {id: 3, ports: 3}
endpoints:
  - {id: 0, ports: 1}
  - {id: 1, ports: 1}
  - {id: 2, ports: 1}
  - {id: 3, ports: 1}
links:
  - [endpoint 0:0, switch 0:0]
  - [endpoint 1:0, switch 1:0]
  - [endpoint 2:0, switch 2:0]
  - [endpoint 3:0, switch 3:0]
  - [switch 0:1, switch 1:2]
  - [switch 1:1, switch 2:2]
  - [switch 2:1, switch 3:2]
  - [switch 3:1, switch 0:2LAST]
routing: ROUTING
)";

std::string ring(const std::string& last, const std::string& routing) {
  std::string s = kRing;
  s.replace(s.find("LAST"), 4, last);
  s.replace(s.find("ROUTING"), 7, routing);
  return s;
}

TEST(Topology, ARingWithOneVcClassIsRefusedAndADatelineMakesItSafe) {
  EXPECT_EQ(file_error(ring("", "shortest_path")),
            "t.yaml:20: routing can deadlock: sw0.p1 -> sw1.p1 -> sw2.p1 -> sw3.p1 -> sw0.p1 (a cycle in the channel dependency "
            "graph; break it with up_down routing over switch levels or a dateline link, doc/topology.md)");
  // All clockwise by tables: the same cycle.
  const std::string clockwise =
      "{tables: {0: {0: [0], 1: [1], 2: [1], 3: [1]}, 1: {0: [1], 1: [0], 2: [1], 3: [1]}, "
      "2: {0: [1], 1: [1], 2: [0], 3: [1]}, 3: {0: [1], 1: [1], 2: [1], 3: [0]}}}";
  EXPECT_NE(file_error(ring("", clockwise)).find("routing can deadlock: sw0.p1 -> sw1.p1 -> sw2.p1 -> sw3.p1 -> sw0.p1"),
            std::string::npos);
  EXPECT_EQ(file_error(ring(", {dateline: true}", "shortest_path")), "");
  EXPECT_EQ(file_error(ring(", {dateline: true}", clockwise)), "");
  // A ring of three with shortest paths never goes two hops: no dependency chains, no cycle.
  TopologyParams p;
  p.kind = TopologyKind::kFile;
  p.file_text = ring(", {dateline: true}", "shortest_path");
  EXPECT_EQ(build_topology(p, links()).vc_classes, 2);
}

TEST(Topology, FileErrorsAreOneLineNamingTheItem) {
  const std::string base = ring(", {dateline: true}", "shortest_path");
  auto with = [&](const std::string& from, const std::string& to) {
    std::string s = base;
    s.replace(s.find(from), from.size(), to);
    return file_error(s);
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {with("[switch 1:1, switch 2:2]", "[switch 7:1, switch 2:2]"),
       "t.yaml:17: links[5]: unknown switch 7 (switches are 0 .. 3)"},
      {with("[switch 1:1, switch 2:2]", "[switch 1:2, switch 2:2]"), "t.yaml:17: links[5]: port sw1.p2 is used by two links (links[4] at line 16 and this one)"},
      {with("[switch 1:1, switch 2:2]", "[endpoint 1:0, endpoint 2:0]"), "joins two endpoints"},
      {with("  - {id: 3, ports: 3}", "  - {id: 3, ports: 3, colour: red}"), "switches[3]: unknown key 'colour'"},
      {with("  - [endpoint 3:0, switch 3:0]\n", ""), "port ep3.p0 is not connected"},
      {with("routing: shortest_path", "routing: [1, 2"), "not valid YAML"},
      {with("routing: shortest_path", "routing: sideways"), "routing: expected shortest_path, up_down, or {tables"},
      {with("{id: 2, ports: 1}", "{id: 1, ports: 1}"), "endpoints[2]: id 1 given twice"},
  };
  for (const auto& [got, want] : cases) {
    EXPECT_NE(got.find(want), std::string::npos) << got;
    EXPECT_EQ(got.find('\n'), std::string::npos) << got;
  }
  // An endpoint no route reaches: two switches not joined.
  const std::string split =
      "switches: [{id: 0, ports: 1}, {id: 1, ports: 1}]\nendpoints: [{id: 0, ports: 1}, {id: 1, ports: 1}]\n"
      "links: [[endpoint 0:0, switch 0:0], [endpoint 1:0, switch 1:0]]\n";
  EXPECT_NE(file_error(split).find("switch 1 has no route to endpoint 0 (every endpoint pair must be routable)"),
            std::string::npos);
}

// Issue 58 item 6: a file describing a network that cannot work is refused naming FILE:LINE.
TEST(Topology, FileErrorsNameTheLineOfTheItem) {
  const std::string base = ring(", {dateline: true}", "shortest_path");
  auto with = [&](const std::string& from, const std::string& to) {
    std::string s = base;
    s.replace(s.find(from), from.size(), to);
    return file_error(s);
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {with("[switch 1:1, switch 2:2]", "[switch 1:1, switch 1:1]"),
       "t.yaml:17: links[5]: a link from port sw1.p1 to itself; expected two different ports"},
      {with("[switch 1:1, switch 2:2]", "[switch 1:1, switch 2:3]"),
       "t.yaml:17: links[5]: port sw2.p3 does not exist (switch 2 has ports 0 .. 2)"},
      {with("[switch 1:1, switch 2:2]", "[switch 1:1]"), "t.yaml:17: links[5]: expected [END, END]"},
      {with("  - {id: 2, ports: 3}", "  - {id: 2, ports: 4}"), "t.yaml:4: switches[2]: port sw2.p3 is not connected"},
      {with("  - {id: 3, ports: 1}", "  - {id: 3, ports: 2}"), "t.yaml:10: endpoints[3]: port ep3.p1 is not connected"},
      {with("[endpoint 2:0, switch 2:0]", "[endpoint 2:0, switch 2:0, {latency_cycles: .nan}]"),
       "t.yaml:14: links[2]: latency_cycles: '.nan': expected an integer 1 .. 1000000"},
      {with("[endpoint 2:0, switch 2:0]", "[endpoint 2:0, switch 2:0, {gbytes_per_s: -1}]"),
       "t.yaml:14: links[2]: gbytes_per_s: '-1': expected a number"},
      {with("[endpoint 2:0, switch 2:0]", "[endpoint 2:0, switch 2:0, {gbytes_per_s: .inf}]"),
       "t.yaml:14: links[2]: gbytes_per_s: '.inf': expected a number"},
      {with("routing: shortest_path", "routing: [1, 2"), "t.yaml:"},
  };
  for (const auto& [got, want] : cases) {
    EXPECT_EQ(got.rfind(want, 0), 0u) << got << "\nwant: " << want;
    EXPECT_EQ(got.find('\n'), std::string::npos) << got;
  }
  // Unreachable endpoints: the routing line (the last line when the file has no routing key).
  const std::string split =
      "switches: [{id: 0, ports: 1}, {id: 1, ports: 1}]\nendpoints: [{id: 0, ports: 1}, {id: 1, ports: 1}]\n"
      "links: [[endpoint 0:0, switch 0:0], [endpoint 1:0, switch 1:0]]\nrouting: shortest_path\n";
  EXPECT_EQ(file_error(split).rfind("t.yaml:4: routing: switch 1 has no route to endpoint 0", 0), 0u) << file_error(split);
}

// n switches in a line, an endpoint at each end.
std::string chain(int n) {
  std::string s = "switches:\n";
  for (int i = 0; i < n; ++i) s += "  - {id: " + std::to_string(i) + ", ports: 2}\n";
  s += "endpoints:\n  - {id: 0, ports: 1}\n  - {id: 1, ports: 1}\nlinks:\n  - [endpoint 0:0, switch 0:0]\n";
  s += "  - [endpoint 1:0, switch " + std::to_string(n - 1) + ":1]\n";
  for (int i = 0; i + 1 < n; ++i) s += "  - [switch " + std::to_string(i) + ":1, switch " + std::to_string(i + 1) + ":0]\n";
  return s + "routing: shortest_path\n";
}

TEST(Topology, FileLimitsBoundSwitchesEndpointsRouteSetsAndRouteLength) {
  TopologyParams p;
  p.kind = TopologyKind::kFile;
  p.file = "t.yaml";
  p.file_text = chain(64);
  const Topology t = build_topology(p, links());
  EXPECT_EQ(measure_topology(t, kFlit).diameter, 64);
  EXPECT_NE(file_error(chain(65)).find("routing: a route from switch 64 to endpoint 0 crosses 65 switches; expected at most 64"),
            std::string::npos)
      << file_error(chain(65));
  EXPECT_EQ(file_error(chain(4097)).rfind("t.yaml:2: switches: 4097 items: expected at most 4096", 0), 0u);
  // 2,048 switches x 2,049 endpoints > 2^22 route sets.
  std::string wide = "switches:\n";
  for (int i = 0; i < 2048; ++i) wide += "  - {id: " + std::to_string(i) + ", ports: 1}\n";
  wide += "endpoints:\n";
  for (int i = 0; i < 2049; ++i) wide += "  - {id: " + std::to_string(i) + ", ports: 1}\n";
  wide += "links: [[endpoint 0:0, switch 0:0]]\n";
  EXPECT_NE(file_error(wide).find("2048 switches x 2049 endpoints: expected at most 4194304 route sets"), std::string::npos)
      << file_error(wide);
}

TEST(Topology, DotNamesEverySwitchEndpointAndLink) {
  const Topology t = build_topology(two_tier(2, 2, 2, 2), links(8));
  const std::string dot = topology_dot(t);
  for (int s = 0; s < t.num_switches(); ++s) EXPECT_NE(dot.find("  sw" + std::to_string(s) + " [shape=box"), std::string::npos);
  for (int e = 0; e < t.num_endpoints(); ++e) EXPECT_NE(dot.find("  ep" + std::to_string(e) + " [shape=ellipse"), std::string::npos);
  size_t edges = 0;
  for (size_t at = dot.find(" -- "); at != std::string::npos; at = dot.find(" -- ", at + 1)) ++edges;
  EXPECT_EQ(edges, t.links.size());
}

TEST(Topology, TheExampleFilesBuildOrAreRefusedAsTheirCommentsSay) {
  const std::string dir = std::string(UPSWITCH_SOURCE_DIR) + "/configs/topologies/";
  DIR* d = opendir(dir.c_str());
  ASSERT_NE(d, nullptr);
  int files = 0;
  while (dirent* ent = readdir(d)) {
    const std::string name = ent->d_name;
    if (name.size() < 5 || name.substr(name.size() - 5) != ".yaml") continue;
    ++files;
    std::ifstream in(dir + name);
    std::stringstream ss;
    ss << in.rdbuf();
    TopologyParams p;
    p.kind = TopologyKind::kFile;
    p.file = name;
    p.file_text = ss.str();
    const std::string err = error_of(p, links(8));
    if (ss.str().find("# REFUSED") != std::string::npos)
      EXPECT_NE(err.find("routing can deadlock"), std::string::npos) << name;
    else
      EXPECT_EQ(err, "") << name;
  }
  closedir(d);
  EXPECT_GE(files, 4);
}

}  // namespace
}  // namespace upswitch::network
