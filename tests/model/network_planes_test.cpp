// Packets on `planes` networks (issue 18): every endpoint has a port on every plane switch and
// nothing crosses between planes, so each plane is a single switch carrying 1/P of the traffic
// and an endpoint gets P times the bandwidth of one link.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "test_support.h"
#include "top/report.h"

namespace upswitch::testing {
namespace {

using Sets = std::vector<std::pair<std::string, std::string>>;

Sets planes(int endpoints, int planes, Sets more) {
  Sets s = {{"topology.kind", "planes"},
            {"topology.endpoints", std::to_string(endpoints)},
            {"topology.planes", std::to_string(planes)},
            {"sim.warmup_cycles", "3000"},
            {"sim.measure_cycles", "30000"}};
  s.insert(s.end(), more.begin(), more.end());
  return s;
}

uint64_t plane_flits(const top::Fabric& f, int s) {
  uint64_t n = 0;
  for (uint64_t x : f.network().sw(s).stats().xbar_flits) n += x;
  return n;
}

double accepted_per_endpoint(const top::Fabric& f) {
  return accepted(f) * f.endpoint_ports() / f.config().endpoints();
}

TEST(NetworkPlanes, EachPlaneCarriesItsShareAndAnEndpointGetsPTimesOneLink) {
  for (const char* select : {"address", "round_robin", "least_loaded"}) {
    SCOPED_TRACE(select);
    const int P = 4;
    const auto c = make_config("tiny", planes(8, P, {{"traffic.rate", "0.5"}, {"endpoint.port_select", select}}));
    const auto f = run_plain(c);
    ASSERT_TRUE(top::check_drained(*f).empty());
    EXPECT_FALSE(f->endpoints().result().saturated);
    uint64_t total = 0;
    for (int s = 0; s < P; ++s) total += plane_flits(*f, s);
    for (int s = 0; s < P; ++s) EXPECT_NEAR(plane_flits(*f, s), total / P, 0.02 * total / P) << "plane " << s;

    // The same per-link load on one switch of 8 ports.
    const auto one = run_plain(make_config(
        "tiny", {{"traffic.rate", "0.5"}, {"sim.warmup_cycles", "3000"}, {"sim.measure_cycles", "30000"}}));
    EXPECT_NEAR(accepted_per_endpoint(*f), P * accepted(*one), 0.03 * P * accepted(*one));
    // Below saturation an endpoint receives what is offered to its P links: P x the rate.
    EXPECT_NEAR(accepted_per_endpoint(*f), P * 0.5, 0.03 * P * 0.5);
  }
}

TEST(NetworkPlanes, HashKeepsEveryFlowOnOnePortAndSpreadsFlows) {
  // A permutation: each endpoint sends to one destination, so with the flow hash each endpoint
  // uses exactly one of its ports; over 64 endpoints the flows cover every plane.
  const auto c = make_config("", planes(64, 4, {{"switch.ports", "64"}, {"traffic.pattern", "permutation"},
                                                 {"traffic.rate", "0.2"}, {"endpoint.port_select", "hash"},
                                                 {"sim.measure_cycles", "8000"}}));
  const auto f = run_plain(c);
  ASSERT_TRUE(top::check_drained(*f).empty());
  const auto& ports = f->endpoints().result().ports;
  std::set<int> planes_used;
  for (int e = 0; e < 64; ++e) {
    int used = 0;
    for (int k = 0; k < 4; ++k)
      if (ports[static_cast<size_t>(4 * e + k)].offered_flits) {
        ++used;
        planes_used.insert(k);
      }
    EXPECT_EQ(used, 1) << "endpoint " << e;
  }
  EXPECT_EQ(planes_used.size(), 4u);
}

TEST(NetworkPlanes, ParallelLinksToOnePlaneShareItsLoad) {
  // Two links per plane: the switch has 2 x 6 ports and sends a destination's packets over both
  // of its links (multipath), the endpoint over both of its ports.
  const auto c = make_config("tiny", planes(6, 2, {{"topology.links_per_plane", "2"}, {"switch.ports", "12"},
                                                    {"traffic.rate", "0.4"}, {"routing.multipath", "round_robin"}}));
  const auto f = run_plain(c);
  ASSERT_TRUE(top::check_drained(*f).empty());
  EXPECT_EQ(f->endpoint_ports(), 6 * 4);
  for (int s = 0; s < 2; ++s) {
    const auto& x = f->network().sw(s).stats().xbar_flits;
    for (int e = 0; e < 6; ++e) {
      const double a = static_cast<double>(x[static_cast<size_t>(2 * e)]), b = static_cast<double>(x[static_cast<size_t>(2 * e + 1)]);
      EXPECT_NEAR(a, b, 0.06 * (a + b) / 2) << "switch " << s << " endpoint " << e;
    }
  }
}

// DGX H100 (dgx-h100: topology.plane_links = [5,4,4,5], routing.multipath = input) under uniform
// packets: an endpoint spreads its stream over its 18 links by address and each chip sends a
// destination's packets out on the link at the position they came in on, so every GPU link
// carries the same flits and the chips carry 5:4:4:5 of them; a GPU accepts 18 links' worth.
TEST(NetworkPlanes, UnevenPlanesCarryTrafficInProportionToTheirLinks) {
  const auto c = make_config("dgx-h100", {{"sim.warmup_cycles", "3000"}, {"sim.measure_cycles", "150000"}});
  const auto f = run_plain(c);
  ASSERT_TRUE(top::check_drained(*f).empty());
  EXPECT_FALSE(f->endpoints().result().saturated);
  const std::vector<int> L = {5, 4, 4, 5};
  ASSERT_EQ(f->endpoint_ports(), 8 * 18);
  uint64_t total = 0;
  for (int s = 0; s < 4; ++s) total += plane_flits(*f, s);
  const double per_link = static_cast<double>(total) / (8 * 18);
  for (int s = 0; s < 4; ++s) {
    const auto& x = f->network().sw(s).stats().xbar_flits;
    ASSERT_EQ(x.size(), static_cast<size_t>(8 * L[static_cast<size_t>(s)]));
    for (size_t q = 0; q < x.size(); ++q)
      EXPECT_NEAR(static_cast<double>(x[q]), per_link, 0.06 * per_link) << "switch " << s << " port " << q;
    const double share = static_cast<double>(L[static_cast<size_t>(s)]) / 18;
    EXPECT_NEAR(static_cast<double>(plane_flits(*f, s)), share * total, 0.02 * share * total) << "plane " << s;
  }
  EXPECT_NEAR(accepted_per_endpoint(*f), 18 * 0.125, 0.03 * 18 * 0.125);
}

TEST(NetworkPlanes, DeterministicAndZeroLoadLatencyAsOneSwitch) {
  const auto c = make_config("tiny", planes(8, 3, {{"traffic.rate", "0.01"}}));
  const auto a = run_plain(c), b = run_plain(c);
  EXPECT_EQ(a->endpoints().result().packet_latency.buckets(), b->endpoints().result().packet_latency.buckets());
  EXPECT_EQ(a->simulated_cycles(), b->simulated_cycles());
  // One switch hop: the minimum latency is the single switch's zero-load latency.
  const auto one = run_plain(make_config("tiny", {{"traffic.rate", "0.01"}}));
  EXPECT_EQ(a->endpoints().result().network_latency.min(), one->endpoints().result().network_latency.min());
  // 2 links + routing + allocation, crossbar and egress + the flits behind the head.
  const auto& k = c.sw;
  EXPECT_EQ(a->endpoints().result().network_latency.min(),
            2u * c.link_latency_cycles + k.routing_cycles + k.output_pipeline_cycles() + c.traffic.packet_flits - 1);
}

}  // namespace
}  // namespace upswitch::testing
