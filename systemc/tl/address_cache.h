// The TL's Tx/Rx address cache (facts §1.6): a compressed request carries only address bits
// [19:6] and a way index pointing at bits [56:20] kept in a cache of 1 MiB regions shared by the
// two ends of a link. Modelled as an LRU of `entries` regions per transmitter; a request that
// misses is sent uncompressed and installs its region. The spec's cache size is not public; the
// default is an estimate (doc/transactions.md).
//
// A hit costs a hash probe and a stamp: each entry keeps the access count at its last use, and a
// miss in a full cache evicts the entry with the oldest stamp (a scan of the entries), which is
// the least recently used one, so the hits and misses are an LRU list's. (A reduction unit cycles
// through its group's 72 members' regions: with the list, each hit moved an entry 72 places.)
#pragma once

#include <cstdint>
#include <vector>

namespace upswitch::tl {

class AddressCache {
 public:
  explicit AddressCache(int entries = 0)
      : tags_(static_cast<size_t>(entries > 0 ? entries : 0)), stamps_(tags_.size()) {
    size_t slots = 2;
    while (slots < 2 * tags_.size()) slots *= 2;
    slots_.assign(tags_.empty() ? 0 : slots, 0);
    mask_ = slots - 1;
  }

  // Looks up the region of `addr`; on a miss installs it. Returns true on a hit.
  bool access(uint64_t addr) {
    if (tags_.empty()) return false;
    const uint64_t region = addr >> 20;
    ++clock_;
    size_t s = home(region);
    for (; slots_[s]; s = (s + 1) & mask_) {
      const uint32_t e = slots_[s] - 1;
      if (tags_[e] == region) {
        stamps_[e] = clock_;
        return true;
      }
    }
    uint32_t e = used_;
    if (used_ < tags_.size()) {
      ++used_;
    } else {  // full: evict the least recently used
      e = 0;
      for (uint32_t k = 1; k < used_; ++k)
        if (stamps_[k] < stamps_[e]) e = k;
      erase(tags_[e]);
      s = home(region);  // (erasing may have moved entries up to the free slot found)
      while (slots_[s]) s = (s + 1) & mask_;
    }
    tags_[e] = region;
    stamps_[e] = clock_;
    slots_[s] = e + 1;
    return false;
  }

 private:
  size_t home(uint64_t region) const { return static_cast<size_t>((region * 0x9E3779B97F4A7C15ULL) >> 32) & mask_; }
  // Removes `region`'s slot, moving later entries of its probe run back (linear probing).
  void erase(uint64_t region) {
    size_t s = home(region);
    while (tags_[slots_[s] - 1] != region) s = (s + 1) & mask_;
    for (size_t next = (s + 1) & mask_; slots_[next]; next = (next + 1) & mask_) {
      const size_t h = home(tags_[slots_[next] - 1]);
      // The entry at `next` may fill the hole at `s` unless its home lies cyclically in (s, next].
      const bool stays = s <= next ? (h > s && h <= next) : (h > s || h <= next);
      if (stays) continue;
      slots_[s] = slots_[next];
      s = next;
    }
    slots_[s] = 0;
  }

  std::vector<uint64_t> tags_;    // per entry: its region
  std::vector<uint64_t> stamps_;  // per entry: the access count at its last use
  std::vector<uint32_t> slots_;   // open addressing, region -> entry + 1 (0: empty)
  size_t mask_ = 0;
  uint32_t used_ = 0;  // entries filled (they fill in order, then are replaced)
  uint64_t clock_ = 0;
};

}  // namespace upswitch::tl
