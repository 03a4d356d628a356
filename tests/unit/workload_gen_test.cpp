// The workload generators' arithmetic (doc/workloads.md), against independent expectations:
// - MoE dispatch bytes recounted from the token-to-expert assignment by a separate loop;
// - uniform gating balanced within the binomial bound; Zipf and hot gating at their probabilities;
// - capacity drops equal to sum over experts of max(0, picks - capacity);
// - the assignment file format and its one-line errors;
// - TP sizes and groups from the model dimensions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>

#include "config/config.h"
#include "traffic/moe.h"
#include "traffic/tp.h"

namespace upswitch::testing {
namespace {

using traffic::Gating;
using traffic::MoeAssignment;
using traffic::MoeParams;

MoeParams moe(int ranks, int tokens, int experts, int top_k) {
  MoeParams p;
  p.ranks = ranks;
  p.tokens = tokens;
  p.hidden = 1024;
  p.elem_bytes = 2;
  p.experts = experts;
  p.experts_per_rank = (experts + ranks - 1) / ranks;
  p.top_k = top_k;
  p.zipf_s = 1.0;
  p.layers = 1;
  return p;
}

// Picks per expert.
std::vector<uint64_t> expert_load(const MoeParams& p, const MoeAssignment& a) {
  std::vector<uint64_t> n(static_cast<size_t>(p.experts), 0);
  for (int32_t e : a.expert)
    if (e >= 0) ++n[static_cast<size_t>(e)];
  return n;
}

TEST(MoeGating, PicksAreDistinctExpertsInRange) {
  for (Gating g : {Gating::kUniform, Gating::kZipf, Gating::kHot}) {
    MoeParams p = moe(8, 200, 16, 4);
    p.gating = g;
    p.hot_experts = {3, 5};
    p.hot_fraction = 0.9;
    const MoeAssignment a = traffic::draw_assignment(p, 7, 0);
    for (int r = 0; r < p.ranks; ++r)
      for (int t = 0; t < p.tokens; ++t) {
        std::set<int> seen;
        for (int i = 0; i < p.top_k; ++i) {
          const int e = a.at(r, t, i);
          ASSERT_GE(e, 0);
          ASSERT_LT(e, p.experts);
          ASSERT_TRUE(seen.insert(e).second) << "expert " << e << " twice";
        }
      }
  }
}

TEST(MoeGating, SameSeedSameAssignmentOtherLayerOtherDraw) {
  const MoeParams p = moe(8, 100, 8, 2);
  EXPECT_EQ(traffic::draw_assignment(p, 3, 0).expert, traffic::draw_assignment(p, 3, 0).expert);
  EXPECT_NE(traffic::draw_assignment(p, 3, 0).expert, traffic::draw_assignment(p, 3, 1).expert);
  EXPECT_NE(traffic::draw_assignment(p, 3, 0).expert, traffic::draw_assignment(p, 4, 0).expert);
}

// Uniform, one expert per rank, no drops: every rank sends exactly tokens x top_k tokens, and what
// each rank receives is Binomial(ranks x tokens, top_k / experts); all within 5 standard deviations.
TEST(MoeBytes, UniformDispatchIsBalancedWithinTheBinomialBound) {
  const MoeParams p = moe(72, 512, 72, 2);
  const MoeAssignment a = traffic::draw_assignment(p, 1, 0);
  const std::vector<uint64_t> b = traffic::dispatch_bytes(p, a);
  const uint64_t token = 1024 * 2;
  const double n = 72.0 * 512, q = 2.0 / 72, mean = n * q, sd = std::sqrt(n * q * (1 - q));
  for (size_t i = 0; i < 72; ++i) {
    uint64_t sent = 0, recv = 0;
    for (size_t j = 0; j < 72; ++j) {
      sent += b[i * 72 + j];
      recv += b[j * 72 + i];
    }
    EXPECT_EQ(sent, 512u * 2 * token) << "rank " << i;
    const double got = static_cast<double>(recv / token);
    EXPECT_LT(std::abs(got - mean), 5 * sd) << "rank " << i << " received " << got << " tokens, mean " << mean;
  }
}

// The byte matrix recounted from the assignment with a map of (source rank, destination rank), with
// and without per-rank deduplication, several experts per rank, and drops.
TEST(MoeBytes, DispatchMatrixEqualsARecountOfTheAssignment) {
  for (bool dedup : {false, true}) {
    MoeParams p = moe(6, 300, 24, 4);  // 4 experts per rank
    p.gating = Gating::kZipf;
    p.dedup = dedup;
    p.capacity_factor = 1.0;
    MoeAssignment a = traffic::draw_assignment(p, 11, 2);
    traffic::apply_capacity(p, a);
    std::map<std::pair<int, int>, uint64_t> tokens;
    for (int r = 0; r < 6; ++r)
      for (int t = 0; t < 300; ++t) {
        std::set<int> ranks;
        for (int i = 0; i < 4; ++i) {
          const int e = a.at(r, t, i);
          if (e < 0) continue;
          if (dedup)
            ranks.insert(e / 4);
          else
            ++tokens[{r, e / 4}];
        }
        for (int d : ranks) ++tokens[{r, d}];
      }
    const std::vector<uint64_t> b = traffic::dispatch_bytes(p, a);
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j)
        EXPECT_EQ(b[static_cast<size_t>(i * 6 + j)], tokens[std::make_pair(i, j)] * 2048) << i << "->" << j << " dedup " << dedup;
  }
}

// top-1 picks follow the distribution: Zipf P(e) = (1/(e+1)^s) / H; hot experts share hot_fraction.
TEST(MoeGating, ZipfAndHotPicksFollowTheirProbabilities) {
  MoeParams p = moe(16, 4000, 16, 1);
  p.gating = Gating::kZipf;
  p.zipf_s = 1.2;
  double h = 0;
  for (int e = 0; e < 16; ++e) h += 1.0 / std::pow(e + 1.0, 1.2);
  const std::vector<uint64_t> z = expert_load(p, traffic::draw_assignment(p, 5, 0));
  const double n = 16.0 * 4000;
  for (int e = 0; e < 16; ++e) {
    const double q = 1.0 / std::pow(e + 1.0, 1.2) / h;
    EXPECT_LT(std::abs(static_cast<double>(z[static_cast<size_t>(e)]) - n * q), 5 * std::sqrt(n * q * (1 - q)))
        << "expert " << e;
  }
  p.gating = Gating::kHot;
  p.hot_experts = {2, 9};
  p.hot_fraction = 0.6;
  const std::vector<uint64_t> l = expert_load(p, traffic::draw_assignment(p, 5, 0));
  const double hot = static_cast<double>(l[2] + l[9]);
  EXPECT_LT(std::abs(hot - n * 0.6), 5 * std::sqrt(n * 0.6 * 0.4));
  EXPECT_LT(std::abs(static_cast<double>(l[2]) - static_cast<double>(l[9])), 5 * std::sqrt(n * 0.3));
}

// GShard capacity: each expert keeps ceil(cf x picks / experts); drops = sum of the excess, and the
// kept picks are the earliest tokens.
TEST(MoeCapacity, DropsAreTheExcessOverCapacityOfEachExpert) {
  MoeParams p = moe(8, 256, 8, 2);
  p.gating = Gating::kZipf;
  p.capacity_factor = 1.25;
  MoeAssignment a = traffic::draw_assignment(p, 9, 0);
  const std::vector<uint64_t> before = expert_load(p, a);
  const auto cap = static_cast<uint64_t>(std::ceil(1.25 * 8 * 256 * 2 / 8.0));
  EXPECT_EQ(traffic::expert_capacity(p), cap);
  uint64_t excess = 0;
  for (uint64_t n : before) excess += n > cap ? n - cap : 0;
  ASSERT_GT(excess, 0u) << "the skew should overflow expert 0";
  traffic::apply_capacity(p, a);
  EXPECT_EQ(a.dropped, excess);
  const std::vector<uint64_t> after = expert_load(p, a);
  for (int e = 0; e < 8; ++e) EXPECT_EQ(after[static_cast<size_t>(e)], std::min(before[static_cast<size_t>(e)], cap));
  // Token 0 of every rank comes first: none of its picks is dropped unless capacity < ranks.
  for (int r = 0; r < 8; ++r) EXPECT_GE(a.at(r, 0, 0), 0);
}

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

TEST(MoeAssignmentFile, ReadsOneLinePerTokenAndNamesTheBadLine) {
  MoeParams p = moe(2, 2, 4, 2);
  p.experts_per_rank = 2;
  const MoeAssignment a = traffic::read_assignment(
      p, write_file("moe_ok.txt", "# rank token experts\n0 0 1 2\n0 1 3 0\n\n1 0 2 3  # hot\n1 1 0 2\n"));
  EXPECT_EQ(a.expert, (std::vector<int32_t>{1, 2, 3, 0, 2, 3, 0, 2}));
  const std::vector<uint64_t> b = traffic::dispatch_bytes(p, a);  // experts 0,1 on rank 0; 2,3 on rank 1
  EXPECT_EQ(b, (std::vector<uint64_t>{2 * 2048, 2 * 2048, 1 * 2048, 3 * 2048}));
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"0 0 1\n", "line 1: expected RANK TOKEN and 2 experts"},
      {"0 0 1 2\n0 1 1 x\n", "line 2: 'x' is not an integer"},
      {"0 0 1 2\n5 1 1 2\n", "line 2: rank 5 is not in 0 .. 1"},
      {"0 0 1 2\n0 0 1 2\n", "line 2: rank 0 token 0 appears twice"},
      {"0 0 1 7\n", "line 1: expert 7 is not in 0 .. 3"},
      {"0 0 1 1\n", "line 1: expert 1 picked twice"},
      {"0 0 1 2\n", "has 1 tokens; moe.ranks x moe.tokens = 4"},
  };
  for (const auto& [text, want] : bad) {
    try {
      traffic::read_assignment(p, write_file("moe_bad.txt", text));
      ADD_FAILURE() << "accepted: " << text;
    } catch (const config::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  }
}

