#include "tl/request_rules.h"

namespace upswitch::tl {
namespace {

// Whether a byte at or beyond len is enabled, a 64-bit word of the mask at a time (each word's
// bits below len masked off).
bool enables_outside(const Message& m) {
  for (int w = 0; w < kMaxRequestBytes / 64; ++w)
    if (m.byte_enable[static_cast<size_t>(w)] & ~m.len_mask(w)) return true;
  return false;
}

// Whether exactly the bytes [0, len) are enabled: none outside, and none missing inside.
bool enables_exactly_len(const Message& m) {
  for (int w = 0; w < kMaxRequestBytes / 64; ++w)
    if (m.byte_enable[static_cast<size_t>(w)] != m.len_mask(w)) return false;
  return true;
}

Status check_atomic(const Message& m) {
  const int e = m.elem_bytes;
  if (e != 4 && e != 8) return Status::kUnsupported;
  if (m.addr % static_cast<uint64_t>(e)) return Status::kMisaligned;
  if (m.len % e) return Status::kBadLength;
  // Operands fit one 64 B beat; a two-operand atomic updates at most a 32 B-aligned region.
  const uint64_t region = m.aop == AtomicOp::kCas ? 32 : 64;
  if (m.addr % region + m.len > region) return Status::kBadLength;
  if (enables_outside(m)) return Status::kBadByteEnable;
  for (int k = 0; k < m.len; k += e) {  // whole elements only
    int on = 0;
    for (int b = 0; b < e; ++b) on += m.byte_enabled(k + b);
    if (on != 0 && on != e) return Status::kBadByteEnable;
  }
  return Status::kOkay;
}

// A reduction (a Reduce, or a load-reduce): whole, aligned elements; every byte enabled. Whether
// the type supports the operation is the executing unit's decision (kUnsupported from there).
Status check_reduction(const Message& m) {
  const int e = red_type_bytes(m.rtype);
  if (m.addr % static_cast<uint64_t>(e)) return Status::kMisaligned;
  if (m.len % e) return Status::kBadLength;
  if (m.op == Opcode::kReduce && !enables_exactly_len(m)) return Status::kBadByteEnable;
  return Status::kOkay;
}

}  // namespace

Status check_request(const Message& m) {
  if (m.len < 4 || m.len > kMaxRequestBytes || m.len % 4) return Status::kBadLength;
  if (m.addr % 4) return Status::kMisaligned;
  if (m.addr % kMaxRequestBytes + m.len > kMaxRequestBytes) return Status::kBadLength;
  switch (m.op) {
    case Opcode::kRead:
      return m.mc ? check_reduction(m) : Status::kOkay;
    case Opcode::kWrite:
      return enables_outside(m) ? Status::kBadByteEnable : Status::kOkay;
    case Opcode::kWriteFull:
      if (m.addr % 64 || m.len % 64 || !enables_exactly_len(m)) return Status::kBadByteEnable;
      return Status::kOkay;
    case Opcode::kAtomicR:
    case Opcode::kAtomicNR:
      return check_atomic(m);
    case Opcode::kReduce:
      return check_reduction(m);
  }
  return Status::kBadLength;
}

}  // namespace upswitch::tl
