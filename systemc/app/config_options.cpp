#include "app/config_options.h"

#include "app/numeric_flags.h"

namespace upswitch::app {

void add_config_options(CLI::App* cmd, std::string& config_file, std::string& preset, std::vector<std::string>& sets,
                        std::string* seed, const std::string& set_example) {
  cmd->add_option("--config", config_file, "YAML configuration file")
      ->multi_option_policy(CLI::MultiOptionPolicy::Throw);
  cmd->add_option("--preset", preset, "Start from a named preset (see `upswitch presets`; presets do not stack)")
      ->multi_option_policy(CLI::MultiOptionPolicy::Throw);
  cmd->add_option("--set", sets, "Override a key: --set " + set_example + " (repeatable)")->take_all();
  if (seed)
    whole_number(cmd->add_option("--seed", *seed, "Random seed (the same as --set sim.seed=N; give one of the two)"),
                 0, kMaxSeed)
        ->multi_option_policy(CLI::MultiOptionPolicy::Throw);
}

}  // namespace upswitch::app
