// Helpers shared by the transaction-layer unit tests (tests/unit/tl_*_test.cpp): messages built
// field by field, with byte enables set bit by bit (not with enable_all, which is under test).
#pragma once

#include <cstdint>

#include "tl/message.h"

namespace upswitch::tl {

inline Message make(Opcode op, uint64_t addr, int len) {
  Message m;
  m.op = op;
  m.addr = addr;
  m.len = static_cast<uint16_t>(len);
  // Byte enables for [0, len), set bit by bit (not with enable_all, which is under test too).
  for (int b = 0; b < len && b < kMaxRequestBytes; ++b) m.byte_enable[static_cast<size_t>(b / 64)] |= uint64_t{1} << (b % 64);
  return m;
}

inline Message atomic(Opcode op, AtomicOp aop, int elem, uint64_t addr, int len) {
  Message m = make(op, addr, len);
  m.aop = aop;
  m.elem_bytes = static_cast<uint8_t>(elem);
  return m;
}

inline void set_enable(Message& m, int b, bool on) {
  const uint64_t bit = uint64_t{1} << (b % 64);
  auto& w = m.byte_enable[static_cast<size_t>(b / 64)];
  w = on ? (w | bit) : (w & ~bit);
}

}  // namespace upswitch::tl
