// An accelerator's memory: real bytes, stored sparsely in 4 KiB pages taken on first write from
// slabs (tl/page_slabs.h)
// (untouched memory reads as zero). A request never crosses 256 B, so never a page. Pages hang
// off 16 MiB leaves of a two-level table; the leaf of the last access is remembered, so accesses
// that stay within 16 MiB (a workload's footprint) cost two array lookups and no hashing.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <unordered_map>

#include "tl/page_slabs.h"

namespace upswitch::tl {

class SparseMemory {
 public:
  static constexpr uint64_t kPageBytes = 4096;
  static constexpr uint64_t kPagesPerLeaf = 4096;

  // Writable bytes at `addr` (allocates the page): valid for `kPageBytes - addr % kPageBytes`.
  uint8_t* bytes(uint64_t addr) {
    const uint64_t page = addr / kPageBytes;
    Leaf* leaf = find_leaf(page / kPagesPerLeaf);
    if (!leaf) {
      auto& owned = leaves_[page / kPagesPerLeaf];
      owned = std::make_unique<Leaf>();
      owned->fill(nullptr);
      leaf = owned.get();
      cache_key_ = page / kPagesPerLeaf;
      cache_leaf_ = leaf;
    }
    uint8_t*& slot = (*leaf)[page % kPagesPerLeaf];
    if (!slot) {
      slot = slabs_.take();
      ++pages_;
    }
    return slot + addr % kPageBytes;
  }
  // Read-only bytes at `addr` (no allocation; zeros when the page was never written).
  const uint8_t* peek(uint64_t addr) const {
    static const std::array<uint8_t, kPageBytes> zeros{};
    const uint64_t page = addr / kPageBytes;
    const Leaf* leaf = find_leaf(page / kPagesPerLeaf);
    const uint8_t* p = leaf ? (*leaf)[page % kPagesPerLeaf] : nullptr;
    return (p ? p : zeros.data()) + addr % kPageBytes;
  }
  size_t pages() const { return pages_; }
  // Copies of any length, across pages (host-side access: collectives, tests).
  void read(uint64_t addr, uint8_t* out, uint64_t len) const {
    while (len) {
      const uint64_t n = std::min(len, kPageBytes - addr % kPageBytes);
      std::memcpy(out, peek(addr), n);
      addr += n;
      out += n;
      len -= n;
    }
  }
  void write(uint64_t addr, const uint8_t* in, uint64_t len) {
    while (len) {
      const uint64_t n = std::min(len, kPageBytes - addr % kPageBytes);
      std::memcpy(bytes(addr), in, n);
      addr += n;
      in += n;
      len -= n;
    }
  }

 private:
  using Leaf = std::array<uint8_t*, kPagesPerLeaf>;  // pages owned by slabs_

  Leaf* find_leaf(uint64_t key) const {
    if (key == cache_key_) return cache_leaf_;
    auto it = leaves_.find(key);
    if (it == leaves_.end()) return nullptr;
    cache_key_ = key;
    cache_leaf_ = it->second.get();
    return cache_leaf_;
  }

  PageSlabs slabs_;
  std::unordered_map<uint64_t, std::unique_ptr<Leaf>> leaves_;
  mutable uint64_t cache_key_ = UINT64_MAX;
  mutable Leaf* cache_leaf_ = nullptr;
  size_t pages_ = 0;
};

}  // namespace upswitch::tl
