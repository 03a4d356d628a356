// Switches taken out of service (faults.switch_down, issue 19). On planes the accelerators stop
// using the lost plane and carry on over the others; on two tiers the leaves route around a lost
// spine. Against independent expectations: the reference memory and ordering scoreboard (nothing
// lost, duplicated or reordered, every request answered once), the lost switch carries nothing
// once what was in it has drained, an in-switch all-reduce that loses a plane half way through
// is still exact, and a GPU pair's 1 MiB bandwidth falls by exactly one plane's share, 1/P
// (first principles: the stream is interleaved over the P - 1 links left).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "coll_support.h"
#include "test_support.h"
#include "config/presets.h"
#include "top/p2p_table.h"
#include "txn_random_mix.h"
#include "txn_support.h"

namespace upswitch::testing {
namespace {

const Sets kPlanes = {{"topology.kind", "planes"}, {"topology.endpoints", "8"}, {"topology.planes", "4"}};
const Sets kTwoTier = {{"topology.kind", "two_tier"}, {"topology.leaves", "4"}, {"topology.endpoints_per_leaf", "3"},
                       {"topology.spines", "2"},      {"topology.uplinks_per_leaf", "2"}, {"switch.ports", "8"}};

// `base` with switch `sw` taken out at core cycle `cycle` (the key takes ns).
Sets switch_down(const Sets& base, int sw, uint64_t cycle) {
  const double ghz = make_txn_config(base).clock_ghz;
  char ns[64];
  std::snprintf(ns, sizeof ns, "%d@%.6f", sw, static_cast<double>(cycle) / ghz);
  return with(base, {{"faults.switch_down", ns}});
}

// Each switch's crossbar flits (whole run) as they stood at given cycles.
class GrantProbe : public top::CycleHook {
 public:
  GrantProbe(const top::TxnFabric& f, std::vector<uint64_t> at) : f_(f), at_(std::move(at)) {}
  void before_cycle(uint64_t t) override {
    for (; next_ < at_.size() && at_[next_] <= t; ++next_) {
      std::vector<uint64_t> g;
      for (int s = 0; s < f_.network().switches(); ++s) g.push_back(f_.network().sw(s).stats().grants);
      seen_.push_back(g);
    }
  }
  uint64_t next_activity(uint64_t) const override { return next_ < at_.size() ? at_[next_] : UINT64_MAX; }
  uint64_t grants(size_t k, int s) const { return seen_.at(k).at(static_cast<size_t>(s)); }

