// The traffic of the partition tests (partition.pods), on one switch or a network: in round r
// (at cycle 2000 r), the accelerators that `crossing(r, e)` names try a read, a write and a
// fetch-add on every accelerator of another pod, while the others do the same among themselves
// inside their pod. Rejected packets never leave their ingress input, and the in-pod traffic of a
// round neither starts nor ends at a crossing accelerator, so the two never share a link: the
// in-pod transfers must complete exactly when they do in a run without the crossing attempts and
// without a partition table (the independent expectation).
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "fault_support.h"

namespace upswitch::testing {

constexpr uint64_t kPatternBytes = 0x9000;

inline uint8_t pod_pattern(int e, uint64_t off) { return static_cast<uint8_t>(e * 31 + off * 7 + 1); }

// Every accelerator's memory [0, kPatternBytes) holds the pattern; returns the host's copy.
inline std::vector<std::vector<uint8_t>> fill_pod_memories(top::TxnFabric& f, int n) {
  std::vector<std::vector<uint8_t>> mem(static_cast<size_t>(n), std::vector<uint8_t>(kPatternBytes));
  for (int e = 0; e < n; ++e) {
    for (uint64_t o = 0; o < kPatternBytes; ++o) mem[static_cast<size_t>(e)][o] = pod_pattern(e, o);
    f.endpoints().memory(e).write(0, mem[static_cast<size_t>(e)].data(), kPatternBytes);
  }
  return mem;
}

inline uint64_t le64(const uint8_t* b) {
  uint64_t v = 0;
  for (int k = 7; k >= 0; --k) v = (v << 8) | b[k];
  return v;
}

struct PodTraffic {
  struct Op {
    int src, dst, id;
    tl::Opcode op;
    bool cross;
  };
  int n = 8;
  std::vector<int> pods;                     // per accelerator
  std::function<bool(int, int)> crossing;    // (round, accelerator)
  std::vector<Op> ops;
  std::vector<std::array<uint8_t, 64>> write_data, read_back;  // by src*n+dst
  std::vector<uint64_t> add_operand, add_old;

  PodTraffic(std::vector<int> p, std::function<bool(int, int)> c)
      : n(static_cast<int>(p.size())), pods(std::move(p)), crossing(std::move(c)) {
    const auto k = static_cast<size_t>(n * n);
    write_data.resize(k);
    read_back.resize(k);
    add_operand.resize(k);
    add_old.resize(k);
  }

