// `upswitch workload`: MoE all-to-alls and TP collectives described by model dimensions
// (doc/workloads.md), alone or together on one switch. Registered by add_workload_command().
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "app/run_command.h"

namespace upswitch::app {

CLI::App* add_workload_command(CLI::App& app);

// Exit status: 0 ok, 2 bad input (one error line, nothing written), 3 deadlock, 4 invariant violated.
// `chakra_prefix` (non-empty): the workload is also written as Chakra traces before it runs.
int workload_command(const RunOptions& opt, const std::string& chakra_prefix = "");

}  // namespace upswitch::app