TEST(MoeParamsCheck, RejectsWhatCannotRun) {
  MoeParams p = moe(8, 16, 8, 2);
  EXPECT_EQ(traffic::check_moe(p, 8), "");
  p.experts = 9;
  EXPECT_NE(traffic::check_moe(p, 8).find("moe.experts = 9"), std::string::npos);
  p = moe(8, 16, 8, 9);
  EXPECT_NE(traffic::check_moe(p, 8).find("moe.top_k = 9"), std::string::npos);
  p = moe(8, 16, 8, 2);
  p.hidden = 3;
  p.elem_bytes = 1;
  EXPECT_NE(traffic::check_moe(p, 8).find("moe.hidden"), std::string::npos);
  p = moe(8, 16, 8, 2);
  p.ranks = 9;
  EXPECT_NE(traffic::check_moe(p, 8).find("moe.ranks = 9"), std::string::npos);
}

traffic::TpParams tp(bool sp) {
  traffic::TpParams p;
  p.group_size = 8;
  p.hidden = 5120;
  p.seq_len = 2048;
  p.micro_batch = 2;
  p.layers = 1;
  p.dtype = static_cast<int>(tl::RedType::kBF16);
  p.algo = static_cast<int>(coll::Algorithm::kSwitch);
  p.sequence_parallel = sp;
  p.compute_us = 30;
  return p;
}

