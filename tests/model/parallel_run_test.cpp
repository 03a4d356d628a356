// Parallel execution across switches (issue 21, top/parallel_run.h): the same run on 1, 2 and 3
// threads writes the same summary.json (wall-clock fields aside), links.csv, ports.csv and
// latency histogram as the sequential plain driver, byte for byte, on planes, two tiers (run to
// the end of the flush, and stopped at the end of the window with packets in flight), a topology
// file, the NVL72 rack and one switch (the endpoints on one thread, the switch on another); and
// the window is the least latency or credit delay of a link between two threads. Synthetic
// transaction runs (accelerators, memories and the measurement protocol on the first thread)
// likewise, on planes, two tiers, the rack and one switch; and collectives, driven through
// TxnFabric::run_until_idle in slices, end at the same cycles with the same links, ports and
// exact results, on two tiers and, with the reduction engine, on one switch. Also built alone
// with ThreadSanitizer (scripts/test.sh, UPSWITCH_SANITIZE=thread).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "coll_support.h"
#include "core/deadlock_error.h"
#include "test_support.h"
#include "top/parallel_run.h"
#include "top/report.h"
#include "top/txn_report.h"
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

Outputs parallel(const config::Config& c, int threads, int* used = nullptr) {
  top::Fabric f(c);
  const top::ParallelPlan plan = top::plan_parallel(f, threads);
  if (used) *used = plan.threads;
  top::run_parallel(f, plan);
  return outputs_of(f);
}

// Threads used when `threads` are asked: one per switch at most, or the endpoints and the switch
// when there is one.
int threads_for(int threads, int switches) { return switches == 1 ? std::min(threads, 2) : std::min(threads, switches); }

// Two threads' groups run window by window on one thread (top::on_one_thread; `*groups`: how
// many, 1 when the window is too short for it and the sequential driver ran).
Outputs windows_on_one_thread(const config::Config& c, int* groups) {
  top::Fabric f(c);
  const top::ParallelPlan plan = top::on_one_thread(top::plan_parallel(f, 2));
  *groups = plan.groups;
  if (plan.groups > 1)
    top::run_parallel(f, plan);
  else
    f.run_plain();
  return outputs_of(f);
}

void expect_same_for_every_thread_count(const config::Config& c, const std::string& what) {
  const Outputs one = sequential(c);
  EXPECT_NE(one.summary.find("\"conservation\""), std::string::npos);
  if (c.network().num_switches() > 1) {
    int groups = 0;
    const Outputs windows = windows_on_one_thread(c, &groups);
    EXPECT_GT(groups, 1) << what;
    EXPECT_TRUE(windows == one) << what << ": two threads' windows on one thread differ";
  }
  for (int n : {1, 2, 3}) {
    int used = 0;
    const Outputs many = parallel(c, n, &used);
    EXPECT_EQ(used, threads_for(n, c.network().num_switches())) << what;
    EXPECT_TRUE(many.summary == one.summary) << what << ", " << n << " threads: summary.json differs";
    EXPECT_TRUE(many.links == one.links) << what << ", " << n << " threads: links.csv differs";
    EXPECT_TRUE(many.ports == one.ports) << what << ", " << n << " threads: ports.csv differs";
    EXPECT_TRUE(many.latency == one.latency) << what << ", " << n << " threads: latency histogram differs";
  }
}

// `preset` and `sets` with traffic.kind = transactions.
config::Config txn_config(const std::string& preset, const Sets& sets) {
  return make_config(preset, with({{"traffic.kind", "transactions"}}, sets));
}

// The same for a synthetic transaction run.
Outputs txn_outputs_of(const top::TxnFabric& f) {
  const endpoint::TxnResult& r = f.endpoints().result();
  const std::vector<std::string> violations =
      f.config().measure.flush && !r.interrupted ? top::check_txn_drained(f) : top::check_txn_conservation(f);
  nlohmann::json s = top::build_txn_summary(f, top::RunTiming{0.0, "plain"}, violations);
  return {s.dump(2), top::txn_links_csv(f), top::txn_ports_csv(f), top::txn_latency_histogram_csv(f)};
}

