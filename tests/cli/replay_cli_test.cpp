// `upswitch replay`, tested on the real binary: the example trace's table on stdout and as CSV
// and JSON (version, configuration and its hash, one row per operation), and a malformed trace
// line as one error line naming the line, exit status 2 and nothing written.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli_support.h"

using namespace upswitch_cli;  // NOLINT: test file

namespace {

int lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

const std::string kExample = std::string(UPSWITCH_SOURCE_DIR) + "/configs/traces/example.jsonl";

TEST(ReplayCli, TheExampleTraceRunsAndWritesItsTables) {
  const fs::path out = scratch("replay_ok");
  const Result r = run("replay " + kExample + " --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("start_us"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("grads"), std::string::npos) << r.out;
  const nlohmann::json j = nlohmann::json::parse(slurp(out / "replay.json"));
  EXPECT_TRUE(j.contains("upswitch_version"));
  EXPECT_EQ(j["config_hash"].get<std::string>().size(), 16u);
  EXPECT_EQ(j["config"]["traffic"]["kind"], "transactions");
  ASSERT_EQ(j["rows"].size(), 7u);
  for (const auto& row : j["rows"]) {
    EXPECT_EQ(row["status"], "okay") << row.dump();
    EXPECT_NEAR(row["time_us"].get<double>(), row["end_us"].get<double>() - row["start_us"].get<double>(), 1e-9);
    EXPECT_GT(row["end_cycle"].get<uint64_t>(), row["start_cycle"].get<uint64_t>()) << row.dump();
  }
  // The all-gather follows the all-reduce the cycle after it completes.
  EXPECT_EQ(j["rows"][5]["id"], "params");
  EXPECT_EQ(j["rows"][5]["start_cycle"].get<uint64_t>(), j["rows"][4]["end_cycle"].get<uint64_t>() + 1);
  const std::string csv = slurp(out / "replay.csv");
  EXPECT_EQ(lines(csv), 1 + 7) << csv;
  EXPECT_EQ(csv.rfind("line,id,op,bytes,algorithm,protocol,channels,start_cycle,end_cycle,start_us,end_us,time_us,status\n", 0), 0u) << csv;
  // Same trace and configuration: the same files.
  const fs::path again = scratch("replay_again");
  ASSERT_EQ(run("replay " + kExample + " --quiet --out " + again.string()).status, 0);
  EXPECT_EQ(slurp(out / "replay.csv"), slurp(again / "replay.csv"));
  EXPECT_EQ(slurp(out / "replay.json"), slurp(again / "replay.json"));
}

TEST(ReplayCli, AMalformedLineIsOneErrorLineExitTwoAndNothingWritten) {
  const fs::path dir = scratch("replay_bad");
  fs::create_directories(dir);
  const std::string good = "{\"id\": \"a\", \"op\": \"read\", \"src\": 0, \"dst\": 1, \"bytes\": 64}\n";
  const BadInput cases[] = {
      {"{\"id\": \"b\", \"op\": \"read\", \"src\": 0, \"dst\": 1, \"bytes\": 6}", "line 3: field 'bytes' = 6"},
      {"{\"id\": \"b\", \"op\": \"read\", \"src\": 0 \"dst\": 1}", "line 3: invalid JSON"},
      {"{\"id\": \"b\", \"op\": \"read\", \"src\": 0, \"dst\": 9, \"bytes\": 64}", "line 3: field 'dst' = 9"},
      {"{\"id\": \"a\", \"op\": \"read\", \"src\": 0, \"dst\": 1, \"bytes\": 64}", "line 3: field 'id' = \"a\""},
  };
  for (const BadInput& b : cases) {
    const fs::path trace = dir / "t.jsonl";
    std::ofstream(trace) << good << "# comment\n" << b.args << "\n";
    const fs::path out = scratch("replay_bad_out");
    expect_bad_input("replay " + trace.string() + " --set switch.ports=8 --out " + out.string(), b.must_mention, out,
                     "upswitch: error: trace '" + trace.string() + "' ");
  }
  const Result missing = run("replay " + (dir / "none.jsonl").string());
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("no such file"), std::string::npos) << missing.err;
  const Result no_trace = run("replay");
  EXPECT_EQ(no_trace.status, 2);
  EXPECT_EQ(lines(no_trace.err), 1) << no_trace.err;
}

}  // namespace

