// SIGTERM (timeout, Slurm, systemd, Kubernetes) stops every command as Ctrl-C does: what is
// complete is written, marked "interrupted": true, and the exit status is 143 (128 + 15). README
// "Interrupting a run", doc/reliability.md. The unit side (first signal asks, second ends) is in
// tests/unit/stop_signals_test.cpp.
#include <csignal>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_support.h"

using namespace upswitch_cli;  // NOLINT: test file

namespace {

// Runs `args` + --out DIR, sends SIGTERM after `delay_ms`, and checks the status and that every
// JSON file it left in DIR says it was interrupted. Returns the JSON file named `main_json`, or
// null when nothing was complete (then nothing may be in DIR).
nlohmann::json terminated(const fs::path& out, std::vector<std::string> args, int delay_ms,
                          const std::string& main_json, const std::string& flag_path) {
  const std::string name = out.filename().string();
  args.push_back("--out");
  args.push_back(out.string());
  EXPECT_EQ(run_and_signal(args, delay_ms, SIGTERM), 143) << name;
  if (!fs::exists(out / main_json)) {
    EXPECT_TRUE(!fs::exists(out) || fs::is_empty(out)) << name << ": files without " << main_json;
    return nullptr;
  }
  const nlohmann::json j = nlohmann::json::parse(slurp(out / main_json));
  EXPECT_TRUE(j.at(nlohmann::json::json_pointer(flag_path)).get<bool>()) << name << ": " << flag_path;
  return j;
}

TEST(StopSignal, RunWritesItsSummarySoFarOnSigterm) {
  // As Ctrl-C: the summary over the cycles simulated so far; a later delay if the first came
  // before the first cycle (a slow, sanitized build).
  nlohmann::json s;
  const fs::path out = scratch("term_run");
  for (const int delay_ms : {1500, 5000}) {
    s = terminated(out, {"run", "--quiet", "--set", "sim.measure_cycles=100000000000"}, delay_ms,
                   "summary.json", "/sim/interrupted");
    ASSERT_FALSE(s.is_null()) << "run must always write its summary";
    if (s["sim"]["cycles"].get<uint64_t>() > 0) break;
  }
  EXPECT_GT(s["sim"]["cycles"].get<uint64_t>(), 0u);
  EXPECT_TRUE(fs::exists(out / "ports.csv"));
}

TEST(StopSignal, TransactionRunWritesItsSummarySoFarOnSigterm) {
  const nlohmann::json s =
      terminated(scratch("term_txn_run"),
                 {"run", "--quiet", "--set", "traffic.kind=transactions", "--set", "sim.measure_cycles=100000000000"},
                 2000, "summary.json", "/sim/interrupted");
  ASSERT_FALSE(s.is_null()) << "run must always write its summary";
}

TEST(StopSignal, CollKeepsCompletedRowsOnSigterm) {
  const nlohmann::json j = terminated(
      "term_coll", {"coll", "--preset", "tiny", "--ranks", "8", "-b", "4K", "-e", "64M", "--jobs", "1", "--quiet"},
      3000, "coll.json", "/meta/interrupted");
  if (!j.is_null()) {
    EXPECT_GT(j["rows"].size(), 0u);
  }
}

TEST(StopSignal, P2pKeepsCompletedRowsOnSigterm) {
  terminated(scratch("term_p2p"),
             {"p2p", "--preset", "tiny", "--jobs", "1", "--quiet", "--measure-cycles", "100000000",
              "--pair-measure-cycles", "100000000"},
             2000, "p2p.json", "/meta/interrupted");
}

TEST(StopSignal, TableKeepsCompletedTablesOnSigterm) {
  terminated(scratch("term_table"), {"table", "--preset", "tiny", "--ranks", "8", "-b", "4K", "-e", "256M", "--jobs", "1", "--quiet"},
             3000, "table.json", "/interrupted");
}

TEST(StopSignal, WorkloadKeepsCompletedStepsOnSigterm) {
  terminated(scratch("term_workload"), {"workload", "--quiet", "--set", "workload.steps=20"}, 3000, "workload.json",
             "/interrupted");
}

TEST(StopSignal, ReplayKeepsCompletedRecordsOnSigterm) {
  // A long chain of small atomics: little memory, many simulated cycles.
  const fs::path trace = scratch("term_replay.jsonl");
  {
    std::ofstream f(trace);
    for (int i = 0; i < 300000; ++i)
      f << "{\"id\": \"a" << i << "\", \"op\": \"atomic_r\", \"atomic\": \"add\", \"src\": " << i % 8
        << ", \"dst\": " << (i + 1) % 8 << ", \"bytes\": 8"
        << (i ? ", \"after\": [\"a" + std::to_string(i - 1) + "\"]" : std::string()) << "}\n";
  }
  terminated(scratch("term_replay"), {"replay", trace.string(), "--quiet"}, 2500, "replay.json", "/interrupted");
}

TEST(StopSignal, CosimReportsTheComparisonSoFarOnSigterm) {
  if (run("--help").out.find("cosim") == std::string::npos) GTEST_SKIP() << "built without the co-simulation";
  const fs::path json = scratch("term_cosim.json");
  fs::create_directories(json.parent_path());
  nlohmann::json j;
  // A later delay if the first came before the first compared cycle (a slow, sanitized build).
  for (const int delay_ms : {3000, 10000}) {
    fs::remove(json);
    EXPECT_EQ(run_and_signal({"cosim", "--preset", "tiny", "--set", "sim.measure_cycles=2000000000", "--quiet",
                              "--json", json.string()},
                             delay_ms, SIGTERM),
              143);
    ASSERT_TRUE(fs::exists(json));
    j = nlohmann::json::parse(slurp(json));
    if (j["cycles"].get<uint64_t>() > 0) break;
  }
  EXPECT_TRUE(j["interrupted"].get<bool>());
  EXPECT_TRUE(j["agree"].get<bool>());
  EXPECT_GT(j["cycles"].get<uint64_t>(), 0u);
}

TEST(StopSignal, CtrlCStillMeans130) {
  const fs::path out = scratch("int_run");
  EXPECT_EQ(run_and_interrupt({"run", "--quiet", "--set", "sim.measure_cycles=100000000000", "--out", out.string()}, 1500),
            130);
  EXPECT_TRUE(fs::exists(out / "summary.json"));
}

}  // namespace
