#include "traffic/destinations.h"

namespace upswitch::traffic {

Destinations::Destinations(const TrafficParams& p, int ports, uint64_t seed)
    : p_(p), n_(ports), sends_(ports, 1) {
  if (p.pattern == Pattern::kPermutation) {
    // Fisher-Yates on a stream of its own, so the permutation depends only on the seed.
    Rng rng(seed, 0xfe5a11ULL);
    permutation_.resize(ports);
    for (int i = 0; i < ports; ++i) permutation_[i] = static_cast<uint32_t>(i);
    for (int i = ports - 1; i > 0; --i) std::swap(permutation_[i], permutation_[rng.below(i + 1)]);
  }
  if (p.pattern == Pattern::kIncast) {
    const int senders = p.incast_sources ? p.incast_sources : ports - 1;
    int chosen = 0;
    for (int s = 0; s < ports; ++s) {
      const int src = (p.incast_target + 1 + s) % ports;
      sends_[src] = src != p.incast_target && chosen < senders;
      if (sends_[src]) ++chosen;
    }
  }
}

uint32_t Destinations::uniform(int src, Rng& rng) const {
  if (!p_.exclude_self) return rng.below(static_cast<uint32_t>(n_));
  const uint32_t d = rng.below(static_cast<uint32_t>(n_ - 1));
  return d >= static_cast<uint32_t>(src) ? d + 1 : d;
}

uint32_t Destinations::pick(int src, Rng& rng) const {
  switch (p_.pattern) {
    case Pattern::kUniform: return uniform(src, rng);
    case Pattern::kPermutation: return permutation_[src];
    case Pattern::kShift: return static_cast<uint32_t>((src + p_.shift) % n_);
    case Pattern::kHotspot:
      if (rng.unit() < p_.hotspot_fraction)
        return static_cast<uint32_t>(p_.hotspot_ports[rng.below(static_cast<uint32_t>(p_.hotspot_ports.size()))]);
      return uniform(src, rng);
    case Pattern::kIncast: return static_cast<uint32_t>(p_.incast_target);
  }
  return 0;
}

}  // namespace upswitch::traffic