namespace {

// `workload --chakra` writes Chakra traces and the groups file; `replay --chakra` replays them and
// names each row after its node; bad Chakra input is one error line, exit 2, nothing written.
TEST(ReplayCli, AWorkloadWrittenAsChakraReplays) {
  const fs::path dir = scratch("chakra_round_trip");
  fs::create_directories(dir);
  const std::string prefix = (dir / "tp").string();
  const std::string cfg = "--preset tiny --set workload.kind=tp --set tp.group_size=4 --set tp.layers=1";
  const Result w = run("workload " + cfg + " --quiet --chakra " + prefix);
  ASSERT_EQ(w.status, 0) << w.err;
  for (const char* f : {"tp.0.et", "tp.7.et", "tp.groups.json"}) EXPECT_TRUE(fs::exists(dir / f)) << f;
  EXPECT_FALSE(fs::exists(dir / "tp.8.et"));
  EXPECT_EQ(nlohmann::json::parse(slurp(dir / "tp.groups.json"))["tp1"], nlohmann::json({4, 5, 6, 7}));
  const fs::path out = dir / "out";
  const Result r = run("replay --chakra " + prefix + " --preset tiny --quiet --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(slurp(out / "replay.json"));
  EXPECT_EQ(j["trace"], prefix);
  int collectives = 0;
  for (const auto& row : j["rows"]) {
    EXPECT_EQ(row["status"], "okay") << row.dump();
    EXPECT_EQ(row["id"].get<std::string>()[0], 'r') << row.dump();
    if (row["op"] != "compute") ++collectives;
  }
  EXPECT_EQ(collectives, 2 * 2) << "two groups, one layer's two all-reduces each";
}

TEST(ReplayCli, BadChakraInputIsOneErrorLineExitTwo) {
  const fs::path dir = scratch("chakra_bad");
  fs::create_directories(dir);
  std::ofstream(dir / "junk.0.et") << "this is not a protobuf stream";
  std::ofstream(dir / "groups.json") << "[1, 2]";
  const fs::path out = dir / "out";
  expect_bad_input("replay --chakra " + (dir / "none").string() + " --out " + out.string(), "no file", out);
  expect_bad_input("replay --chakra " + (dir / "junk").string() + " --out " + out.string(), "junk.0.et' message", out);
  expect_bad_input("replay --chakra " + (dir / "junk").string() + " --chakra-groups " + (dir / "groups.json").string() +
                       " --out " + out.string(),
                   "expected a JSON object of communicator groups", out);
  expect_bad_input("replay --out " + out.string(), "give a trace file, or --chakra PREFIX", out);
  expect_bad_input("replay " + kExample + " --chakra " + (dir / "junk").string() + " --out " + out.string(), "excludes", out);
  // A prefix whose folder cannot be made (a file stands in its way) or that names a folder.
  std::ofstream(dir / "afile") << "x";
  expect_bad_input("workload --preset tiny --chakra " + (dir / "afile" / "et" / "w").string() + " --out " + out.string(),
                   "its folder", out);
  EXPECT_FALSE(fs::exists(dir / "afile" / "et"));
  expect_bad_input("workload --preset tiny --chakra " + dir.string() + " --out " + out.string(), "is a directory", out);
  expect_bad_input("workload --preset tiny --chakra " + (dir / "x").string() + "/ --out " + out.string(), "is a directory", out);
}

// `--chakra out/et/wl` creates out/et as `--out` creates its folders (issue 58 item 3), and
// nothing is created when the run is refused before it starts.
TEST(ReplayCli, AChakraPrefixGetsItsFoldersCreated) {
  const fs::path dir = scratch("chakra_prefix_dirs");
  const std::string cfg = "--preset tiny --set workload.kind=tp --set tp.group_size=4 --set tp.layers=1 --quiet";
  const Result w = run("workload " + cfg + " --chakra " + (dir / "out" / "et" / "wl").string());
  ASSERT_EQ(w.status, 0) << w.err;
  for (const char* f : {"wl.0.et", "wl.7.et", "wl.groups.json"}) EXPECT_TRUE(fs::exists(dir / "out" / "et" / f)) << f;
  const fs::path out = dir / "out2";
  expect_bad_input("workload " + cfg + " --set tp.group_size=0 --chakra " + (dir / "new" / "wl").string() +
                       " --out " + out.string(),
                   "tp.group_size", out);
  EXPECT_FALSE(fs::exists(dir / "new")) << "a refused run created the prefix's folder";
}

}  // namespace
