// Numbers nobody checked (issue 58 item 2): every numeric flag of every subcommand has a range
// that --help shows, and a value outside it (negative, zero where not allowed, huge, a fraction
// for a whole number, not a number) is refused while the command line is parsed: exit status 2,
// one stderr line naming the flag, the value and what is allowed, nothing on stdout, no --out
// folder (systemc/app/numeric_flags.h). Plain string searches only (no std::regex).
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli_support.h"

using namespace upswitch_cli;  // NOLINT: test file

namespace {

bool has_cosim() { return run("--help").out.find("cosim") != std::string::npos; }

struct Refused {
  const char* flag;
  const char* value;
  const char* allowed;  // what the line must say is allowed
};

// `value` quoted as the error line shows it: bare when it looks like a number.
std::string shown(const std::string& value) {
  for (char c : value)
    if (std::string("0123456789+-.,eE").find(c) == std::string::npos) return "'" + value + "'";
  return value;
}

// Each case `cmd FLAG VALUE` (`cmd` writes into `out`) is the bad-input contract, and its line
// names the flag and the value and says what is allowed.
void expect_refused(const std::string& cmd, const std::vector<Refused>& cases, const fs::path& out) {
  for (const Refused& c : cases) {
    const std::string args = cmd + " " + c.flag + " " + c.value;
    expect_bad_input(args, std::string(c.flag) + " " + shown(c.value) + ": expected " + c.allowed, out);
  }
}

std::string help(const std::string& cmd) { return run(cmd + " --help").out; }

TEST(NumericFlagsCli, HelpShowsEachRange) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> expected = {
      {"run", {"--threads INT in [1 - 1024]", "--seed INT in [0 - 4611686018427387904]"}},
      {"coll",
       {"--ranks INT,... in [1 - 4096]", "-b,--min-bytes SIZE in [1 - 1T]", "-e,--max-bytes SIZE in [1 - 1T]",
        "-f,--step-factor INT in [2 - 1024]", "--slice-bytes auto|SIZE in [256 - 1G]", "--root INT in [0 - 4095]",
        "--jobs INT in [1 - 1024]", "--threads INT in [1 - 1024]"}},
      {"p2p",
       {"--max-bytes SIZE in [4 - 1G]", "--warmup-cycles INT in [0 - 1099511627776]",
        "--measure-cycles INT in [1 - 1099511627776]", "--pair-warmup-cycles INT in [0 - 1099511627776]",
        "--pair-measure-cycles INT in [1 - 1099511627776]", "--jobs INT in [1 - 1024]"}},
      {"table",
       {"--seed INT in [0 - 4611686018427387904]", "--p2p-max-bytes SIZE in [4 - 1G]", "--load FLOAT in (0 - 1]",
        "--jobs INT in [1 - 1024]", "-f,--step-factor INT in [2 - 1024]", "--loaded-sizes INT,... in [4 - 1073741824]",
        "--moe-tokens INT,... in [1 - 1048576]", "--moe-skews FLOAT,... in [0 - 10]"}},
      {"workload", {"--seed INT in [0 - 4611686018427387904]"}},
      {"replay", {"--seed INT in [0 - 4611686018427387904]"}},
  };
  for (const auto& [cmd, ranges] : expected) {
    const std::string h = help(cmd);
    for (const std::string& r : ranges) EXPECT_NE(h.find(r), std::string::npos) << cmd << ": " << r << "\n" << h;
  }
  if (has_cosim()) {
    const std::string h = help("cosim");
    for (const char* r : {"--packets INT in [1 - 10000000]", "--load FLOAT in [0 - 1]", "--seed INT in [0 - 4611686018427387904]"})
      EXPECT_NE(h.find(r), std::string::npos) << r << "\n" << h;
  }
  // No flag of these is a number (topo's and the others' numbers are --set keys, checked as keys).
  for (const char* cmd : {"topo", "keys", "presets"}) {
    const std::string h = help(cmd);
    for (const char* type : {" INT", " UINT", " FLOAT", " SIZE", " NUMBER"})
      EXPECT_EQ(h.find(type), std::string::npos) << cmd << " has a numeric flag without a range:\n" << h;
  }
}

