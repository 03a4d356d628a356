// `upswitch run --threads N` (issue 21): the same run on 1 thread (window by window with the
// plain driver, and cycle by cycle in the SystemC kernel), 2 and 3 threads writes byte-identical
// summary.json (wall-clock fields and the driver's name aside), links.csv, ports.csv and
// latency_hist.csv, on planes and on two tiers, with packets and with transactions, as does the
// default (every core), and on one switch; what cannot run on several threads is one line with
// exit 2 and nothing written.
#include <nlohmann/json.hpp>

#include "cli_support.h"

namespace upswitch_cli {
namespace {

// summary.json without the fields that measure the machine rather than the model (and the
// driver's name).
std::string summary_without_wall_clock(const fs::path& dir) {
  nlohmann::json j = nlohmann::json::parse(slurp(dir / "summary.json"));
  j["sim"].erase("kernel");
  j["sim"].erase("wall_seconds");
  j["sim"].erase("cycles_per_second");
  j["sim"].erase("transfers_per_second");  // (transactions)
  return j.dump(2);
}

// On 1, 2 and 3 threads, and with the default (every core for a network, the plain driver),
// against the SystemC kernel cycle by cycle (one thread with the plain driver runs windows).
void expect_identical_on_1_2_3_threads(const std::string& args, const std::string& name) {
  std::vector<fs::path> dirs;
  for (const char* threads :
       {"--kernel systemc --threads 1", "--kernel plain --threads 1", "--kernel plain --threads 2", "--threads 3", ""}) {
    const fs::path out = scratch(name + "_" + std::to_string(dirs.size()));
    const Result r = run("run " + args + " --quiet " + std::string(threads) + " --out " + out.string());
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(slurp(out / "summary.json"))["sim"]["kernel"], dirs.empty() ? "systemc" : "plain")
        << threads;
    dirs.push_back(out);
  }
  for (size_t k = 1; k < dirs.size(); ++k) {
    EXPECT_EQ(summary_without_wall_clock(dirs[k]), summary_without_wall_clock(dirs[0])) << name << ", run " << k;
    for (const char* f : {"links.csv", "ports.csv", "latency_hist.csv"})
      EXPECT_EQ(slurp(dirs[k] / f), slurp(dirs[0] / f)) << name << ", run " << k << ": " << f;
  }
}

TEST(ThreadsCli, RunsWriteTheSameFilesOnEveryThreadCount) {
  expect_identical_on_1_2_3_threads("--set topology.kind=planes --set topology.endpoints=16 --set topology.planes=4 "
                                    "--set traffic.rate=0.8 --set sim.measure_cycles=4000",
                                    "threads_planes");
  expect_identical_on_1_2_3_threads("--set topology.kind=two_tier --set topology.leaves=4 --set topology.endpoints_per_leaf=3 "
                                    "--set topology.spines=2 --set topology.uplinks_per_leaf=2 --set switch.ports=8 "
                                    "--set traffic.rate=0.6 --set sim.measure_cycles=4000",
                                    "threads_two_tier");
}

TEST(ThreadsCli, TransactionRunsWriteTheSameFilesOnEveryThreadCount) {
  expect_identical_on_1_2_3_threads("--set traffic.kind=transactions --set topology.kind=planes --set topology.endpoints=16 "
                                    "--set topology.planes=4 --set txn.load=0.7 --set sim.measure_cycles=3000",
                                    "threads_txn_planes");
}

// `upswitch coll --threads N`: each point's switches split over N threads, the same table.
TEST(ThreadsCli, CollectiveTablesAreTheSameOnEveryThreadCount) {
  const std::string args = "coll --quiet --jobs 1 --set topology.kind=planes --set topology.endpoints=16 "
                           "--set topology.planes=4 --set reduce.enable=false --ranks 16 --algo ring,oneshot -b 16K -e 64K ";
  std::vector<std::string> tables;
  for (const char* threads : {"1", "2", "3"}) {
    const fs::path out = scratch(std::string("threads_coll_") + threads);
    const Result r = run(args + "--threads " + threads + " --out " + out.string());
    ASSERT_EQ(r.status, 0) << r.err;
    tables.push_back(slurp(out / "coll.csv"));
  }
  EXPECT_NE(tables[0].find("all_reduce,ring,simple,1,16,65536"), std::string::npos) << tables[0];
  EXPECT_EQ(tables[1], tables[0]);
  EXPECT_EQ(tables[2], tables[0]);
}

// One switch: `--threads 2` runs its endpoints and the switch on two threads (the default stays
// one thread and the SystemC kernel), the same files as one thread; and a collective in the switch
// (the reduction engine's units stay with the accelerators), the same table.
TEST(ThreadsCli, OneSwitchWritesTheSameFilesOnTwoThreads) {
  std::vector<fs::path> dirs;
  for (const char* threads : {"", "--kernel plain --threads 1", "--threads 2"}) {
    const fs::path out = scratch("threads_one_" + std::to_string(dirs.size()));
    const Result r = run("run --set switch.ports=16 --set traffic.rate=0.9 --set sim.measure_cycles=3000 --quiet " +
                         std::string(threads) + " --out " + out.string());
    ASSERT_EQ(r.status, 0) << r.err;
    dirs.push_back(out);
  }
  EXPECT_EQ(nlohmann::json::parse(slurp(dirs[0] / "summary.json"))["sim"]["kernel"], "systemc");
  EXPECT_EQ(nlohmann::json::parse(slurp(dirs[2] / "summary.json"))["sim"]["kernel"], "plain");
  for (size_t k = 1; k < dirs.size(); ++k)
    for (const char* f : {"links.csv", "ports.csv", "latency_hist.csv"})
      EXPECT_EQ(slurp(dirs[k] / f), slurp(dirs[0] / f)) << "run " << k << ": " << f;
  EXPECT_EQ(summary_without_wall_clock(dirs[2]), summary_without_wall_clock(dirs[1]));
  std::vector<std::string> tables;
  for (const char* threads : {"--jobs 1 --threads 1", "--jobs 1 --threads 2"}) {
    const fs::path out = scratch("threads_one_coll_" + std::to_string(tables.size()));
    const Result r = run("coll --quiet --set switch.ports=8 --ranks 8 --algo switch,ring -b 16K -e 64K " +
                         std::string(threads) + " --out " + out.string());
    ASSERT_EQ(r.status, 0) << r.err;
    tables.push_back(slurp(out / "coll.csv"));
  }
  EXPECT_NE(tables[0].find("all_reduce,switch,simple,1,8,65536"), std::string::npos) << tables[0];
  EXPECT_EQ(tables[1], tables[0]);
  // Without --threads a lone point takes the core the other job leaves idle: two threads on one
  // switch, and on planes (whose engine units refuse a split) one, without an error.
  std::vector<std::string> lone;
  for (const std::string& args : {std::string("--set switch.ports=8 --threads 1"), std::string("--set switch.ports=8"),
                                  std::string("--set topology.kind=planes --set topology.endpoints=8 --set topology.planes=2")}) {
    const fs::path out = scratch("threads_lone_" + std::to_string(lone.size()));
    const Result r = run("coll --quiet --ranks 8 --algo switch -b 64K -e 64K " + args + " --out " + out.string());
    ASSERT_EQ(r.status, 0) << r.err;
    lone.push_back(slurp(out / "coll.csv"));
  }
  EXPECT_EQ(lone[1], lone[0]);
  EXPECT_NE(lone[2].find("all_reduce,switch,simple,1,8,65536"), std::string::npos) << lone[2];
}

TEST(ThreadsCli, WhatCannotRunOnSeveralThreadsIsOneLineExitTwoAndNothingWritten) {
  const fs::path out = scratch("threads_bad");
  const std::string planes = "run --set topology.kind=planes --set topology.endpoints=8 --set topology.planes=2 ";
  expect_bad_input(planes + "--threads -1 --out " + out.string(), "--threads -1: expected a whole number from 1 to 1024", out);
  expect_bad_input(planes + "--threads 2 --set traffic.kind=transactions --set faults.port_down=ep1.p0@100-200 "
                               "--set endpoint.completion_timeout_ns=2000 --out " + out.string(),
                   "--threads 2 with traffic.kind = transactions and faults: a switch answers a request it rejects", out);
  expect_bad_input(planes + "--threads 2 --set link.dl.enable=true --out " + out.string(),
                   "--threads 2 with link.dl.enable = true", out);
  expect_bad_input("coll --set topology.kind=planes --set topology.endpoints=8 --set topology.planes=2 --ranks 8 "
                   "--set endpoint.completion_timeout_ns=100000 --threads 2 --out " + out.string(),
                   "--threads 2: with completion timeouts (endpoint.completion_timeout_ns) the reduction engine's "
                   "units run on the accelerators' thread", out);
  expect_bad_input("coll --ranks 8 --threads 0 --out " + out.string(), "--threads 0: expected a whole number from 1 to 1024", out);
  expect_bad_input(planes + "--threads 2 --kernel systemc --out " + out.string(),
                   "--threads 2 with --kernel systemc: the SystemC kernel runs one process at a time", out);
}

}  // namespace
}  // namespace upswitch_cli
