// The one declaration site of every configuration parameter (see param_table.cpp). Everything
// else (YAML and --set parsing, validation messages, the resolved /config in summary.json, the
// config reference doc/config.md) is derived from this table.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"

namespace upswitch::config {

struct ParamSpec {
  std::string key;          // dotted name, e.g. "switch.ports"
  std::string type;         // int, float, bool, enum, int-list, string
  std::string unit;         // "" when dimensionless
  std::string default_text;
  std::string allowed;      // human-readable range or choices
  std::string description;
  std::function<void(Config&, const std::string&)> set;  // parse, range-check, store; throws ConfigError
  std::function<nlohmann::json(const Config&)> get;
};

const std::vector<ParamSpec>& param_table();
const ParamSpec* find_param(const std::string& key);
// The closest known key, for "did you mean" hints; "" if nothing is close.
std::string closest_key(const std::string& key);

Config default_config();
// Sets one key from its text form (as in --set KEY=VALUE or a YAML scalar).
void set_param(Config& c, const std::string& key, const std::string& value);
// Cross-parameter checks and derived fields; throws ConfigError naming the key.
void validate(Config& c);
// The resolved configuration as nested JSON objects keyed by the dotted names.
nlohmann::json config_to_json(const Config& c);
// Markdown reference of every parameter (doc/config.md is this text; a test keeps them equal).
std::string config_reference_markdown();

}  // namespace upswitch::config