 private:
  const top::TxnFabric& f_;
  std::vector<uint64_t> at_;
  size_t next_ = 0;
  std::vector<std::vector<uint64_t>> seen_;
};

// A random mix of every operation from every accelerator under the scoreboard, with switch `lost`
// taken out at cycle `at`: every request answered once, with the right data and in order; the
// lost switch idle from `at + drain` on while the others carry on.
void mix_with_a_switch_down(const Sets& topo, int lost, uint64_t at) {
  const uint64_t drain = 4000;
  const auto c = make_txn_config(with(switch_down(topo, lost, at), {{"sim.check_interval_cycles", "500"}}));
  top::TxnFabric f(c, false);
  Scoreboard sb(f.endpoints().address_map(), false, /*single_issue=*/false, /*any_vc=*/true);
  f.endpoints().set_observer(&sb);
  RandomMix mix(f, 4, 400, 4096);
  mix.start();
  GrantProbe probe(f, {at, at + drain});
  ASSERT_TRUE(f.run_until_idle(50'000'000, &probe));
  EXPECT_EQ(mix.double_completions, 0u);
  EXPECT_EQ(mix.not_okay, 0u);
  EXPECT_EQ(mix.completed, mix.submitted);
  EXPECT_EQ(sb.unanswered(), 0u);
  for (const std::string& s : sb.failures()) ADD_FAILURE() << s;
  const endpoint::TxnResult& r = f.endpoints().result();
  EXPECT_EQ(r.requests_issued, r.requests_answered);
  EXPECT_EQ(sb.executed(), r.requests_answered);  // nothing lost, nothing executed twice
  for (const std::string& s : top::check_txn_drained(f)) ADD_FAILURE() << s;
  ASSERT_GT(f.now(), at + 3 * drain) << "the mix ended too soon to show the switches after the loss";
  const network::Network& net = f.network();
  EXPECT_GT(probe.grants(0, lost), 0u) << "the switch carried traffic before it was taken out";
  EXPECT_EQ(net.sw(lost).stats().grants, probe.grants(1, lost)) << "the switch taken out carried new traffic";
  for (int s = 0; s < net.switches(); ++s) {
    if (s == lost || net.topology().switches[static_cast<size_t>(s)].level != net.topology().switches[static_cast<size_t>(lost)].level) continue;
    EXPECT_GT(net.sw(s).stats().grants, probe.grants(1, s)) << "switch " << s << " stopped too";
  }
}

TEST(NetworkSwitchDown, PlanesLoseAPlaneMidRunAndNothingIsLost) { mix_with_a_switch_down(kPlanes, 1, 3000); }

TEST(NetworkSwitchDown, PlanesLoseAPlaneMidRunWithTheFlowHash) {
  mix_with_a_switch_down(with(kPlanes, {{"endpoint.port_select", "hash"}}), 2, 3000);
}

TEST(NetworkSwitchDown, TwoTiersRouteAroundALostSpine) {
  const config::Config c = make_txn_config(kTwoTier);
  const network::Topology& t = c.network();
  int spine = -1;
  for (int s = 0; s < t.num_switches(); ++s)
    if (t.switches[static_cast<size_t>(s)].level == 1) spine = s;
  ASSERT_GE(spine, 0);
  mix_with_a_switch_down(kTwoTier, spine, 3000);
}

// The case the fence is for: a deep stream of 256 B writes and reads from one accelerator to one
// 256 B region whose stripe takes the lost plane, issued faster than one link carries them, so
// hundreds wait at the lost port when the plane goes. Later requests on a fresh port would overtake
// them if the accelerator did not wait for them first; the scoreboard (any VC) checks that the
// region's requests execute in issue order.
TEST(NetworkSwitchDown, OneRegionsRequestsStayInOrderAcrossTheLoss) {
  const auto c = make_txn_config(with(switch_down(kPlanes, 1, 100), {{"sim.check_interval_cycles", "100"}}));
  top::TxnFabric f(c, false);
  Scoreboard sb(f.endpoints().address_map(), false, /*single_issue=*/false, /*any_vc=*/true);
  f.endpoints().set_observer(&sb);
  const uint64_t base = f.endpoints().address_map().window_base(5);
  uint64_t addr = base;  // a 256 B region whose stripe takes port 1 (plane 1)
  while ((addr / static_cast<uint64_t>(c.interleave_bytes)) % 4 != 1) addr += 256;
  const int n = 2000;
  std::vector<uint8_t> data(256), back(static_cast<size_t>(256 * n));
  for (int k = 0; k < n; ++k) {
    endpoint::TransferRequest r;
    r.op = k % 4 == 3 ? tl::Opcode::kRead : tl::Opcode::kWrite;
    r.addr = addr;
    r.bytes = 256;
    r.data = data.data();
    r.result = back.data() + 256 * k;
    f.endpoints().submit(0, r, 0);
  }
  ASSERT_TRUE(f.run_until_idle(10'000'000));
  EXPECT_EQ(sb.unanswered(), 0u);
  EXPECT_EQ(sb.executed(), static_cast<uint64_t>(n));
  for (const std::string& s : sb.failures()) ADD_FAILURE() << s;
  for (const std::string& s : top::check_txn_drained(f)) ADD_FAILURE() << s;
  EXPECT_GT(f.network().sw(1).stats().grants, 200u);  // the stream started on the lost plane
}

// One GPU pair, a stream of 1 MiB writes and reads: with one of P planes out from the start its
// bandwidth is (P - 1) / P of the bandwidth with all of them (within 3%).
TEST(NetworkSwitchDown, PairBandwidthDropsByOnePlanesShare) {
  for (int planes : {4, 8}) {
    const Sets topo = {{"topology.kind", "planes"}, {"topology.endpoints", "4"}, {"topology.planes", std::to_string(planes)}};
    for (tl::Opcode op : {tl::Opcode::kWrite, tl::Opcode::kRead}) {
      SCOPED_TRACE(std::to_string(planes) + " planes, " + tl::opcode_name(op));
      const top::P2pPoint pt{op, uint64_t{1} << 20, 0};
      const double all = top::p2p_pair_bandwidth(make_txn_config(topo), pt, 2000, 8000).payload_bytes_per_cycle;
      const double less = top::p2p_pair_bandwidth(make_txn_config(switch_down(topo, 1, 0)), pt, 2000, 8000).payload_bytes_per_cycle;
      const double expect = static_cast<double>(planes - 1) / planes;
      EXPECT_NEAR(less / all, expect, 0.03 * expect) << less << " of " << all;
      std::printf("%d planes %s: %.2f -> %.2f B/cycle (%.4f, expected %.4f)\n", planes, tl::opcode_name(op), all, less,
                  less / all, expect);
    }
  }
}

// The NVL72 rack (facts 2.3): one GPU pair's 1 MiB stream over 18 chips, and with chip 4 out from
// the start: 17/18 of it (within 3%).
TEST(NetworkSwitchDown, Nvl72RackLosingAChipCostsAnEighteenth) {
  auto rack = [](const char* down) {
    config::Config c = config::default_config();
    config::apply_preset(c, "nvl72-rack");
    config::set_param(c, "traffic.kind", "transactions");
    config::set_param(c, "faults.switch_down", down);
    config::validate(c);
    return c;
  };
  for (tl::Opcode op : {tl::Opcode::kWrite, tl::Opcode::kRead}) {
    const top::P2pPoint pt{op, uint64_t{1} << 20, 0};
    const double all = top::p2p_pair_bandwidth(rack(""), pt, 2000, 6000).payload_bytes_per_cycle;
    const double less = top::p2p_pair_bandwidth(rack("4@0"), pt, 2000, 6000).payload_bytes_per_cycle;
    EXPECT_NEAR(less / all, 17.0 / 18, 0.03 * 17 / 18) << tl::opcode_name(op) << ": " << less << " of " << all;
    std::printf("NVL72 pair %s: %.2f -> %.2f B/cycle (%.4f, expected %.4f)\n", tl::opcode_name(op), all, less,
                less / all, 17.0 / 18);
  }
}

// An in-switch all-reduce of `n` ranks run whole, then with switch `sw` taken out half way
// through; both exact, the second answered OKAY throughout.
std::pair<CollOutcome, CollOutcome> all_reduce_losing_half_way(const Sets& topo, int sw, int n, uint64_t bytes) {
  const coll::CollectiveSpec s = spec_of(coll::Collective::kAllReduce, coll::Algorithm::kSwitch, first_ranks(n), bytes);
  CollOutcome whole = run_collective(make_txn_config(topo), s);
  EXPECT_EQ(whole.check.wrong, 0u);
  CollOutcome lost = run_collective(make_txn_config(switch_down(topo, sw, whole.cycles / 2)), s);
  EXPECT_EQ(lost.check.wrong, 0u) << lost.check.first;
  EXPECT_EQ(lost.run.status, tl::Status::kOkay);
  return {std::move(whole), std::move(lost)};
}

// An in-switch all-reduce that loses a plane (and its engine) half way: the requests left go to
// the other planes' engines; the result is exact and every channel conserved.
TEST(NetworkSwitchDown, InSwitchAllReduceLosingAPlaneHalfWayIsExact) {
  const auto [whole, lost] = all_reduce_losing_half_way(kPlanes, 3, 8, uint64_t{1} << 20);
  // The second half runs on 3 planes of 4: slower, but by less than a whole run on 3 planes would be.
  EXPECT_GT(lost.cycles, whole.cycles);
  EXPECT_LT(lost.cycles, whole.cycles * 4 / 3 + whole.cycles / 10);
  std::printf("1 MiB all-reduce on 4 planes: %llu cycles, losing one half way: %llu\n",
              static_cast<unsigned long long>(whole.cycles), static_cast<unsigned long long>(lost.cycles));
}

// Two tiers, the engine as a tree (doc/reduction.md "Two tiers: the SHARP pattern"): spine 4 of 2
// lost half way through an in-switch all-reduce. What its units hold drains; the leaves send the
// rest of the partial results through spine 5's units. Exact, nothing lost, every request answered.
TEST(NetworkSwitchDown, TreeAllReduceLosingASpineHalfWayIsExact) {
  const auto [whole, lost] = all_reduce_losing_half_way(kTwoTier, 4, 12, uint64_t{256} << 10);
  EXPECT_EQ(lost.reduce.tree_requests, whole.reduce.tree_requests);  // the same tree, one spine fewer
  EXPECT_GT(lost.cycles, whole.cycles);
  std::printf("256 KiB tree all-reduce on 2 spines: %llu cycles, losing one half way: %llu\n",
              static_cast<unsigned long long>(whole.cycles), static_cast<unsigned long long>(lost.cycles));
}

// Synthetic packets (not transactions): 8 endpoints on 4 planes at full load, uniform. With plane
// 0 out from the start, its ports carry nothing and the endpoints offer the same load over the 3
// planes left, each still saturated: the accepted flits per port, averaged over all 4 x 8 ports,
// fall to 3/4 (the lost plane's share of the links). Then a plane lost half way through the
// window, and a two-tier spine: every packet created is delivered and the fabric drains.
TEST(NetworkSwitchDown, PacketsCarryOnOverThePlanesLeft) {
  const Sets full = with(kPlanes, {{"traffic.rate", "1.0"}, {"sim.warmup_cycles", "2000"}, {"sim.measure_cycles", "20000"}});
  auto accepted = [](const top::Fabric& f) {
    const traffic::RunResult& r = f.endpoints().result();
    uint64_t flits = 0;
    for (const traffic::PortResult& p : r.ports) flits += p.accepted_flits;
    return static_cast<double>(flits) / static_cast<double>(r.ports.size() * r.window_cycles);
  };
  const auto all = run_plain(make_config("", full));
  const auto lost = run_plain(make_config("", switch_down(full, 0, 0)));
  std::printf("accepted per port: %.4f on 4 planes, %.4f with plane 0 out\n", accepted(*all), accepted(*lost));
  EXPECT_NEAR(accepted(*lost), 0.75 * accepted(*all), 0.03 * 0.75 * accepted(*all));
  for (int p = 0; p < lost->endpoint_ports(); ++p)
    if (lost->network().switch_end(p).id == 0) {
      EXPECT_EQ(lost->endpoints().result().ports[static_cast<size_t>(p)].accepted_flits, 0u) << "port " << p;
    }
  for (const Sets& sets : {switch_down(full, 1, 12000), switch_down(with(kTwoTier, {{"traffic.rate", "0.6"}}), 4, 3000)}) {
    const auto f = run_plain(make_config("", sets));
    const traffic::RunResult& r = f->endpoints().result();
    EXPECT_GT(r.flits_delivered, 0u);
    EXPECT_EQ(r.flits_delivered, r.flits_created);
    for (const std::string& v : top::check_drained(*f)) ADD_FAILURE() << v;
  }
}

}  // namespace
}  // namespace upswitch::testing
