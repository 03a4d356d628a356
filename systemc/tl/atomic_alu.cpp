#include "tl/atomic_alu.h"

#include <cstring>

namespace upswitch::tl {
namespace {

uint64_t load(const uint8_t* p, int n) {
  uint64_t v = 0;
  std::memcpy(&v, p, static_cast<size_t>(n));  // little-endian host, as the accelerators
  return v;
}
void store(uint8_t* p, int n, uint64_t v) { std::memcpy(p, &v, static_cast<size_t>(n)); }

int64_t as_signed(uint64_t v, int n) {
  return n == 4 ? static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(v))) : static_cast<int64_t>(v);
}

uint64_t fadd(uint64_t a, uint64_t b, int n) {
  if (n == 4) {
    float x, y;
    const auto ua = static_cast<uint32_t>(a), ub = static_cast<uint32_t>(b);
    std::memcpy(&x, &ua, 4);
    std::memcpy(&y, &ub, 4);
    const float r = x + y;
    uint32_t u;
    std::memcpy(&u, &r, 4);
    return u;
  }
  double x, y;
  std::memcpy(&x, &a, 8);
  std::memcpy(&y, &b, 8);
  const double r = x + y;
  uint64_t u;
  std::memcpy(&u, &r, 8);
  return u;
}

}  // namespace

uint64_t atomic_result(AtomicOp op, int n, uint64_t old, uint64_t x, uint64_t cmp) {
  const uint64_t mask = n == 4 ? 0xffffffffULL : ~0ULL;
  switch (op) {
    case AtomicOp::kAdd: return (old + x) & mask;
    case AtomicOp::kAnd: return old & x;
    case AtomicOp::kOr: return old | x;
    case AtomicOp::kXor: return old ^ x;
    case AtomicOp::kMinS: return as_signed(x, n) < as_signed(old, n) ? x : old;
    case AtomicOp::kMaxS: return as_signed(x, n) > as_signed(old, n) ? x : old;
    case AtomicOp::kMinU: return x < old ? x : old;
    case AtomicOp::kMaxU: return x > old ? x : old;
    case AtomicOp::kSwap: return x;
    case AtomicOp::kCas: return old == cmp ? x : old;
    case AtomicOp::kFAdd: return fadd(old, x, n);
  }
  return old;
}

void apply_atomic(Message& m, uint8_t* mem) {
  const int n = m.elem_bytes;
  for (int k = 0; k < m.len; k += n) {
    if (!m.byte_enabled(k)) continue;
    const uint64_t old = load(mem + k, n);
    const uint64_t cmp = m.aop == AtomicOp::kCas ? load(m.compare.data() + k, n) : 0;
    store(mem + k, n, atomic_result(m.aop, n, old, load(m.data.data() + k, n), cmp));
    if (m.op == Opcode::kAtomicR) store(m.data.data() + k, n, old);
  }
}

}  // namespace upswitch::tl
