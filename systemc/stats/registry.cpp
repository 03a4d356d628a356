#include "stats/registry.h"

namespace upswitch::stats {

void Registry::counter(std::string name, const uint64_t* value, std::string unit, std::string desc) {
  entries_.push_back(Entry{std::move(name), std::move(unit), std::move(desc), value, nullptr, nullptr});
}

void Registry::per_port(std::string name, const std::vector<uint64_t>* values, std::string unit, std::string desc) {
  entries_.push_back(Entry{std::move(name), std::move(unit), std::move(desc), nullptr, values, nullptr});
}

void Registry::histogram(std::string name, const Histogram* h, std::string unit, std::string desc) {
  entries_.push_back(Entry{std::move(name), std::move(unit), std::move(desc), nullptr, nullptr, h});
}

nlohmann::json summarize(const Histogram& h) {
  return {{"count", h.count()},           {"mean", h.mean()},
          {"p50", h.percentile(0.50)},    {"p99", h.percentile(0.99)},
          {"p999", h.percentile(0.999)},  {"max", h.max()}};
}

nlohmann::json Registry::dump() const {
  nlohmann::json out = nlohmann::json::object();
  for (const Entry& e : entries_) {
    nlohmann::json j = {{"unit", e.unit}, {"description", e.desc}};
    if (e.value) j["value"] = *e.value;
    if (e.values) j["values"] = *e.values;
    if (e.hist) j["summary"] = summarize(*e.hist);
    out[e.name] = j;
  }
  return out;
}

}  // namespace upswitch::stats
