// The GPU's fixed costs (accel.launch_us, accel.nvls_launch_us, accel.step_us; doc/nccl.md)
// against hand-counted critical paths: a collective whose every step is one slice (4 KiB over 8
// ranks) is a chain of dependent steps, so the launch delays its first transfers by exactly the
// launch, and a ring or chain step's cost is paid once per flag a step waits for: 2(N-1) - 1 for
// an all-reduce (the first step waits for none), N - 2 for an all-gather. One-shot and the switch
// algorithm wait for no step flag. The cost model (coll/cost_model.h) must add the same.
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
  const config::Config costly = make_txn_config(
      {{"switch.ports", "8"}, {"accel.launch_us", "2"}, {"accel.nvls_launch_us", "3"}, {"accel.step_us", "0.5"}});
  const double cpu = base.clock_ghz * 1000.0;  // cycles per us
  const auto launch = static_cast<uint64_t>(std::llround(2 * cpu));
  const auto nvls = static_cast<uint64_t>(std::llround(3 * cpu));
  const auto step = static_cast<uint64_t>(std::llround(0.5 * cpu));
  const int n = 8;
  struct Case {
    Collective coll;
    Algorithm algo;
    coll::Protocol protocol;
    uint64_t extra;
  };
  const Case cases[] = {
      {Collective::kAllReduce, Algorithm::kRing, coll::Protocol::kSimple, launch + (2 * (n - 1) - 1) * step},
      {Collective::kAllReduce, Algorithm::kRing, coll::Protocol::kLl, launch + (2 * (n - 1) - 1) * step},
      {Collective::kAllGather, Algorithm::kRing, coll::Protocol::kLl128, launch + (n - 2) * step},
      {Collective::kAllReduce, Algorithm::kOneShot, coll::Protocol::kSimple, launch},
      {Collective::kAllReduce, Algorithm::kSwitch, coll::Protocol::kSimple, nvls},
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
