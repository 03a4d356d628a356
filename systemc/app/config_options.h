// The options every simulating command shares (--config, --preset, --set, --seed), declared in
// one place with one policy: --config, --preset and --seed each at most once (a second one is an
// error, not a silent override), and --seed and --set sim.seed not together (resolve_config).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/run_command.h"

namespace upswitch::app {

// `set_example` is the key=value the --set help shows; a non-null `seed` adds --seed.
void add_config_options(CLI::App* cmd, std::string& config_file, std::string& preset, std::vector<std::string>& sets,
                        std::string* seed, const std::string& set_example);
// The same into a RunOptions.
inline void add_config_options(CLI::App* cmd, RunOptions& o, const std::string& set_example, bool seed) {
  add_config_options(cmd, o.config_file, o.preset, o.sets, seed ? &o.seed : nullptr, set_example);
}

}  // namespace upswitch::app
