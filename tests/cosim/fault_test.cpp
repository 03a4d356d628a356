// The harness catches a difference and names the right packet; the RTL's assertions catch a
// broken credit return; the command rejects configurations outside the reference set.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "cosim/cosim_command.h"
#include "cosim/cosim_run.h"
#include "cosim/model_switch.h"
#include "cosim/rtl_variants.h"
#include "cosim/side.h"

namespace upswitch::cosim {
namespace {

namespace fs = std::filesystem;

config::Config tiny(double load, uint64_t packets) {
  CosimCliOptions o;
  o.preset = "tiny";
  o.pattern = "uniform";
  o.load = std::to_string(load);
  o.packets = packets;
  return resolve_cosim_config(o);
}

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("upswitch_cosim_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// The first flit the (unmodified) model switch puts on any output: cycle, packet, and the
// cycle its tail leaves. Computed with the model alone, independently of the harness.
struct FirstOut {
  uint64_t cycle = 0, tail_cycle = 0, packet = 0;
};
FirstOut first_output(const config::Config& cfg) {
  Side side(cfg, std::make_unique<ModelSwitch>(cfg.sw, cfg.endpoint_rx));
  FirstOut f;
  bool found = false;
  for (uint64_t t = 0; t < 100000; ++t) {
    side.step(t);
    for (const PortEvent& e : side.events()) {
      if (!e.flit_valid) continue;
      if (!found) {
        found = true;
        f.cycle = t;
        f.packet = e.packet.id;
      }
      if (e.packet.id == f.packet && e.flit.tail()) {
        f.tail_cycle = t;
        return f;
      }
    }
  }
  ADD_FAILURE() << "the model emitted no complete packet";
  return f;
}

TEST(Harness, OneCycleChangeIsReportedAtTheRightPacketWithWaveform) {
  const config::Config cfg = tiny(0.2, 5000);
  const FirstOut first = first_output(cfg);
  const fs::path dir = fresh_dir("mismatch");
  CosimOptions opt;
  opt.wave_dir = dir.string();
  opt.fault = Fault::kModelExtraCycle;  // the reference side's egress is one cycle longer
  const CosimResult r = run_cosim(cfg, match_variant(cfg), opt);
  ASSERT_TRUE(r.mismatch_found);
  EXPECT_FALSE(r.agree);
  const Mismatch& m = r.mismatch;
  EXPECT_EQ(m.cycle, first.cycle);
  ASSERT_TRUE(m.packet_known);
  EXPECT_EQ(m.packet_id, first.packet);
  const auto L = static_cast<int64_t>(cfg.link_latency_cycles);
  EXPECT_EQ(m.actual_delivery, static_cast<int64_t>(first.tail_cycle) + L);      // the RTL is unchanged
  EXPECT_EQ(m.expected_delivery, static_cast<int64_t>(first.tail_cycle) + L + 1);  // the model is one late
  EXPECT_EQ(m.src, static_cast<int>(first.packet >> 40));
  ASSERT_FALSE(m.wave_file.empty());
  EXPECT_TRUE(fs::exists(m.wave_file));
  EXPECT_GT(fs::file_size(m.wave_file), 0u);
  EXPECT_EQ(fs::path(m.wave_file).parent_path(), dir);
  fs::remove_all(dir);
}

TEST(Harness, AgreeingRunWritesNoWaveform) {
  const config::Config cfg = tiny(0.6, 5000);
  const fs::path dir = fresh_dir("clean");
  CosimOptions opt;
  opt.wave_dir = dir.string();
  const CosimResult r = run_cosim(cfg, match_variant(cfg), opt);
  EXPECT_TRUE(r.agree);
  EXPECT_TRUE(fs::is_empty(dir));
  fs::remove_all(dir);
}

TEST(RtlAssertions, CreditOverflowFiresOnABrokenCreditReturn) {
  const config::Config cfg = tiny(0.2, 2000);
  CosimOptions opt;
  opt.fault = Fault::kRtlExtraCredit;  // a credit returned to output 0 that was never taken
  ::testing::internal::CaptureStdout();
  const CosimResult r = run_cosim(cfg, match_variant(cfg), opt);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(r.rtl_error, "");
  EXPECT_FALSE(r.agree);
  EXPECT_NE(out.find("CreditOverflowVc_A"), std::string::npos) << out;
  EXPECT_NE(out.find("g_out[0]"), std::string::npos) << out;
}

// Runs the real binary; returns (exit status, stdout + stderr).
std::pair<int, std::string> run(const std::string& args) {
  const std::string cmd = std::string(UPSWITCH_BIN) + " " + args + " 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  std::string out;
  std::array<char, 4096> buf{};
  size_t k;
  while ((k = fread(buf.data(), 1, buf.size(), pipe.get())) > 0) out.append(buf.data(), k);
  const int status = pclose(pipe.release());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

TEST(Cli, AgreeingRunPrintsBothSidesAndTheVerdict) {
  const auto [status, out] = run("cosim --preset tiny --pattern permutation --load 0.6 --packets 3000");
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("model  offered"), std::string::npos) << out;
  EXPECT_NE(out.find("rtl    offered"), std::string::npos) << out;
  EXPECT_NE(out.find("verdict AGREE"), std::string::npos) << out;
}

TEST(Cli, MismatchExitsOneWithReport) {
  const fs::path dir = fresh_dir("cli");
  const auto [status, out] =
      run("cosim --preset tiny --load 0.2 --packets 2000 --fault model-extra-cycle --wave-dir " + dir.string());
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("first differing packet"), std::string::npos) << out;
  EXPECT_NE(out.find(".fst"), std::string::npos) << out;
  fs::remove_all(dir);
}

TEST(Cli, OutsideTheReferenceConfigurationIsOneLineExitTwo) {
  const std::pair<std::string, std::string> cases[] = {
      {"--set switch.queueing=fifo", "switch.queueing = fifo"},
      {"--set link.gbytes_per_s=98.125", "link.gbytes_per_s"},
      {"--set switch.ports=16", "switch.ports = 16"},
      {"--set switch.allocator=wavefront", "switch.allocator = wavefront"},
      {"--preset tiny --set switch.routing_cycles=3", "switch.routing_cycles = 3"},
      {"--preset tiny --fault sometimes", "--fault 'sometimes'"},
      {"--preset tiny --load nope", "--load"},
  };
  for (const auto& [args, needle] : cases) {
    const auto [status, out] = run("cosim " + args);
    EXPECT_EQ(status, 2) << args << ": " << out;
    EXPECT_NE(out.find(needle), std::string::npos) << args << ": " << out;
    EXPECT_EQ(out.find('\n'), out.size() - 1) << args << ": not one line: " << out;
  }
}

}  // namespace
}  // namespace upswitch::cosim
