// Address cache (against a std::list LRU), address map, sparse memory, message pool, ring.
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
#include <utility>
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
// Containers: address cache, address map, sparse memory, message pool, ring

TEST(TlContainers, AddressCacheLruByHand) {
  const uint64_t MB = uint64_t{1} << 20;
  AddressCache c(3);
  EXPECT_FALSE(c.access(0 * MB));           // A miss            [A]
  EXPECT_TRUE(c.access(0 * MB + MB - 1));   // A hit, same 1 MiB [A]
  EXPECT_FALSE(c.access(1 * MB));           // B miss            [B A]
  EXPECT_FALSE(c.access(2 * MB + 4096));    // C miss            [C B A]
  EXPECT_TRUE(c.access(0 * MB + 64));       // A hit             [A C B]
  EXPECT_FALSE(c.access(3 * MB));           // D miss, evicts B  [D A C]
  EXPECT_TRUE(c.access(2 * MB));            // C hit             [C D A]
  EXPECT_TRUE(c.access(0));                 // A hit             [A C D]
  EXPECT_FALSE(c.access(1 * MB));           // B miss, evicts D  [B A C]
  EXPECT_FALSE(c.access(3 * MB));           // D miss, evicts C  [D B A]
  EXPECT_TRUE(c.access(0));                 // A                 [A D B]
  EXPECT_TRUE(c.access(MB));                // B                 [B A D]
  EXPECT_TRUE(c.access(3 * MB));            // D                 [D B A]
  EXPECT_FALSE(c.access(2 * MB));           // C evicted earlier [C D B]
  EXPECT_FALSE(c.access(0));                // A was LRU         [A C D]
  // Regions are address bits [56:20]: neighbours across a 1 MiB boundary differ.
  AddressCache one(1);
  EXPECT_FALSE(one.access(5 * MB - 1));
  EXPECT_FALSE(one.access(5 * MB));
  EXPECT_TRUE(one.access(6 * MB - 1));
  EXPECT_FALSE(one.access((uint64_t{1} << 56) + 5 * MB));  // same low bits, other high bits
  EXPECT_FALSE(one.access(5 * MB));
}

TEST(TlContainers, AddressCacheCapacityZeroAlwaysMisses) {
  AddressCache none(0);
  for (int i = 0; i < 10; ++i) EXPECT_FALSE(none.access(0));
  AddressCache dflt;
  EXPECT_FALSE(dflt.access(64));
  EXPECT_FALSE(dflt.access(64));
}

TEST(TlContainers, AddressCacheRandomAgainstListLru) {
  std::mt19937_64 rng(7);
  // Random regions among about twice the entries (hits and evictions both), and, with the
  // default 128 entries, a reduction unit's pattern: its group's 72 members' regions in turn, now
  // and then another region (addresses up to bit 56, so regions spread over the hash table).
  const std::pair<int, bool> cases[] = {{1, false}, {2, false}, {3, false}, {4, false}, {8, false},
                                         {16, false}, {128, false}, {128, true}};
  for (const auto& [entries, cyclic] : cases) {
    AddressCache c(entries);
    std::list<uint64_t> lru;  // most recent at the front
    for (int i = 0; i < 20000; ++i) {
      const uint64_t region = cyclic ? (rng() % 16 ? (uint64_t{1} << 30) + 4099 * static_cast<uint64_t>(i % 72)
                                                   : rng() % (uint64_t{1} << 36))
                                     : rng() % static_cast<uint64_t>(entries * 2 + 1);
      const uint64_t addr = (region << 20) | (rng() & 0xfffff);
      bool hit = false;
      for (auto it = lru.begin(); it != lru.end(); ++it)
        if (*it == region) {
          lru.erase(it);
          hit = true;
          break;
        }
      lru.push_front(region);
      if (static_cast<int>(lru.size()) > entries) lru.pop_back();
      ASSERT_EQ(c.access(addr), hit) << "entries " << entries << (cyclic ? " (cyclic)" : "") << " access " << i;
    }
  }
}

