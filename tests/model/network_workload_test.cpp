// Workloads across many switch chips (issue 19): an MoE all-to-all on planes reports the load of
// every plane and the busiest link of each phase, so a straggler's cause shows. Expectations, all
// independent of the report: the address interleave deals each rank's bytes evenly over its
// planes; with one hot expert the busiest link is that expert's rank's own link (into it in the
// dispatch, out of it in the combine), and it carries at least that rank's bytes over its links'
// rate (every payload byte rides one of its P links, at most flit_bytes per flit); the port bound
// and the non-blocking limit count all of a rank's ports.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>

#include "txn_support.h"
#include "top/workload_run.h"

namespace upswitch::testing {
namespace {

const Sets kMoe = {{"workload.kind", "moe"}, {"moe.tokens", "64"},     {"moe.hidden", "1024"},
                   {"moe.experts", "8"},     {"moe.compute_us", "1"},  {"moe.gating", "hot"},
                   {"moe.hot_experts", "3"}, {"moe.hot_fraction", "0.5"}};

TEST(NetworkWorkload, MoeOnPlanesReportsEvenPlanesAndTheHotRanksLinkAsTheBusiest) {
  const int planes = 4;
  const config::Config cfg = make_txn_config(with(
      {{"topology.kind", "planes"}, {"topology.endpoints", "8"}, {"topology.planes", std::to_string(planes)}}, kMoe));
  const top::WorkloadResult r = top::run_workload(cfg);
  ASSERT_EQ(r.phases.size(), 2u);
  // One link of the default preset, in GB/s: the configured rate unless it exceeds a flit per cycle.
  const double flit_gbps = cfg.flit_bytes * cfg.clock_ghz;
  const double link = cfg.link_gbytes_per_s > 0 ? std::min(cfg.link_gbytes_per_s, flit_gbps) : flit_gbps;
  for (const top::WorkloadPhase& p : r.phases) {
    SCOPED_TRACE(p.phase);
    ASSERT_EQ(p.switch_flits.size(), static_cast<size_t>(planes));
    const double mean =
        static_cast<double>(std::accumulate(p.switch_flits.begin(), p.switch_flits.end(), uint64_t{0})) / planes;
    for (uint64_t f : p.switch_flits) EXPECT_NEAR(static_cast<double>(f), mean, 0.03 * mean);
    EXPECT_LE(p.switch_spread, 1.03);
    // Rank 3 hosts the hot expert: it receives the most in the dispatch and sends the most back.
    if (p.phase == "dispatch")
      EXPECT_NE(p.busiest_link.find("->ep3."), std::string::npos) << p.busiest_link;
    else
      EXPECT_EQ(p.busiest_link.rfind("ep3.", 0), 0u) << p.busiest_link;
    const uint64_t hot_bytes = p.phase == "dispatch" ? p.recv_max : p.sent_max;
    EXPECT_GE(static_cast<double>(p.busiest_link_flits) * cfg.flit_bytes, static_cast<double>(hot_bytes) / planes);
    // Its utilisation over the phase is at least the hot rank's bytes over its P links' rate and
    // the phase's time, and no link carries more than its rate.
    EXPECT_GE(p.busiest_link_utilisation, 0.98 * static_cast<double>(hot_bytes) / (planes * link * 1000.0 * p.time_us));
    EXPECT_LE(p.busiest_link_utilisation, 1.0 + 1e-9);
    EXPECT_NEAR(p.limit_gbps, 8 * planes * link, 1e-6 * p.limit_gbps);
    EXPECT_NEAR(p.port_bound_us, static_cast<double>(std::max(p.sent_max, p.recv_max)) / (planes * link * 1000.0),
                1e-9 * p.port_bound_us);
    EXPECT_GE(p.time_us, p.port_bound_us);
  }
}

// On one switch the figures count one port per rank, as before the network (the busiest link is
// still the hot rank's).
TEST(NetworkWorkload, MoeOnOneSwitchCountsOnePortPerRank) {
  const config::Config cfg = make_txn_config(with({{"switch.ports", "8"}}, kMoe));
  const top::WorkloadResult r = top::run_workload(cfg);
  const double flit_gbps = cfg.flit_bytes * cfg.clock_ghz;
  const double link = cfg.link_gbytes_per_s > 0 ? std::min(cfg.link_gbytes_per_s, flit_gbps) : flit_gbps;
  for (const top::WorkloadPhase& p : r.phases) {
    SCOPED_TRACE(p.phase);
    ASSERT_EQ(p.switch_flits.size(), 1u);
    EXPECT_NEAR(p.limit_gbps, 8 * link, 1e-6 * p.limit_gbps);
    EXPECT_NE(p.busiest_link.find("ep3."), std::string::npos) << p.busiest_link;
    EXPECT_GE(p.time_us, p.port_bound_us);
  }
}

}  // namespace
}  // namespace upswitch::testing
