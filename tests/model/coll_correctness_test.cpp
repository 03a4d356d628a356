// Every collective and algorithm gives the host reference's result (coll/reference.h): bit-exact
// for integers, min, max and data movement, within the documented reduction-order bound for float
// sums, for every element type and reduction, on groups of 2, 3, 8 and 72 ranks, in any order of
// endpoints; several collectives on different groups at once.
#include <gtest/gtest.h>

#include "coll_support.h"

namespace upswitch::testing {
namespace {

using coll::Algorithm;
using coll::Collective;

config::Config coll_config(int ports = 72) {
  return make_txn_config({{"switch.ports", std::to_string(ports)}, {"sim.check_interval_cycles", "2000"}});
}

// Ranks spread over the switch in a scrambled order: 0, 5, 10, ... mod 72 (72 is coprime to 5).
std::vector<int> scattered(int n) {
  std::vector<int> r;
  for (int i = 0; i < n; ++i) r.push_back((i * 5 + 3) % 72);
  return r;
}

void expect_correct(const config::Config& cfg, const coll::CollectiveSpec& s) {
  const CollOutcome o = run_collective(cfg, s, 7);
  EXPECT_EQ(o.run.status, tl::Status::kOkay);
  EXPECT_GT(o.check.elements, 0u);
  EXPECT_EQ(o.check.wrong, 0u) << coll::collective_name(s.coll) << "/" << coll::algorithm_name(s.algo) << " n="
                               << s.ranks.size() << " " << tl::red_type_name(s.type) << " " << tl::red_op_name(s.op)
                               << ": " << o.check.first;
}

TEST(CollCorrectness, EveryReductionTypeAndOpOnSmallGroups) {
  const config::Config cfg = coll_config();
  for (Collective c : {Collective::kAllReduce, Collective::kReduceScatter})
    for (Algorithm a : {Algorithm::kRing, Algorithm::kOneShot, Algorithm::kSwitch})
      for (int n : {2, 3, 8})
        for (int t = 0; t < tl::kRedTypes; ++t)
          for (int op = 0; op < tl::kRedOps; ++op) {
            const auto type = static_cast<tl::RedType>(t);
            const auto rop = static_cast<tl::RedOp>(op);
            if (!tl::red_supported(type, rop)) continue;
            // Not a multiple of n chunks of 256 B: uneven and partial chunks, partial beats.
            expect_correct(cfg, spec_of(c, a, scattered(n), 3000 + 8 * static_cast<uint64_t>(n), type, rop));
          }
}

// 72 ranks: all-reduce for every type and op; reduce-scatter sums every type.
TEST(CollCorrectness, EveryTypeAndOpOn72Ranks) {
  const config::Config cfg = coll_config();
  for (Collective c : {Collective::kAllReduce, Collective::kReduceScatter})
    for (Algorithm a : {Algorithm::kRing, Algorithm::kOneShot, Algorithm::kSwitch})
      for (int t = 0; t < tl::kRedTypes; ++t)
        for (int op = 0; op < tl::kRedOps; ++op) {
          const auto type = static_cast<tl::RedType>(t);
          const auto rop = static_cast<tl::RedOp>(op);
          if (!tl::red_supported(type, rop) || (c == Collective::kReduceScatter && rop != tl::RedOp::kSum)) continue;
          expect_correct(cfg, spec_of(c, a, scattered(72), 72 * 64 + 64, type, rop));
        }
}

TEST(CollCorrectness, DataMovementCollectives) {
  const config::Config cfg = coll_config();
  for (int n : {2, 3, 8, 72})
    for (Algorithm a : {Algorithm::kRing, Algorithm::kOneShot, Algorithm::kSwitch}) {
      expect_correct(cfg, spec_of(Collective::kAllGather, a, scattered(n), 1024 * static_cast<uint64_t>(n) + 96));
      coll::CollectiveSpec b = spec_of(Collective::kBroadcast, a, scattered(n), 40000);
      b.root = n / 2;
      expect_correct(cfg, b);
    }
  for (int n : {2, 3, 8, 72})
    expect_correct(cfg, spec_of(Collective::kAllToAll, Algorithm::kOneShot, scattered(n), 512 * static_cast<uint64_t>(n)));
}

TEST(CollCorrectness, AllToAllWithPerPairSizes) {
  const config::Config cfg = coll_config(16);
  coll::CollectiveSpec s = spec_of(Collective::kAllToAll, Algorithm::kOneShot, first_ranks(5), 0);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j) s.pair_bytes.push_back(static_cast<uint64_t>((i * 7 + j * 3) % 5) * 1028);
  expect_correct(cfg, s);
}

TEST(CollCorrectness, SingleRankIsACopy) {
  const config::Config cfg = coll_config(8);
  for (Algorithm a : {Algorithm::kRing, Algorithm::kOneShot, Algorithm::kSwitch})
    expect_correct(cfg, spec_of(Collective::kAllReduce, a, {4}, 4096));
}

// Nine groups of eight (tensor parallelism's usual placement) all-reduce at once, each with its
// own algorithm, and every result is right.
TEST(CollCorrectness, ConcurrentCollectivesOnDisjointGroups) {
  const config::Config cfg = coll_config();
  top::TxnFabric f(cfg, false);
  coll::CollectiveRunner runner(f);
  std::vector<int> ids;
  for (int g = 0; g < 9; ++g) {
    std::vector<int> ranks;
    for (int i = 0; i < 8; ++i) ranks.push_back(g + 9 * i);
    const auto a = static_cast<Algorithm>(g % 3);
    ids.push_back(runner.add(spec_of(Collective::kAllReduce, a, ranks, 8 * 4096, tl::RedType::kBF16), 0));
    coll::fill_inputs(f, runner.get(ids.back()), 100 + static_cast<uint64_t>(g));
  }
  ASSERT_TRUE(runner.run());
  EXPECT_TRUE(top::check_txn_drained(f).empty());
  for (int id : ids) {
    const coll::CheckResult c = coll::check_results(f, runner.get(id));
    EXPECT_EQ(c.wrong, 0u) << c.first;
  }
}

TEST(CollCorrectness, BadSpecsAreRejected) {
  const config::Config cfg = coll_config(8);
  top::TxnFabric f(cfg, false);
  coll::CollectiveRunner runner(f);
  EXPECT_THROW(runner.add(spec_of(Collective::kAllReduce, Algorithm::kRing, {0, 9}, 64), 0), std::invalid_argument);
  EXPECT_THROW(runner.add(spec_of(Collective::kAllReduce, Algorithm::kRing, {0, 0}, 64), 0), std::invalid_argument);
  EXPECT_THROW(runner.add(spec_of(Collective::kAllReduce, Algorithm::kRing, {0, 1}, 6), 0), std::invalid_argument);
  EXPECT_THROW(runner.add(spec_of(Collective::kAllReduce, Algorithm::kRing, {0, 1}, 64, tl::RedType::kF32, tl::RedOp::kXor), 0),
               std::invalid_argument);
  EXPECT_THROW(runner.add(spec_of(Collective::kAllToAll, Algorithm::kRing, {0, 1}, 64), 0), std::invalid_argument);
}

}  // namespace
}  // namespace upswitch::testing
