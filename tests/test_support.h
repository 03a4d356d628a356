// Helpers shared by the tests: building configurations and running the model without SystemC.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "config/param_table.h"
#include "config/presets.h"
#include "top/conservation.h"
#include "top/fabric.h"

namespace upswitch::testing {

// Defaults, then `preset` (may be ""), then the overrides; validated.
inline config::Config make_config(const std::string& preset,
                                  const std::vector<std::pair<std::string, std::string>>& sets) {
  config::Config c = config::default_config();
  if (!preset.empty()) config::apply_preset(c, preset);
  for (const auto& [k, v] : sets) config::set_param(c, k, v);
  config::validate(c);
  return c;
}

// Runs the configuration to completion with the plain driver.
inline std::unique_ptr<top::Fabric> run_plain(const config::Config& c) {
  auto f = std::make_unique<top::Fabric>(c);
  f->run_plain();
  return f;
}

inline double accepted(const top::Fabric& f) {
  const auto& r = f.endpoints().result();
  double a = 0;
  for (const auto& p : r.ports) a += static_cast<double>(p.accepted_flits);
  return a / (static_cast<double>(r.window_cycles) * f.endpoint_ports());
}

inline double offered(const top::Fabric& f) {
  const auto& r = f.endpoints().result();
  double a = 0;
  for (const auto& p : r.ports) a += static_cast<double>(p.offered_flits);
  return a / (static_cast<double>(r.window_cycles) * f.endpoint_ports());
}

}  // namespace upswitch::testing
