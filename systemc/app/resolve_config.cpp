#include "app/resolve_config.h"

#include "config/memory_estimate.h"
#include "config/param_table.h"
#include "config/presets.h"
#include "config/yaml_loader.h"

namespace upswitch::app {

config::Config resolve_config(const RunOptions& opt) {
  config::Config c = config::default_config();
  if (!opt.preset.empty()) config::apply_preset(c, opt.preset);
  if (!opt.config_file.empty()) config::load_yaml_file(c, opt.config_file);
  for (const std::string& kv : opt.sets) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
      throw config::ConfigError("--set '" + kv + "': expected KEY=VALUE");
    if (!opt.seed.empty() && kv.substr(0, eq) == "sim.seed")
      throw config::ConfigError("--seed '" + opt.seed + "' and --set " + kv + ": give the seed once");
    config::set_param(c, kv.substr(0, eq), kv.substr(eq + 1));
  }
  if (!opt.seed.empty()) {
    try {
      config::set_param(c, "sim.seed", opt.seed);
    } catch (const config::ConfigError& e) {
      throw config::ConfigError(std::string("--seed: ") + e.what());
    }
  }
  config::validate(c);
  config::check_memory(c);  // the fabric alone; the commands add their buffers
  return c;
}

}  // namespace upswitch::app