void expect_txn_same_for_every_thread_count(const config::Config& c, const std::string& what,
                                            std::vector<int> thread_counts = {1, 2, 3}) {
  top::TxnFabric seq(c, true);
  seq.run_plain();
  const Outputs one = txn_outputs_of(seq);
  EXPECT_NE(one.summary.find("\"conservation\""), std::string::npos);
  EXPECT_GT(seq.endpoints().result().transfers_completed, 0u) << what;
  if (c.network().num_switches() > 1) {  // two threads' windows on one thread
    top::TxnFabric f(c, true);
    EXPECT_GT(top::plan_one_thread(f).groups, 1) << what;
    top::run_on_one_thread(f);
    EXPECT_EQ(f.now(), seq.now()) << what << ", windows on one thread: the next cycle";
    EXPECT_TRUE(txn_outputs_of(f) == one) << what << ", windows on one thread: the outputs differ";
  }
  for (int n : thread_counts) {
    top::TxnFabric f(c, true);
    const top::ParallelPlan plan = top::plan_parallel(f, n);
    EXPECT_EQ(plan.threads, threads_for(n, c.network().num_switches())) << what;
    top::run_parallel(f, plan);
    EXPECT_EQ(f.now(), seq.now()) << what << ", " << n << " threads: the next cycle";
    const Outputs many = txn_outputs_of(f);
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
  // A plane taken out in the measurement window: the endpoints stop using their port to it from
  // that cycle on.
  expect_same_for_every_thread_count(
      make_config("", {{"topology.kind", "planes"}, {"topology.endpoints", "16"}, {"topology.planes", "4"},
                       {"traffic.rate", "0.5"}, {"sim.warmup_cycles", "500"}, {"sim.measure_cycles", "3000"},
                       {"faults.switch_down", "1@1000"}}),
      "4 planes, one taken out");
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

// Which thread runs a group does not matter: one thread given every group but the endpoints'
// (thread 0 then takes the others' from the back), and thread 0 given every group (the others
// take all they can), give the sequential run's outputs, not flushed and flushed.
TEST(ParallelRun, AThreadTakingAnothersGroupsGivesTheSameResults) {
  for (const char* flush : {"false", "true"}) {
    const config::Config c = make_config("", with(kTwoTier, {{"traffic.rate", "0.9"}, {"sim.flush", flush}}));
    const Outputs one = sequential(c);
    for (const bool all_to_zero : {false, true}) {
      top::Fabric f(c);
      top::ParallelPlan plan = top::plan_parallel(f, 3);
      ASSERT_EQ(plan.threads, 3);
      ASSERT_EQ(plan.groups, 7);
      for (size_t g = 1; g < plan.group_thread.size(); ++g) plan.group_thread[g] = all_to_zero ? 0 : 1;
      top::run_parallel(f, plan);
      const Outputs many = outputs_of(f);
      SCOPED_TRACE(std::string("flush ") + flush + (all_to_zero ? ", thread 0 given all" : ", thread 1 given all"));
      EXPECT_TRUE(many.summary == one.summary) << "summary.json differs";
      EXPECT_TRUE(many.links == one.links) << "links.csv differs";
      EXPECT_TRUE(many.ports == one.ports) << "ports.csv differs";
      EXPECT_TRUE(many.latency == one.latency) << "latency histogram differs";
    }
  }
  // Group 0 (the endpoints) is thread 0's: a plan giving it to another is refused before the run.
  top::Fabric f(make_config("", kTwoTier));
  top::ParallelPlan plan = top::plan_parallel(f, 2);
  plan.group_thread[0] = 1;
  EXPECT_THROW(top::run_parallel(f, plan), std::invalid_argument);
}

// The watchdog's report, or "" when the run ends without one.
std::string deadlock_of(const config::Config& c, int threads) {
  top::Fabric f(c);
  try {
    if (threads == 0)
      f.run_plain();
    else
      top::run_parallel(f, top::plan_parallel(f, threads));
  } catch (const core::DeadlockError& e) {
    return std::string(e.what()) + "\n" + e.state();
  }
  return "";
}

// The packet endpoints run their window's cycles endpoint by endpoint on a thread of their own
// (TrafficEndpoints::tick_span), which must leave the watchdog where cycle by cycle leaves it.
// At this load the network is often empty, so a window often starts a run of outstanding
// packets after its first cycle: at the end of every window with packets outstanding, the
// watchdog counts from the same cycle as at the same point of the sequential run.
TEST(ParallelRun, TheWatchdogCountsFromTheSameCycleOnEveryThreadCount) {
  const config::Config c = make_config(
      "", with(kTwoTier, {{"traffic.rate", "0.004"}, {"traffic.packet_flits", "1"}, {"sim.measure_cycles", "30000"}}));
  std::vector<std::pair<uint64_t, uint64_t>> seq;  // (cycle, watchdog progress) after each cycle ticked
  {
    top::Fabric f(c);
    f.run_plain([&](uint64_t t) { seq.emplace_back(t, f.endpoints().watchdog_progress()); });
  }
  for (int n : {2, 3}) {
    top::Fabric f(c);
    int compared = 0, moved = 0;
    uint64_t before = 0;
    top::run_parallel(f, top::plan_parallel(f, n), [&](uint64_t last) {
      const traffic::RunResult& r = f.endpoints().result();
      const uint64_t progress = f.endpoints().watchdog_progress();
      if (r.packets_created == r.packets_delivered) return;
      auto it = std::upper_bound(seq.begin(), seq.end(), std::make_pair(last, UINT64_MAX));
      ASSERT_NE(it, seq.begin());
      EXPECT_EQ(progress, std::prev(it)->second) << n << " threads, window ending at cycle " << last;
      ++compared;
      if (progress != before) ++moved;
      before = progress;
    });
    EXPECT_GT(compared, 100) << n << " threads";
    EXPECT_GT(moved, 50) << n << " threads";
  }
}

// ... and a deadlock found by it is reported at the same cycle with the same state: every source
// loses its two credits one after another in the measurement window; once the last is starved
// nothing is delivered.
TEST(ParallelRun, TheWatchdogFiresAtTheSameCycleOnEveryThreadCount) {
  std::string losses;
  for (int e = 0; e < 12; ++e)
    for (int k = 0; k < 2; ++k)
      losses += (losses.empty() ? "" : ",") + std::string("ep") + std::to_string(e) + ".p0:up@" +
                std::to_string(2000 + 700 * e + 300 * k);
  // One-flit packets: a source starved in the middle of a packet would hold a switch output
  // (the switch's watchdog would report that first).
  const config::Config c =
      make_config("", with(kTwoTier, {{"switch.vcs", "1"}, {"switch.vc_buffer_flits", "2"},
                                      {"switch.shared_buffer_flits", "0"}, {"endpoint.rx_shared_flits", "0"},
                                      {"traffic.rate", "0.02"}, {"traffic.packet_flits", "1"},
                                      {"sim.measure_cycles", "400000"}, {"sim.watchdog_cycles", "3000"},
                                      {"faults.credit_loss", losses}}));
  const std::string one = deadlock_of(c, 0);
  ASSERT_NE(one.find("none delivered for"), std::string::npos) << one;
  for (int n : {1, 2, 3}) EXPECT_EQ(deadlock_of(c, n), one) << n << " threads";
}

// On one thread the groups of two run window by window where the window is long enough
// (top::kMinOneThreadWindow): the rack's 19 groups; links of one cycle on two tiers, not.
TEST(ParallelRun, OneThreadRunsWindowsOnlyWhereTheyAreLongEnough) {
  top::Fabric rack(make_config("nvl72-rack", {}));
  const top::ParallelPlan plan = top::on_one_thread(top::plan_parallel(rack, 2));
  EXPECT_EQ(plan.threads, 1);
  EXPECT_EQ(plan.groups, 19);
  EXPECT_EQ(plan.window, 128u);
  for (int g : plan.group_thread) EXPECT_EQ(g, 0);
  top::Fabric short_links(make_config("", with(kTwoTier, {{"link.latency_cycles", "1"}, {"link.credit_delay_cycles", "1"}})));
  EXPECT_EQ(top::on_one_thread(top::plan_parallel(short_links, 2)).groups, 1);
}

// One switch: its endpoints on one thread, the switch on the other. The default's links are 128
// cycles; BookSim's shape has one-cycle links and stages, so the window is one cycle and the
// groups meet after every cycle.
const Sets kBookSimLike = {{"switch.queueing", "vc"}, {"switch.vcs", "4"}, {"switch.vc_buffer_flits", "8"},
                           {"switch.shared_buffer_flits", "0"}, {"switch.allocator", "separable_input_first"},
                           {"switch.routing_cycles", "1"}, {"switch.vc_alloc_cycles", "1"}, {"switch.sw_alloc_cycles", "1"},
                           {"switch.xbar_cycles", "1"}, {"switch.egress_cycles", "0"}, {"link.latency_cycles", "1"},
                           {"link.credit_delay_cycles", "1"}, {"link.gbytes_per_s", "0"}, {"endpoint.rx_vc_flits", "8"},
                           {"endpoint.rx_shared_flits", "0"}};

TEST(ParallelRun, OneSwitchGivesTheSameResultsOnEveryThreadCount) {
  expect_same_for_every_thread_count(
      make_config("", {{"switch.ports", "16"}, {"traffic.rate", "0.9"}, {"sim.warmup_cycles", "500"}, {"sim.measure_cycles", "3000"}}),
      "one switch");
  expect_same_for_every_thread_count(
      make_config("", with(kBookSimLike, {{"switch.ports", "16"}, {"traffic.rate", "0.6"}, {"sim.warmup_cycles", "500"},
                                          {"sim.measure_cycles", "3000"}})),
      "one switch, BookSim's shape");
  expect_same_for_every_thread_count(make_config("", {{"switch.ports", "16"}, {"traffic.rate", "0.9"},
                                                      {"sim.flush", "false"}, {"sim.measure_cycles", "2000"}}),
                                     "one switch, not flushed");
  expect_txn_same_for_every_thread_count(
      txn_config("", {{"switch.ports", "16"}, {"txn.mix", "read:1,write:1,atomic_r:1"}, {"txn.load", "0.7"},
                      {"sim.warmup_cycles", "500"}, {"sim.measure_cycles", "2000"}}),
      "transactions on one switch");
}

TEST(ParallelRun, TransactionsGiveTheSameResultsOnEveryThreadCount) {
  expect_txn_same_for_every_thread_count(
      txn_config("", {{"topology.kind", "planes"}, {"topology.endpoints", "16"}, {"topology.planes", "4"},
                      {"txn.load", "0.9"}, {"sim.warmup_cycles", "500"}, {"sim.measure_cycles", "3000"}}),
      "transactions on 4 planes");
  expect_txn_same_for_every_thread_count(
      txn_config("", with(kTwoTier, {{"txn.mix", "read:1,write:1,atomic_r:1"}, {"txn.load", "0.5"}})),
      "transactions on two tiers, flushed");
  // Stopped at the window's end with transfers in flight.
  expect_txn_same_for_every_thread_count(txn_config("", with(kTwoTier, {{"txn.load", "0.8"}, {"sim.flush", "false"}})),
                                         "transactions on two tiers, not flushed");
}

TEST(ParallelRun, TransactionsOnTheNvl72RackGiveTheSameResultsOnEveryThreadCount) {
  expect_txn_same_for_every_thread_count(
      txn_config("nvl72-rack", {{"txn.load", "0.5"}, {"sim.warmup_cycles", "200"}, {"sim.measure_cycles", "600"}}),
      "transactions on nvl72-rack", {2, 3});
}

// A collective from cycle 0, run_until_idle in slices of `slice` cycles: where each slice ended,
// what the links and ports carried, and the result's check.
struct CollSlices {
  std::vector<uint64_t> ends;
  uint64_t start = 0, end = 0;
  std::string links, ports;
  uint64_t wrong = 0, elements = 0;
};

CollSlices collective_in_slices(const config::Config& cfg, const coll::CollectiveSpec& spec, int threads, uint64_t slice) {
  top::TxnFabric f(cfg, false);
  if (threads == 0)  // two threads' windows on one thread
    f.use_windows_on_one_thread();
  else
    f.use_threads(threads);
  coll::CollectiveRunner runner(f);
  const int id = runner.add(spec, 0);
  coll::fill_inputs(f, runner.get(id), 1);
  CollSlices out;
  for (bool idle = false; !idle;) {
    idle = f.run_until_idle(slice, &runner);
    out.ends.push_back(f.now());
  }
  EXPECT_EQ(top::check_txn_drained(f), std::vector<std::string>{});
  const coll::CollectiveRun& r = runner.get(id);
  EXPECT_TRUE(r.done);
  out.start = r.start;
  out.end = r.end;
  out.links = top::txn_links_csv(f);
  out.ports = top::txn_ports_csv(f);
  const coll::CheckResult c = coll::check_results(f, r);
  out.wrong = c.wrong;
  out.elements = c.elements;
  return out;
}

// An all-reduce of 48 KiB per rank over every endpoint by `algo`, in slices of 700 cycles, on 1,
// 2 and 3 threads, and window by window on one.
void expect_collective_same_on_every_thread_count(const config::Config& cfg, coll::Algorithm algo) {
  SCOPED_TRACE(coll::algorithm_name(algo));
  const coll::CollectiveSpec spec =
      spec_of(coll::Collective::kAllReduce, algo, first_ranks(cfg.endpoints()), uint64_t{48} << 10);
  const CollSlices one = collective_in_slices(cfg, spec, 1, 700);
  EXPECT_GT(one.ends.size(), 3u);  // several slices, the last one idle
  EXPECT_EQ(one.wrong, 0u);
  EXPECT_GT(one.elements, 0u);
  for (int n : {0, 2, 3}) {  // 0: two threads' windows on one thread
    const CollSlices many = collective_in_slices(cfg, spec, n, 700);
    EXPECT_EQ(many.ends, one.ends) << n << " threads";
    EXPECT_EQ(many.start, one.start) << n << " threads";
    EXPECT_EQ(many.end, one.end) << n << " threads";
    EXPECT_TRUE(many.links == one.links) << n << " threads: links.csv differs";
    EXPECT_TRUE(many.ports == one.ports) << n << " threads: ports.csv differs";
    EXPECT_EQ(many.wrong, 0u) << n << " threads";
  }
}

// Every endpoint of the plan's group 0 but the reduction engine's units, each with its switch.
void expect_units_with_their_switches(const top::TxnFabric& f, const top::ParallelPlan& plan) {
  const int accelerators = f.endpoints().accelerators();
  ASSERT_EQ(plan.endpoint_group.size(), static_cast<size_t>(f.endpoints().endpoints()));
  for (int e = 0; e < accelerators; ++e) EXPECT_EQ(plan.endpoint_group[static_cast<size_t>(e)], 0) << e;
  int units = 0;
  for (const network::Network::Channel& c : f.network().channels())
    if (!c.from.is_switch && c.from.id >= accelerators && c.to.is_switch) {
      EXPECT_EQ(plan.endpoint_group[static_cast<size_t>(c.from.id)], plan.group_of[static_cast<size_t>(c.to.id)])
          << "unit " << c.from.id;
      ++units;
    }
  EXPECT_EQ(units, f.endpoints().engine_units());
}

TEST(ParallelRun, CollectivesEndAtTheSameCyclesOnEveryThreadCount) {
  const config::Config no_engine =
      txn_config("", with(kTwoTier, {{"reduce.enable", "false"}, {"sim.check_interval_cycles", "400"}}));
  for (const coll::Algorithm algo : {coll::Algorithm::kRing, coll::Algorithm::kOneShot})
    expect_collective_same_on_every_thread_count(no_engine, algo);
  // The engine's units run on their switch's thread: on two tiers (the tree of units, and every
  // unit reaching the members itself) the window stays the shortest link between two threads.
  for (const char* hierarchy : {"tree", "flat"}) {
    SCOPED_TRACE(hierarchy);
    const config::Config cfg =
        txn_config("", with(kTwoTier, {{"reduce.hierarchy", hierarchy}, {"sim.check_interval_cycles", "400"}}));
    {
      top::TxnFabric f(cfg, false);
      const top::ParallelPlan plan = top::plan_parallel(f, 3);
      EXPECT_EQ(plan.threads, 3);
      EXPECT_EQ(plan.groups, 1 + f.network().switches());  // the accelerators, and each switch with its units
      EXPECT_GT(plan.window, 1u);
      expect_units_with_their_switches(f, plan);
    }
    expect_collective_same_on_every_thread_count(cfg, coll::Algorithm::kSwitch);
  }
  // With completion timeouts the units stay with the accelerators: a split that leaves a unit's
  // one-cycle link between threads is refused in one line.
  top::TxnFabric f(txn_config("", with(kTwoTier, {{"endpoint.completion_timeout_ns", "100000"}})), false);
  try {
    f.use_threads(2);
    ADD_FAILURE() << "a split that leaves an engine unit's one-cycle link between threads was accepted";
  } catch (const top::ParallelError& e) {
    EXPECT_NE(std::string(e.what()).find("reduction engine's units"), std::string::npos) << e.what();
  }
}

// One switch with the reduction engine: its units run with the switch, so the window is the
// accelerators' links (128 cycles); the in-switch all-reduce and the ring end at the same cycles
// with the same links, ports and exact results on every thread count. With completion timeouts
// the units stay with the accelerators and the window is one cycle.
TEST(ParallelRun, CollectivesOnOneSwitchEndAtTheSameCyclesOnEveryThreadCount) {
  const config::Config cfg = txn_config("", {{"switch.ports", "8"}, {"sim.check_interval_cycles", "400"}});
  {
    top::TxnFabric f(cfg, false);
    const top::ParallelPlan plan = top::plan_parallel(f, 3);
    EXPECT_EQ(plan.groups, 2);
    EXPECT_EQ(plan.window, 128u);
    expect_units_with_their_switches(f, plan);
  }
  {
    top::TxnFabric f(txn_config("", {{"switch.ports", "8"}, {"endpoint.completion_timeout_ns", "100000"}}), false);
    const top::ParallelPlan plan = top::plan_parallel(f, 3);
    EXPECT_EQ(plan.groups, 2);
    EXPECT_EQ(plan.window, 1u);
    EXPECT_TRUE(plan.endpoint_group.empty());
  }
  for (const coll::Algorithm algo : {coll::Algorithm::kSwitch, coll::Algorithm::kRing})
    expect_collective_same_on_every_thread_count(cfg, algo);
}

// The window: the rack's links are 80 ns (128 cycles at 1.6 GHz) each way, credits as long; on two
// tiers the links between switches are the shortest link between two groups.
TEST(ParallelRun, TheWindowIsTheShortestLinkBetweenTwoThreads) {
  {
    top::Fabric f(make_config("nvl72-rack", {}));
    const top::ParallelPlan p = top::plan_parallel(f, 2);
    EXPECT_EQ(p.threads, 2);
    EXPECT_EQ(p.groups, 19);  // the endpoints, and each switch alone
    EXPECT_EQ(p.window, 128u);
    int in_second = 0;
    for (int g : p.group_of) in_second += p.group_thread[static_cast<size_t>(g)] == 1;
    EXPECT_GT(in_second, 9);  // the endpoints weigh on thread 0, so it is given fewer switches
    EXPECT_EQ(p.group_thread[0], 0);
  }
  {
    top::Fabric f(make_config("", {}));  // one switch, 80 ns links, credits 90 ns
    const top::ParallelPlan p = top::plan_parallel(f, 4);
    EXPECT_EQ(p.groups, 2);
    EXPECT_EQ(p.group_of, std::vector<int>{1});
    EXPECT_EQ(p.window, 128u);
    EXPECT_EQ(top::plan_parallel(f, 1).groups, 1);
    EXPECT_EQ(top::plan_parallel(top::Fabric(make_config("", kBookSimLike)), 2).window, 1u);
  }
  top::Fabric f(make_config("", with(kTwoTier, {{"link.inter_switch_latency_cycles", "40"},
                                                {"link.inter_switch_credit_delay_cycles", "30"}})));
  EXPECT_EQ(top::plan_parallel(f, 6).window, 30u);
  EXPECT_EQ(top::plan_parallel(f, 6).threads, 6);
  EXPECT_EQ(top::plan_parallel(f, 64).threads, 6);  // at most one thread per switch
  EXPECT_EQ(top::plan_parallel(f, 2).groups, 7);     // the endpoints, and each switch alone
  // 144 switches: at most 64 threads (the accelerators' parts), and at most 32 finer groups.
  top::Fabric superpod(make_config("superpod-256", {}));
  EXPECT_EQ(top::plan_parallel(superpod, 100).threads, 64);
  EXPECT_EQ(top::plan_parallel(superpod, 100).groups, 64);
  EXPECT_EQ(top::plan_parallel(superpod, 2).groups, 31);  // the endpoints, and 15 groups per thread
  const top::ParallelPlan eight = top::plan_parallel(superpod, 8);
  EXPECT_GT(eight.groups, 8);  // up to 3 per thread, fewer for a thread given fewer switches
  EXPECT_LE(eight.groups, 25);
  for (int k = 0; k < 8; ++k) EXPECT_LE(std::count(eight.group_thread.begin() + 1, eight.group_thread.end(), k), 3) << k;
}

TEST(ParallelRun, WhatCannotBeSplitIsRefusedInOneLine) {
  EXPECT_EQ(top::parallel_refusal(make_config("", kTwoTier), 2), "");
  EXPECT_NE(top::parallel_refusal(make_config("", kTwoTier), 0).find("--threads 0: expected at least 1"), std::string::npos);
  EXPECT_NE(top::parallel_refusal(make_config("", with(kTwoTier, {{"link.dl.enable", "true"}})), 2)
                .find("link.dl.enable = true"),
            std::string::npos);
  EXPECT_EQ(top::parallel_refusal(txn_config("", kTwoTier), 2), "");
  EXPECT_NE(top::parallel_refusal(txn_config("", with(kTwoTier, {{"faults.port_down", "ep1.p0@100-200"}, {"endpoint.completion_timeout_ns", "2000"}})), 2)
                .find("with traffic.kind = transactions and faults"),
            std::string::npos);
}

}  // namespace
}  // namespace upswitch::testing
