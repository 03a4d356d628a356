// Routing around links between switches while they are down (network/reroute.h): the route sets
// every switch takes, worked out by hand on a two-tier fabric and a ring, the return to the
// starting routes when the link comes back, a file's tables filtered, and a change refused when
// packets routed the old way could wait on each other in a cycle once the new routes apply.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "network/reroute.h"
#include "topology_links.h"

namespace upswitch::network {
namespace {

LinkDefaults links() { return test_links(8); }

// Switch s's routes to endpoint d in a change.
std::vector<int> set_of(const Topology& t, const RouteChange& c, int s, int d) {
  const size_t i = static_cast<size_t>(s) * static_cast<size_t>(t.num_endpoints()) + static_cast<size_t>(d);
  return {c.route_ports.begin() + c.route_begin[i], c.route_ports.begin() + c.route_begin[i + 1]};
}

std::vector<std::vector<core::DownInterval>> down_at(const Topology& t, int link, uint64_t b, uint64_t e) {
  std::vector<std::vector<core::DownInterval>> d(t.links.size());
  d[static_cast<size_t>(link)].push_back(core::DownInterval{b, e});
  return d;
}

// Two leaves of four endpoints (ports 0-3, uplinks 4 and 5), spines 2 and 3. Leaf 0's link to
// spine 2 (sw0.p4) is down from cycle 100 to 1000.
TEST(Reroute, TwoTierLeavesAvoidTheSpineThatLostItsLinkToTheDestinationLeaf) {
  TopologyParams p;
  p.kind = TopologyKind::kTwoTier;
  p.leaves = 2;
  p.endpoints_per_leaf = 4;
  p.spines = 2;
  p.uplinks_per_leaf = 2;
  const Topology t = build_topology(p, links());
  const int l = t.switch_port_link[0][4];
  ASSERT_EQ(t.peer(PortRef{true, 0, 4}).id, 2);
  const std::vector<RouteChange> plan = plan_reroutes(t, down_at(t, l, 100, 1000));
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0].at, 100u);
  EXPECT_EQ(plan[1].at, 1000u);
  const RouteChange& c = plan[0];
  for (int d = 0; d < 4; ++d) {
    EXPECT_EQ(set_of(t, c, 0, d), std::vector<int>{d});      // leaf 0 to its own endpoints
    EXPECT_EQ(set_of(t, c, 0, d + 4), std::vector<int>{5});  // leaf 0 up: only to spine 3
    EXPECT_EQ(set_of(t, c, 1, d), std::vector<int>{5});      // leaf 1 to leaf 0: not via spine 2
    EXPECT_EQ(set_of(t, c, 1, d + 4), std::vector<int>{d});
    EXPECT_EQ(set_of(t, c, 2, d), std::vector<int>{0});      // spine 2 has no other way: keeps its port
    EXPECT_EQ(set_of(t, c, 2, d + 4), std::vector<int>{1});
    EXPECT_EQ(set_of(t, c, 3, d), std::vector<int>{0});
  }
  EXPECT_EQ(plan[1].route_begin, t.route_begin);  // back to the routes of the start
  EXPECT_EQ(plan[1].route_ports, t.route_ports);
  // No link between switches down: no change.
  EXPECT_TRUE(plan_reroutes(t, std::vector<std::vector<core::DownInterval>>(t.links.size())).empty());
}

// configs/topologies/ring4_dateline.yaml: a ring of four switches, one endpoint each (port 0),
// links sw_i.p1 -- sw_i+1.p2 (topology links 4 to 7), a dateline on the last, with `routing`.
// The link sw0 -- sw1 down: sw0 reaches endpoint 1 the long way round (sw0.p2 to sw3), sw1
// reaches endpoint 0 through sw2.
Topology ring(const std::string& routing) {
  std::ifstream in(std::string(UPSWITCH_SOURCE_DIR) + "/configs/topologies/ring4_dateline.yaml");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  const std::string from = "routing: shortest_path";
  const size_t at = s.find(from);
  if (at == std::string::npos) throw std::runtime_error("ring4_dateline.yaml: no shortest_path routing line");
  s.replace(at, from.size(), "routing: " + routing);
  return parse_topology_file(s, "ring4_dateline.yaml", links());
}

