// Builds the resolved Config of a run from defaults, preset, file, --set and --seed.
#pragma once

#include "app/run_command.h"
#include <string>

#include "config/config.h"

namespace upswitch::app {

// Throws config::ConfigError with a one-line message on any bad input.
config::Config resolve_config(const RunOptions& opt);

}  // namespace upswitch::app