// Megatron-LM: per layer and pass two all-reduces of the s x b x h activation; with sequence
// parallelism an all-gather before and a reduce-scatter after each block, same size.
TEST(TpSizes, CollectivesPerLayerFollowTheModelDimensions) {
  const uint64_t s = 2048ull * 2 * 5120 * 2;
  EXPECT_EQ(traffic::tp_activation_bytes(tp(false)), s);
  const auto plain = traffic::tp_layer_steps(tp(false));
  ASSERT_EQ(plain.size(), 4u);
  EXPECT_TRUE(plain[0].compute);
  EXPECT_DOUBLE_EQ(plain[0].compute_us + plain[2].compute_us, 30.0);
  EXPECT_EQ(plain[1].coll, coll::Collective::kAllReduce);
  EXPECT_EQ(plain[1].bytes, s);
  EXPECT_EQ(plain[3].coll, coll::Collective::kAllReduce);
  const auto sp = traffic::tp_layer_steps(tp(true));
  ASSERT_EQ(sp.size(), 6u);
  const std::vector<coll::Collective> order = {coll::Collective::kAllGather, coll::Collective::kReduceScatter,
                                               coll::Collective::kAllGather, coll::Collective::kReduceScatter};
  std::vector<coll::Collective> got;
  for (const auto& x : sp)
    if (!x.compute) {
      got.push_back(x.coll);
      EXPECT_EQ(x.bytes, s);
    }
  EXPECT_EQ(got, order);
}

TEST(TpGroups, ContiguousAndStridedPlacementCoverThePortsOnce) {
  traffic::TpParams p = tp(false);
  EXPECT_EQ(traffic::tp_group_count(p, 72), 9);
  EXPECT_EQ(traffic::tp_group_ranks(p, 72, 2), (std::vector<int>{16, 17, 18, 19, 20, 21, 22, 23}));
  p.placement = traffic::TpPlacement::kStrided;
  EXPECT_EQ(traffic::tp_group_ranks(p, 72, 2), (std::vector<int>{2, 11, 20, 29, 38, 47, 56, 65}));
  std::set<int> all;
  for (int g = 0; g < 9; ++g)
    for (int r : traffic::tp_group_ranks(p, 72, g)) EXPECT_TRUE(all.insert(r).second);
  EXPECT_EQ(all.size(), 72u);
  p.groups = 10;
  EXPECT_NE(traffic::check_tp(p, 72).find("tp.groups = 10"), std::string::npos);
  p.groups = 0;
  p.dtype = static_cast<int>(tl::RedType::kF64);
  EXPECT_NE(traffic::check_tp(p, 72).find("tp.dtype"), std::string::npos);
}

}  // namespace
}  // namespace upswitch::testing
