// An accelerator's memory: real bytes, stored sparsely in 4 KiB pages taken on first write from
// a page store (tl/page_store.h) that the memories of one set of endpoints share (untouched
// memory reads as zero). A request never crosses 256 B, so never a page. Pages hang off 16 MiB
// leaves of a two-level table; the leaf of the last access is remembered, so accesses that stay
// within 16 MiB (a workload's footprint) cost two array lookups and no hashing.
//
// What is stored scales with what is in flight, not with what was moved (doc/performance.md
// "Collectives"):
// * A region may be generated (generate()): its pages read as a PageSource computes them (a
//   collective's inputs from their seed) and take memory only once written.
// * A page written in full (write(), or bytes() followed by wrote()) is offered to the store,
//   which maps one copy for every memory holding the same bytes (every rank's copy of a
//   collective's result). Writing a shared page gives the writer its own copy first.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <vector>

#include "tl/page_source.h"
#include "tl/page_store.h"

namespace upswitch::tl {

class SparseMemory {
 public:
  static constexpr uint64_t kPageBytes = 4096;
  static constexpr uint64_t kPagesPerLeaf = 4096;

  SparseMemory() : SparseMemory(std::make_shared<PageStore>()) {}
  explicit SparseMemory(std::shared_ptr<PageStore> store) : store_(std::move(store)) {}
  ~SparseMemory() { clear(); }
  SparseMemory(SparseMemory&& o) noexcept { swap(o); }
  SparseMemory& operator=(SparseMemory&& o) noexcept {
    if (this != &o) {
      clear();
      swap(o);
    }
    return *this;
  }
  SparseMemory(const SparseMemory&) = delete;
  SparseMemory& operator=(const SparseMemory&) = delete;

  // Writable bytes at `addr` (maps a private page): valid for `kPageBytes - addr % kPageBytes`,
  // until the next wrote() or write() of the page. A caller that replaces bytes (rather than
  // updating them in place) then calls wrote(), so that full pages can be shared.
  uint8_t* bytes(uint64_t addr) {
    const uint64_t page = addr / kPageBytes;
    if (Leaf* leaf = find_leaf(page / kPagesPerLeaf)) {
      const size_t i = page % kPagesPerLeaf;
      if (leaf->page[i] && leaf->kind[i] == kOwn) return leaf->page[i] + addr % kPageBytes;
    }
    return own_page(page) + addr % kPageBytes;
  }
  // `len` bytes at `addr` were just written through bytes(): a page whose bytes have all been
  // written (by count) since it was last offered is offered to the store for sharing.
  void wrote(uint64_t addr, uint64_t len) {
    while (len) {
      const uint64_t n = std::min(len, kPageBytes - addr % kPageBytes);
      const uint64_t page = addr / kPageBytes;
      if (Leaf* leaf = find_leaf(page / kPagesPerLeaf)) {
        const size_t i = page % kPagesPerLeaf;
        if (leaf->page[i] && leaf->kind[i] == kOwn && (leaf->written[i] = static_cast<uint16_t>(leaf->written[i] + n)) >= kPageBytes)
          offer(*leaf, i);
      }
      addr += n;
      len -= n;
    }
  }
  // Read-only bytes at `addr`, valid for `len` bytes within the page (no allocation; zeros when
  // the page was never written; a generated page's bytes are valid until the next peek).
  const uint8_t* peek(uint64_t addr, uint64_t len) const {
    const uint64_t page = addr / kPageBytes;
    if (const Leaf* leaf = find_leaf(page / kPagesPerLeaf)) {
      const size_t i = page % kPagesPerLeaf;
      if (const uint8_t* p = leaf->page[i]) return p + addr % kPageBytes;
      if (leaf->kind[i] == kGenerated) return generated(addr, len);
    }
    return zeros() + addr % kPageBytes;
  }
  const uint8_t* peek(uint64_t addr) const { return peek(addr, kPageBytes - addr % kPageBytes); }
  // Pages mapped (written, own or shared); generated pages not yet written are not counted.
  size_t pages() const { return pages_; }
  size_t shared_pages() const;  // of pages(), those shared through the store
  // Copies of any length, across pages (host-side access: collectives, tests).
  void read(uint64_t addr, uint8_t* out, uint64_t len) const {
    while (len) {
      const uint64_t n = std::min(len, kPageBytes - addr % kPageBytes);
      std::memcpy(out, peek(addr, n), n);
      addr += n;
      out += n;
      len -= n;
    }
  }
  void write(uint64_t addr, const uint8_t* in, uint64_t len) {
    while (len) {
      const uint64_t n = std::min(len, kPageBytes - addr % kPageBytes);
      std::memcpy(bytes(addr), in, n);
      wrote(addr, n);
      addr += n;
      in += n;
      len -= n;
    }
  }
  // Bytes [begin, end) become the source's: as if written with what it computes, but whole pages
  // in the range are computed when read, and stored only once written.
  void generate(uint64_t begin, uint64_t end, std::shared_ptr<const PageSource> source);

  const std::shared_ptr<PageStore>& store() const { return store_; }

 private:
  enum Kind : uint8_t {
    kOwn = 0,        // the page (or none: zeros) is this memory's
    kShared = 1,     // the page is the store's, read-only
    kGenerated = 2,  // no page: the bytes are a source's
  };
  struct Leaf {
    std::array<uint8_t*, kPagesPerLeaf> page{};
    std::array<uint16_t, kPagesPerLeaf> written{};  // bytes written since the page was last offered
    std::array<uint8_t, kPagesPerLeaf> kind{};
  };
  struct Source {
    uint64_t first = 0, end = 0;  // pages
    std::shared_ptr<const PageSource> source;
  };

  static const uint8_t* zeros() {
    static const std::array<uint8_t, kPageBytes> z{};
    return z.data();
  }
  Leaf* find_leaf(uint64_t key) const {
    if (key == cache_key_) return cache_leaf_;
    auto it = leaves_.find(key);
    if (it == leaves_.end()) return nullptr;
    cache_key_ = key;
    cache_leaf_ = it->second.get();
    return cache_leaf_;
  }
  Leaf& leaf_for(uint64_t page);
  uint8_t* own_page(uint64_t page);
  void offer(Leaf& leaf, size_t i);
  void unmap(Leaf& leaf, size_t i);
  const uint8_t* generated(uint64_t addr, uint64_t len) const;
  void clear();
  void swap(SparseMemory& o) noexcept;

  std::shared_ptr<PageStore> store_;
  std::unordered_map<uint64_t, std::unique_ptr<Leaf>> leaves_;
  std::vector<Source> sources_;                // newest last
  mutable std::unique_ptr<uint8_t[]> scratch_;  // a generated page's bytes, for peek
  mutable uint64_t cache_key_ = UINT64_MAX;
  mutable Leaf* cache_leaf_ = nullptr;
  size_t pages_ = 0;
};

}  // namespace upswitch::tl
