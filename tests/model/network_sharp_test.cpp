// The in-switch all-reduce on two tiers as a tree (issue 19, doc/reduction.md "Two tiers: the
// SHARP pattern"): leaves reduce their own members, spines the leaves' partial results. Checked
// against the host reference, against the exact count of requests the tree sends, and against the
// bound the leaves' uplinks set, derived below.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "coll_support.h"
#include "top/link_load.h"

namespace upswitch::testing {
namespace {

Sets two_tier(int leaves, int per_leaf, int spines, int uplinks, const Sets& more = {}) {
  Sets s = {{"topology.kind", "two_tier"},
            {"topology.leaves", std::to_string(leaves)},
            {"topology.endpoints_per_leaf", std::to_string(per_leaf)},
            {"topology.spines", std::to_string(spines)},
            {"topology.uplinks_per_leaf", std::to_string(uplinks)}};
  return with(s, more);
}

struct TreeRun {
  CollOutcome o;
  uint64_t up_flits = 0, down_flits = 0;  // leaf -> spine and spine -> leaf, all leaves
  double busiest_uplink = 0;              // flits over capacity, busiest leaf -> spine channel
};

TreeRun all_reduce_on(const config::Config& cfg, int n, uint64_t bytes) {
  TreeRun r;
  top::TxnFabric f(cfg, false);
  coll::CollectiveRunner runner(f);
  const int id = runner.add(spec_of(coll::Collective::kAllReduce, coll::Algorithm::kSwitch, first_ranks(n), bytes), 0);
  coll::fill_inputs(f, runner.get(id), 7);
  const top::LinkCounters before = top::read_link_counters(f.network());
  EXPECT_TRUE(runner.run());
  const top::LinkCounters after = top::read_link_counters(f.network());
  EXPECT_TRUE(top::check_txn_drained(f).empty());
  r.o.check = coll::check_results(f, runner.get(id));
  r.o.cycles = runner.get(id).end - runner.get(id).start;
  r.o.clock_ghz = cfg.clock_ghz;
  r.o.reduce = f.endpoints().result().reduce;
  const network::Network& net = f.network();
  const auto& ch = net.channels();
  for (size_t c = 0; c < ch.size(); ++c) {
    if (!ch[c].from.is_switch || !ch[c].to.is_switch) continue;
    const uint64_t flits = after.channel_flits[c] - before.channel_flits[c];
    const bool up = net.topology().switches[static_cast<size_t>(ch[c].to.id)].level == 1;
    (up ? r.up_flits : r.down_flits) += flits;
    if (up) {
      const double cap = static_cast<double>(r.o.cycles) *
                          net.topology().links[static_cast<size_t>(ch[c].link)].flits_per_cycle(cfg.flit_bytes * cfg.clock_ghz);
      r.busiest_uplink = std::max(r.busiest_uplink, static_cast<double>(flits) / cap);
    }
  }
  return r;
}

double busbw_gbs(const TreeRun& t, int n, uint64_t bytes) {
  return static_cast<double>(bytes) / (t.o.time_us() * 1000.0) * coll::bus_factor(coll::Collective::kAllReduce, n);
}

// A topology file written as a two-level folded Clos (configs/topologies/small_clos.yaml: the shape
// of two_tier with 2 leaves of 2, 2 spines, 2 uplinks) runs the tree too: the same count of tree
// requests as the built-in kind (2 x 2 leaves x S / 256), exact results, and its time within 1% of
// the built-in kind's. A file that is not such a Clos (a ring) stays flat.
TEST(NetworkSharp, ATwoLevelClosFileRunsTheTreeLikeTwoTier) {
  const uint64_t S = 64 << 10;
  const Sets file = {{"topology.kind", "file"},
                     {"topology.file", std::string(UPSWITCH_SOURCE_DIR) + "/configs/topologies/small_clos.yaml"}};
  const TreeRun from_file = all_reduce_on(make_txn_config(file), 4, S);
  const TreeRun built_in = all_reduce_on(make_txn_config(two_tier(2, 2, 2, 2)), 4, S);
  EXPECT_EQ(from_file.o.check.wrong, 0u) << from_file.o.check.first;
  EXPECT_EQ(from_file.o.reduce.tree_requests, 2u * 2u * (S / 256));
  EXPECT_EQ(from_file.o.reduce.tree_requests, built_in.o.reduce.tree_requests);
  EXPECT_NEAR(static_cast<double>(from_file.o.cycles), static_cast<double>(built_in.o.cycles),
              0.01 * static_cast<double>(built_in.o.cycles));
  const TreeRun flat_file = all_reduce_on(make_txn_config(with(file, {{"reduce.hierarchy", "flat"}})), 4, S);
  EXPECT_EQ(flat_file.o.reduce.tree_requests, 0u);
  const Sets ring = {{"topology.kind", "file"},
                     {"topology.file", std::string(UPSWITCH_SOURCE_DIR) + "/configs/topologies/ring4_dateline.yaml"},
                     {"switch.vcs", "2"},
                     {"switch.queueing", "vc"}};
  const TreeRun on_ring = all_reduce_on(make_txn_config(ring), 4, S);
  EXPECT_EQ(on_ring.o.check.wrong, 0u) << on_ring.o.check.first;
  EXPECT_EQ(on_ring.o.reduce.tree_requests, 0u);
}

// 12 ranks on 4 leaves of 3. The tree sends, per 256 B region of the buffer, one request from the
// requester's leaf to a spine and one from the spine to each of the 3 other leaves, for the
// load-reduce and again for the store: 2 x 4 x S / 256 in all. Flat sends none and every member's
// data crosses the spines: a leaf's uplinks carry 2 m (n - m) S / n = 4.5 S up (its 3 members read
// and written by the 9 others' requests) where the tree carries S (the leaf's partial results of
// the other leaves' slices, and its own slices' stores).
TEST(NetworkSharp, TreeSendsOnePartialPerLeafAndIsExact) {
  const int n = 12;
  const uint64_t S = 256 << 10;
  const TreeRun tree = all_reduce_on(make_txn_config(two_tier(4, 3, 2, 2)), n, S);
  const TreeRun flat = all_reduce_on(make_txn_config(two_tier(4, 3, 2, 2, {{"reduce.hierarchy", "flat"}})), n, S);
  EXPECT_EQ(tree.o.check.wrong, 0u) << tree.o.check.first;
  EXPECT_EQ(flat.o.check.wrong, 0u) << flat.o.check.first;
  EXPECT_EQ(tree.o.reduce.tree_requests, 2u * 4u * (S / 256));
  EXPECT_EQ(flat.o.reduce.tree_requests, 0u);
  // Operations completed, every unit's counted: the requester's leaf, the spine and 3 leaves.
  EXPECT_EQ(tree.o.reduce.load_reduces, 5 * (S / 256));
  EXPECT_EQ(tree.o.reduce.stores, 5 * (S / 256));
  EXPECT_EQ(flat.o.reduce.load_reduces, S / 256);
  const double ratio = static_cast<double>(flat.up_flits) / static_cast<double>(tree.up_flits);
  std::printf("12 ranks on 4 leaves, 256 KiB: uplink flits flat %llu, tree %llu (%.2fx; payload 4.5x); busbw flat %.2f, "
              "tree %.2f GB/s\n",
              static_cast<unsigned long long>(flat.up_flits), static_cast<unsigned long long>(tree.up_flits), ratio,
              busbw_gbs(flat, n, S), busbw_gbs(tree, n, S));
  EXPECT_GT(ratio, 0.75 * 4.5);  // packet framing differs between the two; the payload ratio is 4.5
  EXPECT_LT(ratio, 4.5 * 1.25);
  EXPECT_GT(busbw_gbs(tree, n, S), busbw_gbs(flat, n, S));
}

// The taper's bound. With the tree a leaf's uplinks carry S each way whatever its member count m:
// up, its partial results for the slices the other n - m ranks own ((n - m) S / n) and its own
// ranks' stores (m S / n); down, the reduced results of its own slices and the other ranks'
// stores. A rank's own link carries S each way too (every member read once, every store received
// once), so the all-reduce takes at least S / min(B, U), U a leaf's uplink bandwidth and B a
// rank's: busbw <= 2 (n - 1) / n x min(B, U) x the TL's payload share. That share depends on how
// the 256 B messages are packed: at best four to one destination in a packet (1 KiB in 17 flits),
// and a switch forwards each unit's packets as they are (no repacking at the uplink), so the
// partial results a unit sends as it completes them cross one to a packet (256 B in 5 flits)
// when nothing else for that spine is waiting. With the spine links at a quarter of the endpoint
// rate and 2 uplinks per leaf, U = B / 2: the taper binds.
TEST(NetworkSharp, TreeAllReduceIsBoundByTheTaper) {
  const int n = 16;
  const uint64_t S = uint64_t{4} << 20;
  const config::Config cfg = make_txn_config(two_tier(4, 4, 2, 2, {{"link.inter_switch_gbytes_per_s", "24.53125"}}));
  const double B = cfg.link_gbytes_per_s, U = 2 * 24.53125;
  const double taper = 2.0 * (n - 1) / n * std::min(B, U);
  const double best = taper * 1024.0 / (17.0 * 64.0);  // four messages to a packet
  const double single = taper * 256.0 / (5.0 * 64.0);  // one message to a packet
  const TreeRun t = all_reduce_on(cfg, n, S);
  EXPECT_EQ(t.o.check.wrong, 0u) << t.o.check.first;
  const double busbw = busbw_gbs(t, n, S);
  std::printf("16 ranks, 4 leaves, uplinks at B/2, 4 MiB: busbw %.2f GB/s; taper bound %.2f with one message to a "
              "packet (%.0f%%), %.2f with four (%.0f%%); busiest uplink %.1f%% busy\n",
              busbw, single, 100.0 * busbw / single, best, 100.0 * busbw / best, 100.0 * t.busiest_uplink);
  EXPECT_LE(busbw, best);
  // The uplinks are the bottleneck: busy at least 90% of the run, and busbw within 10% of the
  // taper's bound for the packets the units form (95% measured; 81% of the best-packed bound).
  EXPECT_GE(t.busiest_uplink, 0.90);
  EXPECT_GE(busbw, 0.9 * single);
}

}  // namespace
}  // namespace upswitch::testing
