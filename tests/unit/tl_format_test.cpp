// The transaction layer's building blocks on their own: the atomic unit against a reference,
// the request rules and packet sizes against hand-worked cases (facts §1.3, §1.4, §1.6), the
// address cache's LRU order, the address map's edges and the sparse memory.
#include <gtest/gtest.h>

#include <cstring>

#include "tl/address_cache.h"
#include "tl/address_map.h"
#include "tl/atomic_alu.h"
#include "tl/packet_format.h"
#include "tl/request_rules.h"
#include "tl/sparse_memory.h"
#include "traffic/rng.h"
#include "txn_support.h"

namespace upswitch::testing {
namespace {

using tl::AtomicOp;
using tl::Message;
using tl::Opcode;
using tl::Status;

Message request(Opcode op, uint64_t addr, int len) {
  Message m;
  m.op = op;
  m.addr = addr;
  m.len = static_cast<uint16_t>(len);
  m.enable_all();
  return m;
}

TEST(TlAtomic, HandWorkedElements) {
  EXPECT_EQ(tl::atomic_result(AtomicOp::kAdd, 4, 0xffffffffu, 2, 0), 1u);  // wraps at 32 bits
  EXPECT_EQ(tl::atomic_result(AtomicOp::kAdd, 8, ~0ULL, 2, 0), 1u);
  EXPECT_EQ(tl::atomic_result(AtomicOp::kMinS, 4, 5, 0xfffffffeu, 0), 0xfffffffeu);  // -2 < 5
  EXPECT_EQ(tl::atomic_result(AtomicOp::kMinU, 4, 5, 0xfffffffeu, 0), 5u);
  EXPECT_EQ(tl::atomic_result(AtomicOp::kMaxS, 8, 7, ~0ULL, 0), 7u);  // -1 < 7
  EXPECT_EQ(tl::atomic_result(AtomicOp::kMaxU, 8, 7, ~0ULL, 0), ~0ULL);
  EXPECT_EQ(tl::atomic_result(AtomicOp::kCas, 8, 9, 4, 9), 4u);  // hit
  EXPECT_EQ(tl::atomic_result(AtomicOp::kCas, 8, 9, 4, 8), 9u);  // miss
  EXPECT_EQ(tl::atomic_result(AtomicOp::kSwap, 4, 1, 2, 0), 2u);
  EXPECT_EQ(tl::atomic_result(AtomicOp::kXor, 4, 0xf0, 0xff, 0), 0x0fu);
  const float a = 1.5f, b = 2.25f, sum = 3.75f;
  uint32_t ua, ub, us;
  std::memcpy(&ua, &a, 4);
  std::memcpy(&ub, &b, 4);
  std::memcpy(&us, &sum, 4);
  EXPECT_EQ(tl::atomic_result(AtomicOp::kFAdd, 4, ua, ub, 0), us);
  const double c = 1e300, d = -1e300;
  uint64_t uc, ud;
  std::memcpy(&uc, &c, 8);
  std::memcpy(&ud, &d, 8);
  EXPECT_EQ(tl::atomic_result(AtomicOp::kFAdd, 8, uc, ud, 0), 0u);  // +0.0
}

TEST(TlAtomic, RandomRequestsMatchTheReference) {
  traffic::Rng rng(5, 1);
  for (int trial = 0; trial < 20000; ++trial) {
    const auto op = static_cast<AtomicOp>(rng.below(tl::kAtomicOps));
    const int e = rng.below(2) ? 8 : 4;
    Message m = request(rng.below(2) ? Opcode::kAtomicR : Opcode::kAtomicNR, 0, 32);
    m.aop = op;
    m.elem_bytes = static_cast<uint8_t>(e);
    uint8_t mem[32], before[32];
    for (auto& x : mem) x = static_cast<uint8_t>(rng.next());
    for (auto& x : m.data) x = static_cast<uint8_t>(rng.next());
    for (auto& x : m.compare) x = rng.below(2) ? 0 : static_cast<uint8_t>(rng.next());
    std::memcpy(m.compare.data(), mem, rng.below(2) ? 32 : 0);  // some compares hit
    const uint64_t disabled = rng.below(32 / e);                 // one element switched off
    for (int b = 0; b < e; ++b) m.byte_enable[0] &= ~(uint64_t{1} << (disabled * e + b));
    std::memcpy(before, mem, 32);
    const Message sent = m;
    tl::apply_atomic(m, mem);
    for (int k = 0; k < 32; k += e) {
      uint64_t old = 0, x = 0, c = 0, now = 0, ret = 0;
      std::memcpy(&old, before + k, e);
      std::memcpy(&x, sent.data.data() + k, e);
      std::memcpy(&c, sent.compare.data() + k, e);
      std::memcpy(&now, mem + k, e);
      std::memcpy(&ret, m.data.data() + k, e);
      const bool on = static_cast<uint64_t>(k / e) != disabled;
      ASSERT_EQ(now, on ? reference_atomic(op, e, old, x, c) : old) << tl::atomic_op_name(op) << " elem " << k / e;
      ASSERT_EQ(ret, on && sent.op == Opcode::kAtomicR ? old : x) << tl::atomic_op_name(op);
    }
  }
}

TEST(TlRules, HandWorkedRequests) {
  EXPECT_EQ(tl::check_request(request(Opcode::kRead, 0, 4)), Status::kOkay);
  EXPECT_EQ(tl::check_request(request(Opcode::kRead, 0, 256)), Status::kOkay);
  EXPECT_EQ(tl::check_request(request(Opcode::kRead, 0, 0)), Status::kBadLength);
  EXPECT_EQ(tl::check_request(request(Opcode::kRead, 0, 6)), Status::kBadLength);
  EXPECT_EQ(tl::check_request(request(Opcode::kRead, 0, 260)), Status::kBadLength);
  EXPECT_EQ(tl::check_request(request(Opcode::kRead, 2, 4)), Status::kMisaligned);
  EXPECT_EQ(tl::check_request(request(Opcode::kRead, 252, 8)), Status::kBadLength);  // crosses 256 B
  EXPECT_EQ(tl::check_request(request(Opcode::kWriteFull, 64, 128)), Status::kOkay);
  EXPECT_EQ(tl::check_request(request(Opcode::kWriteFull, 32, 64)), Status::kBadByteEnable);
  EXPECT_EQ(tl::check_request(request(Opcode::kWriteFull, 0, 96)), Status::kBadByteEnable);
  Message partial = request(Opcode::kWriteFull, 0, 64);
  partial.byte_enable[0] &= ~uint64_t{1};
  EXPECT_EQ(tl::check_request(partial), Status::kBadByteEnable);
  partial.op = Opcode::kWrite;
  EXPECT_EQ(tl::check_request(partial), Status::kOkay);
  Message beyond = request(Opcode::kWrite, 0, 8);
  beyond.byte_enable[0] |= uint64_t{1} << 9;
  EXPECT_EQ(tl::check_request(beyond), Status::kBadByteEnable);
  Message at = request(Opcode::kAtomicR, 8, 8);
  EXPECT_EQ(tl::check_request(at), Status::kOkay);
  at.addr = 4;
  EXPECT_EQ(tl::check_request(at), Status::kMisaligned);  // 8 B element at 4
  at.addr = 56;
  at.len = 16;
  EXPECT_EQ(tl::check_request(at), Status::kBadLength);  // crosses 64 B
  at.addr = 0;
  at.len = 64;
  at.enable_all();
  at.aop = AtomicOp::kCas;
  EXPECT_EQ(tl::check_request(at), Status::kBadLength);  // CAS: 32 B at most
  at.aop = AtomicOp::kAdd;
  at.byte_enable[0] &= ~uint64_t{1};  // half an element
  EXPECT_EQ(tl::check_request(at), Status::kBadByteEnable);
  EXPECT_EQ(tl::data_beats(0, 64), 1);
  EXPECT_EQ(tl::data_beats(60, 8), 2);
  EXPECT_EQ(tl::data_beats(64, 192), 3);
  EXPECT_EQ(tl::data_beats(0, 256), 4);
}

TEST(TlPacket, HeaderSectorsAndDataHalves) {
  Message rd = request(Opcode::kRead, 0, 256);
  EXPECT_TRUE(tl::compressible(rd));
  EXPECT_EQ(tl::header_sectors(rd), 4);
  rd.compressed = true;
  EXPECT_EQ(tl::header_sectors(rd), 2);
  EXPECT_EQ(tl::data_halves(rd), 0);
  EXPECT_FALSE(tl::compressible(request(Opcode::kRead, 0, 32)));    // < 64 B
  EXPECT_FALSE(tl::compressible(request(Opcode::kRead, 32, 64)));   // not 64 B aligned
  EXPECT_FALSE(tl::compressible(request(Opcode::kAtomicR, 0, 8)));  // atomics never
  EXPECT_EQ(tl::data_halves(request(Opcode::kWrite, 0, 256)), 9);   // 4 beats + byte enables
  EXPECT_EQ(tl::data_halves(request(Opcode::kWriteFull, 0, 256)), 8);
  EXPECT_EQ(tl::data_halves(request(Opcode::kAtomicNR, 0, 8)), 3);
  Message resp = request(Opcode::kRead, 60, 8);
  resp.response = true;
  resp.compressed = true;
  EXPECT_EQ(tl::header_sectors(resp), 1);
  EXPECT_EQ(tl::data_halves(resp), 4);  // two beats touched
  resp.status = Status::kDecodeError;
  EXPECT_EQ(tl::header_sectors(resp), 2);  // compressed only with OKAY
  EXPECT_EQ(tl::data_halves(resp), 0);
  Message ar = request(Opcode::kAtomicR, 0, 8);
  ar.response = true;
  EXPECT_EQ(tl::data_halves(ar), 2);
  ar.op = Opcode::kAtomicNR;
  EXPECT_EQ(tl::data_halves(ar), 0);
  // Flits of a packet: one control half-flit and its data halves, two halves per flit.
  EXPECT_EQ(tl::packet_flits(0), 1);
  EXPECT_EQ(tl::packet_flits(1), 1);
  EXPECT_EQ(tl::packet_flits(2), 2);
  EXPECT_EQ(tl::packet_flits(32), 17);
  EXPECT_EQ(tl::packet_flits(64), 33);
}

TEST(TlAddressCache, LeastRecentlyUsedRegionIsEvicted) {
  tl::AddressCache c(2);
  const uint64_t mb = 1 << 20;
  EXPECT_FALSE(c.access(0));
  EXPECT_TRUE(c.access(64));  // same 1 MB region
  EXPECT_FALSE(c.access(mb));
  EXPECT_TRUE(c.access(0));       // region 0 now most recent
  EXPECT_FALSE(c.access(2 * mb));  // evicts region 1
  EXPECT_TRUE(c.access(0));
  EXPECT_FALSE(c.access(mb));
  tl::AddressCache none(0);
  EXPECT_FALSE(none.access(0));
  EXPECT_FALSE(none.access(0));
}

TEST(TlAddressMap, WindowsAndBackedMemory) {
  tl::AddressMap m;
  m.base = 1 << 20;
  m.window = 1 << 16;
  m.memory = 1 << 12;
  m.endpoints = 4;
  EXPECT_EQ(m.owner(0), -1);
  EXPECT_EQ(m.owner(m.base), 0);
  EXPECT_EQ(m.owner(m.base + m.window - 1), 0);
  EXPECT_EQ(m.owner(m.base + 3 * m.window), 3);
  EXPECT_EQ(m.owner(m.base + 4 * m.window), -1);
  EXPECT_TRUE(m.backed(m.window_base(2) + 4096 - 8, 8));
  EXPECT_FALSE(m.backed(m.window_base(2) + 4096 - 4, 8));
}

TEST(TlSparseMemory, UntouchedReadsZeroAndPeekAllocatesNothing) {
  tl::SparseMemory mem;
  EXPECT_EQ(mem.peek(123456789)[0], 0);
  EXPECT_EQ(mem.pages(), 0u);
  mem.bytes(uint64_t{1} << 40)[5] = 7;
  mem.bytes(4096 * 3)[0] = 9;
  EXPECT_EQ(mem.peek((uint64_t{1} << 40) + 5)[0], 7);
  EXPECT_EQ(mem.peek(4096 * 3)[0], 9);
  EXPECT_EQ(mem.peek(4096 * 3 + 1)[0], 0);
  EXPECT_EQ(mem.pages(), 2u);
}

}  // namespace
}  // namespace upswitch::testing
