// The completer's atomic unit (facts §1.4): a byte-wise reference, hand cases, host float adds.
// Checked against expectations worked out independently of the code: hand arithmetic, host
// float/double addition, and small references written here in a different style.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <limits>
#include <list>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "endpoint/handle_ring.h"
#include "tl/address_cache.h"
#include "tl/address_map.h"
#include "tl/atomic_alu.h"
#include "tl/message.h"
#include "tl/ops.h"
#include "tl/packet_format.h"
#include "tl/request_rules.h"
#include "tl/sparse_memory.h"
#include "unit/tl_test_support.h"

namespace upswitch::tl {
namespace {

// Little-endian element I/O, byte by byte (the code under test uses memcpy).
void put(uint8_t* p, int n, uint64_t v) {
  for (int i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint64_t get(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

uint32_t f32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
uint64_t f64_bits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}

// ------------------------------------------------------------------------------------------
// A reference atomic unit working on little-endian byte strings: ripple-carry addition,
// comparisons from the most significant byte down (signed = top bit flipped), host float/double
// addition in the order old + operand.

int compare_unsigned(const uint8_t* a, const uint8_t* b, int n) {
  for (int i = n - 1; i >= 0; --i)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}
int compare_signed(const uint8_t* a, const uint8_t* b, int n) {
  uint8_t x[8], y[8];
  std::memcpy(x, a, static_cast<size_t>(n));
  std::memcpy(y, b, static_cast<size_t>(n));
  x[n - 1] ^= 0x80;
  y[n - 1] ^= 0x80;
  return compare_unsigned(x, y, n);
}

void reference_element(AtomicOp op, int n, const uint8_t* old, const uint8_t* x, const uint8_t* cmp, uint8_t* out) {
  const size_t sz = static_cast<size_t>(n);
  switch (op) {
    case AtomicOp::kAdd: {
      unsigned carry = 0;
      for (int i = 0; i < n; ++i) {
        const unsigned s = unsigned{old[i]} + unsigned{x[i]} + carry;
        out[i] = static_cast<uint8_t>(s & 0xff);
        carry = s >> 8;
      }
      return;
    }
    case AtomicOp::kAnd:
      for (int i = 0; i < n; ++i) out[i] = static_cast<uint8_t>(old[i] & x[i]);
      return;
    case AtomicOp::kOr:
      for (int i = 0; i < n; ++i) out[i] = static_cast<uint8_t>(old[i] | x[i]);
      return;
    case AtomicOp::kXor:
      for (int i = 0; i < n; ++i) out[i] = static_cast<uint8_t>(old[i] ^ x[i]);
      return;
    case AtomicOp::kMinS: std::memcpy(out, compare_signed(x, old, n) < 0 ? x : old, sz); return;
    case AtomicOp::kMaxS: std::memcpy(out, compare_signed(x, old, n) > 0 ? x : old, sz); return;
    case AtomicOp::kMinU: std::memcpy(out, compare_unsigned(x, old, n) < 0 ? x : old, sz); return;
    case AtomicOp::kMaxU: std::memcpy(out, compare_unsigned(x, old, n) > 0 ? x : old, sz); return;
    case AtomicOp::kSwap: std::memcpy(out, x, sz); return;
    case AtomicOp::kCas: std::memcpy(out, std::memcmp(old, cmp, sz) == 0 ? x : old, sz); return;
    case AtomicOp::kFAdd:
      if (n == 4) {
        float a, b;
        std::memcpy(&a, old, 4);
        std::memcpy(&b, x, 4);
        const float r = a + b;
        std::memcpy(out, &r, 4);
      } else {
        double a, b;
        std::memcpy(&a, old, 8);
        std::memcpy(&b, x, 8);
        const double r = a + b;
        std::memcpy(out, &r, 8);
      }
      return;
  }
}

// ------------------------------------------------------------------------------------------
// Atomic ALU

struct AluCase {
  AtomicOp op;
  int n;
  uint64_t old, x, cmp, expect;
  const char* what;
};

// Every op, both element sizes, values worked out by hand.
const AluCase kAluCases[] = {
    // add: plain, wraparound, and no truncation of 8 B sums to 32 bits
    {AtomicOp::kAdd, 4, 40, 2, 0, 42, "add4"},
    {AtomicOp::kAdd, 4, 0xffffffffu, 3, 0, 2, "add4 wraps"},
    {AtomicOp::kAdd, 4, 0x7fffffffu, 1, 0, 0x80000000u, "add4 into the sign bit"},
    {AtomicOp::kAdd, 4, 0xfffffffbu /*-5*/, 0xfffffffdu /*-3*/, 0, 0xfffffff8u /*-8*/, "add4 negatives"},
    {AtomicOp::kAdd, 8, 0x00000000ffffffffULL, 1, 0, 0x0000000100000000ULL, "add8 carries past 32 bits"},
    {AtomicOp::kAdd, 8, 0xffffffffffffffffULL, 5, 0, 4, "add8 wraps"},
    // bitwise
    {AtomicOp::kAnd, 4, 0xF0F0F0F0u, 0x0FF00FF0u, 0, 0x00F000F0u, "and4"},
    {AtomicOp::kAnd, 8, 0xFF00FF00FF00FF00ULL, 0x0FF00FF00FF00FF0ULL, 0, 0x0F000F000F000F00ULL, "and8"},
    {AtomicOp::kOr, 4, 0xF0F0F0F0u, 0x0FF00FF0u, 0, 0xFFF0FFF0u, "or4"},
    {AtomicOp::kOr, 8, 0x8000000000000001ULL, 0x0000000100000000ULL, 0, 0x8000000100000001ULL, "or8"},
    {AtomicOp::kXor, 4, 0xF0F0F0F0u, 0x0FF00FF0u, 0, 0xFF00FF00u, "xor4"},
    {AtomicOp::kXor, 8, 0xFFFFFFFFFFFFFFFFULL, 0x0123456789ABCDEFULL, 0, 0xFEDCBA9876543210ULL, "xor8"},
    // signed min/max with negatives
    {AtomicOp::kMinS, 4, 0xfffffffdu /*-3*/, 2, 0, 0xfffffffdu, "mins4 keeps -3"},
    {AtomicOp::kMinS, 4, 2, 0xfffffffdu /*-3*/, 0, 0xfffffffdu, "mins4 takes -3"},
    {AtomicOp::kMinS, 4, 0x80000000u /*INT_MIN*/, 0x7fffffffu, 0, 0x80000000u, "mins4 INT_MIN"},
    {AtomicOp::kMaxS, 4, 0xfffffffdu /*-3*/, 2, 0, 2, "maxs4 takes 2"},
    {AtomicOp::kMaxS, 4, 0xffffffffu /*-1*/, 0xfffffffeu /*-2*/, 0, 0xffffffffu, "maxs4 -1 over -2"},
    {AtomicOp::kMinS, 8, 1, 0xffffffffffffffffULL /*-1*/, 0, 0xffffffffffffffffULL, "mins8 -1"},
    {AtomicOp::kMinS, 8, 0x00000000ffffffffULL, 0x0000000100000000ULL, 0, 0x00000000ffffffffULL, "mins8 positive, high word"},
    {AtomicOp::kMaxS, 8, 0x8000000000000000ULL /*INT64_MIN*/, 0, 0, 0, "maxs8 0 over INT64_MIN"},
    {AtomicOp::kMaxS, 8, 7, 0xffffffffffffffffULL /*-1*/, 0, 7, "maxs8 keeps 7"},
    // unsigned min/max: the same bit patterns order the other way
    {AtomicOp::kMinU, 4, 0xfffffffdu, 2, 0, 2, "minu4"},
    {AtomicOp::kMinU, 4, 2, 0xfffffffdu, 0, 2, "minu4 keeps 2"},
    {AtomicOp::kMaxU, 4, 0xfffffffdu, 2, 0, 0xfffffffdu, "maxu4"},
    {AtomicOp::kMaxU, 4, 0x7fffffffu, 0x80000000u, 0, 0x80000000u, "maxu4 sign bit is large"},
    {AtomicOp::kMinU, 8, 1, 0xffffffffffffffffULL, 0, 1, "minu8"},
    {AtomicOp::kMaxU, 8, 7, 0xffffffffffffffffULL, 0, 0xffffffffffffffffULL, "maxu8"},
    {AtomicOp::kMaxU, 8, 0x0000000100000000ULL, 0x00000000ffffffffULL, 0, 0x0000000100000000ULL, "maxu8 high word"},
    // swap
    {AtomicOp::kSwap, 4, 0x12345678u, 0xdeadbeefu, 0, 0xdeadbeefu, "swap4"},
    {AtomicOp::kSwap, 8, 0x1122334455667788ULL, 0, 0, 0, "swap8"},
    // compare and swap: hit and miss (a miss in the high word only for 8 B)
    {AtomicOp::kCas, 4, 5, 9, 5, 9, "cas4 hit"},
    {AtomicOp::kCas, 4, 5, 9, 6, 5, "cas4 miss"},
    {AtomicOp::kCas, 8, 0xAAAABBBBCCCCDDDDULL, 1, 0xAAAABBBBCCCCDDDDULL, 1, "cas8 hit"},
    {AtomicOp::kCas, 8, 0xAAAABBBBCCCCDDDDULL, 1, 0xAAAABBBACCCCDDDDULL, 0xAAAABBBBCCCCDDDDULL, "cas8 miss high"},
    // float add by hand: 1.0f + 1.0f = 2.0f, 1.5 + 2.25 = 3.75
    {AtomicOp::kFAdd, 4, 0x3f800000u, 0x3f800000u, 0, 0x40000000u, "fadd4 1+1"},
    {AtomicOp::kFAdd, 8, 0x3FF8000000000000ULL, 0x4002000000000000ULL, 0, 0x400E000000000000ULL, "fadd8 1.5+2.25"},
};

// Each case as element 0 of a two-element request whose element 1 is disabled: the target
// element gets the expected value, the disabled one (memory and operand) stays untouched.
TEST(TlAtomicAlu, EveryOpBothSizesByHand) {
  for (const AluCase& c : kAluCases) {
    for (Opcode op : {Opcode::kAtomicR, Opcode::kAtomicNR}) {
      SCOPED_TRACE(std::string(c.what) + (op == Opcode::kAtomicR ? " R" : " NR"));
      Message m = atomic(op, c.op, c.n, 0, 2 * c.n);
      for (int b = c.n; b < 2 * c.n; ++b) set_enable(m, b, false);
      ASSERT_EQ(check_request(m), Status::kOkay);
      uint8_t mem[16];
      std::memset(mem, 0x5a, sizeof mem);
      put(mem, c.n, c.old);
      put(m.data.data(), c.n, c.x);
      put(m.data.data() + c.n, c.n, 0x0102030405060708ULL);  // disabled element's operand
      put(m.compare.data(), c.n, c.cmp);
      apply_atomic(m, mem);
      EXPECT_EQ(get(mem, c.n), c.expect);
      for (int b = c.n; b < 16; ++b) EXPECT_EQ(mem[b], 0x5a) << "byte " << b;
      EXPECT_EQ(get(m.data.data(), c.n), op == Opcode::kAtomicR ? c.old : c.x);
      EXPECT_EQ(get(m.data.data() + c.n, c.n), 0x0102030405060708ULL & (c.n == 4 ? 0xffffffffULL : ~0ULL));
      // The element function agrees.
      EXPECT_EQ(atomic_result(c.op, c.n, c.old, c.x, c.cmp), c.expect);
    }
  }
}

// A carry out of one 4 B element does not leak into the next; a 4 B op never touches bits
// 32..63 of an 8 B-wide word.
TEST(TlAtomicAlu, ElementsAreIndependent) {
  Message m = atomic(Opcode::kAtomicNR, AtomicOp::kAdd, 4, 0, 16);
  uint8_t mem[16];
  const uint32_t olds[4] = {0xffffffffu, 0x00000005u, 0xffffffffu, 0x7fffffffu};
  const uint32_t ops[4] = {1, 0, 0xffffffffu, 1};
  const uint32_t want[4] = {0, 5, 0xfffffffeu, 0x80000000u};
  for (int k = 0; k < 4; ++k) {
    put(mem + 4 * k, 4, olds[k]);
    put(m.data.data() + 4 * k, 4, ops[k]);
  }
  apply_atomic(m, mem);
  for (int k = 0; k < 4; ++k) EXPECT_EQ(get(mem + 4 * k, 4), want[k]) << "element " << k;
}

TEST(TlAtomicAlu, FloatAddMatchesHost) {
  const float fa[][2] = {{1.5f, 2.25f},       {0.1f, 0.2f},          {16777216.0f, 1.0f},   {1e38f, 3e38f},
                         {-0.0f, 0.0f},       {-0.0f, -0.0f},        {1.0f, -1.0f},         {1e-45f, 1e-45f},
                         {-2.5f, 1.25f},      {3.0f, std::numeric_limits<float>::infinity()}};
  for (const auto& p : fa) {
    for (int slot = 0; slot < 4; ++slot) {  // element at each 4 B slot of a 16 B request
      Message m = atomic(Opcode::kAtomicR, AtomicOp::kFAdd, 4, 32, 16);
      uint8_t mem[16] = {};
      for (int b = 0; b < 16; ++b) set_enable(m, b, b / 4 == slot);
      ASSERT_EQ(check_request(m), Status::kOkay);
      put(mem + 4 * slot, 4, f32_bits(p[0]));
      put(m.data.data() + 4 * slot, 4, f32_bits(p[1]));
      apply_atomic(m, mem);
      volatile float a = p[0], b = p[1];
      const float sum = a + b;
      EXPECT_EQ(get(mem + 4 * slot, 4), f32_bits(sum)) << p[0] << " + " << p[1];
      EXPECT_EQ(get(m.data.data() + 4 * slot, 4), f32_bits(p[0]));  // AtomicR: old value back
      for (int b2 = 0; b2 < 16; ++b2)
        if (b2 / 4 != slot) {
          EXPECT_EQ(mem[b2], 0) << "neighbour byte " << b2;
        }
    }
  }
  // Hand checks that this is binary32 arithmetic, not binary64 rounded afterwards or integer.
  EXPECT_EQ(atomic_result(AtomicOp::kFAdd, 4, f32_bits(16777216.0f), f32_bits(1.0f), 0), f32_bits(16777216.0f));
  EXPECT_EQ(atomic_result(AtomicOp::kFAdd, 4, f32_bits(1e38f), f32_bits(3e38f), 0), 0x7f800000u);  // +inf
  EXPECT_EQ(atomic_result(AtomicOp::kFAdd, 4, f32_bits(-0.0f), f32_bits(-0.0f), 0), 0x80000000u);
  EXPECT_EQ(atomic_result(AtomicOp::kFAdd, 4, f32_bits(-0.0f), f32_bits(0.0f), 0), 0u);

  const double da[][2] = {{1.5, 2.25}, {0.1, 0.2}, {9007199254740992.0, 1.0}, {1e308, 1e308}, {1e300, -1e300},
                          {-0.0, -0.0}, {5e-324, 5e-324}, {-7.75, 0.125}, {1.0, 1e-17}};
  for (const auto& p : da) {
    Message m = atomic(Opcode::kAtomicR, AtomicOp::kFAdd, 8, 8, 24);
    set_enable(m, 0, false);  // element 0 off (all 8 bytes)
    for (int b = 1; b < 8; ++b) set_enable(m, b, false);
    uint8_t mem[24] = {};
    put(mem + 8, 8, f64_bits(p[0]));
    put(mem + 16, 8, f64_bits(p[1]));
    put(m.data.data() + 8, 8, f64_bits(p[1]));
    put(m.data.data() + 16, 8, f64_bits(p[0]));
    ASSERT_EQ(check_request(m), Status::kOkay);
    apply_atomic(m, mem);
    volatile double a = p[0], b = p[1];
    const double ab = a + b, ba = b + a;
    EXPECT_EQ(get(mem + 8, 8), f64_bits(ab)) << p[0] << " + " << p[1];
    EXPECT_EQ(get(mem + 16, 8), f64_bits(ba));
    EXPECT_EQ(get(mem, 8), 0u);
    EXPECT_EQ(get(m.data.data() + 8, 8), f64_bits(p[0]));
    EXPECT_EQ(get(m.data.data() + 16, 8), f64_bits(p[1]));
  }
  EXPECT_EQ(atomic_result(AtomicOp::kFAdd, 8, f64_bits(9007199254740992.0), f64_bits(1.0), 0),
            f64_bits(9007199254740992.0));  // 2^53 + 1 rounds to even
  EXPECT_EQ(atomic_result(AtomicOp::kFAdd, 8, f64_bits(1e300), f64_bits(-1e300), 0), 0u);  // +0.0
}

// AtomicR leaves the old values in m.data; AtomicNR leaves the operands there. Disabled
// elements keep both their memory and their operand.
TEST(TlAtomicAlu, ReturnedValuesAndDisabledElements) {
  for (int n : {4, 8}) {
    for (Opcode op : {Opcode::kAtomicR, Opcode::kAtomicNR}) {
      Message m = atomic(op, AtomicOp::kSwap, n, 64, 64);
      const int elems = 64 / n;
      for (int k = 0; k < elems; k += 3)  // every third element off
        for (int b = 0; b < n; ++b) set_enable(m, k * n + b, false);
      ASSERT_EQ(check_request(m), Status::kOkay);
      uint8_t mem[64];
      for (int i = 0; i < 64; ++i) {
        mem[i] = static_cast<uint8_t>(i);
        m.data[static_cast<size_t>(i)] = static_cast<uint8_t>(200 + i / 4);
      }
      apply_atomic(m, mem);
      for (int i = 0; i < 64; ++i) {
        const bool on = (i / n) % 3 != 0;
        EXPECT_EQ(mem[i], on ? 200 + i / 4 : i) << "n=" << n << " byte " << i;
        EXPECT_EQ(m.data[static_cast<size_t>(i)], on && op == Opcode::kAtomicR ? i : 200 + i / 4)
            << "n=" << n << " byte " << i;
      }
    }
  }
}

TEST(TlAtomicAlu, CasPerElementHitAndMiss) {
  Message m = atomic(Opcode::kAtomicR, AtomicOp::kCas, 8, 32, 32);
  ASSERT_EQ(check_request(m), Status::kOkay);
  uint8_t mem[32];
  const uint64_t olds[4] = {10, 20, 30, 40};
  const uint64_t cmps[4] = {10, 21, 30, 0};
  for (int k = 0; k < 4; ++k) {
    put(mem + 8 * k, 8, olds[k]);
    put(m.data.data() + 8 * k, 8, 100 + static_cast<uint64_t>(k));
    put(m.compare.data() + 8 * k, 8, cmps[k]);
  }
  apply_atomic(m, mem);
  const uint64_t want[4] = {100, 20, 102, 40};
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(get(mem + 8 * k, 8), want[k]) << "element " << k;
    EXPECT_EQ(get(m.data.data() + 8 * k, 8), olds[k]) << "element " << k;  // old value either way
  }
}

bool is_nan(const uint8_t* p, int n) {
  if (n == 4) {
    float f;
    std::memcpy(&f, p, 4);
    return std::isnan(f);
  }
  double d;
  std::memcpy(&d, p, 8);
  return std::isnan(d);
}

uint64_t pick_value(std::mt19937_64& rng, int n) {
  static const uint64_t edges[] = {0, 1, 2, 0x7fffffffULL, 0x80000000ULL, 0xffffffffULL, 0x100000000ULL,
                                   0x7fffffffffffffffULL, 0x8000000000000000ULL, ~0ULL, ~1ULL};
  const uint64_t mask = n == 4 ? 0xffffffffULL : ~0ULL;
  switch (rng() % 4) {
    case 0: return edges[rng() % (sizeof edges / sizeof edges[0])] & mask;
    case 1: return (rng() % 16) & mask;                       // small, so min/max ties and CAS hits happen
    case 2: return (0 - (rng() % 16)) & mask;                 // small negatives
    default: return rng() & mask;
  }
}

// Random valid atomics (any op, size, alignment, length, enables) against the byte-wise reference.
TEST(TlAtomicAlu, RandomAgainstByteReference) {
  std::mt19937_64 rng(20240611);
  for (int trial = 0; trial < 30000; ++trial) {
    const auto aop = static_cast<AtomicOp>(rng() % kAtomicOps);
    const int n = rng() % 2 ? 8 : 4;
    const int region = aop == AtomicOp::kCas ? 32 : 64;
    const int start = n * static_cast<int>(rng() % static_cast<uint64_t>(region / n));  // offset in the region
    const int elems = 1 + static_cast<int>(rng() % static_cast<uint64_t>((region - start) / n));
    const uint64_t addr = (rng() % 1024) * 64 + static_cast<uint64_t>(start) + (aop == AtomicOp::kCas && rng() % 2 ? 32 : 0);
    const Opcode op = rng() % 2 ? Opcode::kAtomicR : Opcode::kAtomicNR;
    Message m = atomic(op, aop, n, addr, elems * n);
    std::vector<bool> on(static_cast<size_t>(elems));
    for (int k = 0; k < elems; ++k) {
      on[static_cast<size_t>(k)] = rng() % 4 != 0;
      if (!on[static_cast<size_t>(k)])
        for (int b = 0; b < n; ++b) set_enable(m, k * n + b, false);
    }
    ASSERT_EQ(check_request(m), Status::kOkay) << "trial " << trial;
    uint8_t mem[64 + 16];
    for (auto& b : mem) b = static_cast<uint8_t>(rng());
    uint8_t* target = mem + 8;  // 8 guard bytes each side
    for (int k = 0; k < elems; ++k) {
      const uint64_t old = pick_value(rng, n);
      put(target + k * n, n, old);
      put(m.data.data() + k * n, n, pick_value(rng, n));
      put(m.compare.data() + (k * n) % 32, n, rng() % 2 ? old : pick_value(rng, n));
    }
    if (aop == AtomicOp::kFAdd && rng() % 2) {  // some ordinary finite floats too
      for (int k = 0; k < elems; ++k) {
        std::uniform_real_distribution<double> d(-1e6, 1e6);
        if (n == 4) {
          put(target + k * n, 4, f32_bits(static_cast<float>(d(rng))));
          put(m.data.data() + k * n, 4, f32_bits(static_cast<float>(d(rng))));
        } else {
          put(target + k * n, 8, f64_bits(d(rng)));
          put(m.data.data() + k * n, 8, f64_bits(d(rng)));
        }
      }
    }
    uint8_t before[sizeof mem];
    std::memcpy(before, mem, sizeof mem);
    const Message sent = m;
    apply_atomic(m, target);
    for (int k = 0; k < elems; ++k) {
      uint8_t want[8];
      const uint8_t no_compare[8] = {};
      const uint8_t* old = before + 8 + k * n;
      if (on[static_cast<size_t>(k)])
        reference_element(aop, n, old, sent.data.data() + k * n,
                          aop == AtomicOp::kCas ? sent.compare.data() + k * n : no_compare, want);
      else
        std::memcpy(want, old, static_cast<size_t>(n));
      // A NaN sum may carry either operand's payload (the compiler may commute the addition).
      const bool both_nan = on[static_cast<size_t>(k)] && aop == AtomicOp::kFAdd && is_nan(want, n) &&
                            is_nan(target + k * n, n);
      if (!both_nan) {
        ASSERT_EQ(std::memcmp(target + k * n, want, static_cast<size_t>(n)), 0)
            << "trial " << trial << " " << atomic_op_name(aop) << " n=" << n << " element " << k;
      }
      const uint8_t* ret = on[static_cast<size_t>(k)] && op == Opcode::kAtomicR ? old : sent.data.data() + k * n;
      ASSERT_EQ(std::memcmp(m.data.data() + k * n, ret, static_cast<size_t>(n)), 0)
          << "trial " << trial << " " << atomic_op_name(aop) << " returned value, element " << k;
    }
    ASSERT_EQ(std::memcmp(mem, before, 8), 0) << "trial " << trial << ": wrote below the request";
    const int end = 8 + elems * n;
    ASSERT_EQ(std::memcmp(mem + end, before + end, sizeof mem - static_cast<size_t>(end)), 0)
        << "trial " << trial << ": wrote past the request";
    for (int b = elems * n; b < kMaxRequestBytes; ++b)
      ASSERT_EQ(m.data[static_cast<size_t>(b)], sent.data[static_cast<size_t>(b)]) << "trial " << trial;
  }
}

}  // namespace
}  // namespace upswitch::tl
