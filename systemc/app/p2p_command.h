// `upswitch p2p`: the point-to-point table (per operation and transfer size: zero-load round
// trip, pair bandwidth, protocol efficiency, all-to-all bandwidth per port) that planners feed
// to higher-level simulators. Registered into the CLI by add_p2p_command(); doc/p2p.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace upswitch::app {

struct P2pCliOptions {
  std::string config_file;
  std::string preset;
  std::vector<std::string> sets;  // KEY=VALUE
  std::string out_dir;
  std::string ops = "all";  // all, or a comma-separated list of operations
  uint64_t max_bytes = 1048576;
  uint64_t warmup_cycles = 4000, measure_cycles = 4000;            // all-to-all runs
  uint64_t pair_warmup_cycles = 2000, pair_measure_cycles = 10000;  // pair streams
  int jobs = 2;  // the table is the same for any value
  bool quiet = false;
};

// Adds the `p2p` subcommand; when it is given, its callback builds the table and ends the process
// with the command's exit status.
CLI::App* add_p2p_command(CLI::App& app);

// Exit status: 0 ok, 2 bad input (one error line, nothing written), 3 deadlock, 4 invariant
// violated.
int p2p_command(const P2pCliOptions& opt);

}  // namespace upswitch::app