TEST(TlContainers, AddressMapWindowEdges) {
  AddressMap m;
  m.base = uint64_t{0x10} << 32;
  m.window = uint64_t{1} << 30;
  m.memory = uint64_t{1} << 28;
  m.endpoints = 8;
  EXPECT_EQ(m.owner(0), -1);
  EXPECT_EQ(m.owner(m.base - 1), -1);
  EXPECT_EQ(m.owner(m.base), 0);
  EXPECT_EQ(m.owner(m.base + (uint64_t{1} << 30) - 1), 0);
  EXPECT_EQ(m.owner(m.base + (uint64_t{1} << 30)), 1);
  EXPECT_EQ(m.owner(m.base + 5 * (uint64_t{1} << 30) + 12345), 5);
  EXPECT_EQ(m.owner(m.base + 8 * (uint64_t{1} << 30) - 1), 7);
  EXPECT_EQ(m.owner(m.base + 8 * (uint64_t{1} << 30)), -1);
  EXPECT_EQ(m.owner(~uint64_t{0}), -1);
  EXPECT_EQ(m.window_base(0), m.base);
  EXPECT_EQ(m.window_base(3), (uint64_t{0x10} << 32) + (uint64_t{3} << 30));
  EXPECT_EQ(m.offset(m.window_base(3)), 0u);
  EXPECT_EQ(m.offset(m.window_base(3) + 5), 5u);
  EXPECT_EQ(m.offset(m.window_base(4) - 1), (uint64_t{1} << 30) - 1);
  // Backed: the first 256 MiB of each window.
  const uint64_t w3 = m.window_base(3);
  EXPECT_TRUE(m.backed(w3, 256));
  EXPECT_TRUE(m.backed(w3 + (uint64_t{1} << 28) - 256, 256));
  EXPECT_TRUE(m.backed(w3 + (uint64_t{1} << 28) - 4, 4));
  EXPECT_FALSE(m.backed(w3 + (uint64_t{1} << 28) - 4, 8));
  EXPECT_FALSE(m.backed(w3 + (uint64_t{1} << 28), 4));
  EXPECT_FALSE(m.backed(m.window_base(4) - 4, 4));
  // Memory filling the whole window; base 0; a zero window routes nothing.
  AddressMap full{0, 4096, 4096, 2};
  EXPECT_EQ(full.owner(0), 0);
  EXPECT_EQ(full.owner(4095), 0);
  EXPECT_EQ(full.owner(4096), 1);
  EXPECT_EQ(full.owner(8192), -1);
  EXPECT_TRUE(full.backed(4096 - 256, 256));
  EXPECT_TRUE(full.backed(8192 - 4, 4));
  AddressMap empty{0, 0, 0, 4};
  EXPECT_EQ(empty.owner(0), -1);
  EXPECT_EQ(empty.owner(12345), -1);
}

TEST(TlContainers, SparseMemoryZeroUntouchedAndPeekDoesNotAllocate) {
  SparseMemory mem;
  const uint64_t addrs[] = {0, 4095, 4096, 123456789, uint64_t{1} << 40, (uint64_t{1} << 57) - 1, 16 * 1024 * 1024};
  for (uint64_t a : addrs) EXPECT_EQ(mem.peek(a)[0], 0) << a;
  EXPECT_EQ(mem.pages(), 0u);
  // Untouched bytes from bytes() also read zero; it allocates exactly one page.
  const uint8_t* fresh = mem.bytes(0x5000);
  for (int i = 0; i < 4096; ++i) ASSERT_EQ(fresh[i], 0) << i;
  EXPECT_EQ(mem.pages(), 1u);
  mem.bytes(0x5000 + 100)[0] = 1;  // same page
  mem.bytes(0x5fff)[0] = 2;
  EXPECT_EQ(mem.pages(), 1u);
  mem.bytes(0x6000)[0] = 3;  // next page
  EXPECT_EQ(mem.pages(), 2u);
  mem.bytes((uint64_t{1} << 40) + 7)[0] = 4;  // another 16 MiB leaf
  mem.bytes((uint64_t{1} << 57) - 1)[0] = 5;  // top of the 57-bit space
  EXPECT_EQ(mem.pages(), 4u);
  // Peeks in written pages, unwritten pages of a written leaf, and unwritten leaves.
  EXPECT_EQ(mem.peek(0x5000 + 100)[0], 1);
  EXPECT_EQ(mem.peek(0x5fff)[0], 2);
  EXPECT_EQ(mem.peek(0x6000)[0], 3);
  EXPECT_EQ(mem.peek(0x5000 + 101)[0], 0);
  EXPECT_EQ(mem.peek(0x7000)[0], 0);
  EXPECT_EQ(mem.peek((uint64_t{1} << 40) + 7)[0], 4);
  EXPECT_EQ(mem.peek((uint64_t{1} << 57) - 1)[0], 5);
  EXPECT_EQ(mem.peek(uint64_t{1} << 50)[0], 0);
  EXPECT_EQ(mem.pages(), 4u);
  // peek and bytes see the same storage, alternating between leaves (the remembered leaf).
  for (int i = 0; i < 10; ++i) {
    const uint64_t a = i % 2 ? (uint64_t{1} << 40) + 64 : 0x5000 + 64;
    mem.bytes(a)[0] = static_cast<uint8_t>(i);
    EXPECT_EQ(mem.peek(a)[0], i);
    EXPECT_EQ(mem.peek(i % 2 ? 0x5000 + 64 : (uint64_t{1} << 40) + 64)[0], i == 0 ? 0 : i - 1);
  }
  EXPECT_EQ(mem.pages(), 4u);
}

