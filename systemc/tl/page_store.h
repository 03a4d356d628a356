// The 4 KiB pages behind the memories of one set of endpoints (tl/sparse_memory.h): taken from
// slabs (tl/page_slabs.h), handed back to a free list when a memory no longer maps them, and
// shared between memories whose pages hold the same bytes. A collective's result lands
// byte-identical in every rank's output, so 72 ranks of a 16 MiB all-reduce keep one 16 MiB copy
// instead of 72 (doc/performance.md "Collectives"). Sharing is copy-on-write: a memory about to
// write a shared page gets a private copy first, so what each memory reads is what was written
// to it. One store serves memories driven by one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "tl/page_slabs.h"

namespace upswitch::tl {

class PageStore {
 public:
  static constexpr size_t kPageBytes = PageSlabs::kPageBytes;

  // A zeroed page, private to the caller.
  uint8_t* take();
  // A private page the caller no longer maps.
  void give_back(uint8_t* page);
  // A private page whose bytes were just written in full: returns the page to map from now on,
  // read-only: an existing shared page with the same bytes (`page` is given back), or `page`
  // itself, now shared with one holder. When another page with the same hash but other bytes is
  // shared already, or the page holds only zeros, returns `page` unchanged and still private
  // (`shared` false). Zeros are not shared so that buffers a workload moves without data (its
  // collectives carry zeros) keep the footprint sim.memory_limit_gib's estimate
  // (config/memory_estimate.h) describes.
  uint8_t* share(uint8_t* page, bool& shared);
  // A holder of shared `page` is about to write to it: returns a private page with its bytes
  // (`page` itself when the caller was its only holder).
  uint8_t* unshare(uint8_t* page);
  // A holder of shared `page` no longer maps it.
  void release(uint8_t* page);

  size_t shared_pages() const { return shared_.size(); }
  size_t free_pages() const { return free_.size(); }
  // Pages taken from the slabs so far: the most this store ever held at once.
  size_t allocated_pages() const { return allocated_; }

  static uint64_t hash(const uint8_t* page);

 private:
  struct Shared {
    uint64_t hash = 0;
    uint32_t holders = 0;
  };
  uint8_t* reuse();  // a page with any bytes
  void forget(std::unordered_map<const uint8_t*, Shared>::iterator it);

  PageSlabs slabs_;
  size_t allocated_ = 0;
  std::vector<uint8_t*> free_;
  std::unordered_map<const uint8_t*, Shared> shared_;  // shared pages: their hash and holders
  std::unordered_map<uint64_t, uint8_t*> by_hash_;     // the shared page of each hash
};

}  // namespace upswitch::tl
