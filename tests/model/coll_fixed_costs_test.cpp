// The GPU's fixed costs (accel.launch_us_<protocol>, accel.nvls_launch_us, accel.step_us_<protocol>;
// doc/nccl.md)
// against hand-counted critical paths: a collective whose every step is one slice (4 KiB over 8
// ranks) is a chain of dependent steps, so the launch delays its first transfers by exactly the
// launch, and a ring or chain step's cost is paid once per flag a step waits for: 2(N-1) - 1 for
// an all-reduce (the first step waits for none), N - 2 for an all-gather. One-shot and the switch
// algorithm wait for no step flag. Each protocol has its own costs (one-shot runs Simple), so each
// case must pay its own protocol's. The cost model (coll/cost_model.h) must add the same.
#include <gtest/gtest.h>

#include <cmath>

#include "coll/cost_model.h"
#include "coll_support.h"
#include "top/coll_choice.h"
#include "top/coll_table.h"

namespace upswitch::testing {
namespace {

using coll::Algorithm;
using coll::Collective;

TEST(GpuFixedCosts, LaunchAndStepCostsAddExactlyWhatTheCriticalPathCounts) {
  const config::Config base = make_txn_config({{"switch.ports", "8"}});
  const config::Config costly = make_txn_config({{"switch.ports", "8"},
                                                 {"accel.launch_us_simple", "2"},
                                                 {"accel.launch_us_ll128", "2.5"},
                                                 {"accel.launch_us_ll", "1.5"},
                                                 {"accel.nvls_launch_us", "3"},
                                                 {"accel.step_us_simple", "0.5"},
                                                 {"accel.step_us_ll128", "0.3"},
                                                 {"accel.step_us_ll", "0.2"}});
  const double cpu = base.clock_ghz * 1000.0;  // cycles per us
  auto cycles = [cpu](double us) { return static_cast<uint64_t>(std::llround(us * cpu)); };
  const int n = 8;
  struct Case {
    Collective coll;
    Algorithm algo;
    coll::Protocol protocol;
    uint64_t extra;
  };
  const Case cases[] = {
      {Collective::kAllReduce, Algorithm::kRing, coll::Protocol::kSimple, cycles(2) + (2 * (n - 1) - 1) * cycles(0.5)},
      {Collective::kAllReduce, Algorithm::kRing, coll::Protocol::kLl, cycles(1.5) + (2 * (n - 1) - 1) * cycles(0.2)},
      {Collective::kAllGather, Algorithm::kRing, coll::Protocol::kLl128, cycles(2.5) + (n - 2) * cycles(0.3)},
      {Collective::kAllReduce, Algorithm::kOneShot, coll::Protocol::kSimple, cycles(2)},
      {Collective::kAllReduce, Algorithm::kSwitch, coll::Protocol::kSimple, cycles(3)},
  };
  for (const Case& k : cases) {
    coll::CollectiveSpec s = spec_of(k.coll, k.algo, first_ranks(n), 4096);
    s.protocol = k.protocol;
    const top::CollRow plain = top::measure_coll_point(base, s, true);
    const top::CollRow slow = top::measure_coll_point(costly, s, true);
    const std::string what = std::string(coll::collective_name(k.coll)) + " " + coll::algorithm_name(k.algo) + "/" +
                             coll::protocol_name(k.protocol);
    EXPECT_EQ(slow.wrong, 0) << what;
    EXPECT_EQ(slow.cycles - plain.cycles, k.extra) << what;
    const double predicted = coll::predict_cycles(s, 1, top::cost_params(costly, s.ranks)) -
                             coll::predict_cycles(s, 1, top::cost_params(base, s.ranks));
    EXPECT_DOUBLE_EQ(predicted, static_cast<double>(k.extra)) << what << " (cost model)";
    std::printf("[ info ] %s, 8 ranks, 4 KiB: %llu -> %llu cycles (+%llu, counted +%llu)\n", what.c_str(),
                static_cast<unsigned long long>(plain.cycles), static_cast<unsigned long long>(slow.cycles),
                static_cast<unsigned long long>(slow.cycles - plain.cycles), static_cast<unsigned long long>(k.extra));
  }
}

}  // namespace
}  // namespace upswitch::testing
