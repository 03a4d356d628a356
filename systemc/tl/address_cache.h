// The TL's Tx/Rx address cache (facts §1.6): a compressed request carries only address bits
// [19:6] and a way index pointing at bits [56:20] kept in a cache of 1 MiB regions shared by the
// two ends of a link. Modelled as an LRU of `entries` regions per transmitter; a request that
// misses is sent uncompressed and installs its region. The spec's cache size is not public; the
// default is an estimate (doc/transactions.md).
#pragma once

#include <cstdint>
#include <vector>

namespace upswitch::tl {

class AddressCache {
 public:
  explicit AddressCache(int entries = 0) : tags_(static_cast<size_t>(entries), UINT64_MAX) {}

  // Looks up the region of `addr`; on a miss installs it. Returns true on a hit.
  bool access(uint64_t addr) {
    if (tags_.empty()) return false;
    const uint64_t region = addr >> 20;
    size_t i = 0;
    while (i < tags_.size() && tags_[i] != region) ++i;
    const bool hit = i < tags_.size();
    if (!hit) i = tags_.size() - 1;  // evict the least recently used
    for (; i > 0; --i) tags_[i] = tags_[i - 1];
    tags_[0] = region;
    return hit;
  }

 private:
  std::vector<uint64_t> tags_;  // most recently used first
};

}  // namespace upswitch::tl
