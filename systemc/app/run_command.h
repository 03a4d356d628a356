// `upswitch run`: resolve the configuration, run it, print a summary, write the outputs.
#pragma once

#include <string>
#include <vector>

namespace upswitch::app {

struct RunOptions {
  std::string config_file;
  std::string preset;
  std::vector<std::string> sets;  // KEY=VALUE
  std::string seed;  // --seed as typed ("" = not given); checked as sim.seed
  std::string out_dir;
  std::string kernel = "systemc";
  bool kernel_given = false;  // --kernel was on the command line
  int threads = 0;  // > 1: the plain driver on that many threads (top/parallel_run.h); 0 = choose
  bool quiet = false;
};

// Exit status: 0 ok, 2 bad input, 3 deadlock, 4 invariant violated, 130/143 interrupted (SIGINT/SIGTERM).
int run_command(const RunOptions& opt);

}  // namespace upswitch::app