TEST(NumericFlagsCli, Run) {
  const fs::path out = scratch("num_run");
  expect_refused("run --preset tiny --out " + out.string(),
                 {{"--threads", "-1", "a whole number from 1 to 1024"},
                  {"--threads", "0", "a whole number from 1 to 1024"},
                  {"--threads", "1025", "a whole number from 1 to 1024"},
                  {"--threads", "99999999999999999999", "a whole number from 1 to 1024"},
                  {"--threads", "1.5", "a whole number from 1 to 1024"},
                  {"--threads", "two", "a whole number from 1 to 1024"},
                  {"--threads", "0x10", "a whole number from 1 to 1024"},
                  {"--seed", "-1", "a whole number from 0 to 4611686018427387904"},
                  {"--seed", "99999999999999999999", "a whole number from 0 to 4611686018427387904"},
                  {"--seed", "2.5", "a whole number from 0 to 4611686018427387904"},
                  {"--seed", "x", "a whole number from 0 to 4611686018427387904"}},
                 out);
}

TEST(NumericFlagsCli, Coll) {
  const fs::path out = scratch("num_coll");
  const char* bytes = "a byte count from 1 to 1T";
  expect_refused("coll --preset tiny --ranks 4 --out " + out.string(),
                 {{"--jobs", "-3", "a whole number from 1 to 1024"},
                  {"--jobs", "0", "a whole number from 1 to 1024"},
                  {"--jobs", "99999999999999999999", "a whole number from 1 to 1024"},
                  {"--jobs", "x", "a whole number from 1 to 1024"},
                  {"--threads", "0", "a whole number from 1 to 1024"},
                  {"--threads", "1.5", "a whole number from 1 to 1024"},
                  {"--root", "-1", "a whole number from 0 to 4095"},
                  {"--root", "4096", "a whole number from 0 to 4095"},
                  {"--step-factor", "0", "a whole number from 2 to 1024"},
                  {"--step-factor", "-2", "a whole number from 2 to 1024"},
                  {"--step-factor", "2.5", "a whole number from 2 to 1024"},
                  {"--min-bytes", "0", bytes},
                  {"--min-bytes", "-1", bytes},
                  {"--min-bytes", "4X", bytes},
                  {"--min-bytes", "1.5K", bytes},
                  {"--max-bytes", "99999999999999999999", bytes},
                  {"--max-bytes", "2T", bytes},
                  {"--slice-bytes", "0", "auto or a byte count from 256 to 1G"},
                  {"--slice-bytes", "-256", "auto or a byte count from 256 to 1G"},
                  {"--slice-bytes", "fast", "auto or a byte count from 256 to 1G"},
                  {"--ranks", "0", "a comma-separated list of whole numbers from 1 to 4096"},
                  {"--ranks", "2,-4", "a comma-separated list of whole numbers from 1 to 4096"},
                  {"--ranks", "2.5", "a comma-separated list of whole numbers from 1 to 4096"},
                  {"--ranks", "99999999999999999999", "a comma-separated list of whole numbers from 1 to 4096"}},
                 out);
  // The short names are the same options: the line names the long one.
  expect_bad_input("coll --preset tiny -b 0 --out " + out.string(), "--min-bytes 0: expected a byte count", out);
  expect_bad_input("coll --preset tiny -f 1 --out " + out.string(), "--step-factor 1: expected a whole number", out);
}

TEST(NumericFlagsCli, P2p) {
  const fs::path out = scratch("num_p2p");
  const char* cycles0 = "a whole number from 0 to 1099511627776";
  const char* cycles1 = "a whole number from 1 to 1099511627776";
  expect_refused("p2p --preset tiny --out " + out.string(),
                 {{"--max-bytes", "0", "a byte count from 4 to 1G"},
                  {"--max-bytes", "-4", "a byte count from 4 to 1G"},
                  {"--max-bytes", "2G", "a byte count from 4 to 1G"},
                  {"--max-bytes", "99999999999999999999", "a byte count from 4 to 1G"},
                  {"--max-bytes", "big", "a byte count from 4 to 1G"},
                  {"--warmup-cycles", "-1", cycles0},
                  {"--warmup-cycles", "1.5", cycles0},
                  {"--measure-cycles", "0", cycles1},
                  {"--measure-cycles", "99999999999999999999", cycles1},
                  {"--pair-warmup-cycles", "x", cycles0},
                  {"--pair-measure-cycles", "0", cycles1},
                  {"--pair-measure-cycles", "1099511627777", cycles1},
                  {"--jobs", "0", "a whole number from 1 to 1024"},
                  {"--jobs", "-1", "a whole number from 1 to 1024"}},
                 out);
}