TEST(TlContainers, SparseMemoryRandomAgainstMap) {
  std::mt19937_64 rng(11);
  SparseMemory mem;
  std::vector<std::pair<uint64_t, uint8_t>> writes;
  std::set<uint64_t> pages;
  for (int i = 0; i < 2000; ++i) {
    const uint64_t a = (rng() % 4 == 0 ? (rng() & ((uint64_t{1} << 57) - 1)) : rng() % (64 * 1024 * 1024));
    const auto v = static_cast<uint8_t>(1 + rng() % 255);
    mem.bytes(a)[0] = v;
    pages.insert(a / 4096);
    writes.emplace_back(a, v);
  }
  EXPECT_EQ(mem.pages(), pages.size());
  std::vector<std::pair<uint64_t, uint8_t>> last;  // the last value written at each address
  for (size_t i = writes.size(); i-- > 0;) {
    bool seen = false;
    for (const auto& l : last) seen = seen || l.first == writes[i].first;
    if (!seen) last.push_back(writes[i]);
  }
  for (const auto& l : last) EXPECT_EQ(mem.peek(l.first)[0], l.second) << l.first;
  EXPECT_EQ(mem.pages(), pages.size());
}

TEST(TlContainers, MessagePoolReusesHandles) {
  MessagePool pool;
  const uint32_t a = pool.acquire(), b = pool.acquire(), c = pool.acquire();
  EXPECT_EQ(std::set<uint32_t>({a, b, c}).size(), 3u);
  EXPECT_EQ(pool.in_use(), 3u);
  EXPECT_EQ(pool.capacity(), 3u);
  Message& mb = pool[b];
  mb.op = Opcode::kAtomicR;
  mb.aop = AtomicOp::kCas;
  mb.elem_bytes = 4;
  mb.status = Status::kMisaligned;
  mb.response = mb.compressed = true;
  mb.vc = 3;
  mb.src = 7;
  mb.dst = 9;
  mb.tag = 1234;
  mb.len = 64;
  mb.addr = 0xdead00;
  mb.issued = 5;
  mb.executed = 6;
  mb.transfer = 77;
  mb.byte_enable.fill(~uint64_t{0});
  pool[a].tag = 1;
  pool[c].tag = 3;
  pool.release(b);
  EXPECT_EQ(pool.in_use(), 2u);
  const uint32_t d = pool.acquire();  // the freed slot comes back, not a new one
  EXPECT_EQ(d, b);
  EXPECT_EQ(pool.capacity(), 3u);
  EXPECT_EQ(pool.in_use(), 3u);
  const Message& md = pool[d];
  const Message fresh;
  EXPECT_EQ(md.op, fresh.op);
  EXPECT_EQ(md.aop, fresh.aop);
  EXPECT_EQ(md.elem_bytes, fresh.elem_bytes);
  EXPECT_EQ(md.status, Status::kOkay);
  EXPECT_FALSE(md.response);
  EXPECT_FALSE(md.compressed);
  EXPECT_EQ(md.vc, 0);
  EXPECT_EQ(md.src, 0);
  EXPECT_EQ(md.dst, 0);
  EXPECT_EQ(md.tag, 0);
  EXPECT_EQ(md.len, 0);
  EXPECT_EQ(md.addr, 0u);
  EXPECT_EQ(md.issued, 0u);
  EXPECT_EQ(md.executed, 0u);
  EXPECT_EQ(md.transfer, 0u);
  for (uint64_t w : md.byte_enable) EXPECT_EQ(w, 0u);
  EXPECT_EQ(pool[a].tag, 1);  // the others untouched
  EXPECT_EQ(pool[c].tag, 3);
  // Release everything, acquire as many again: the same handles, no growth.
  pool.release(a);
  pool.release(c);
  pool.release(d);
  EXPECT_EQ(pool.in_use(), 0u);
  std::set<uint32_t> again;
  for (int i = 0; i < 3; ++i) again.insert(pool.acquire());
  EXPECT_EQ(again, std::set<uint32_t>({a, b, c}));
  EXPECT_EQ(pool.capacity(), 3u);
  EXPECT_EQ(pool.acquire(), 3u);  // the fourth grows the slab
  EXPECT_EQ(pool.capacity(), 4u);
  EXPECT_THROW(pool.release(99), std::logic_error);
}

