// Which of an endpoint's ports carries a packet or request (endpoint.port_select; doc/topology.md),
// shared by the packet endpoints and the accelerators.
#pragma once

#include <cstdint>

#include "core/bits.h"

namespace upswitch::traffic {

enum class PortSelect { kAddress, kRoundRobin, kHash, kLeastLoaded };

// `hash`: a flow (source endpoint, destination) keeps one of the k ports from `first`.
inline int hash_port(int first, int k, int src, int dst) {
  const uint64_t x = core::mix64(static_cast<uint64_t>(src) << 16 | static_cast<uint64_t>(dst));
  return first + static_cast<int>(x % static_cast<uint64_t>(k));
}

// `least_loaded`: the port of k from `first` whose load(port) is smallest, visiting them from
// `start` (mod k) so that ties rotate.
template <class Load>
int least_loaded_port(int first, int k, uint32_t start, Load load) {
  int best = -1;
  int64_t best_load = 0;
  for (int j = 0; j < k; ++j) {
    const int p = first + static_cast<int>((start + static_cast<uint32_t>(j)) % static_cast<uint32_t>(k));
    const int64_t l = load(p);
    if (best < 0 || l < best_load) {
      best = p;
      best_load = l;
    }
  }
  return best;
}

}  // namespace upswitch::traffic
