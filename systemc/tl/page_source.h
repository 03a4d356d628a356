// Bytes of a memory region that are computed when read instead of stored (SparseMemory::generate):
// a collective's inputs, defined by a seed, are the same values whether kept in 16 MiB per rank or
// drawn again from the generator's saved states (doc/performance.md "Collectives").
#pragma once

#include <cstdint>

namespace upswitch::tl {

class PageSource {
 public:
  virtual ~PageSource() = default;
  // Writes the bytes at memory offsets [addr, addr + len) to `out`; the range lies within the
  // region the source was given for and within one 4 KiB page.
  virtual void fill(uint64_t addr, uint8_t* out, uint64_t len) const = 0;
};

}  // namespace upswitch::tl
