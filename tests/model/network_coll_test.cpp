// Collectives across many switch chips (issue 19): every collective and algorithm on planes, two
// tiers and a topology file, exact against the host reference with every channel's credits and
// flits conserved; the in-switch algorithm with a reduction engine in every switch, each plane's
// engine reducing the share of the buffer its plane carries; and the NVL72 rack's in-switch
// all-reduce against ring and against one nvl72-plane chip.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "config/presets.h"
#include "coll_support.h"
#include "top/placement.h"

namespace upswitch::testing {
namespace {

const Sets kPlanes = {{"topology.kind", "planes"}, {"topology.endpoints", "8"}, {"topology.planes", "4"}};
const Sets kTwoTier = {{"topology.kind", "two_tier"}, {"topology.leaves", "4"}, {"topology.endpoints_per_leaf", "3"},
                       {"topology.spines", "2"},      {"topology.uplinks_per_leaf", "2"}, {"switch.ports", "8"}};
const Sets kFile = {{"topology.kind", "file"},
                    {"topology.file", std::string(UPSWITCH_SOURCE_DIR) + "/configs/topologies/small_clos.yaml"}};

// Every collective with every algorithm that applies, on the whole topology, 24 KiB per rank.
void every_collective_exact(const Sets& topo) {
  const config::Config cfg = make_txn_config(with(topo, {{"sim.check_interval_cycles", "500"}}));
  const int n = cfg.endpoints();
  for (int c = 0; c < coll::kCollectives; ++c)
    for (int a = 0; a < coll::kAlgorithms; ++a) {
      const auto coll = static_cast<coll::Collective>(c);
      const auto algo = static_cast<coll::Algorithm>(a);
      if (!coll::algorithm_applies(coll, algo)) continue;
      SCOPED_TRACE(std::string(coll::collective_name(coll)) + "/" + coll::algorithm_name(algo));
      coll::CollectiveSpec s = spec_of(coll, algo, first_ranks(n), uint64_t{24} << 10);
      s.root = n / 2;
      const CollOutcome o = run_collective(cfg, s);  // throws unless drained and conserved
      EXPECT_EQ(o.check.wrong, 0u) << o.check.first;
      EXPECT_GT(o.check.elements, 0u);
      EXPECT_EQ(o.run.status, tl::Status::kOkay);
      if (algo == coll::Algorithm::kSwitch) {
        EXPECT_GT(o.reduce.member_requests, 0u);
      }
    }
}

TEST(NetworkColl, EveryCollectiveIsExactOnPlanes) { every_collective_exact(kPlanes); }
TEST(NetworkColl, EveryCollectiveIsExactOnTwoTiers) { every_collective_exact(kTwoTier); }
TEST(NetworkColl, EveryCollectiveIsExactOnATopologyFile) { every_collective_exact(kFile); }

// Flits through switch s's crossbar, whole run.
uint64_t grants(const top::TxnFabric& f, int s) { return f.network().sw(s).stats().grants; }

// An in-switch all-reduce on P planes: the buffer's 256 B units are dealt over the planes by
// address, so each plane's engine reduces 1/P of the buffer and each switch carries 1/P of the
// flits; against one switch with the same endpoints, P planes give P times the bus bandwidth when
// the links bound it (first principles: every byte a rank moves crosses one of its P links), here
// at least 3.2 of 4 at 4 MiB per rank. Each rank keeps 16 slices in flight, as 4 of NCCL's
// channels would: with the default 4, the load-reduce round trips (which planes do not shorten,
// and which lengthen where every rank's requests share every unit of a plane) bind before the
// links do on 4 planes (2.80x; 4.06x with 16).
TEST(NetworkColl, InSwitchAllReduceOnFourPlanesUsesEveryPlanesEngineEvenly) {
  const uint64_t bytes = uint64_t{4} << 20;
  coll::CollectiveSpec s = spec_of(coll::Collective::kAllReduce, coll::Algorithm::kSwitch, first_ranks(8), bytes);
  s.window = 16;
  const config::Config planes = make_txn_config(kPlanes);
  top::TxnFabric f(planes, false);
  coll::CollectiveRunner runner(f);
  const int id = runner.add(s, 0);
  coll::fill_inputs(f, runner.get(id), 3);
  ASSERT_TRUE(runner.run());
  ASSERT_TRUE(top::check_txn_drained(f).empty()) << top::check_txn_drained(f)[0];
  EXPECT_EQ(coll::check_results(f, runner.get(id)).wrong, 0u);
  uint64_t total = 0;
  for (int p = 0; p < 4; ++p) total += grants(f, p);
  for (int p = 0; p < 4; ++p) EXPECT_NEAR(static_cast<double>(grants(f, p)), total / 4.0, total / 4.0 * 0.02) << "plane " << p;
  // Engine units: one per accelerator port of each plane switch, 8 x 4.
  EXPECT_EQ(f.endpoints().engine_units(), 32);
  const uint64_t cycles_planes = runner.get(id).end - runner.get(id).start;
  const CollOutcome one = run_collective(make_txn_config({{"switch.ports", "8"}}), s);
  EXPECT_EQ(one.check.wrong, 0u);
  const double speedup = static_cast<double>(one.cycles) / static_cast<double>(cycles_planes);
  std::printf("in-switch all-reduce, 8 ranks, 4 MiB: one switch %llu cycles, 4 planes %llu cycles (%.2fx)\n",
              static_cast<unsigned long long>(one.cycles), static_cast<unsigned long long>(cycles_planes), speedup);
  EXPECT_GE(speedup, 3.2);
  EXPECT_LE(speedup, 4.2);  // never more than the links allow (with a little pipeline slack)
}

// The DGX H100 preset (doc/topology.md "Presets"): 8 GPUs with 5, 4, 4 and 5 links on the 4
// NVSwitch chips. All-reduce by ring, one-shot and in-switch is exact against the host reference,
// and every link into a GPU carries the same flits (routing.multipath = input: a source's link l
// feeds the destination's link l, the engine units' likewise), so the chips carry 5:4:4:5 of
// them. The flow hash instead keeps a pair on one of the destination's links per chip: the ring,
// whose GPUs hear from one neighbour only, then loads one link per chip with nearly all of it (the
// busiest link 5x its GPU's mean) and takes 3.3 times as long at 1 MiB (measured).
struct DgxRun {
  coll::CheckResult check;
  uint64_t cycles = 0;
  std::vector<std::vector<double>> down;  // [gpu][link]: flits the chips sent down it, whole run
};

const std::vector<int> kDgxLinks = {5, 4, 4, 5};

DgxRun run_dgx(const char* multipath, coll::Algorithm algo, uint64_t bytes) {
  config::Config cfg = config::default_config();
  config::apply_preset(cfg, "dgx-h100");
  drop_gpu_fixed_costs(cfg);  // the links' load is the question: the GPU's latencies would dilute it
  // The switches count crossbar flits in the measurement window: here the whole run.
  for (const auto& [k, v] : Sets{{"traffic.kind", "transactions"}, {"routing.multipath", multipath},
                                 {"sim.warmup_cycles", "0"}, {"sim.measure_cycles", "100000000"}})
    config::set_param(cfg, k, v);
  config::validate(cfg);
  top::TxnFabric f(cfg, false);
  coll::CollectiveRunner runner(f);
  const int id = runner.add(spec_of(coll::Collective::kAllReduce, algo, first_ranks(8), bytes), 0);
  coll::fill_inputs(f, runner.get(id), 5);
  if (!runner.run()) throw std::runtime_error("collective did not finish");
  const std::vector<std::string> bad = top::check_txn_drained(f);
  if (!bad.empty()) throw std::runtime_error("fabric not drained: " + bad[0]);
  DgxRun r;
  r.check = coll::check_results(f, runner.get(id));
  r.cycles = runner.get(id).end - runner.get(id).start;
  r.down.assign(8, {});
  for (int s = 0; s < 4; ++s) {
    const auto& x = f.network().sw(s).stats().xbar_flits;
    const int L = kDgxLinks[static_cast<size_t>(s)];
    for (int g = 0; g < 8; ++g)
      for (int l = 0; l < L; ++l) r.down[static_cast<size_t>(g)].push_back(static_cast<double>(x[static_cast<size_t>(g * L + l)]));
  }
  return r;
}

// The most any GPU link carries over the mean of its GPU's links.
double busiest_over_mean(const DgxRun& r) {
  double worst = 0;
  for (const auto& links : r.down) {
    double sum = 0, most = 0;
    for (double x : links) {
      sum += x;
      most = std::max(most, x);
    }
    worst = std::max(worst, most / (sum / static_cast<double>(links.size())));
  }
  return worst;
}

TEST(NetworkColl, DgxH100AllReduceIsExactAndLoadsEveryLinkAlike) {
  const uint64_t bytes = uint64_t{1} << 20;
  uint64_t ring_cycles = 0;
  for (const coll::Algorithm algo : {coll::Algorithm::kRing, coll::Algorithm::kOneShot, coll::Algorithm::kSwitch}) {
    SCOPED_TRACE(coll::algorithm_name(algo));
    const DgxRun r = run_dgx("input", algo, bytes);
    EXPECT_EQ(r.check.wrong, 0u) << r.check.first;
    EXPECT_GT(r.check.elements, 0u);
    std::vector<double> plane(4, 0);
    double all = 0;
    for (const auto& links : r.down) {
      ASSERT_EQ(links.size(), 18u);
      for (size_t k = 0; k < 18; ++k) {
        plane[k < 5 ? 0 : k < 9 ? 1 : k < 13 ? 2 : 3] += links[k];
        all += links[k];
      }
    }
    ASSERT_GT(all, 0);
    for (size_t s = 0; s < 4; ++s) {
      const double share = all * kDgxLinks[s] / 18;
      EXPECT_NEAR(plane[s], share, 0.02 * share) << "plane " << s;
    }
    EXPECT_LT(busiest_over_mean(r), 1.05);
    if (algo == coll::Algorithm::kRing) ring_cycles = r.cycles;
  }
  const DgxRun h = run_dgx("hash", coll::Algorithm::kRing, bytes);
  EXPECT_EQ(h.check.wrong, 0u);
  std::printf("dgx-h100 ring all-reduce, 8 ranks, 1 MiB: input %llu cycles, hash %llu cycles; busiest GPU link "
              "over its GPU's mean: hash %.2f\n",
              static_cast<unsigned long long>(ring_cycles), static_cast<unsigned long long>(h.cycles),
              busiest_over_mean(h));
  EXPECT_GT(busiest_over_mean(h), 2.0);
  EXPECT_GT(h.cycles, 2 * ring_cycles);
}

// A topology file sizes each switch's engine (doc/topology.md): switch 0 gets one unit of 2
// contexts, switch 1 its default units (one per accelerator port, 2) of 3 contexts each. The unit
// count and the contexts in use are the file's, the all-reduce stays exact, and fewer contexts
// than the default 256 make it slower (fewer operations in flight, Little's law).
TEST(NetworkColl, ATopologyFileSizesEachSwitchsEngine) {
  std::string text;
  {
    std::ifstream in(std::string(UPSWITCH_SOURCE_DIR) + "/configs/topologies/small_clos.yaml");
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const auto edit = [&](const std::string& from, const std::string& to) { text.replace(text.find(from), from.size(), to); };
  edit("{id: 0, ports: 4, level: 0}", "{id: 0, ports: 4, level: 0, reduce_units: 1, reduce_contexts: 2}");
  edit("{id: 1, ports: 4, level: 0}", "{id: 1, ports: 4, level: 0, reduce_contexts: 3}");
  const std::string path = ::testing::TempDir() + "upswitch_sized_engines.yaml";
  std::ofstream(path) << text;
  const coll::CollectiveSpec s = spec_of(coll::Collective::kAllReduce, coll::Algorithm::kSwitch, first_ranks(4), 64 << 10);
  // Flat: the file is a two-level Clos, whose default tree adds the leaves' second set and the
  // spines' units (NetworkSharp.ATwoLevelClosFileRunsTheTreeLikeTwoTier); here one unit per port.
  const config::Config sized =
      make_txn_config({{"topology.kind", "file"}, {"topology.file", path}, {"reduce.hierarchy", "flat"}});
  EXPECT_EQ(top::TxnFabric(sized, false).endpoints().engine_units(), 3);
  const CollOutcome small = run_collective(sized, s);
  const CollOutcome plain = run_collective(make_txn_config(with(kFile, {{"reduce.hierarchy", "flat"}})), s);
  EXPECT_EQ(small.check.wrong, 0u);
  EXPECT_EQ(small.reduce.peak_contexts, 3u);
  EXPECT_GT(plain.reduce.peak_contexts, 3u);
  EXPECT_GT(small.cycles, plain.cycles);
}

// Placement: packed takes endpoints 0 .. n-1; spread deals them over the leaves and orders the ring
// leaf by leaf; a list is taken as given. Each is checked against the topology's leaves.
TEST(NetworkColl, PlacementPackedSpreadAndList) {
  const config::Config cfg = make_txn_config(kTwoTier);  // 4 leaves x 3 endpoints
  const network::Topology& t = cfg.network();
  std::string err;
  top::Placement p;
  ASSERT_TRUE(top::parse_placement("packed", p, err));
  EXPECT_EQ(top::place_ranks(t, 4, p, err), (std::vector<int>{0, 1, 2, 3}));
  ASSERT_TRUE(top::parse_placement("spread", p, err));
  const std::vector<int> spread = top::place_ranks(t, 4, p, err);
  ASSERT_EQ(spread.size(), 4u);
  std::vector<int> leaves;
  for (int e : spread) leaves.push_back(top::leaf_of(t, e));
  EXPECT_EQ(leaves.size(), 4u);
  for (size_t i = 1; i < leaves.size(); ++i) EXPECT_LT(leaves[i - 1], leaves[i]) << "one rank per leaf, ring in leaf order";
  // Six ranks spread over four leaves: two leaves get two; neighbours on a leaf are adjacent.
  const std::vector<int> six = top::place_ranks(t, 6, p, err);
  for (size_t i = 1; i < six.size(); ++i) EXPECT_LE(top::leaf_of(t, six[i - 1]), top::leaf_of(t, six[i]));
  ASSERT_TRUE(top::parse_placement("11,0,5", p, err));
  EXPECT_EQ(top::place_ranks(t, 3, p, err), (std::vector<int>{11, 0, 5}));
  EXPECT_TRUE(top::place_ranks(t, 4, p, err).empty());
  EXPECT_NE(err.find("names 3 endpoints for a group of 4"), std::string::npos) << err;
  ASSERT_TRUE(top::parse_placement("3,12", p, err));
  EXPECT_TRUE(top::place_ranks(t, 2, p, err).empty());
  EXPECT_NE(err.find("endpoint 12 is not in the topology (0 .. 11)"), std::string::npos) << err;
  EXPECT_FALSE(top::parse_placement("3,,4", p, err));
  EXPECT_FALSE(top::parse_placement("packd", p, err));
  // A spread group runs exactly.
  ASSERT_TRUE(top::parse_placement("spread", p, err));
  for (coll::Algorithm a : {coll::Algorithm::kRing, coll::Algorithm::kSwitch}) {
    const CollOutcome o = run_collective(cfg, spec_of(coll::Collective::kAllReduce, a, top::place_ranks(t, 4, p, err), 16384));
    EXPECT_EQ(o.check.wrong, 0u);
  }
}

double busbw(const CollOutcome& o, uint64_t bytes, int n) {
  return static_cast<double>(bytes) / (o.time_us() * 1000.0) * coll::bus_factor(coll::Collective::kAllReduce, n);
}

// NVL72 (facts 2.4, 2.7): NVLS reduces across the whole rack, every GPU's buffer dealt over its 18
// links and each chip's engine reducing its share. 72 ranks, 4 MiB per rank: exact; in-switch over
// ring at least 1.15x (NCCL's NVLS over ring, facts 2.7; measured 7.1x: the 72-rank ring is bound
// by its 142 dependent steps); and against one nvl72-plane chip (the same switch with one link per
// GPU, with the same 128 B stores) at least 11x of the 18x that the links allow (measured 13.9x): at 4 MiB a rank's share per
// plane is 3.2 KiB, so the round trips of a load-reduce and its multicast store are a fixed cost
// that 18 planes do not divide (doc/reduction.md "The NVL72 rack").
TEST(NetworkColl, Nvl72RackInSwitchAllReduce) {
  const uint64_t bytes = uint64_t{4} << 20;
  const config::Config rack = make_preset_txn_config("nvl72-rack");
  config::Config plane = make_preset_txn_config("nvl72-plane");
  plane.coll.store_bytes = rack.coll.store_bytes;  // the same GPUs' stores (128 B) on one chip
  const CollOutcome sw = run_collective(rack, spec_of(coll::Collective::kAllReduce, coll::Algorithm::kSwitch, first_ranks(72), bytes));
  EXPECT_EQ(sw.check.wrong, 0u) << sw.check.first;
  const CollOutcome ring = run_collective(rack, spec_of(coll::Collective::kAllReduce, coll::Algorithm::kRing, first_ranks(72), bytes), 1, false);
  const CollOutcome one = run_collective(plane, spec_of(coll::Collective::kAllReduce, coll::Algorithm::kSwitch, first_ranks(72), bytes), 1, false);
  const double b_sw = busbw(sw, bytes, 72), b_ring = busbw(ring, bytes, 72), b_one = busbw(one, bytes, 72);
  // The networks compared without the GPU's launch (accel.nvls_launch_us on the rack, none on the
  // plane preset): it delays the first transfers by exactly itself and nothing else (test
  // GpuFixedCosts.LaunchAndStepCostsAddExactlyWhatTheCriticalPathCounts).
  CollOutcome net = sw;
  net.cycles -= static_cast<uint64_t>(std::llround(rack.coll.nvls_launch_us * rack.clock_ghz * 1000.0));
  const double b_net = busbw(net, bytes, 72);
  std::printf("NVL72 all-reduce, 72 ranks, 4 MiB: rack in-switch %.1f GB/s (%.1f without the launch), rack ring %.1f "
              "GB/s, one plane in-switch %.2f GB/s (%.2fx)\n",
              b_sw, b_net, b_ring, b_one, b_net / b_one);
  EXPECT_GE(b_sw, 1.15 * b_ring);
  EXPECT_GE(b_net, 11 * b_one);
  // No more than the links allow: busbw <= 2 x (18 links of 49.0625 GB/s) for in-switch.
  EXPECT_LE(b_net, 2 * 18 * 49.0625);
}

}  // namespace
}  // namespace upswitch::testing
