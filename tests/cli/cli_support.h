// Helpers for the command-line tests: run the real binary with its output captured, scratch
// directories per test process, file slurping, and the shape of a bad-input case.
#pragma once

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>
#include <utility>
#include <vector>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

extern "C" char** environ;

namespace upswitch_cli {

namespace fs = std::filesystem;

struct Result {
  int status = -1;
  std::string out, err;
};

// --set flags that turn the GPU's fixed costs off (the GPU presets set NCCL's launch and step
// latencies): for tests of what the links, SMs or channels do.
inline const char* const kNoGpuFixedCosts =
    " --set accel.launch_us_simple=0 --set accel.launch_us_ll128=0 --set accel.launch_us_ll=0 --set "
    "accel.nvls_launch_us=0 --set accel.step_us_simple=0 --set accel.step_us_ll128=0 --set accel.step_us_ll=0 ";

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline fs::path scratch_base() { return fs::temp_directory_path() / ("upswitch_cli_" + std::to_string(getpid())); }

inline fs::path scratch(const std::string& name) {
  const fs::path d = scratch_base() / name;
  fs::remove_all(d);
  fs::create_directories(d.parent_path());
  return d;
}

inline Result run(const std::string& args) {
  const fs::path dir = scratch("io");
  fs::create_directories(dir);
  const std::string cmd = std::string(UPSWITCH_BIN) + " " + args + " >" + (dir / "out").string() + " 2>" +
                          (dir / "err").string() + " </dev/null";
  const int raw = std::system(cmd.c_str());
  return Result{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(dir / "out"), slurp(dir / "err")};
}

struct BadInput {
  const char* args;
  const char* must_mention;
};

// The bad-input contract: `args` (which should write into `out`) exits with status 2 and one
// stderr line that starts with `prefix` and mentions `must_mention`; nothing on stdout, `out`
// not created.
inline void expect_bad_input(const std::string& args, const std::string& must_mention, const fs::path& out,
                             const std::string& prefix = "upswitch: error: ") {
  const Result r = run(args);
  EXPECT_EQ(r.status, 2) << args << "\n" << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << "\n" << r.err;
  EXPECT_EQ(r.err.rfind(prefix, 0), 0u) << r.err;
  EXPECT_NE(r.err.find(must_mention), std::string::npos) << args << "\n" << r.err;
  EXPECT_EQ(r.out, "") << args;
  EXPECT_FALSE(fs::exists(out)) << args << ": wrote into --out";
}

// Starts the binary with `args`, sends it SIGINT (Ctrl-C) after `delay_ms`, and returns its exit
// status (-1 when it did not exit normally, e.g. killed by the signal).
// Starts the binary, sends it `sig` after `delay_ms`, and returns its exit status, or -1 when a
// signal ended it.
inline int run_and_signal(std::vector<std::string> args, int delay_ms, int sig) {
  args.insert(args.begin(), UPSWITCH_BIN);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, UPSWITCH_BIN, nullptr, nullptr, argv.data(), environ) != 0) return -2;
  std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
  kill(pid, sig);
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -3;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

inline int run_and_interrupt(std::vector<std::string> args, int delay_ms) {
  return run_and_signal(std::move(args), delay_ms, SIGINT);
}

}  // namespace upswitch_cli