TEST(TlContainers, RingWrapsAndGrowsInOrder) {
  endpoint::Ring<uint32_t> r;
  EXPECT_TRUE(r.empty());
  uint32_t next_in = 0, next_out = 0;
  // Walk the head round a 16-slot ring several times with a small backlog.
  for (int round = 0; round < 100; ++round) {
    for (int i = 0; i < 5; ++i) r.push(next_in++);
    for (int i = 0; i < 5; ++i) ASSERT_EQ(r.pop(), next_out++);
  }
  EXPECT_TRUE(r.empty());
  // Fill with the head mid-ring, then grow: order survives the unwrap into the larger buffer.
  for (int i = 0; i < 11; ++i) r.push(next_in++);
  for (int i = 0; i < 7; ++i) ASSERT_EQ(r.pop(), next_out++);
  for (int i = 0; i < 100; ++i) r.push(next_in++);  // grows 16 -> 32 -> 64 -> 128
  EXPECT_EQ(r.size(), static_cast<size_t>(next_in - next_out));
  for (size_t k = 0; k < r.size(); ++k) ASSERT_EQ(r.at(k), next_out + k);
  EXPECT_EQ(r.front(), next_out);
  r.front() = 999;  // front is writable
  EXPECT_EQ(r.pop(), 999u);
  ++next_out;
  while (!r.empty()) ASSERT_EQ(r.pop(), next_out++);
  EXPECT_EQ(next_out, next_in);
}

TEST(TlContainers, RingRandomAgainstDeque) {
  std::mt19937_64 rng(3);
  endpoint::Ring<uint64_t> r;
  std::deque<uint64_t> ref;
  for (int i = 0; i < 200000; ++i) {
    const bool push = ref.empty() || rng() % 100 < (i < 100000 ? 55 : 45);
    if (push) {
      const uint64_t v = rng();
      r.push(v);
      ref.push_back(v);
    } else {
      ASSERT_EQ(r.front(), ref.front()) << i;
      ASSERT_EQ(r.pop(), ref.front()) << i;
      ref.pop_front();
    }
    ASSERT_EQ(r.size(), ref.size());
    if (i % 997 == 0) {
      for (size_t k = 0; k < ref.size(); ++k) ASSERT_EQ(r.at(k), ref[k]) << i << " at " << k;
    }
  }
}

// insert(k, v) (urgent transfers go before waiting ones) against std::deque::insert, with wraps
// and growth, mixed with take(k).
TEST(TlContainers, RingInsertAndTakeAgainstDeque) {
  std::mt19937_64 rng(5);
  endpoint::Ring<uint64_t> r;
  std::deque<uint64_t> ref;
  for (int i = 0; i < 100000; ++i) {
    const uint64_t op = rng() % 100;
    if (ref.empty() || op < 40) {
      const size_t k = static_cast<size_t>(rng() % (ref.size() + 1));
      const uint64_t v = rng();
      r.insert(k, v);
      ref.insert(ref.begin() + static_cast<std::ptrdiff_t>(k), v);
    } else if (op < 70) {
      ASSERT_EQ(r.pop(), ref.front()) << i;
      ref.pop_front();
    } else {
      const size_t k = static_cast<size_t>(rng() % ref.size());
      ASSERT_EQ(r.take(k), ref[k]) << i;
      ref.erase(ref.begin() + static_cast<std::ptrdiff_t>(k));
    }
    ASSERT_EQ(r.size(), ref.size());
    if (i % 499 == 0) {
      for (size_t k = 0; k < ref.size(); ++k) ASSERT_EQ(r.at(k), ref[k]) << i << " at " << k;
    }
  }
}

}  // namespace
}  // namespace upswitch::tl
