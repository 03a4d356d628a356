// `upswitch table`: everything a higher-level simulator needs from one switch configuration, in
// one run (doc/workloads.md "Tables for planners"). Registered by add_table_command().
#pragma once

#include <CLI/CLI.hpp>

namespace upswitch::app {

CLI::App* add_table_command(CLI::App& app);

}  // namespace upswitch::app
