// Builders of ParamSpec entries, shared by the files that declare parameters (param_table.cpp,
// workload_params.cpp): each takes the key, an accessor of the Config field, the default, the
// range or choices, the unit and the description, and derives parsing and range errors from them.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "config/param_table.h"
#include "config/value_parse.h"

namespace upswitch::config {
// workload_params.cpp: the workload.*, moe.* and tp.* keys.
void add_workload_params(std::vector<ParamSpec>& t);
// fault_params.cpp: partition.pods, faults.port_down, endpoint.completion_timeout_ns.
void add_fault_params(std::vector<ParamSpec>& t);
// dl_params.cpp: the link.dl.* and faults.link_* / faults.credit_loss keys.
void add_dl_params(std::vector<ParamSpec>& t);
}  // namespace upswitch::config

namespace upswitch::config::builders {

template <class Acc>
ParamSpec int_param(const char* key, Acc acc, int64_t def, int64_t lo, int64_t hi, const char* unit,
                    const char* desc) {
  ParamSpec p;
  p.key = key;
  p.type = "int";
  p.unit = unit;
  p.default_text = std::to_string(def);
  p.allowed = std::to_string(lo) + " .. " + std::to_string(hi);
  p.description = desc;
  const std::string k = key;
  p.set = [=](Config& c, const std::string& v) {
    acc(c) = static_cast<std::remove_reference_t<decltype(acc(c))>>(parse_int(k, v, lo, hi));
  };
  p.get = [=](const Config& c) { return nlohmann::json(acc(const_cast<Config&>(c))); };
  return p;
}

template <class Acc>
ParamSpec float_param(const char* key, Acc acc, double def, double lo, double hi, const char* unit,
                      const char* desc) {
  ParamSpec p;
  p.key = key;
  p.type = "float";
  p.unit = unit;
  p.default_text = format_float(def);
  p.allowed = format_float(lo) + " .. " + format_float(hi);
  p.description = desc;
  const std::string k = key;
  p.set = [=](Config& c, const std::string& v) { acc(c) = parse_float(k, v, lo, hi); };
  p.get = [=](const Config& c) { return nlohmann::json(acc(const_cast<Config&>(c))); };
  return p;
}

template <class Acc>
ParamSpec bool_param(const char* key, Acc acc, bool def, const char* desc) {
  ParamSpec p;
  p.key = key;
  p.type = "bool";
  p.default_text = def ? "true" : "false";
  p.allowed = "true, false";
  p.description = desc;
  const std::string k = key;
  p.set = [=](Config& c, const std::string& v) { acc(c) = parse_bool(k, v); };
  p.get = [=](const Config& c) { return nlohmann::json(acc(const_cast<Config&>(c))); };
  return p;
}

// An enum stored as a C++ enum (or int) whose values are the indices of `choices`.
template <class Acc>
ParamSpec enum_param(const char* key, Acc acc, const std::vector<std::string>& choices, const char* def,
                     const char* desc) {
  ParamSpec p;
  p.key = key;
  p.type = "enum";
  p.default_text = def;
  p.allowed = join(choices, ", ");
  p.description = desc;
  const std::string k = key;
  p.set = [=](Config& c, const std::string& v) {
    acc(c) = static_cast<std::remove_reference_t<decltype(acc(c))>>(parse_choice(k, v, choices));
  };
  p.get = [=](const Config& c) { return nlohmann::json(choices[static_cast<size_t>(acc(const_cast<Config&>(c)))]); };
  return p;
}

template <class Acc>
ParamSpec int_list_param(const char* key, Acc acc, const char* def, int64_t lo, int64_t hi, const char* desc) {
  ParamSpec p;
  p.key = key;
  p.type = "int-list";
  p.default_text = def;
  p.allowed = "integers " + std::to_string(lo) + " .. " + std::to_string(hi);
  p.description = desc;
  const std::string k = key;
  p.set = [=](Config& c, const std::string& v) { acc(c) = parse_int_list(k, v, lo, hi); };
  p.get = [=](const Config& c) { return nlohmann::json(acc(const_cast<Config&>(c))); };
  return p;
}

// A byte count that must be a power of two (address windows).
template <class Acc>
ParamSpec pow2_param(const char* key, Acc acc, int64_t def, int64_t lo, int64_t hi, const char* unit,
                     const char* desc) {
  ParamSpec p = int_param(key, acc, def, lo, hi, unit, desc);
  p.allowed = "powers of two " + std::to_string(lo) + " .. " + std::to_string(hi);
  const std::string k = key;
  p.set = [=](Config& c, const std::string& v) {
    const int64_t x = parse_int(k, v, lo, hi);
    if ((x & (x - 1)) != 0)
      throw ConfigError(k + " = '" + v + "': expected a power of two from " + std::to_string(lo) + " to " +
                        std::to_string(hi));
    acc(c) = static_cast<std::remove_reference_t<decltype(acc(c))>>(x);
  };
  return p;
}

// A list kept as written (Config::*_text) and parsed by validate().
template <class Acc>
ParamSpec text_param(const char* key, Acc acc, const char* def, const std::string& allowed, const char* desc) {
  ParamSpec p;
  p.key = key;
  p.type = "string";
  p.default_text = def;
  p.allowed = allowed;
  p.description = desc;
  p.set = [=](Config& c, const std::string& v) { acc(c) = v; };
  p.get = [=](const Config& c) { return nlohmann::json(acc(const_cast<Config&>(c))); };
  return p;
}

}  // namespace upswitch::config::builders
