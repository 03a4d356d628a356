// The format rules a request must satisfy before the transaction layer can encode it (UALink
// 1.0, facts §1.3-1.4). A request that breaks one is answered with that status at once, by the
// initiator, and never enters the fabric.
#pragma once

#include "tl/message.h"

namespace upswitch::tl {

Status check_request(const Message& m);

// The 64 B data beats a request or its read data occupies.
inline int data_beats(uint64_t addr, int len) {
  return static_cast<int>(((addr + static_cast<uint64_t>(len) - 1) >> 6) - (addr >> 6) + 1);
}

}  // namespace upswitch::tl
