#include "tl/huge_pages.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace upswitch::tl {

HugeRegion map_huge(size_t bytes, bool populate) {
  HugeRegion r;
  r.bytes = bytes;
#if defined(__linux__)
  // Whole huge pages are mapped twice as large and trimmed to their alignment, so that the
  // kernel can back them with transparent huge pages where it offers them. MADV_POPULATE_WRITE
  // (Linux 5.14) faults the region in with one system call instead of one page fault per 4 KiB
  // on first touch, the dominant cost of a first write where page faults trap to a hypervisor;
  // older kernels refuse the advice and fault as usual.
  const bool huge = bytes % kHugePageBytes == 0;
  const size_t span = huge ? bytes + kHugePageBytes : bytes;
  void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw != MAP_FAILED) {
    auto base = reinterpret_cast<uintptr_t>(raw);
    if (huge) {
      const uintptr_t aligned = (base + kHugePageBytes - 1) & ~(uintptr_t{kHugePageBytes} - 1);
      if (aligned > base) munmap(raw, aligned - base);
      const uintptr_t end = base + span, kept_end = aligned + bytes;
      if (end > kept_end) munmap(reinterpret_cast<void*>(kept_end), end - kept_end);
      base = aligned;
      madvise(reinterpret_cast<void*>(base), bytes, MADV_HUGEPAGE);  // advice only
    }
    r.data = reinterpret_cast<uint8_t*>(base);
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
    if (populate) madvise(r.data, bytes, MADV_POPULATE_WRITE);
    r.mapped = true;
    return r;
  }
#endif
  (void)populate;
  // Cache-line aligned, as a mapping is (tl::Message is), and zeroed.
  const size_t rounded = std::max<size_t>(64, (bytes + 63) / 64 * 64);  // aligned_alloc: a multiple of the alignment
  r.data = static_cast<uint8_t*>(std::aligned_alloc(64, rounded));
  if (!r.data) throw std::bad_alloc();
  std::memset(r.data, 0, rounded);
  return r;
}

void unmap_huge(const HugeRegion& r) {
  if (!r.data) return;
#if defined(__linux__)
  if (r.mapped) {
    munmap(r.data, r.bytes);
    return;
  }
#endif
  std::free(r.data);
}

}  // namespace upswitch::tl
