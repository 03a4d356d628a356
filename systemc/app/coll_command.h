// `upswitch coll`: the nccl-tests-style collective table (doc/reduction.md). Registered into the
// CLI by add_coll_command().
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "top/coll_table.h"

namespace upswitch::app {

struct CollCliOptions {
  std::string config_file;
  std::string preset;
  std::vector<std::string> sets;  // KEY=VALUE
  std::string out_dir;
  std::string colls = "all_reduce";
  std::string algos = "all";
  std::string protocols;  // empty: the configuration's coll.protocol
  std::string ranks = "8";
  bool ranks_given = false;  // --ranks on the command line (a --placement list sets the size otherwise)
  std::string placement = "packed";
  std::string type = "f32";
  std::string op = "sum";
  std::string min_bytes = "8", max_bytes = "64M";
  int step_factor = 2;
  std::string slice_bytes = "auto";
  int root = 0;
  bool no_check = false;
  int jobs = 2;
  int threads = 1;
  bool threads_given = false;  // else each point takes the cores --jobs leaves idle (CollTableOptions::threads 0)
  bool quiet = false;
};

CLI::App* add_coll_command(CLI::App& app);

// The options choosing the table's points (--coll, --algo, --ranks, --type, -b, -e, -f), with
// `o`'s current values as the defaults shown in the help (also used by `upswitch table`).
void add_coll_selection_options(CLI::App* cmd, CollCliOptions& o);

// The table options the flags describe; throws config::ConfigError naming the flag (also used by
// `upswitch table`).
top::CollTableOptions coll_table_options(const CollCliOptions& o);

// Exit status: 0 ok, 2 bad input (one error line, nothing written), 3 deadlock, 4 invariant
// violated (including a wrong result element).
int coll_command(const CollCliOptions& opt);

}  // namespace upswitch::app
