#include "tl/sparse_memory.h"

#include <utility>

namespace upswitch::tl {

SparseMemory::Leaf& SparseMemory::leaf_for(uint64_t page) {
  const uint64_t key = page / kPagesPerLeaf;
  if (Leaf* leaf = find_leaf(key)) return *leaf;
  auto& owned = leaves_[key];
  owned = std::make_unique<Leaf>();
  cache_key_ = key;
  cache_leaf_ = owned.get();
  return *owned;
}

// The page as this memory's own, to write: a fresh one (zeros, or the source's bytes), or a
// private copy of a shared one.
uint8_t* SparseMemory::own_page(uint64_t page) {
  Leaf& leaf = leaf_for(page);
  const size_t i = page % kPagesPerLeaf;
  uint8_t*& slot = leaf.page[i];
  if (slot) {  // shared
    slot = store_->unshare(slot);
  } else {
    slot = store_->take();
    ++pages_;
    if (leaf.kind[i] == kGenerated) {
      for (auto s = sources_.rbegin(); s != sources_.rend(); ++s)
        if (page >= s->first && page < s->end) {
          s->source->fill(page * kPageBytes, slot, kPageBytes);
          break;
        }
    }
  }
  leaf.kind[i] = kOwn;
  leaf.written[i] = 0;
  return slot;
}

void SparseMemory::offer(Leaf& leaf, size_t i) {
  leaf.written[i] = 0;
  bool shared = false;
  leaf.page[i] = store_->share(leaf.page[i], shared);
  leaf.kind[i] = shared ? kShared : kOwn;
}

void SparseMemory::unmap(Leaf& leaf, size_t i) {
  if (uint8_t* p = leaf.page[i]) {
    if (leaf.kind[i] == kShared)
      store_->release(p);
    else
      store_->give_back(p);
    leaf.page[i] = nullptr;
    --pages_;
  }
  leaf.kind[i] = kOwn;
  leaf.written[i] = 0;
}

const uint8_t* SparseMemory::generated(uint64_t addr, uint64_t len) const {
  if (!scratch_) scratch_ = std::make_unique<uint8_t[]>(kPageBytes);
  const uint64_t page = addr / kPageBytes;
  uint8_t* out = scratch_.get() + addr % kPageBytes;
  for (auto s = sources_.rbegin(); s != sources_.rend(); ++s)
    if (page >= s->first && page < s->end) {
      s->source->fill(addr, out, len);
      break;
    }
  return out;
}

size_t SparseMemory::shared_pages() const {
  size_t n = 0;
  for (const auto& [key, leaf] : leaves_)
    for (size_t i = 0; i < kPagesPerLeaf; ++i) n += leaf->page[i] && leaf->kind[i] == kShared;
  return n;
}

void SparseMemory::generate(uint64_t begin, uint64_t end, std::shared_ptr<const PageSource> source) {
  if (begin >= end) return;
  const uint64_t first = (begin + kPageBytes - 1) / kPageBytes, last = end / kPageBytes;  // whole pages
  // Pages only partly in the range are written with the source's bytes.
  std::vector<uint8_t> part;
  auto write_part = [&](uint64_t from, uint64_t to) {
    for (uint64_t a = from; a < to;) {
      const uint64_t n = std::min(to - a, kPageBytes - a % kPageBytes);
      part.resize(n);
      source->fill(a, part.data(), n);
      write(a, part.data(), n);
      a += n;
    }
  };
  if (first >= last) {
    write_part(begin, end);
    return;
  }
  write_part(begin, first * kPageBytes);
  write_part(last * kPageBytes, end);
  for (uint64_t page = first; page < last; ++page) {
    Leaf& leaf = leaf_for(page);
    const size_t i = page % kPagesPerLeaf;
    unmap(leaf, i);
    leaf.kind[i] = kGenerated;
  }
  // Earlier sources wholly covered by this one are no longer read.
  sources_.erase(std::remove_if(sources_.begin(), sources_.end(),
                                [&](const Source& s) { return s.first >= first && s.end <= last; }),
                 sources_.end());
  sources_.push_back(Source{first, last, std::move(source)});
}

void SparseMemory::clear() {
  if (!store_) return;
  for (auto& [key, leaf] : leaves_)
    for (size_t i = 0; i < kPagesPerLeaf; ++i) unmap(*leaf, i);
  leaves_.clear();
  sources_.clear();
  cache_key_ = UINT64_MAX;
  cache_leaf_ = nullptr;
}

void SparseMemory::swap(SparseMemory& o) noexcept {
  std::swap(store_, o.store_);
  std::swap(leaves_, o.leaves_);
  std::swap(sources_, o.sources_);
  std::swap(scratch_, o.scratch_);
  std::swap(cache_key_, o.cache_key_);
  std::swap(cache_leaf_, o.cache_leaf_);
  std::swap(pages_, o.pages_);
}

}  // namespace upswitch::tl
