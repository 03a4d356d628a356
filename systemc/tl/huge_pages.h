// Zeroed memory for large tables read at random (the page store's slabs, the message pool's
// blocks), mapped so that the kernel may back each aligned 2 MiB with one transparent huge page
// (Linux: mmap + madvise(MADV_HUGEPAGE); elsewhere, or when that fails, zeroed heap memory). A
// table of a few hundred MiB on 4 KiB pages misses the TLB on nearly every access.
#pragma once

#include <cstddef>
#include <cstdint>

namespace upswitch::tl {

struct HugeRegion {
  uint8_t* data = nullptr;
  size_t bytes = 0;
  bool mapped = false;  // by mmap (else by aligned_alloc, 64-byte aligned)
};

constexpr size_t kHugePageBytes = size_t{2} << 20;

// `bytes` zeroed bytes; a multiple of kHugePageBytes is aligned to it and advised as huge pages.
// `populate`: fault it all in now with one call (it will all be written) where the kernel can.
HugeRegion map_huge(size_t bytes, bool populate);
void unmap_huge(const HugeRegion& r);

}  // namespace upswitch::tl
