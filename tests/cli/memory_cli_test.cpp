// The memory estimate against what runs really use (issue "hard edges", item 5): the estimate
// (config/memory_estimate.cpp) must lie within a factor of two of the measured peak RSS, which
// the test shows from outside: with sim.memory_limit_gib at half the measured peak the run is
// refused, at 2.2 times it runs. Runs too large for the machine are refused at once.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "cli_support.h"

using namespace upswitch_cli;  // NOLINT: test file

namespace {

// Peak RSS (bytes) and exit status of `upswitch args`, measured by wait4 on the process itself.
std::pair<double, int> measured(const std::string& args) {
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string cmd = "exec " + std::string(UPSWITCH_BIN) + " " + args + " >/dev/null 2>&1";
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  struct rusage ru {};
  wait4(pid, &status, 0, &ru);
  return {static_cast<double>(ru.ru_maxrss) * 1024.0, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", bytes / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

TEST(Memory, EstimateWithinAFactorOfTwoOfThePeak) {
  // AddressSanitizer's shadow memory and quarantine are not the model's: peaks measured under it
  // say nothing about the estimate.
  if (UPSWITCH_SANITIZED) GTEST_SKIP() << "peak RSS under the sanitizers is not the model's";
  for (const char* args : {"coll --preset tiny --set switch.ports=32 --ranks 8 -b 4M -e 4M --algo ring --jobs 1 --quiet",
                           "workload --preset tiny --set workload.kind=moe --set moe.tokens=2048 --quiet",
                           "run --preset tiny --set switch.ports=512 --set link.latency_cycles=10000 --set "
                           "sim.measure_cycles=1000 --set sim.warmup_cycles=100 --set traffic.rate=0.05 --quiet",
                           "run --set switch.ports=1024 --set switch.vcs=8 --set sim.measure_cycles=200 --set "
                           "sim.warmup_cycles=100 --set traffic.rate=0.01 --quiet"}) {
    const auto [peak, status] = measured(args);
    ASSERT_EQ(status, 0) << args;
    const Result low = run(std::string(args) + " --set sim.memory_limit_gib=" + gib(0.5 * peak));
    EXPECT_EQ(low.status, 2) << args << " at half its peak of " << peak / 1e6 << " MB: " << low.err;
    EXPECT_NE(low.err.find("memory: the run needs about"), std::string::npos) << low.err;
    const Result high = run(std::string(args) + " --set sim.memory_limit_gib=" + gib(2.2 * peak));
    EXPECT_EQ(high.status, 0) << args << " at 2.2 times its peak of " << peak / 1e6 << " MB: " << high.err;
  }
}

TEST(Memory, RunsTooLargeForTheMachineAreRefusedAtOnce) {
  const fs::path out = scratch("mem_out");
  for (const char* args : {"coll -b 1G -e 1G --ranks 8", "run --set switch.ports=1024 --set link.latency_cycles=1000000",
                           "run --set switch.ports=1024 --set switch.vcs=16 --set switch.vc_buffer_flits=100000",
                           // A workload of many steps and layers: refused before its schedule is built.
                           "workload --set workload.steps=100000 --set moe.layers=1000",
                           // A pair stream's backlog for a very long window.
                           "p2p --preset tiny --ops write --max-bytes 64 --pair-measure-cycles 100000000000"}) {
    // A limit the estimate exceeds on any machine, so the test does not depend on this one's.
    const std::string a = std::string(args) + " --set sim.memory_limit_gib=16 --out " + out.string();
    expect_bad_input(a, "memory: the run needs about", out);
    if (!UPSWITCH_SANITIZED) {
      EXPECT_LT(measured(a).first, 200e6) << args << ": refused, but only after allocating";
    }
  }
}

}  // namespace
