// Packet length in flits: fixed, or drawn from a weighted mix such as "1:0.5,4:0.5".
#pragma once

#include <utility>
#include <vector>

#include "traffic/rng.h"
#include "traffic/traffic_params.h"

namespace upswitch::traffic {

class PacketSizes {
 public:
  explicit PacketSizes(const TrafficParams& p) : fixed_(p.packet_flits) {
    double total = 0;
    for (const auto& [size, weight] : p.packet_mix) total += weight;
    double acc = 0;
    for (const auto& [size, weight] : p.packet_mix) {
      acc += weight / total;
      cumulative_.emplace_back(acc, size);
    }
    if (!cumulative_.empty()) cumulative_.back().first = 1.0;
  }
  int draw(Rng& rng) const {
    if (cumulative_.empty()) return fixed_;
    const double u = rng.unit();
    for (const auto& [edge, size] : cumulative_)
      if (u < edge) return size;
    return cumulative_.back().second;
  }

 private:
  int fixed_;
  std::vector<std::pair<double, int>> cumulative_;
};

}  // namespace upswitch::traffic
