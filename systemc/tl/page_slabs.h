// Zeroed 4 KiB pages for the page store behind the sparse memories (tl/page_store.h), carved
// from slabs of 64 KiB doubling up to 2 MiB; the kernel may back each 2 MiB slab with one
// transparent huge page (Linux: mmap + madvise(MADV_HUGEPAGE); elsewhere, or when that fails,
// zeroed heap memory). A workload that writes a few MiB per accelerator at random then costs a
// handful of page faults per accelerator instead of one per 4 KiB (doc/performance.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "tl/huge_pages.h"

namespace upswitch::tl {

class PageSlabs {
 public:
  static constexpr size_t kPageBytes = 4096;
  static constexpr size_t kSlabBytes = kHugePageBytes;  // one huge page

  PageSlabs() = default;
  PageSlabs(PageSlabs&&) noexcept = default;
  PageSlabs& operator=(PageSlabs&&) noexcept = default;
  PageSlabs(const PageSlabs&) = delete;
  PageSlabs& operator=(const PageSlabs&) = delete;

  // A zeroed page, owned by this object (valid until it is destroyed).
  uint8_t* take() {
    if (left_ == 0) grow();
    --left_;
    uint8_t* p = next_;
    next_ += kPageBytes;
    return p;
  }

 private:
  struct Unmap {
    size_t bytes = 0;
    bool mapped = false;
    void operator()(uint8_t* p) const;
  };
  void grow();

  std::vector<std::unique_ptr<uint8_t, Unmap>> slabs_;
  uint8_t* next_ = nullptr;
  size_t left_ = 0;  // pages left in the newest slab
  size_t last_bytes_ = 0;
};

}  // namespace upswitch::tl
