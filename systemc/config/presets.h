// Named starting points for a configuration (`--preset NAME`), as lists of key overrides on the
// defaults, so a preset can never name a key the table does not declare (a test checks).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "config/config.h"

namespace upswitch::config {

struct Preset {
  std::string name;
  std::string description;
  std::vector<std::pair<std::string, std::string>> overrides;
};

const std::vector<Preset>& presets();
// Applies preset `name` to c; throws ConfigError naming the allowed presets, or when another preset
// was applied to c before (presets do not stack).
void apply_preset(Config& c, const std::string& name);

}  // namespace upswitch::config
