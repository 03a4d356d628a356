#include "config/yaml_loader.h"

#include <map>
#include <string>

#include <yaml-cpp/yaml.h>

#include "config/input_file.h"
#include "config/param_table.h"
#include "config/presets.h"

namespace upswitch::config {
namespace {

std::string where(const std::string& origin, const YAML::Node& n) {
  return origin + " line " + std::to_string(n.Mark().line + 1);
}

// Full dotted key -> the line it was first given on: a key given twice (`ports:` twice in one
// map, or `switch: {ports: 8}` beside `switch.ports: 16`) is refused, not silently last-wins.
using SeenKeys = std::map<std::string, int>;

void apply_node(Config& c, const YAML::Node& node, const std::string& prefix, const std::string& origin,
                SeenKeys& seen) {
  for (const auto& kv : node) {
    if (!kv.first.IsScalar()) throw ConfigError(where(origin, kv.first) + ": keys must be plain names");
    const std::string key = prefix.empty() ? kv.first.Scalar() : prefix + "." + kv.first.Scalar();
    const YAML::Node& v = kv.second;
    if (!find_param(key) && v.IsMap()) {
      apply_node(c, v, key, origin, seen);
      continue;
    }
    const int line = kv.first.Mark().line + 1;
    const auto [first, fresh] = seen.emplace(key, line);
    if (!fresh)
      throw ConfigError(where(origin, kv.first) + ": duplicate key '" + key + "' (first given on line " +
                        std::to_string(first->second) + "); give each key once");
    if (key == "preset" && v.IsScalar()) {
      continue;  // applied first, by load_yaml_text
    }
    std::string text;
    if (v.IsScalar()) {
      text = v.Scalar();
    } else if (v.IsSequence()) {
      for (size_t i = 0; i < v.size(); ++i) {
        if (!v[i].IsScalar()) throw ConfigError(where(origin, v[i]) + ": " + key + ": list items must be scalars");
        text += (i ? "," : "") + v[i].Scalar();
      }
    } else if (v.IsNull()) {
      text = "";
    } else {
      throw ConfigError(where(origin, v) + ": " + key + ": expected a value, found a map");
    }
    try {
      set_param(c, key, text);
    } catch (const ConfigError& e) {
      throw ConfigError(where(origin, kv.first) + ": " + e.what());
    }
  }
}

}  // namespace

void load_yaml_text(Config& c, const std::string& text, const std::string& origin) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(origin + " line " + std::to_string(e.mark.line + 1) + ": YAML syntax error: " + e.msg);
  }
  if (root.IsNull()) return;
  if (!root.IsMap()) throw ConfigError(origin + ": expected a map of configuration keys at the top level");
  if (root["preset"]) {
    if (!root["preset"].IsScalar()) throw ConfigError(where(origin, root["preset"]) + ": preset must be a name");
    try {
      apply_preset(c, root["preset"].Scalar());
    } catch (const ConfigError& e) {
      throw ConfigError(where(origin, root["preset"]) + ": " + e.what());
    }
  }
  SeenKeys seen;
  apply_node(c, root, "", origin, seen);
}

void load_yaml_file(Config& c, const std::string& path) {
  load_yaml_text(c, read_input_file("--config", path, kMaxConfigFileBytes), path);
}

}  // namespace upswitch::config
