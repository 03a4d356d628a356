// `upswitch cosim`: compare the C++ model with the reference RTL (rtl_ref/) for one
// configuration, pattern, load and packet count. Registered into the `upswitch` CLI by
// add_cosim_command(); documented in doc/cosim.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "config/config.h"

namespace upswitch::cosim {

struct CosimCliOptions {
  std::string preset;
  std::string config_file;
  std::vector<std::string> sets;
  std::string pattern;     // traffic.pattern shortcut
  std::string load;        // traffic.rate shortcut, as typed ("" = not given)
  uint64_t packets = 0;    // size the measurement window for about this many packets
  std::string seed;        // as typed ("" = not given)
  std::string wave_dir = ".";
  std::string fault = "none";
  std::string json_out;
  bool quiet = false;
};

// Adds the `cosim` subcommand; when it is given, its callback runs the comparison and ends the
// process with its exit status (0 agree, 1 mismatch, 2 bad input, 3 deadlock, 4 RTL assertion).
CLI::App* add_cosim_command(CLI::App& app);

// The command itself (also used by tests): returns the exit status.
int cosim_command(const CosimCliOptions& opt);

// The configuration a comparison runs: the `run` command's resolution (defaults, preset, file,
// --set, --seed) on top of the co-simulation baseline link.gbytes_per_s=0, plus --pattern,
// --load and --packets. Throws config::ConfigError on bad input, and on any key the comparison
// does not model (faults, the data-link layer, partitions, transactions) rather than ignoring it.

config::Config resolve_cosim_config(const CosimCliOptions& opt);

}  // namespace upswitch::cosim
