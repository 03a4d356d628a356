// The `upswitch` command-line contract, tested on the real binary: outputs and their keys,
// byte-identical reruns, and one-line errors with exit status 2 and nothing written.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli_support.h"

using namespace upswitch_cli;  // NOLINT: test file

namespace {

// Removes this process's scratch directory when the tests end.
class ScratchCleanup : public ::testing::Environment {
 public:
  void TearDown() override { fs::remove_all(scratch_base()); }
};
const auto* const kCleanup = ::testing::AddGlobalTestEnvironment(new ScratchCleanup);

TEST(Cli, RunWritesTheContractedOutputs) {
  const fs::path out = scratch("ok");
  const Result r = run("run --preset tiny --set traffic.rate=0.3 --seed 7 --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("throughput"), std::string::npos);
  const nlohmann::json s = nlohmann::json::parse(slurp(out / "summary.json"));
  for (const char* ptr : {"/config/switch/ports", "/throughput/offered", "/throughput/accepted", "/latency/packet/mean",
                          "/latency/packet/p50", "/latency/packet/p99", "/latency/packet/p999", "/latency/packet/max",
                          "/latency/network/mean", "/latency/network/p99", "/saturated", "/sim/cycles",
                          "/sim/wall_seconds", "/sim/cycles_per_second"})
    EXPECT_TRUE(s.contains(nlohmann::json::json_pointer(ptr))) << ptr;
  EXPECT_EQ(s["config"]["sim"]["seed"], 7);
  EXPECT_EQ(s["config"]["traffic"]["rate"], 0.3);
  EXPECT_FALSE(s["saturated"].get<bool>());
  EXPECT_TRUE(s["conservation"]["ok"].get<bool>());
  std::istringstream csv(slurp(out / "ports.csv"));
  std::string line;
  int rows = 0;
  while (std::getline(csv, line)) ++rows;
  EXPECT_EQ(rows, 9);  // header + 8 ports
  EXPECT_TRUE(fs::exists(out / "latency_hist.csv"));
}

nlohmann::json without_wall_clock(nlohmann::json s) {
  s["sim"].erase("wall_seconds");
  s["sim"].erase("cycles_per_second");
  return s;
}

TEST(Cli, SameConfigAndSeedGiveByteIdenticalResults) {
  const fs::path a = scratch("det_a"), b = scratch("det_b");
  const std::string args = "run --preset tiny --set traffic.pattern=hotspot --set traffic.packet_mix=1:1,6:1 --quiet --out ";
  ASSERT_EQ(run(args + a.string()).status, 0);
  ASSERT_EQ(run(args + b.string()).status, 0);
  EXPECT_EQ(without_wall_clock(nlohmann::json::parse(slurp(a / "summary.json"))).dump(),
            without_wall_clock(nlohmann::json::parse(slurp(b / "summary.json"))).dump());
  EXPECT_EQ(slurp(a / "ports.csv"), slurp(b / "ports.csv"));
  EXPECT_EQ(slurp(a / "latency_hist.csv"), slurp(b / "latency_hist.csv"));
}

TEST(Cli, SystemcAndPlainKernelsAgree) {
  const fs::path a = scratch("k_sc"), b = scratch("k_plain");
  const std::string args =
      "run --preset tiny --set switch.queueing=vc --set traffic.rate=0.8 --set sim.check_interval_cycles=250 --quiet --out ";
  ASSERT_EQ(run(args + a.string()).status, 0);
  ASSERT_EQ(run(args + b.string() + " --kernel plain").status, 0);
  auto sa = without_wall_clock(nlohmann::json::parse(slurp(a / "summary.json")));
  auto sb = without_wall_clock(nlohmann::json::parse(slurp(b / "summary.json")));
  sa["sim"].erase("kernel");
  sb["sim"].erase("kernel");
  EXPECT_EQ(sa.dump(), sb.dump());
}

TEST(Cli, TransactionRunWritesItsOutputsAndIsDeterministic) {
  const fs::path a = scratch("txn_a"), b = scratch("txn_b");
  const std::string args =
      "run --preset tiny --set traffic.kind=transactions --set txn.mix=read:2,write:1,atomic_r:1 "
      "--set txn.sizes=64:1,1024:1 --set txn.load=0.35 --set sim.check_interval_cycles=500 --out ";
  const Result r = run(args + a.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("efficiency"), std::string::npos);
  ASSERT_EQ(run(args + b.string() + " --kernel plain --quiet").status, 0);
  const nlohmann::json s = nlohmann::json::parse(slurp(a / "summary.json"));
  for (const char* ptr : {"/throughput/offered_gbytes_per_s_per_port", "/throughput/completed_gbytes_per_s_per_port",
                          "/ops/read/latency/mean", "/ops/write/latency/p99", "/ops/atomic_r/latency/mean_ns",
                          "/link/requests/efficiency", "/link/responses/messages_per_packet", "/statuses/okay",
                          "/sim/transfers_per_second"})
    EXPECT_TRUE(s.contains(nlohmann::json::json_pointer(ptr))) << ptr;
  EXPECT_EQ(s["traffic_kind"], "transactions");
  EXPECT_TRUE(s["conservation"]["ok"].get<bool>());
  EXPECT_FALSE(s["saturated"].get<bool>());
  EXPECT_EQ(s["statuses"]["decode_error"], 0);
  // Completed payload matches offered payload when the fabric keeps up (within 3%).
  const double off = s["throughput"]["offered_gbytes_per_s_per_port"], done = s["throughput"]["completed_gbytes_per_s_per_port"];
  EXPECT_NEAR(done / off, 1.0, 0.03);
  auto sa = without_wall_clock(s), sb = without_wall_clock(nlohmann::json::parse(slurp(b / "summary.json")));
  for (auto* j : {&sa, &sb}) {
    (*j)["sim"].erase("kernel");
    (*j)["sim"].erase("transfers_per_second");
  }
  EXPECT_EQ(sa.dump(), sb.dump());
  EXPECT_EQ(slurp(a / "ports.csv"), slurp(b / "ports.csv"));
  EXPECT_EQ(slurp(a / "latency_hist.csv"), slurp(b / "latency_hist.csv"));
}

TEST(Cli, BadInputIsOneLineExitTwoAndNothingWritten) {
  const fs::path yaml_bad = scratch("bad.yaml");
  std::ofstream(yaml_bad) << "switch:\n  ports: [1\n";
  const fs::path yaml_key = scratch("key.yaml");
  std::ofstream(yaml_key) << "traffic:\n  patern: uniform\n";
  const fs::path a_file = scratch("not_a_dir");
  std::ofstream(a_file) << "x";
  const std::string bad_yaml = "run --config " + yaml_bad.string(), bad_key = "run --config " + yaml_key.string();
  const std::string out_is_file = "run --preset tiny --out " + a_file.string();
  const BadInput cases[] = {
      {"run --set switch.ports=5000", "switch.ports = '5000'"},
      {"run --set switch.portz=8", "unknown key 'switch.portz'"},
      {"run --set switch.queueing=oq", "expected one of fifo, vc, voq"},
      {"run --set traffic.rate=-0.1", "traffic.rate"},
      {"run --set switch.ports", "--set 'switch.ports': expected KEY=VALUE"},
      {"run --preset huge", "--preset 'huge'"},
      {"run --config /nonexistent.yaml", "no such file"},
      {bad_yaml.c_str(), "line"},
      {bad_key.c_str(), "unknown key 'traffic.patern'"},
      {"run --frobnicate", "frobnicate"},
      {"run --seed -3", "seed"},
      {"run --kernel fast", "--kernel 'fast'"},
      {"run --set switch.ports=8 --set traffic.hotspot_ports=8", "traffic.hotspot_ports contains 8"},
      {out_is_file.c_str(), "--out"},
      {"run --set traffic.kind=transactions --set switch.queueing=fifo", "switch.queueing = fifo"},
      {"run --set traffic.kind=transactions --set txn.mix=read:1,fetch:1", "txn.mix"},
      {"run --set traffic.kind=transactions --set txn.sizes=100:1 --set txn.mix=writefull:1", "writefull"},
      {"run --set traffic.kind=transactions --set txn.sizes=4:1 --set txn.load=1", "txn.load"},
      {"run --set traffic.kind=transactions --set endpoint.rx_vc_flits=4", "endpoint.rx_vc_flits"},
      {"run --set accel.atomic_ops=add,mul", "accel.atomic_ops"},
      {"run --set switch.speedup=9", "switch.speedup = '9'"},
      {"run --set switch.speedup=2 --set switch.packet_mode=true", "switch.speedup = 2 with switch.packet_mode = true"},
      {"", "required"},
  };
  for (const BadInput& b : cases) {
    const fs::path out = scratch("bad_out");
    const std::string args = std::string(b.args) + (std::string(b.args).find("--out") == std::string::npos && *b.args
                                                         ? " --out " + out.string()
                                                         : "");
    expect_bad_input(args, b.must_mention, out);
  }
}

TEST(Cli, CtrlCStopsCleanlyKeepingPartialResults) {
  const fs::path out = scratch("sigint");
  // The run must have simulated something before the interrupt, which on a loaded machine (or
  // under the sanitizers) can take longer than the first delay: an interrupt before cycle 1 still
  // has to write a marked summary, and the next, longer delay then checks the partial results.
  nlohmann::json s;
  for (const int delay_ms : {700, 3000, 10000}) {
    fs::remove_all(out);
    EXPECT_EQ(run_and_interrupt({"run", "--quiet", "--set", "sim.measure_cycles=100000000000", "--out", out.string()},
                                delay_ms),
              130);
    s = nlohmann::json::parse(slurp(out / "summary.json"));
    EXPECT_TRUE(s["sim"]["interrupted"].get<bool>());
    if (s["sim"]["cycles"].get<uint64_t>() > 0) break;
  }
  EXPECT_GT(s["sim"]["cycles"].get<uint64_t>(), 0u);
  EXPECT_TRUE(s["latency"]["packet"]["mean"].is_null());  // no steady state was reached
  EXPECT_TRUE(fs::exists(out / "ports.csv"));
}

TEST(Cli, HelpVersionKeysAndPresets) {
  EXPECT_EQ(run("--help").status, 0);
  const Result v = run("--version");
  EXPECT_EQ(v.status, 0);
  EXPECT_EQ(v.out.rfind("upswitch ", 0), 0u);
  const Result k = run("keys");
  EXPECT_EQ(k.status, 0);
  EXPECT_NE(k.out.find("switch.allocator_iterations"), std::string::npos);
  EXPECT_NE(run("presets").out.find("ualink-x4"), std::string::npos);
}

}  // namespace
