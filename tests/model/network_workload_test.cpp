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

#include <sstream>

#include "txn_support.h"
#include "top/placement.h"
#include "top/trace_replay.h"
#include "top/workload_run.h"
#include "traffic/trace.h"

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

const Sets kTwoTier = {{"topology.kind", "two_tier"}, {"topology.leaves", "4"}, {"topology.endpoints_per_leaf", "3"},
                       {"topology.spines", "2"},      {"topology.uplinks_per_leaf", "2"}, {"switch.ports", "8"}};

// workload.placement: 4 MoE ranks and one TP group of 4 on 12 endpoints of 4 leaves. Packed keeps
// rank i on endpoint i; spread puts one rank on each leaf (the topology's leaves, independently of
// the placement code); a list puts them where it says. Only the placed endpoints move payload.
TEST(NetworkWorkload, PlacementChoosesTheEndpointsRanksRunOn) {
  const Sets work = with(kTwoTier, {{"workload.kind", "mixed"}, {"moe.ranks", "4"},   {"moe.tokens", "16"},
                                    {"moe.hidden", "256"},      {"moe.compute_us", "0.1"}, {"tp.group_size", "4"},
                                    {"tp.groups", "1"},         {"tp.seq_len", "4"},   {"tp.hidden", "256"},
                                    {"tp.compute_us", "0.1"}});
  auto active = [](const top::WorkloadResult& r) {
    std::vector<int> e;
    for (size_t i = 0; i < 12; ++i)
      if (r.ports[i].tx_payload_bytes > 0) e.push_back(static_cast<int>(i));
    return e;
  };
  const top::WorkloadResult packed = top::run_workload(make_txn_config(work));
  EXPECT_EQ(packed.endpoints, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(active(packed), (std::vector<int>{0, 1, 2, 3}));
  const config::Config spread_cfg = make_txn_config(with(work, {{"workload.placement", "spread"}}));
  const top::WorkloadResult spread = top::run_workload(spread_cfg);
  ASSERT_EQ(spread.endpoints.size(), 4u);
  std::vector<int> leaves;
  for (int e : spread.endpoints) leaves.push_back(spread_cfg.network().peer(network::PortRef{false, e, 0}).id);
  EXPECT_EQ(leaves, (std::vector<int>{0, 1, 2, 3})) << "one rank on each leaf";
  EXPECT_EQ(active(spread), spread.endpoints);
  const top::WorkloadResult list = top::run_workload(make_txn_config(with(work, {{"workload.placement", "11,7,3,5"}})));
  EXPECT_EQ(list.endpoints, (std::vector<int>{11, 7, 3, 5}));
  EXPECT_EQ(active(list), (std::vector<int>{3, 5, 7, 11}));
  EXPECT_NE(top::workload_text(list).find("ranks on endpoints 11,7,3,5"), std::string::npos);
  EXPECT_EQ(top::workload_json(list)["placement"]["endpoints"].get<std::vector<int>>(), (std::vector<int>{11, 7, 3, 5}));
  // A list of the wrong length names the key, what is wrong and the workload's rank count.
  try {
    top::run_workload(make_txn_config(with(work, {{"workload.placement", "1,2"}})));
    ADD_FAILURE() << "a 2-endpoint list for 4 ranks was accepted";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("workload.placement = '1,2': the list names 2 endpoints for a group of 4 "
                                         "(the workload has 4 ranks)"),
              std::string::npos)
        << e.what();
  }
}

// A trace's accelerator ids move with the placement: the write from id 0 to id 1 runs from
// endpoint 9 to endpoint 4, and the all-reduce of ids 0 and 1 runs on endpoints 9 and 4.
TEST(NetworkWorkload, PlacementMovesATracesAcceleratorIds) {
  const config::Config cfg = make_txn_config(with(kTwoTier, {{"workload.placement", "9,4"}}));
  std::istringstream in(
      "{\"id\": \"w\", \"op\": \"write\", \"src\": 0, \"dst\": 1, \"bytes\": 4096, \"offset\": 1073741824}\n"
      "{\"id\": \"a\", \"op\": \"all_reduce\", \"ranks\": [0, 1], \"bytes\": 65536, \"after\": [\"w\"]}\n");
  const traffic::Trace t = top::place_trace(cfg, traffic::parse_trace(in, "t.jsonl"));
  EXPECT_EQ(t.ops[0].src, 9);
  EXPECT_EQ(t.ops[0].dst, 4);
  EXPECT_EQ(t.ops[1].spec.ranks, (std::vector<int>{9, 4}));
  const top::ReplayResult r = top::replay_trace(cfg, t);
  ASSERT_EQ(r.rows.size(), 2u);
  for (const top::ReplayRow& row : r.rows) EXPECT_EQ(row.status, tl::Status::kOkay);
  // packed leaves the ids as written
  const traffic::Trace same = top::place_trace(make_txn_config(kTwoTier), t);
  EXPECT_EQ(same.ops[0].src, 9);
}

}  // namespace
}  // namespace upswitch::testing
