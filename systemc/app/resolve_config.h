// Builds the resolved Config of a run from defaults, preset, file, --set and --seed.
#pragma once

#include "app/run_command.h"
#include <string>

#include "config/config.h"

namespace upswitch::app {

// Throws config::ConfigError with a one-line message on any bad input.
config::Config resolve_config(const RunOptions& opt);

// Collectives, workloads, replay and the planners' table run on one switch in this version
// (issue 19): a ConfigError naming the command and the topology otherwise.
void require_single_switch(const config::Config& c, const std::string& command);

}  // namespace upswitch::app
