// Inputs at the edges (issue "hard edges"): each case either runs to a correct end or is refused
// up front with one line, exit status 2 and nothing written. One test per defect class found by
// hand and by the command-line fuzzer; the numbers in the test names are the items.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_support.h"

using namespace upswitch_cli;  // NOLINT: test file

namespace {

// 1: the allocator's scratch rows are sized from the port count (a fixed 17-word array overflowed
// beyond 1,088 crossbar ports: 700 crashed, 1,024 reported a false deadlock).
TEST(HardEdges, Item1_LargeRadixAllocates) {
  for (const char* ports : {"700", "1024"}) {
    const Result r = run(std::string("coll --preset tiny --ranks 2 -b 64 -e 64 --quiet --set switch.ports=") + ports);
    EXPECT_EQ(r.status, 0) << ports << ": " << r.err;
  }
}

// 2: inputs that are not regular readable files are refused, never read as empty or forever.
TEST(HardEdges, Item2_UnreadableInputs) {
  const fs::path fifo = scratch("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const fs::path dir = scratch("a_dir");
  fs::create_directories(dir);
  const fs::path out = scratch("out2");
  const std::string o = " --out " + out.string();
  expect_bad_input("run --config " + dir.string() + o, "is a directory", out);
  expect_bad_input("run --config /proc/self/mem" + o, "cannot be read", out);
  expect_bad_input("run --config /dev/zero" + o, "is a device", out);
  expect_bad_input("run --config " + fifo.string() + o, "is a FIFO", out);
  expect_bad_input("replay " + dir.string() + o, "is a directory", out);
  expect_bad_input("replay /dev/zero" + o, "is a device", out);
  expect_bad_input("replay " + fifo.string() + o, "is a FIFO", out);
  expect_bad_input("workload --set moe.gating=file --set moe.assignment_file=" + fifo.string() + o, "is a FIFO", out);
}

// 3: accepted inputs that used to end as invariant failures (exit 4) are refused up front.
TEST(HardEdges, Item3_CollectivesThatCouldNotCompleteAreRefused) {
  const fs::path out = scratch("out3");
  const std::string o = " --out " + out.string();
  const std::string down = " --set faults.port_down=1@500 --set endpoint.completion_timeout_ns=2000";
  expect_bad_input("coll --preset tiny --ranks 4 -b 64K -e 64K" + down + o, "accelerator 1 is a member", out);
  expect_bad_input("workload --preset tiny" + down + o, "accelerator 1 is a member", out);
  expect_bad_input("table --preset tiny --ranks 4 -b 1K -e 4K" + down + o, "accelerator 1 is a member", out);
  const fs::path trace = scratch("coll.jsonl");
  std::ofstream(trace) << "{\"id\": \"ar\", \"op\": \"all_reduce\", \"ranks\": [0, 1, 2, 3], \"bytes\": 4096}\n";
  expect_bad_input("replay " + trace.string() + " --preset tiny" + down + o, "line 1: field 'ranks'", out);
  expect_bad_input("replay " + trace.string() + " --preset tiny --set partition.pods=0,0,1,1,0,0,1,1" + o,
                   "different virtual pods", out);
  expect_bad_input("run --preset tiny --set traffic.kind=transactions --set switch.routing_table=1,0,2,3,4,5,6,7" + o,
                   "switch.routing_table maps endpoint 0 to port 1", out);
  expect_bad_input("workload --set workload.kind=tp --set tp.algo=switch --set reduce.groups=4" + o,
                   "reduce.groups = 4: expected at least 9", out);
  expect_bad_input("workload --preset tiny --set workload.kind=moe --set moe.tokens=1048576 --set accel.memory_bytes=1048576" + o,
                   "accel.memory_bytes = 1048576", out);
  // A completion timeout shorter than the fabric needs (found by the command-line fuzzer): the
  // collective cannot finish; the configuration is named, not an invariant.
  expect_bad_input("workload --preset tiny --set moe.tokens=16 --set endpoint.completion_timeout_ns=4" + o,
                   "endpoint.completion_timeout_ns = 4: a transfer of the workload's dispatch collective timed out", out);
  expect_bad_input("coll --preset tiny --ranks 4 --set endpoint.completion_timeout_ns=10" + o,
                   "endpoint.completion_timeout_ns = 10: a transfer of the all_reduce collective timed out", out);
}

// 3, the other side: a transaction to a down port or across pods is not refused; it completes
// with its error status (a defined end), and the run exits 0.
TEST(HardEdges, Item3_TransactionsToADownPortEndWithTheirStatus) {
  const fs::path trace = scratch("txn.jsonl");
  std::ofstream(trace) << "{\"id\": \"a\", \"op\": \"write\", \"src\": 0, \"dst\": 1, \"bytes\": 4096}\n";
  const Result r = run("replay " + trace.string() +
                       " --preset tiny --set faults.port_down=1@0 --set endpoint.completion_timeout_ns=2000");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("target_abort"), std::string::npos) << r.out;
}

// 4: a path longer than the watchdog's window is not a deadlock (the window scales with the
// configured round trip).
TEST(HardEdges, Item4_LongLinksAreNotADeadlock) {
  for (const char* args : {"run --preset tiny --set sim.measure_cycles=2000", "coll --preset tiny --ranks 2 -b 64 -e 64"}) {
    const Result r = run(std::string(args) + " --set link.latency_cycles=200000 --quiet");
    EXPECT_EQ(r.status, 0) << args << ": " << r.err;
  }
}

bool has_cosim() { return run("--help").out.find("cosim") != std::string::npos; }

// 6: the co-simulation refuses what it does not model instead of ignoring it.
TEST(HardEdges, Item6_CosimRefusesWhatItDoesNotModel) {
  if (!has_cosim()) GTEST_SKIP() << "built without the co-simulation";
  const fs::path out = scratch("out6");
  const fs::path dir = scratch("cosim_dir");
  fs::create_directories(dir);
  const BadInput cases[] = {
      {"cosim --preset tiny --load nan", "--load 'nan'"},
      {"cosim --preset tiny --load 1.5", "--load 1.5: expected a number from 0 to 1"},
      {"cosim --preset tiny --set link.dl.enable=true", "link.dl.enable = true: the co-simulation does not model"},
      {"cosim --preset tiny --set faults.credit_loss=3:up@100", "faults.credit_loss"},
      {"cosim --preset tiny --set traffic.kind=transactions", "packet traffic only"},
      {"cosim --preset tiny --set switch.packet_mode=true", "switch.packet_mode = true: the reference RTL allocates flit by flit"},
      {"cosim --preset tiny --set switch.speedup=2", "switch.speedup = 2: the reference RTL's crossbar moves one flit"},
      {"cosim --preset tiny --seed 2 --set sim.seed=3", "give the seed once"},
  };
  for (const BadInput& b : cases) expect_bad_input(b.args, b.must_mention, out);
  expect_bad_input("cosim --preset tiny --json " + dir.string(), "--json '" + dir.string() + "': is a directory", out);
  expect_bad_input("cosim --preset tiny --json /nonexistent/dir/v.json", "--json", out);
  expect_bad_input("cosim --preset tiny --wave-dir /dev/null/x", "--wave-dir", out);
}

// 7: presets do not stack silently.
TEST(HardEdges, Item7_OnePreset) {
  const fs::path out = scratch("out7");
  const fs::path yaml = scratch("preset.yaml");
  std::ofstream(yaml) << "preset: slotted\n";
  expect_bad_input("run --preset tiny --preset slotted --out " + out.string(), "--preset", out);
  expect_bad_input("run --preset tiny --config " + yaml.string() + " --out " + out.string(),
                   "preset 'tiny' is already chosen", out);
  EXPECT_EQ(run("run --preset tiny --preset tiny --quiet").status, 2);  // given twice is an error even when equal
  const Result same = run("run --preset slotted --config " + yaml.string() + " --quiet --set sim.measure_cycles=200");
  EXPECT_EQ(same.status, 0) << same.err;  // naming the same preset in both places is one preset
}

// 8: an output directory that cannot be written is refused before the run.
TEST(HardEdges, Item8_UnwritableOutRefusedBeforeTheRun) {
  const fs::path locked = scratch("locked");
  fs::create_directories(locked);
  ASSERT_EQ(chmod(locked.c_str(), 0555), 0);
  std::string prefix;
  if (geteuid() == 0) {  // root writes anywhere: run as nobody
    if (std::system("command -v setpriv >/dev/null 2>&1") != 0) GTEST_SKIP() << "needs setpriv to drop root";
    prefix = "--reuid=65534";
  }
  for (const std::string& target : {locked.string(), (locked / "sub").string()}) {
    const std::string args = "run --preset tiny --quiet --out " + target;
    Result r;
    if (prefix.empty()) {
      r = run(args);
    } else {
      const fs::path io = scratch("io_nobody");
      fs::create_directories(io);
      chmod(io.c_str(), 0777);
      const std::string cmd = "setpriv --reuid=65534 --regid=65534 --clear-groups " + std::string(UPSWITCH_BIN) + " " +
                              args + " >" + (io / "out").string() + " 2>" + (io / "err").string() + " </dev/null";
      const int raw = std::system(cmd.c_str());
      r = Result{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(io / "out"), slurp(io / "err")};
    }
    EXPECT_EQ(r.status, 2) << target << ": " << r.err;
    EXPECT_NE(r.err.find("--out '" + target + "'"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  EXPECT_TRUE(fs::is_empty(locked));
  chmod(locked.c_str(), 0755);
}

// 10: the smaller ones.
TEST(HardEdges, Item10_SeedsDuplicateKeysAndJobs) {
  const fs::path out = scratch("out10");
  const std::string o = " --out " + out.string();
  // What was typed, not 18446744073709551615:
  expect_bad_input("run --seed -1" + o, "--seed -1: expected a whole number from 0", out);
  expect_bad_input("run --seed 3 --set sim.seed=4" + o, "give the seed once", out);
  expect_bad_input("workload --seed 3 --set sim.seed=4" + o, "give the seed once", out);
  const fs::path dup = scratch("dup.yaml");
  std::ofstream(dup) << "switch:\n  ports: 8\nsim:\n  seed: 1\n  seed: 2\n";
  expect_bad_input("run --config " + dup.string() + o, "line 5: duplicate key 'sim.seed' (first given on line 4)", out);
  const fs::path dup2 = scratch("dup2.yaml");
  std::ofstream(dup2) << "switch:\n  ports: 8\nswitch.ports: 16\n";
  expect_bad_input("run --config " + dup2.string() + o, "duplicate key 'switch.ports'", out);
  expect_bad_input("coll --preset tiny --jobs 0" + o, "--jobs 0", out);
  expect_bad_input("table --preset tiny --jobs 0" + o, "--jobs 0", out);
}

// 10: Ctrl-C on the table commands writes what is complete, marked, and exits 130.
TEST(HardEdges, Item10_CtrlCKeepsCompletedPoints) {
  const fs::path out = scratch("sigint_coll");
  const int status = run_and_interrupt(
      {"coll", "--preset", "tiny", "--ranks", "8", "-b", "4K", "-e", "64M", "--jobs", "1", "--quiet", "--out", out.string()},
      3000);
  EXPECT_EQ(status, 130);
  if (fs::exists(out / "coll.json")) {  // some point completed within the 3 s
    const nlohmann::json j = nlohmann::json::parse(slurp(out / "coll.json"));
    EXPECT_TRUE(j["meta"]["interrupted"].get<bool>()) << j["meta"].dump();
    EXPECT_GT(j["rows"].size(), 0u);
    EXPECT_TRUE(fs::exists(out / "coll.csv"));
  }
}

}  // namespace
