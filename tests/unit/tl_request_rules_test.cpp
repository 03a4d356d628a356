// The request rules (facts §1.3): lengths, alignment, 256 B boundaries, WriteFull, atomics.
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

// ------------------------------------------------------------------------------------------
// Request rules

TEST(TlRequestRules, LengthsFourToTwoFiftySixInDoublewords) {
  for (Opcode op : {Opcode::kRead, Opcode::kWrite}) {
    for (int len = 0; len <= 300; ++len) {
      const Message m = make(op, 0, len);
      const bool ok = len >= 4 && len <= 256 && len % 4 == 0;
      EXPECT_EQ(check_request(m), ok ? Status::kOkay : Status::kBadLength) << opcode_name(op) << " len " << len;
    }
    EXPECT_EQ(check_request(make(op, 0, 512)), Status::kBadLength);
    EXPECT_EQ(check_request(make(op, 0, 65535)), Status::kBadLength);
  }
}

TEST(TlRequestRules, DoublewordAlignment) {
  for (Opcode op : {Opcode::kRead, Opcode::kWrite}) {
    for (uint64_t addr = 0; addr < 64; ++addr) {
      const Message m = make(op, 0x1000 + addr, 4);
      EXPECT_EQ(check_request(m), addr % 4 ? Status::kMisaligned : Status::kOkay) << "addr " << addr;
    }
    EXPECT_EQ(check_request(make(op, (uint64_t{1} << 56) + 2, 8)), Status::kMisaligned);
  }
}

TEST(TlRequestRules, NoCrossingOf256ByteBoundary) {
  // Every aligned address in two 256 B blocks, every legal length: fine iff first and last
  // byte lie in the same 256 B block.
  for (Opcode op : {Opcode::kRead, Opcode::kWrite}) {
    for (uint64_t a = 0; a < 512; a += 4) {
      for (int len = 4; len <= 256; len += 4) {
        const uint64_t addr = 0xABCDE00 + a;  // 256 B aligned base
        const bool same_block = addr / 256 == (addr + static_cast<uint64_t>(len) - 1) / 256;
        ASSERT_EQ(check_request(make(op, addr, len)), same_block ? Status::kOkay : Status::kBadLength)
            << opcode_name(op) << " addr+" << a << " len " << len;
      }
    }
  }
  EXPECT_EQ(check_request(make(Opcode::kRead, 252, 4)), Status::kOkay);
  EXPECT_EQ(check_request(make(Opcode::kRead, 252, 8)), Status::kBadLength);
  EXPECT_EQ(check_request(make(Opcode::kRead, 4, 256)), Status::kBadLength);
  EXPECT_EQ(check_request(make(Opcode::kRead, 256 + 128, 128)), Status::kOkay);
}

TEST(TlRequestRules, WriteFullIs64ByteAlignedSizedAndFullyEnabled) {
  for (uint64_t a = 0; a < 256; a += 4) {
    for (int len = 4; len <= 256 - static_cast<int>(a); len += 4) {  // never crossing 256 B
      const bool ok = a % 64 == 0 && len % 64 == 0;
      ASSERT_EQ(check_request(make(Opcode::kWriteFull, 0x40000 + a, len)), ok ? Status::kOkay : Status::kBadByteEnable)
          << "addr+" << a << " len " << len;
    }
  }
  // Any one byte disabled, at either end or in the middle of any beat.
  for (int b : {0, 1, 63, 64, 100, 191, 255}) {
    Message m = make(Opcode::kWriteFull, 0, 256);
    set_enable(m, b, false);
    EXPECT_EQ(check_request(m), Status::kBadByteEnable) << "byte " << b;
    m.op = Opcode::kWrite;  // a Write may leave bytes off
    EXPECT_EQ(check_request(m), Status::kOkay) << "byte " << b;
  }
  // A byte enabled beyond len.
  Message m = make(Opcode::kWriteFull, 0, 64);
  set_enable(m, 64, true);
  EXPECT_EQ(check_request(m), Status::kBadByteEnable);
  // The general length rule holds for WriteFull too.
  EXPECT_EQ(check_request(make(Opcode::kWriteFull, 0, 320)), Status::kBadLength);
}

TEST(TlRequestRules, WriteByteEnablesBeyondLength) {
  for (int len : {4, 8, 60, 64, 100, 200, 252}) {
    for (int b = len; b < 256; b += 13) {
      Message m = make(Opcode::kWrite, 0, len);
      set_enable(m, b, true);
      EXPECT_EQ(check_request(m), Status::kBadByteEnable) << "len " << len << " byte " << b;
    }
    Message edge = make(Opcode::kWrite, 0, len);
    set_enable(edge, 255, true);
    EXPECT_EQ(check_request(edge), Status::kBadByteEnable) << "len " << len << " byte 255";
  }
  Message sparse = make(Opcode::kWrite, 0, 256);  // sparse enables inside len are fine
  for (int b = 0; b < 256; b += 2) set_enable(sparse, b, false);
  EXPECT_EQ(check_request(sparse), Status::kOkay);
}