TEST(NumericFlagsCli, Table) {
  const fs::path out = scratch("num_table");
  expect_refused("table --preset tiny --out " + out.string(),
                 {{"--load", "0", "a number above 0 and at most 1"},
                  {"--load", "-0.5", "a number above 0 and at most 1"},
                  {"--load", "1.01", "a number above 0 and at most 1"},
                  {"--load", "99999999999999999999", "a number above 0 and at most 1"},
                  {"--load", "nan", "a number above 0 and at most 1"},
                  {"--load", "half", "a number above 0 and at most 1"},
                  {"--p2p-max-bytes", "0", "a byte count from 4 to 1G"},
                  {"--p2p-max-bytes", "-64", "a byte count from 4 to 1G"},
                  {"--jobs", "0", "a whole number from 1 to 1024"},
                  {"--jobs", "1025", "a whole number from 1 to 1024"},
                  {"--jobs", "1.5", "a whole number from 1 to 1024"},
                  {"--step-factor", "-2", "a whole number from 2 to 1024"},
                  {"--seed", "-7", "a whole number from 0 to 4611686018427387904"},
                  {"--seed", "seven", "a whole number from 0 to 4611686018427387904"},
                  {"--loaded-sizes", "0", "a comma-separated list of whole numbers from 4 to 1073741824"},
                  {"--loaded-sizes", "64,-256", "a comma-separated list of whole numbers from 4 to 1073741824"},
                  {"--moe-tokens", "16,0", "a comma-separated list of whole numbers from 1 to 1048576"},
                  {"--moe-tokens", "99999999999999999999", "a comma-separated list of whole numbers from 1 to 1048576"},
                  {"--moe-tokens", "1.5", "a comma-separated list of whole numbers from 1 to 1048576"},
                  {"--moe-skews", "-1", "a comma-separated list of numbers from 0 to 10"},
                  {"--moe-skews", "0,nan", "a comma-separated list of numbers from 0 to 10"},
                  {"--moe-skews", "11", "a comma-separated list of numbers from 0 to 10"}},
                 out);
}

TEST(NumericFlagsCli, WorkloadAndReplay) {
  const fs::path out = scratch("num_workload");
  const fs::path trace = scratch("num_trace.jsonl");
  std::ofstream(trace) << "{\"id\": \"a\", \"op\": \"write\", \"src\": 0, \"dst\": 1, \"bytes\": 4096}\n";
  for (const std::string& cmd : std::vector<std::string>{"workload --preset tiny", "replay " + trace.string() + " --preset tiny"})
    expect_refused(cmd + " --out " + out.string(),
                   {{"--seed", "-1", "a whole number from 0 to 4611686018427387904"},
                    {"--seed", "99999999999999999999", "a whole number from 0 to 4611686018427387904"},
                    {"--seed", "4611686018427387905", "a whole number from 0 to 4611686018427387904"},
                    {"--seed", "1.5", "a whole number from 0 to 4611686018427387904"},
                    {"--seed", "abc", "a whole number from 0 to 4611686018427387904"}},
                   out);
}

TEST(NumericFlagsCli, Cosim) {
  if (!has_cosim()) GTEST_SKIP() << "built without the co-simulation";
  // cosim has no --out: --json is what it would write.
  const fs::path json = scratch("num_cosim.json");
  expect_refused("cosim --preset tiny --json " + json.string(),
                 {{"--packets", "-5", "a whole number from 1 to 10000000"},  // ran 127 cycles and said AGREE
                  {"--packets", "0", "a whole number from 1 to 10000000"},
                  {"--packets", "10000001", "a whole number from 1 to 10000000"},
                  {"--packets", "99999999999999999999", "a whole number from 1 to 10000000"},
                  {"--packets", "1.5", "a whole number from 1 to 10000000"},
                  {"--packets", "many", "a whole number from 1 to 10000000"},
                  {"--load", "-0.1", "a number from 0 to 1"},
                  {"--load", "1e400", "a number from 0 to 1"},
                  {"--load", "inf", "a number from 0 to 1"},
                  {"--seed", "-1", "a whole number from 0 to 4611686018427387904"},
                  {"--seed", "x", "a whole number from 0 to 4611686018427387904"}},
                 json);
}

// The edges themselves, and the sizes with suffixes the size flags now take, still run.
TEST(NumericFlagsCli, ValuesInsideTheRangesRun) {
  const Result p2p = run("p2p --preset tiny --ops read --max-bytes 1K --warmup-cycles 0 --measure-cycles 300 "
                         "--pair-warmup-cycles 0 --pair-measure-cycles 300 --jobs 1");
  EXPECT_EQ(p2p.status, 0) << p2p.err;
  EXPECT_NE(p2p.out.find("1024"), std::string::npos) << p2p.out;
  const Result coll = run("coll --preset tiny --ranks 2 -b 1 -e 1K -f 1024 --root 0 --slice-bytes 256 --jobs 1 --threads 1");
  EXPECT_EQ(coll.status, 0) << coll.err;
}

}  // namespace
