// An accelerator's memory: real bytes, stored sparsely in 4 KiB pages allocated on first write
// (untouched memory reads as zero). A request never crosses 256 B, so never a page.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>

namespace upswitch::tl {

class SparseMemory {
 public:
  static constexpr uint64_t kPageBytes = 4096;

  // Writable bytes at `addr` (allocates the page): valid for `kPageBytes - addr % kPageBytes`.
  uint8_t* bytes(uint64_t addr) {
    auto& page = pages_[addr / kPageBytes];
    if (!page) page = std::make_unique<Page>();
    return page->data() + addr % kPageBytes;
  }
  // Read-only bytes at `addr` (no allocation; zeros when the page was never written).
  const uint8_t* peek(uint64_t addr) const {
    static const Page zeros{};
    auto it = pages_.find(addr / kPageBytes);
    return (it == pages_.end() ? zeros.data() : it->second->data()) + addr % kPageBytes;
  }
  size_t pages() const { return pages_.size(); }

 private:
  using Page = std::array<uint8_t, kPageBytes>;
  std::unordered_map<uint64_t, std::unique_ptr<Page>> pages_;
};

}  // namespace upswitch::tl
