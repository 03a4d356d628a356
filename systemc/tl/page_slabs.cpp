#include "tl/page_slabs.h"

#include <algorithm>

#include "tl/huge_pages.h"

namespace upswitch::tl {

void PageSlabs::Unmap::operator()(uint8_t* p) const { unmap_huge(HugeRegion{p, bytes, mapped}); }

void PageSlabs::grow() {
  // Start small (64 KiB) and double up to 2 MiB (one huge page), so a fabric whose memories are
  // barely written (tests, small collectives) holds little.
  const size_t bytes = slabs_.empty() ? size_t{64} << 10 : std::min(kSlabBytes, 2 * last_bytes_);
  const HugeRegion r = map_huge(bytes, true);
  slabs_.push_back(std::unique_ptr<uint8_t, Unmap>(r.data, Unmap{r.bytes, r.mapped}));
  next_ = r.data;
  left_ = bytes / kPageBytes;
  last_bytes_ = bytes;
}

}  // namespace upswitch::tl
