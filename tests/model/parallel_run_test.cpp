// Parallel execution across switches (issue 21, top/parallel_run.h): the same run on 1, 2 and 3
// threads writes the same summary.json (wall-clock fields aside), links.csv, ports.csv and
// latency histogram as the sequential plain driver, byte for byte, on planes, two tiers (run to
// the end of the flush, and stopped at the end of the window with packets in flight), a topology
// file and the NVL72 rack; and the window is the least latency or credit delay of a link between
// two threads. Also built alone with ThreadSanitizer (scripts/test.sh, UPSWITCH_SANITIZE=thread).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "test_support.h"
#include "top/parallel_run.h"
#include "top/report.h"
#include "txn_support.h"

namespace upswitch::testing {
namespace {

// Everything a run writes, with the wall-clock fields taken out.
struct Outputs {
  std::string summary, links, ports, latency;
  bool operator==(const Outputs& o) const {
    return summary == o.summary && links == o.links && ports == o.ports && latency == o.latency;
  }
};

Outputs outputs_of(const top::Fabric& f) {
  const traffic::RunResult& r = f.endpoints().result();
  const std::vector<std::string> violations =
      f.config().measure.flush && !r.interrupted ? top::check_drained(f) : top::check_conservation(f);
  nlohmann::json s = top::build_summary(f, top::RunTiming{0.0, "plain"}, violations);
  return {s.dump(2), top::links_csv(f), top::ports_csv(f), top::latency_histogram_csv(f)};
}

Outputs sequential(const config::Config& c) {
  top::Fabric f(c);
  f.run_plain();
  return outputs_of(f);
}

Outputs parallel(const config::Config& c, int threads, int* groups = nullptr) {
  top::Fabric f(c);
  const top::ParallelPlan plan = top::plan_parallel(f, threads);
  if (groups) *groups = plan.groups;
  top::run_parallel(f, plan);
  return outputs_of(f);
}

void expect_same_for_every_thread_count(const config::Config& c, const std::string& what) {
  const Outputs one = sequential(c);
  EXPECT_NE(one.summary.find("\"conservation\""), std::string::npos);
  for (int n : {1, 2, 3}) {
    int groups = 0;
    const Outputs many = parallel(c, n, &groups);
    EXPECT_EQ(groups, std::min(n, c.network().num_switches())) << what;
    EXPECT_TRUE(many.summary == one.summary) << what << ", " << n << " threads: summary.json differs";
    EXPECT_TRUE(many.links == one.links) << what << ", " << n << " threads: links.csv differs";
    EXPECT_TRUE(many.ports == one.ports) << what << ", " << n << " threads: ports.csv differs";
    EXPECT_TRUE(many.latency == one.latency) << what << ", " << n << " threads: latency histogram differs";
  }
}

const Sets kTwoTier = {{"topology.kind", "two_tier"}, {"topology.leaves", "4"}, {"topology.endpoints_per_leaf", "3"},
                       {"topology.spines", "2"},      {"topology.uplinks_per_leaf", "2"}, {"switch.ports", "8"},
                       {"sim.warmup_cycles", "500"}, {"sim.measure_cycles", "3000"}};

TEST(ParallelRun, PlanesGiveTheSameResultsOnEveryThreadCount) {
  expect_same_for_every_thread_count(
      make_config("", {{"topology.kind", "planes"}, {"topology.endpoints", "16"}, {"topology.planes", "4"},
                       {"traffic.rate", "1.0"}, {"sim.warmup_cycles", "500"}, {"sim.measure_cycles", "3000"}}),
      "4 planes at saturation");
}

TEST(ParallelRun, TwoTiersGiveTheSameResultsOnEveryThreadCount) {
  expect_same_for_every_thread_count(make_config("", with(kTwoTier, {{"traffic.rate", "0.6"}})), "two tiers, flushed");
  // Without the flush the run ends at the window's end with packets inside the switches: a group
  // must not tick past the cycle the endpoints ended the run at.
  expect_same_for_every_thread_count(make_config("", with(kTwoTier, {{"traffic.rate", "0.9"}, {"sim.flush", "false"}})),
                                     "two tiers, not flushed");
  // Switches taken out and a hotspot, across the groups.
  expect_same_for_every_thread_count(
      make_config("", with(kTwoTier, {{"traffic.pattern", "hotspot"}, {"faults.switch_down", "5@500"}})),
      "two tiers, a spine out");
}

TEST(ParallelRun, ATopologyFileGivesTheSameResultsOnEveryThreadCount) {
  expect_same_for_every_thread_count(
      make_config("", {{"topology.kind", "file"},
                       {"topology.file", std::string(UPSWITCH_SOURCE_DIR) + "/configs/topologies/two_switch.yaml"},
                       {"traffic.rate", "0.7"}, {"sim.warmup_cycles", "500"}, {"sim.measure_cycles", "3000"}}),
      "two_switch.yaml");
}

TEST(ParallelRun, TheNvl72RackGivesTheSameResultsOnEveryThreadCount) {
  expect_same_for_every_thread_count(
      make_config("nvl72-rack", {{"traffic.rate", "0.25"}, {"sim.warmup_cycles", "300"}, {"sim.measure_cycles", "1200"}}),
      "nvl72-rack");
}

// The window: the rack's links are 80 ns (128 cycles at 1.6 GHz) each way, credits as long; on two
// tiers the links between switches are the shortest link between two groups.
TEST(ParallelRun, TheWindowIsTheShortestLinkBetweenTwoThreads) {
  {
    top::Fabric f(make_config("nvl72-rack", {}));
    const top::ParallelPlan p = top::plan_parallel(f, 2);
    EXPECT_EQ(p.groups, 2);
    EXPECT_EQ(p.window, 128u);
    int in_second = 0;
    for (int g : p.group_of) in_second += g == 1;
    EXPECT_GT(in_second, 9);  // the endpoints weigh on group 0, so it takes fewer switches
  }
  top::Fabric f(make_config("", with(kTwoTier, {{"link.inter_switch_latency_cycles", "40"},
                                                {"link.inter_switch_credit_delay_cycles", "30"}})));
  EXPECT_EQ(top::plan_parallel(f, 6).window, 30u);
  EXPECT_EQ(top::plan_parallel(f, 6).groups, 6);
  EXPECT_EQ(top::plan_parallel(f, 64).groups, 6);  // at most one group per switch
}

TEST(ParallelRun, WhatCannotBeSplitIsRefusedInOneLine) {
  EXPECT_EQ(top::parallel_refusal(make_config("", kTwoTier), 2), "");
  EXPECT_NE(top::parallel_refusal(make_config("", kTwoTier), 0).find("--threads 0: expected at least 1"), std::string::npos);
  EXPECT_NE(top::parallel_refusal(make_config("", with(kTwoTier, {{"link.dl.enable", "true"}})), 2)
                .find("link.dl.enable = true"),
            std::string::npos);
  config::Config txn = make_config("", kTwoTier);
  txn.kind = config::Config::TrafficKind::kTransactions;
  EXPECT_NE(top::parallel_refusal(txn, 2).find("packet traffic only"), std::string::npos);
}

}  // namespace
}  // namespace upswitch::testing
