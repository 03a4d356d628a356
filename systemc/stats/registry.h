// Registered statistics: components register their counters and histograms by reference, with a
// unit and a description, and the registry dumps them all as JSON. Reports and sweep tools read
// this dump, never log text.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "stats/histogram.h"

namespace upswitch::stats {

class Registry {
 public:
  void counter(std::string name, const uint64_t* value, std::string unit, std::string desc);
  void per_port(std::string name, const std::vector<uint64_t>* values, std::string unit, std::string desc);
  void histogram(std::string name, const Histogram* h, std::string unit, std::string desc);
  // {name: {"unit", "description", "value" | "values" | histogram summary}}, sorted by name.
  nlohmann::json dump() const;

 private:
  struct Entry {
    std::string name, unit, desc;
    const uint64_t* value = nullptr;
    const std::vector<uint64_t>* values = nullptr;
    const Histogram* hist = nullptr;
  };
  std::vector<Entry> entries_;
};

// mean, p50, p99, p999, max and count of a histogram, in its own unit.
nlohmann::json summarize(const Histogram& h);

}  // namespace upswitch::stats
