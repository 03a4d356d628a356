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
  EXPECT_EQ(csv.rfind("line,id,op,bytes,start_cycle,end_cycle,start_us,end_us,time_us,status\n", 0), 0u) << csv;
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
