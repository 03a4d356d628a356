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

// The check itself: a result that is wrong in one element of one rank is caught, counted once,
// and described (rank and offset); a run that is right stays right after the check. Corrupting
// the memory by hand is the independent expectation: the check must not pass a wrong result.
TEST(CollCorrectness, TheCheckCatchesOneWrongElement) {
  const config::Config cfg = coll_config(8);
  struct Case {
    Collective c;
    tl::RedType type;
    tl::RedOp op;
  };
  for (const Case& k : {Case{Collective::kAllReduce, tl::RedType::kF32, tl::RedOp::kSum},
                        Case{Collective::kAllReduce, tl::RedType::kS32, tl::RedOp::kXor},
                        Case{Collective::kAllReduce, tl::RedType::kBF16, tl::RedOp::kMax},
                        Case{Collective::kReduceScatter, tl::RedType::kF64, tl::RedOp::kSum},
                        Case{Collective::kAllGather, tl::RedType::kU32, tl::RedOp::kSum}}) {
    top::TxnFabric f(cfg, false);
    coll::CollectiveRunner runner(f);
    const int id = runner.add(spec_of(k.c, Algorithm::kRing, first_ranks(4), 4 * 70000, k.type, k.op), 0);
    coll::fill_inputs(f, runner.get(id), 5);
    ASSERT_TRUE(runner.run());
    const coll::CollectiveRun& r = runner.get(id);
    const coll::CheckResult good = coll::check_results(f, r);
    EXPECT_EQ(good.wrong, 0u) << good.first;
    // Rank 2's element 65,600 bytes into its output (past the check's first 64 KiB block): add
    // one to its most significant byte, far outside any rounding bound.
    const int e = tl::red_type_bytes(k.type);
    const uint64_t offset = k.c == Collective::kReduceScatter ? coll::chunk_begin(r.spec.bytes, 4, 2, e) + 4 * static_cast<uint64_t>(e)
                                                              : 65600 / static_cast<uint64_t>(e) * static_cast<uint64_t>(e);
    tl::SparseMemory& m = f.endpoints().memory(2);
    uint8_t byte = 0;
    m.read(r.layout.out + offset + static_cast<uint64_t>(e) - 1, &byte, 1);
    byte = static_cast<uint8_t>(byte ^ 0x40);
    m.write(r.layout.out + offset + static_cast<uint64_t>(e) - 1, &byte, 1);
    const coll::CheckResult bad = coll::check_results(f, r);
    EXPECT_EQ(bad.wrong, 1u) << coll::collective_name(k.c) << " " << tl::red_type_name(k.type);
    EXPECT_EQ(bad.elements, good.elements);
    EXPECT_EQ(bad.first.rfind("rank 2 ", 0), 0u) << bad.first;
    EXPECT_NE(bad.first.find(std::to_string(r.layout.out + offset)), std::string::npos) << bad.first;
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
