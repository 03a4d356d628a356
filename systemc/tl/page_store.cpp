#include "tl/page_store.h"

#include <cstring>

namespace upswitch::tl {

uint8_t* PageStore::take() {
  if (free_.empty()) {
    ++allocated_;
    return slabs_.take();  // zeroed already
  }
  uint8_t* p = reuse();
  std::memset(p, 0, kPageBytes);
  return p;
}

uint8_t* PageStore::reuse() {
  if (free_.empty()) {
    ++allocated_;
    return slabs_.take();
  }
  uint8_t* p = free_.back();
  free_.pop_back();
  return p;
}

void PageStore::give_back(uint8_t* page) { free_.push_back(page); }

uint64_t PageStore::hash(const uint8_t* page) {
  // Four independent multiply-xor lanes over the page's 64-bit words, then mixed (splitmix64's
  // finaliser): equal pages hash equal; unequal ones are told apart by memcmp anyway.
  uint64_t h[4] = {0x9e3779b97f4a7c15ULL, 0xbf58476d1ce4e5b9ULL, 0x94d049bb133111ebULL, 0xd1342543de82ef95ULL};
  for (size_t i = 0; i < kPageBytes; i += 32)
    for (size_t k = 0; k < 4; ++k) {
      uint64_t w;
      std::memcpy(&w, page + i + 8 * k, 8);
      h[k] = (h[k] ^ w) * 0xff51afd7ed558ccdULL;
      h[k] ^= h[k] >> 29;
    }
  uint64_t z = h[0] ^ (h[1] * 3) ^ (h[2] * 5) ^ (h[3] * 7);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint8_t* PageStore::share(uint8_t* page, bool& shared) {
  static const uint8_t zeros[kPageBytes] = {};
  if (std::memcmp(page, zeros, kPageBytes) == 0) {  // kept: see page_store.h
    shared = false;
    return page;
  }
  const uint64_t h = hash(page);
  const auto [it, fresh] = by_hash_.emplace(h, page);
  if (fresh) {
    shared_[page] = Shared{h, 1};
    shared = true;
    return page;
  }
  uint8_t* same = it->second;
  if (std::memcmp(same, page, kPageBytes) != 0) {  // another page with this hash holds the slot
    shared = false;
    return page;
  }
  ++shared_[same].holders;
  give_back(page);
  shared = true;
  return same;
}

void PageStore::forget(std::unordered_map<const uint8_t*, Shared>::iterator it) {
  by_hash_.erase(it->second.hash);
  shared_.erase(it);
}

uint8_t* PageStore::unshare(uint8_t* page) {
  const auto it = shared_.find(page);
  if (it->second.holders == 1) {
    forget(it);
    return page;
  }
  --it->second.holders;
  uint8_t* own = reuse();
  std::memcpy(own, page, kPageBytes);
  return own;
}

void PageStore::release(uint8_t* page) {
  const auto it = shared_.find(page);
  if (--it->second.holders > 0) return;
  forget(it);
  give_back(page);
}

}  // namespace upswitch::tl