TEST(TlRequestRules, AtomicElementSizeAndAlignment) {
  for (Opcode op : {Opcode::kAtomicR, Opcode::kAtomicNR}) {
    for (int e : {0, 1, 2, 3, 5, 16}) {
      EXPECT_EQ(check_request(atomic(op, AtomicOp::kAdd, e, 0, 16)), Status::kUnsupported) << "elem " << e;
    }
    // Element alignment: 4 B elements at any doubleword; 8 B elements only at multiples of 8.
    for (uint64_t a = 0; a < 64; a += 4) {
      EXPECT_EQ(check_request(atomic(op, AtomicOp::kAdd, 4, 128 + a, 4)), Status::kOkay) << a;
      if (a <= 56) {
        EXPECT_EQ(check_request(atomic(op, AtomicOp::kAdd, 8, 128 + a, 8)), a % 8 ? Status::kMisaligned : Status::kOkay)
            << a;
      }
    }
    // Length a multiple of the element size.
    EXPECT_EQ(check_request(atomic(op, AtomicOp::kAdd, 8, 0, 12)), Status::kBadLength);
    EXPECT_EQ(check_request(atomic(op, AtomicOp::kAdd, 8, 0, 4)), Status::kBadLength);
    EXPECT_EQ(check_request(atomic(op, AtomicOp::kAdd, 4, 0, 12)), Status::kOkay);
    // Within one 64 B beat.
    for (uint64_t a = 0; a < 64; a += 8) {
      for (int len = 8; len <= 64; len += 8) {
        const bool fits = a + static_cast<uint64_t>(len) <= 64;
        EXPECT_EQ(check_request(atomic(op, AtomicOp::kXor, 8, 0x1000 + a, len)), fits ? Status::kOkay : Status::kBadLength)
            << "addr+" << a << " len " << len;
      }
    }
    // CAS: within one 32 B-aligned region.
    for (uint64_t a = 0; a < 64; a += 8) {
      for (int len = 8; len <= 64; len += 8) {
        const bool fits = a / 32 == (a + static_cast<uint64_t>(len) - 1) / 32;
        EXPECT_EQ(check_request(atomic(op, AtomicOp::kCas, 8, 0x2000 + a, len)), fits ? Status::kOkay : Status::kBadLength)
            << "CAS addr+" << a << " len " << len;
      }
    }
    EXPECT_EQ(check_request(atomic(op, AtomicOp::kCas, 4, 20, 12)), Status::kOkay);
    EXPECT_EQ(check_request(atomic(op, AtomicOp::kCas, 4, 20, 16)), Status::kBadLength);
  }
}

TEST(TlRequestRules, AtomicEnablesWholeElementsOnly) {
  for (Opcode op : {Opcode::kAtomicR, Opcode::kAtomicNR}) {
    for (int e : {4, 8}) {
      for (int b = 0; b < 32; ++b) {  // one byte off: half an element
        Message m = atomic(op, AtomicOp::kAdd, e, 0, 32);
        set_enable(m, b, false);
        EXPECT_EQ(check_request(m), Status::kBadByteEnable) << "e " << e << " byte " << b;
        for (int k = b - b % e; k < b - b % e + e; ++k) set_enable(m, k, false);  // the whole element off
        EXPECT_EQ(check_request(m), Status::kOkay) << "e " << e << " byte " << b;
      }
      Message beyond = atomic(op, AtomicOp::kAdd, e, 0, 32);
      set_enable(beyond, 32, true);
      EXPECT_EQ(check_request(beyond), Status::kBadByteEnable);
    }
  }
}

TEST(TlRequestRules, DataBeatsByHand) {
  struct {
    uint64_t addr;
    int len, beats;
  } const cases[] = {
      {0, 4, 1},     {0, 64, 1},    {60, 4, 1},   {60, 8, 2},     {64, 64, 1},   {96, 64, 2},  {0, 256, 4},
      {4, 252, 4},   {128, 128, 2}, {192, 64, 1}, {64, 192, 3},   {200, 56, 1},  {252, 4, 1},  {8, 120, 2},
      {(uint64_t{1} << 56) + 200, 56, 1},         {(uint64_t{1} << 56) + 200, 60, 2},
  };
  for (const auto& c : cases) EXPECT_EQ(data_beats(c.addr, c.len), c.beats) << c.addr << "/" << c.len;
}

TEST(TlRequestRules, EnableAllAndAllEnabled) {
  for (int len : {4, 60, 64, 100, 128, 200, 256}) {
    Message m;
    m.len = static_cast<uint16_t>(len);
    m.enable_all();
    for (int b = 0; b < 256; ++b) ASSERT_EQ(m.byte_enabled(b), b < len) << "len " << len << " byte " << b;
    EXPECT_TRUE(m.all_enabled());
    set_enable(m, len - 1, false);
    EXPECT_FALSE(m.all_enabled());
  }
}

// Write and WriteFull byte enables against a byte-by-byte reference, on random masks: a few bits
// set or cleared anywhere in the 256, at every length (address 0).
TEST(TlRequestRules, ByteEnableRulesMatchAByteByByteReference) {
  std::mt19937_64 rng(21);
  for (int len = 4; len <= 256; len += 4) {
    for (int trial = 0; trial < 40; ++trial) {
      Message m = make(Opcode::kWrite, 0, len);
      const int flips = static_cast<int>(rng() % 3);
      for (int k = 0; k < flips; ++k) {
        const int b = static_cast<int>(rng() % 256);
        set_enable(m, b, !m.byte_enabled(b));
      }
      bool outside = false, hole = false;
      for (int b = 0; b < 256; ++b) {
        if (b >= len && m.byte_enabled(b)) outside = true;
        if (b < len && !m.byte_enabled(b)) hole = true;
      }
      EXPECT_EQ(check_request(m), outside ? Status::kBadByteEnable : Status::kOkay) << "write, len " << len;
      m.op = Opcode::kWriteFull;
      const bool full_ok = len % 64 == 0 && !outside && !hole;
      EXPECT_EQ(check_request(m), full_ok ? Status::kOkay : Status::kBadByteEnable) << "write full, len " << len;
    }
  }
}

}  // namespace
}  // namespace upswitch::tl