  // Schedules the traffic; with `cross` false the crossing attempts are left out.
  void schedule(Schedule& s, top::TxnFabric& f, bool cross) {
    const tl::AddressMap& map = f.endpoints().address_map();
    for (int round = 0; round < 2; ++round)
      for (int src = 0; src < n; ++src)
        for (int dst = 0; dst < n; ++dst) {
          const bool is_cross = pods[static_cast<size_t>(src)] != pods[static_cast<size_t>(dst)];
          if (src == dst) continue;
          if (is_cross != crossing(round, src) || (!is_cross && crossing(round, dst))) continue;
          if (is_cross && !cross) continue;
          const auto k = static_cast<size_t>(src * n + dst);
          for (int b = 0; b < 64; ++b)
            write_data[k][static_cast<size_t>(b)] = static_cast<uint8_t>(src * 13 + dst * 17 + b);
          read_back[k].fill(0xee);
          add_operand[k] = static_cast<uint64_t>(src + 1);
          add_old[k] = 0xdeadbeef;
          const uint64_t at = 2000 * static_cast<uint64_t>(round);
          const uint64_t base = map.window_base(dst);
          endpoint::TransferRequest w;
          w.op = tl::Opcode::kWrite;
          w.addr = base + (is_cross ? 0x1000 : 0x8000) + 64 * static_cast<uint64_t>(src);
          w.bytes = 64;
          w.data = write_data[k].data();
          ops.push_back({src, dst, s.add(at, src, w), tl::Opcode::kWrite, is_cross});
          endpoint::TransferRequest r;
          r.op = tl::Opcode::kRead;
          r.addr = base + 0x100;
          r.bytes = 64;
          r.result = read_back[k].data();
          ops.push_back({src, dst, s.add(at, src, r), tl::Opcode::kRead, is_cross});
          endpoint::TransferRequest a;
          a.op = tl::Opcode::kAtomicR;
          a.aop = tl::AtomicOp::kAdd;
          a.elem_bytes = 8;
          a.addr = base + (is_cross ? 0x2000 : 0x3000) + 8 * static_cast<uint64_t>(src);
          a.bytes = 8;
          a.data = reinterpret_cast<const uint8_t*>(&add_operand[k]);
          a.result = reinterpret_cast<uint8_t*>(&add_old[k]);
          ops.push_back({src, dst, s.add(at, src, a), tl::Opcode::kAtomicR, is_cross});
        }
  }
};

struct PodCounts {
  uint64_t cross = 0, in_pod = 0;
  std::vector<uint64_t> cross_from;  // per accelerator
};

// Runs `tr` on `f` (partitioned) and the same in-pod traffic on `g` (no partition table), and
// checks every transfer: crossing ones protection_violation with no data returned, in-pod ones
// OKAY at g's completion cycle with the right data; then every memory byte for byte and both
// fabrics drained.
inline PodCounts run_and_check_pods(top::TxnFabric& f, top::TxnFabric& g, PodTraffic& tr) {
  const int n = tr.n;
  auto expect = fill_pod_memories(f, n);
  fill_pod_memories(g, n);
  Schedule s(f), sg(g);
  tr.schedule(s, f, true);
  PodTraffic tg(tr.pods, tr.crossing);
  tg.schedule(sg, g, false);
  PodCounts c;
  c.cross_from.assign(static_cast<size_t>(n), 0);
  EXPECT_TRUE(s.run());
  EXPECT_TRUE(sg.run());
  EXPECT_EQ(s.completed(), tr.ops.size());
  std::map<std::pair<int, int>, uint64_t> done_without;  // (src*n+dst, op) -> completion cycle
  for (const PodTraffic::Op& o : tg.ops) done_without[{o.src * n + o.dst, static_cast<int>(o.op)}] = sg.done(o.id).cycle;
  for (const PodTraffic::Op& o : tr.ops) {
    const Schedule::Done& d = s.done(o.id);
    EXPECT_EQ(d.count, 1);
    const auto k = static_cast<size_t>(o.src * n + o.dst);
    if (o.cross) {
      ++c.cross;
      ++c.cross_from[static_cast<size_t>(o.src)];
      EXPECT_EQ(d.status, tl::Status::kProtectionViolation) << o.src << " -> " << o.dst;
      if (o.op == tl::Opcode::kRead) {
        EXPECT_EQ(tr.read_back[k][0], 0xee) << "a rejected read returned data";
      }
      if (o.op == tl::Opcode::kAtomicR) {
        EXPECT_EQ(tr.add_old[k], 0xdeadbeefu) << "a rejected atomic returned a value";
      }
      continue;
    }
    ++c.in_pod;
    EXPECT_EQ(d.status, tl::Status::kOkay) << o.src << " -> " << o.dst;
    EXPECT_EQ(d.cycle, (done_without[{o.src * n + o.dst, static_cast<int>(o.op)}])) << o.src << " -> " << o.dst;
    const auto& mem = expect[static_cast<size_t>(o.dst)];
    if (o.op == tl::Opcode::kRead) {
      for (int b = 0; b < 64; ++b) EXPECT_EQ(tr.read_back[k][static_cast<size_t>(b)], mem[0x100 + static_cast<size_t>(b)]);
    }
    if (o.op == tl::Opcode::kWrite)
      std::memcpy(expect[static_cast<size_t>(o.dst)].data() + 0x8000 + 64 * o.src, tr.write_data[k].data(), 64);
    if (o.op == tl::Opcode::kAtomicR) {
      uint8_t* at = expect[static_cast<size_t>(o.dst)].data() + 0x3000 + 8 * o.src;
      EXPECT_EQ(tr.add_old[k], le64(at));
      const uint64_t now = le64(at) + tr.add_operand[k];
      for (int b = 0; b < 8; ++b) at[b] = static_cast<uint8_t>(now >> (8 * b));
    }
  }
  const endpoint::TxnResult& r = f.endpoints().result();
  EXPECT_EQ(r.statuses[static_cast<size_t>(tl::Status::kProtectionViolation)], c.cross);
  EXPECT_EQ(r.statuses[static_cast<size_t>(tl::Status::kOkay)], c.in_pod);
  EXPECT_EQ(r.requests_answered, r.requests_issued);
  // Every memory byte for byte: the pattern, plus the in-pod writes and adds, nothing else.
  for (int e = 0; e < n; ++e) {
    std::vector<uint8_t> got(kPatternBytes);
    f.endpoints().memory(e).read(0, got.data(), kPatternBytes);
    EXPECT_TRUE(got == expect[static_cast<size_t>(e)]) << "memory of accelerator " << e;
  }
  EXPECT_EQ(top::check_txn_drained(f), std::vector<std::string>{});
  EXPECT_EQ(top::check_txn_drained(g), std::vector<std::string>{});
  return c;
}

}  // namespace upswitch::testing
