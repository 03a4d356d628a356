// The completer's atomic unit: applies an atomic to the target bytes, element by element, and
// (AtomicR) leaves the old values in the message. Integers wrap; min/max are signed or unsigned
// as named; fadd is IEEE-754 binary32 (4 B) or binary64 (8 B) addition in round-to-nearest.
#pragma once

#include <cstdint>

#include "tl/message.h"

namespace upswitch::tl {

// `mem` points at the bytes of m.addr. Only elements whose bytes are enabled are touched. The
// message must have passed check_request().
void apply_atomic(Message& m, uint8_t* mem);

// One element's new value (exposed for the tests' reference): `cmp` is used by CAS only.
uint64_t atomic_result(AtomicOp op, int elem_bytes, uint64_t old, uint64_t operand, uint64_t cmp);

}  // namespace upswitch::tl
