// Destination patterns: who a source sends its next packet to.
#pragma once

#include <cstdint>
#include <vector>

#include "traffic/rng.h"
#include "traffic/traffic_params.h"

namespace upswitch::traffic {

class Destinations {
 public:
  Destinations(const TrafficParams& p, int ports, uint64_t seed);
  // Whether `src` generates traffic at all (incast limits the senders).
  bool sends(int src) const { return sends_[src]; }
  uint32_t pick(int src, Rng& rng) const;

 private:
  uint32_t uniform(int src, Rng& rng) const;
  const TrafficParams& p_;
  int n_;
  std::vector<uint32_t> permutation_;
  std::vector<uint8_t> sends_;
};

}  // namespace upswitch::traffic
