// `upswitch workload`, tested on the real binary: the step table on stdout, the JSON and CSV files
// with the configuration's hash, byte-identical files for the same seed, and one-line errors with
// exit status 2 and nothing written.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli_support.h"

using namespace upswitch_cli;  // NOLINT: test file

namespace {

int lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

// A small mixed workload: 16 ports, MoE on all of them, two TP groups of eight.
const char* kSmall =
    "workload --set switch.ports=16 --set moe.experts=32 --set moe.experts_per_rank=2 --set moe.tokens=32 "
    "--set moe.hidden=1024 --set tp.seq_len=64 --set tp.layers=2 --set workload.steps=2";

TEST(WorkloadCli, WritesStepsAndPhasesWithTheConfigurationHash) {
  const fs::path out = scratch("workload_ok");
  const Result r = run(std::string(kSmall) + " --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("exposed_us"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("moe step 1 layer 0 combine"), std::string::npos) << r.out;
  const nlohmann::json j = nlohmann::json::parse(slurp(out / "workload.json"));
  EXPECT_EQ(j["config_hash"].get<std::string>().size(), 16u);
  EXPECT_EQ(j["config"]["moe"]["experts"], 32);
  EXPECT_TRUE(j.contains("upswitch_version"));
  // Steps: MoE x 2 steps + 2 TP groups x 2 steps; phases: MoE 2 per layer, TP 2 all-reduces per layer.
  EXPECT_EQ(j["steps"].size(), 2u + 4u);
  EXPECT_EQ(j["phases"].size(), 2u * 2 + 2u * 2 * 2 * 2);
  for (const auto& s : j["steps"]) {
    EXPECT_NEAR(s["exposed_us"].get<double>(), s["time_us"].get<double>() - s["compute_us"].get<double>(), 1e-6);
    EXPECT_GT(s["time_us"].get<double>(), 0.0);
  }
  EXPECT_EQ(lines(slurp(out / "workload_phases.csv")), 1 + 20);
  EXPECT_EQ(lines(slurp(out / "workload_steps.csv")), 1 + 6);
  EXPECT_EQ(lines(slurp(out / "workload_layers.csv")), 1 + 2 + 8);  // MoE 2 steps x 1; TP 2 groups x 2 x 2
  EXPECT_EQ(j["layers"].size(), 10u);
  // Same configuration and seed: the same files, byte for byte; another seed: another assignment.
  const fs::path again = scratch("workload_again");
  ASSERT_EQ(run(std::string(kSmall) + " --quiet --out " + again.string()).status, 0);
  for (const char* f : {"workload.json", "workload_steps.csv", "workload_layers.csv", "workload_phases.csv"})
    EXPECT_EQ(slurp(out / f), slurp(again / f)) << f;
  const fs::path other = scratch("workload_seed");
  ASSERT_EQ(run(std::string(kSmall) + " --quiet --seed 2 --out " + other.string()).status, 0);
  EXPECT_NE(slurp(out / "workload_phases.csv"), slurp(other / "workload_phases.csv"));
}

// A small preset runs the default workload as it is: experts and TP groups follow the port count
// (moe.experts = 0 and tp.groups = 0 mean "what the ports give"), so no key needs changing.
TEST(WorkloadCli, TinyPresetRunsTheDefaultWorkload) {
  const fs::path out = scratch("workload_preset_tiny");
  const Result r = run("workload --preset tiny --quiet --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(slurp(out / "workload.json"));
  EXPECT_EQ(j["steps"].size(), 2u);  // MoE over 8 ranks with 8 experts, and one TP group of eight
  EXPECT_EQ(j["phases"][0]["ranks"], 8);
}

TEST(WorkloadCli, ReadsTheAssignmentFile) {
  const fs::path dir = scratch("workload_file");
  fs::create_directories(dir);
  std::ofstream(dir / "a.txt") << "# every token of both ranks to expert 1 (rank 1)\n0 0 1\n0 1 1\n1 0 1\n1 1 1\n";
  const fs::path out = dir / "out";
  const std::string base = "workload --set switch.ports=8 --set workload.kind=moe --set moe.ranks=2 --set moe.tokens=2 "
                           "--set moe.experts=2 --set moe.top_k=1 --set moe.hidden=256 --set moe.gating=file ";
  const Result r = run(base + "--set moe.assignment_file=" + (dir / "a.txt").string() + " --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(slurp(out / "workload.json"));
  // Rank 0 sends its two tokens (2 x 256 x 2 B) to rank 1; rank 1's stay local.
  EXPECT_EQ(j["phases"][0]["sent_max"], 1024);
  EXPECT_EQ(j["phases"][0]["recv_max"], 1024);
  std::ofstream(dir / "bad.txt") << "0 0 1\n0 1 7\n";
  const Result bad = run(base + "--set moe.assignment_file=" + (dir / "bad.txt").string());
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("line 2: expert 7"), std::string::npos) << bad.err;
}

TEST(WorkloadCli, BadInputIsOneLineExitTwoAndNothingWritten) {
  const BadInput cases[] = {
      {"workload --set moe.experts=100", "moe.experts = 100"},
      {"workload --set moe.experts=8 --set moe.top_k=9", "moe.top_k = 9"},
      {"workload --set moe.ranks=80", "moe.ranks = 80"},
      {"workload --set moe.hidden=3 --set moe.elem_bytes=1", "moe.hidden = 3"},
      {"workload --set moe.gating=file", "moe.assignment_file"},
      {"workload --set moe.gating=file --set moe.assignment_file=/nonexistent/a.txt", "no such file"},
      {"workload --set moe.gating=gauss", "moe.gating"},
      {"workload --set moe.gating=hot --set moe.hot_experts=[99]", "moe.hot_experts"},
      {"workload --set tp.group_size=100", "tp.group_size = 100"},
      {"workload --set tp.groups=10", "tp.groups = 10"},
      {"workload --set tp.algo=tree", "tp.algo"},
      {"workload --set tp.algo=switch --set reduce.enable=false", "reduce.enable"},
      {"workload --set tp.algo=switch --set tp.channels=8",
       "tp.channels = 8: the 9 TP groups each hold a multicast group per switch-algorithm channel at once; "
       "reduce.groups = 64: expected at most 7 channels"},
      {"workload --set tp.protocol=ll64", "tp.protocol"},
      {"workload --set tp.channels=65", "tp.channels"},
      {"workload --set moe.channels=-1", "moe.channels"},
      {"workload --set workload.kind=all", "workload.kind"},
      {"workload --set moe.tokens=0", "moe.tokens"},
      {"workload --set moe.expert=3", "unknown key 'moe.expert'"},
      {"workload --preset nope", "--preset 'nope'"},
  };
  for (const BadInput& b : cases) {
    const fs::path out = scratch("workload_bad_out");
    expect_bad_input(std::string(b.args) + " --out " + out.string(), b.must_mention, out);
  }
}

}  // namespace
