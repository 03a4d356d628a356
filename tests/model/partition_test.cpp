// Virtual pods (partition.pods) against independent expectations: every cross-pod request is
// rejected at the switch with protection_violation, counted exactly, and never touches the
// target's memory; in-pod traffic in the same run completes with the right data at exactly the
// latency it has in a run without a partition table; the reject's latency is the request packet's
// one-way time by hand; multicast operations and collectives stay inside one pod.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "coll/runner.h"
#include "fault_support.h"

namespace upswitch::testing {
namespace {

using endpoint::TransferRequest;
using tl::Opcode;
using tl::Status;

const std::pair<std::string, std::string> kTwoPods{"partition.pods", "0,0,0,0,1,1,1,1"};
constexpr uint64_t kPatternBytes = 0x9000;

int pod(int port) { return port < 4 ? 0 : 1; }
uint8_t pattern(int e, uint64_t off) { return static_cast<uint8_t>(e * 31 + off * 7 + 1); }

// Every endpoint's memory [0, kPatternBytes) holds the pattern; returns the host's copy.
std::vector<std::vector<uint8_t>> fill_memories(top::TxnFabric& f) {
  std::vector<std::vector<uint8_t>> mem(8, std::vector<uint8_t>(kPatternBytes));
  for (int e = 0; e < 8; ++e) {
    for (uint64_t o = 0; o < kPatternBytes; ++o) mem[static_cast<size_t>(e)][o] = pattern(e, o);
    f.endpoints().memory(e).write(0, mem[static_cast<size_t>(e)].data(), kPatternBytes);
  }
  return mem;
}

uint64_t le64(const uint8_t* b) {
  uint64_t v = 0;
  for (int k = 7; k >= 0; --k) v = (v << 8) | b[k];
  return v;
}

// The traffic of one run: in round r (at cycle 2000 r), the ports of `crossing(r)` try a read, a
// write and a fetch-add on every port of the other pod, while the other ports do the same among
// themselves inside their pod. Rejected packets never leave their input, and the in-pod traffic
// of a round neither starts nor ends at a crossing port, so the two never share a link.
struct Traffic {
  struct Op {
    int src, dst, id;
    Opcode op;
    bool cross;
  };
  std::vector<Op> ops;
  std::array<std::array<uint8_t, 64>, 64> write_data{};  // by src*8+dst
  std::array<std::array<uint8_t, 64>, 64> read_back{};
  std::array<uint64_t, 64> add_operand{}, add_old{};

  static bool crossing(int round, int port) { return (port % 4 < 2) == (round == 0); }