TEST(Reroute, ARingGoesTheLongWayRoundWhileALinkIsDown) {
  const Topology t = ring("shortest_path");
  ASSERT_EQ(find_routing_cycle(t), "");
  const std::vector<RouteChange> plan = plan_reroutes(t, down_at(t, 4, 10, 20));  // sw0 -- sw1
  ASSERT_EQ(plan.size(), 2u);
  const RouteChange& c = plan[0];
  EXPECT_EQ(set_of(t, c, 0, 1), std::vector<int>{2});  // 0 -> 3 -> 2 -> 1
  EXPECT_EQ(set_of(t, c, 3, 1), std::vector<int>{2});
  EXPECT_EQ(set_of(t, c, 2, 1), std::vector<int>{2});
  EXPECT_EQ(set_of(t, c, 1, 0), std::vector<int>{1});  // 1 -> 2 -> 3 -> 0
  EXPECT_EQ(set_of(t, c, 0, 2), std::vector<int>{2});  // was {1, 2}: two hops either way
  EXPECT_EQ(set_of(t, c, 0, 0), std::vector<int>{0});
  EXPECT_EQ(plan[1].route_ports, t.route_ports);
}

// The link sw1 -- sw2 down from cycle 10 to 20: meanwhile sw1 reaches endpoint 2 the long way
// (sw1 -> sw0 -> sw3 -> sw2). When the link comes back, a packet on that way is turned round by
// the switch it reaches next, whose short route now leads back along the channels it came by:
// old and new routes can wait on each other in a cycle, so the change is refused, naming it.
TEST(Reroute, AChangeThatLetsOldAndNewRoutesWaitInACycleIsRefused) {
  const Topology t = ring("shortest_path");
  try {
    plan_reroutes(t, down_at(t, 5, 10, 20));
    ADD_FAILURE() << "expected the change to be refused";
  } catch (const TopologyError& e) {
    const std::string m = e.what();
    // The change at 10 passed; the one at 20 is refused.
    EXPECT_NE(m.find("the routes from cycle 20 on (around the links between switches down then), taken by packets "
                     "routed the old way, allow a deadlock: sw"),
              std::string::npos) << m;
  }
}

// A file's own tables are filtered, not recomputed: the port over the link down is dropped where
// another stays, and kept where it is the only one.
TEST(Reroute, AFilesTablesLoseThePortsOverTheLinkDownWhereOthersRemain) {
  const std::string tables =
      "{tables: {0: {0: [0], 1: [1], 2: [1, 2], 3: [2]}, 1: {0: [2], 1: [0], 2: [1], 3: [1, 2]}, "
      "2: {0: [1, 2], 1: [2], 2: [0], 3: [1]}, 3: {0: [1], 1: [1, 2], 2: [2], 3: [0]}}}";
  const Topology t = ring(tables);
  ASSERT_TRUE(t.route_tables);
  std::vector<char> out(t.links.size(), 0);
  out[4] = 1;  // sw0.p1 -- sw1.p2
  RouteChange c;
  routes_around(t, out, c.route_begin, c.route_ports);
  EXPECT_EQ(set_of(t, c, 0, 1), std::vector<int>{1});  // the only entry: kept
  EXPECT_EQ(set_of(t, c, 0, 2), std::vector<int>{2});  // {1, 2} without port 1
  EXPECT_EQ(set_of(t, c, 1, 0), std::vector<int>{2});  // kept
  EXPECT_EQ(set_of(t, c, 1, 3), (std::vector<int>{1}));
  EXPECT_EQ(set_of(t, c, 2, 0), (std::vector<int>{1, 2}));  // not over the link: unchanged
}

}  // namespace
}  // namespace upswitch::network
