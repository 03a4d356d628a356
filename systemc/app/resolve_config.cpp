#include "app/resolve_config.h"

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
    config::set_param(c, kv.substr(0, eq), kv.substr(eq + 1));
  }
  if (opt.seed_given) config::set_param(c, "sim.seed", std::to_string(opt.seed));
  config::validate(c);
  return c;
}

}  // namespace upswitch::app
