#include "tl/page_slabs.h"

#include <algorithm>
#include <cstdlib>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace upswitch::tl {

void PageSlabs::Unmap::operator()(uint8_t* p) const {
#if defined(__linux__)
  if (mapped) {
    munmap(p, bytes);
    return;
  }
#endif
  std::free(p);
}

void PageSlabs::grow() {
  // Start small (64 KiB) and double up to 2 MiB, so a fabric whose memories are barely written
  // (tests, small collectives) holds little.
  const size_t bytes = slabs_.empty() ? size_t{64} << 10 : std::min(kSlabBytes, 2 * last_bytes_);
  uint8_t* p = nullptr;
  bool mapped = false;
#if defined(__linux__)
  // MADV_POPULATE_WRITE (Linux 5.14) faults the slab in with one system call instead of one page
  // fault per 4 KiB on first touch, the dominant cost of a first write where page faults trap to a
  // hypervisor; older kernels refuse the advice and fault as usual. The 2 MiB slabs are mapped
  // twice as large and trimmed to 2 MiB alignment, so that the kernel can back them with a
  // transparent huge page where it offers them.
  const size_t span = bytes == kSlabBytes ? 2 * kSlabBytes : bytes;
  void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw != MAP_FAILED) {
    auto base = reinterpret_cast<uintptr_t>(raw);
    if (span != bytes) {
      const uintptr_t aligned = (base + kSlabBytes - 1) & ~(uintptr_t{kSlabBytes} - 1);
      if (aligned > base) munmap(raw, aligned - base);
      const uintptr_t end = base + span, kept_end = aligned + bytes;
      if (end > kept_end) munmap(reinterpret_cast<void*>(kept_end), end - kept_end);
      base = aligned;
      madvise(reinterpret_cast<void*>(base), bytes, MADV_HUGEPAGE);  // advice only
    }
    p = reinterpret_cast<uint8_t*>(base);
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
    madvise(p, bytes, MADV_POPULATE_WRITE);
    mapped = true;
  }
#endif
  if (!p) {
    p = static_cast<uint8_t*>(std::calloc(1, bytes));
    if (!p) throw std::bad_alloc();
  }
  slabs_.push_back(std::unique_ptr<uint8_t, Unmap>(p, Unmap{bytes, mapped}));
  next_ = p;
  left_ = bytes / kPageBytes;
  last_bytes_ = bytes;
}

}  // namespace upswitch::tl