  // Schedules the traffic; with `cross` false the crossing attempts are left out.
  void schedule(Schedule& s, top::TxnFabric& f, bool cross) {
    const tl::AddressMap& map = f.endpoints().address_map();
    for (int round = 0; round < 2; ++round)
      for (int src = 0; src < 8; ++src)
        for (int dst = 0; dst < 8; ++dst) {
          const bool is_cross = pod(src) != pod(dst);
          if (src == dst) continue;
          if (is_cross != crossing(round, src) || (!is_cross && crossing(round, dst))) continue;
          if (is_cross && !cross) continue;
          const size_t k = static_cast<size_t>(src * 8 + dst);
          for (int b = 0; b < 64; ++b)
            write_data[k][static_cast<size_t>(b)] = static_cast<uint8_t>(src * 13 + dst * 17 + b);
          read_back[k].fill(0xee);
          add_operand[k] = static_cast<uint64_t>(src + 1);
          add_old[k] = 0xdeadbeef;
          const uint64_t at = 2000 * static_cast<uint64_t>(round);
          const uint64_t base = map.window_base(dst);
          TransferRequest w;
          w.op = Opcode::kWrite;
          w.addr = base + (is_cross ? 0x1000 : 0x8000) + 64 * static_cast<uint64_t>(src);
          w.bytes = 64;
          w.data = write_data[k].data();
          ops.push_back({src, dst, s.add(at, src, w), Opcode::kWrite, is_cross});
          TransferRequest r;
          r.op = Opcode::kRead;
          r.addr = base + 0x100;
          r.bytes = 64;
          r.result = read_back[k].data();
          ops.push_back({src, dst, s.add(at, src, r), Opcode::kRead, is_cross});
          TransferRequest a;
          a.op = Opcode::kAtomicR;
          a.aop = tl::AtomicOp::kAdd;
          a.elem_bytes = 8;
          a.addr = base + (is_cross ? 0x2000 : 0x3000) + 8 * static_cast<uint64_t>(src);
          a.bytes = 8;
          a.data = reinterpret_cast<const uint8_t*>(&add_operand[k]);
          a.result = reinterpret_cast<uint8_t*>(&add_old[k]);
          ops.push_back({src, dst, s.add(at, src, a), Opcode::kAtomicR, is_cross});
        }
  }
};

TEST(Partition, CrossPodRequestsAreRejectedAtTheSwitchAndInPodTrafficIsUntouched) {
  top::TxnFabric f(fault_config(kFaultPipe, {kTwoPods}), false);
  auto expect = fill_memories(f);
  Schedule s(f);
  Traffic tr;
  tr.schedule(s, f, true);
  ASSERT_TRUE(s.run());
  ASSERT_EQ(s.completed(), tr.ops.size());

  // The same in-pod traffic on a switch without a partition table (independent expectation).
  top::TxnFabric g(fault_config(kFaultPipe, {}), false);
  fill_memories(g);
  Schedule sg(g);
  Traffic tg;
  tg.schedule(sg, g, false);
  ASSERT_TRUE(sg.run());

  uint64_t cross = 0, in_pod = 0;
  std::array<uint64_t, 8> cross_from{};
  std::map<std::pair<int, int>, uint64_t> latency_without;  // (src*8+dst, op) -> completion cycle
  for (const Traffic::Op& o : tg.ops)
    latency_without[{o.src * 8 + o.dst, static_cast<int>(o.op)}] = sg.done(o.id).cycle;
  for (const Traffic::Op& o : tr.ops) {
    const Schedule::Done& d = s.done(o.id);
    EXPECT_EQ(d.count, 1);
    const size_t k = static_cast<size_t>(o.src * 8 + o.dst);
    if (o.cross) {
      ++cross;
      ++cross_from[static_cast<size_t>(o.src)];
      EXPECT_EQ(d.status, Status::kProtectionViolation) << o.src << " -> " << o.dst;
      if (o.op == Opcode::kRead) {
        EXPECT_EQ(tr.read_back[k][0], 0xee) << "a rejected read returned data";
      }
      if (o.op == Opcode::kAtomicR) {
        EXPECT_EQ(tr.add_old[k], 0xdeadbeefu) << "a rejected atomic returned a value";
      }
      continue;
    }
    ++in_pod;
    EXPECT_EQ(d.status, Status::kOkay) << o.src << " -> " << o.dst;
    EXPECT_EQ(d.cycle, (latency_without[{o.src * 8 + o.dst, static_cast<int>(o.op)}])) << o.src << " -> " << o.dst;
    const auto& mem = expect[static_cast<size_t>(o.dst)];
    if (o.op == Opcode::kRead) {
      for (int b = 0; b < 64; ++b)
        EXPECT_EQ(tr.read_back[k][static_cast<size_t>(b)], mem[0x100 + static_cast<size_t>(b)]);
    }
    if (o.op == Opcode::kWrite)
      std::memcpy(expect[static_cast<size_t>(o.dst)].data() + 0x8000 + 64 * o.src, tr.write_data[k].data(), 64);
    if (o.op == Opcode::kAtomicR) {
      uint8_t* at = expect[static_cast<size_t>(o.dst)].data() + 0x3000 + 8 * o.src;
      EXPECT_EQ(tr.add_old[k], le64(at));
      const uint64_t now = le64(at) + tr.add_operand[k];
      for (int b = 0; b < 8; ++b) at[b] = static_cast<uint8_t>(now >> (8 * b));
    }
  }
  EXPECT_EQ(cross, 32u * 3u);  // every ordered pair across the pods, three operations each
  EXPECT_EQ(in_pod, 8u * 3u);  // (2,3), (3,2), (6,7), (7,6), then (0,1), (1,0), (4,5), (5,4)
  // The switch's counters: requests rejected, per input port.
  const core::SwitchStats& st = f.sw().stats();
  for (int p = 0; p < 8; ++p) {
    EXPECT_EQ(st.protection_violations[static_cast<size_t>(p)], cross_from[static_cast<size_t>(p)]) << p;
    EXPECT_EQ(cross_from[static_cast<size_t>(p)], 4u * 3u) << p;
  }
  EXPECT_EQ(sum(st.target_aborts), 0u);
  EXPECT_EQ(sum(st.dropped_packets), 0u);
  const endpoint::TxnResult& r = f.endpoints().result();
  EXPECT_EQ(r.statuses[static_cast<size_t>(Status::kProtectionViolation)], cross);
  EXPECT_EQ(r.statuses[static_cast<size_t>(Status::kOkay)], in_pod);
  EXPECT_EQ(r.requests_answered, r.requests_issued);
  // Every memory byte for byte: the pattern, plus the in-pod writes and adds, nothing else.
  for (int e = 0; e < 8; ++e) {
    std::vector<uint8_t> got(kPatternBytes);
    f.endpoints().memory(e).read(0, got.data(), kPatternBytes);
    EXPECT_TRUE(got == expect[static_cast<size_t>(e)]) << "memory of endpoint " << e;
  }
  EXPECT_EQ(top::check_txn_drained(f), std::vector<std::string>{});
  EXPECT_EQ(top::check_txn_drained(g), std::vector<std::string>{});
}

// The reject travels like the request packet's own head to the target: ingress link, routing,
// then the output pipeline and the requester's downlink, after the tail was consumed.
TEST(Partition, RejectLatencyIsTheRequestPacketsOneWayTime) {
  struct Case {
    Opcode op;
    uint64_t bytes;
    int flits;  // request packet, by hand (doc/transactions.md)
  };
  const Case cases[] = {{Opcode::kRead, 64, 1}, {Opcode::kAtomicR, 8, 2}, {Opcode::kWrite, 256, 5}};
  for (const FaultPipe& p : {FaultPipe{3, 2, 1, 1, 2}, FaultPipe{20, 8, 4, 4, 16}, FaultPipe{5, 0, 1, 1, 1}}) {
    for (const Case& c : cases) {
      top::TxnFabric f(fault_config(p, {kTwoPods}), false);
      static uint8_t buf[256];
      TransferRequest r;
      r.op = c.op;
      r.aop = tl::AtomicOp::kAdd;
      r.elem_bytes = 8;
      r.addr = f.endpoints().address_map().window_base(6) + 512;
      r.bytes = c.bytes;
      r.data = buf;
      r.result = buf;
      Schedule s(f);
      const int id = s.add(10, 1, r);
      ASSERT_TRUE(s.run());
      EXPECT_EQ(s.done(id).status, Status::kProtectionViolation);
      EXPECT_EQ(s.done(id).cycle - 10, p.one_way(c.flits)) << tl::opcode_name(c.op) << " link " << p.link;
      EXPECT_EQ(f.sw().stats().flits_discarded, static_cast<uint64_t>(c.flits));
      EXPECT_EQ(top::check_txn_drained(f), std::vector<std::string>{});
    }
  }
}

config::Config engine_config() { return fault_config(kFaultPipe, {kTwoPods, {"accel.memory_bytes", "1048576"}}); }

TEST(Partition, MulticastStaysInsideOnePod) {
  top::TxnFabric f(engine_config(), false);
  const int inside = f.endpoints().define_group({1, 2, 3});
  const int across = f.endpoints().define_group({2, 5});
  std::vector<uint8_t> data(256, 0x5a), zeros(256, 0);
  Schedule s(f);
  TransferRequest w;
  w.op = Opcode::kWrite;
  w.bytes = 256;
  w.data = data.data();
  w.addr = f.endpoints().address_map().group_base(inside) + 4096;
  const int ok = s.add(0, 0, w);        // requester and members in pod 0
  const int outsider = s.add(0, 5, w);  // requester in pod 1
  w.addr = f.endpoints().address_map().group_base(across) + 8192;
  const int spanning = s.add(0, 2, w);  // members in both pods
  std::vector<uint8_t> sum_out(256, 0xee);
  TransferRequest lr;
  lr.op = Opcode::kRead;
  lr.rtype = tl::RedType::kS32;
  lr.rop = tl::RedOp::kSum;
  lr.bytes = 256;
  lr.result = sum_out.data();
  lr.addr = f.endpoints().address_map().group_base(across) + 8192;
  const int load_reduce = s.add(0, 5, lr);
  ASSERT_TRUE(s.run());
  EXPECT_EQ(s.done(ok).status, Status::kOkay);
  EXPECT_EQ(s.done(outsider).status, Status::kProtectionViolation);
  EXPECT_EQ(s.done(spanning).status, Status::kProtectionViolation);
  EXPECT_EQ(s.done(load_reduce).status, Status::kProtectionViolation);
  EXPECT_EQ(sum_out, std::vector<uint8_t>(256, 0xee));
  for (int e = 0; e < 8; ++e) {
    std::vector<uint8_t> got(256);
    f.endpoints().memory(e).read(4096, got.data(), 256);
    EXPECT_EQ(got, e >= 1 && e <= 3 ? data : zeros) << "endpoint " << e;
    f.endpoints().memory(e).read(8192, got.data(), 256);
    EXPECT_EQ(got, zeros) << "endpoint " << e;
  }
  const endpoint::ReduceResult& rr = f.endpoints().result().reduce;
  EXPECT_EQ(rr.stores, 1u);
  EXPECT_EQ(rr.member_requests, 3u);  // only the in-pod store reached members
  EXPECT_EQ(rr.rejected, 3u);
  EXPECT_EQ(top::check_txn_drained(f), std::vector<std::string>{});
}

TEST(Partition, CollectiveAcrossPodsFailsBeforeItStarts) {
  top::TxnFabric f(engine_config(), false);
  coll::CollectiveRunner runner(f);
  coll::CollectiveSpec spec;
  spec.coll = coll::Collective::kAllReduce;
  spec.algo = coll::Algorithm::kRing;
  spec.bytes = 4096;
  spec.ranks = {2, 3, 4};
  try {
    runner.add(spec, 0);
    FAIL() << "a collective across pods was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("ranks 2 (pod 0) and 4 (pod 1) are in different virtual pods"),
              std::string::npos)
        << e.what();
  }
  spec.ranks = {4, 5, 6, 7};  // one pod: runs
  spec.algo = coll::Algorithm::kSwitch;
  runner.add(spec, 0);
  ASSERT_TRUE(runner.run(10'000'000));
  EXPECT_EQ(runner.get(0).status, Status::kOkay);
}

}  // namespace
}  // namespace upswitch::testing
