// The switch's reduction engine against independent expectations: multicast stores land in
// every member and nowhere else; load-reduce returns the reduction a host computes; errors for
// requests the engine cannot serve; the zero-load load-reduce latency by hand, cycle for cycle;
// and Little's law for the context and ALU limits.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

#include "txn_support.h"

namespace upswitch::testing {
namespace {

using endpoint::TransferRequest;
using tl::Opcode;

struct Pipe {
  int link, route, sa, xbar, egress;
  // Head flit from an endpoint to an engine unit (or back): the unit's internal link is 1 cycle.
  int to_unit() const { return link + 1 + route + sa + xbar + egress; }
};

config::Config engine_config(const Pipe& p, std::vector<std::pair<std::string, std::string>> extra = {}) {
  auto sets = pipeline_sets(16, p.link, p.route, p.sa, p.xbar, p.egress, 50, 32);
  for (auto& kv : extra) sets.push_back(kv);
  return make_txn_config(sets);
}

// Runs one transfer from `src` to completion; returns its status and latency.
struct Done : endpoint::TransferClient {
  tl::Status status = tl::Status::kOkay;
  uint64_t at = 0;
  int count = 0;
  void transfer_done(uint64_t, tl::Status s, uint64_t cycle) override {
    status = s;
    at = cycle;
    ++count;
  }
};

std::pair<tl::Status, uint64_t> one(top::TxnFabric& f, int src, TransferRequest r) {
  Done d;
  r.client = &d;
  const uint64_t t0 = f.now();
  f.endpoints().submit(src, r, t0);
  EXPECT_TRUE(f.run_until_idle(10'000'000));
  EXPECT_EQ(d.count, 1);
  EXPECT_TRUE(top::check_txn_drained(f).empty());
  return {d.status, d.at - t0};
}

void put_u32(top::TxnFabric& f, int ep, uint64_t off, uint32_t v) {
  f.endpoints().memory(ep).write(off, reinterpret_cast<const uint8_t*>(&v), 4);
}
uint32_t get_u32(top::TxnFabric& f, int ep, uint64_t off) {
  uint32_t v;
  f.endpoints().memory(ep).read(off, reinterpret_cast<uint8_t*>(&v), 4);
  return v;
}

TEST(ReduceEngine, MulticastStoreReachesEveryMemberAndNoOneElse) {
  top::TxnFabric f(engine_config({3, 2, 1, 1, 2}), false);
  const std::vector<int> members = {1, 4, 9, 15};
  const int g = f.endpoints().define_group(members);
  std::vector<uint8_t> data(1000);
  for (size_t k = 0; k < data.size(); ++k) data[k] = static_cast<uint8_t>(k * 7 + 3);
  TransferRequest r;
  r.op = Opcode::kWrite;
  r.addr = f.endpoints().address_map().group_base(g) + 4100;
  r.bytes = data.size();
  r.data = data.data();
  EXPECT_EQ(one(f, 4, r).first, tl::Status::kOkay);
  for (int e = 0; e < 16; ++e) {
    std::vector<uint8_t> got(data.size());
    f.endpoints().memory(e).read(4100, got.data(), got.size());
    const bool member = std::find(members.begin(), members.end(), e) != members.end();
    EXPECT_EQ(got == data, member) << "endpoint " << e;
  }
  const auto& rr = f.endpoints().result().reduce;
  // 1000 B from offset 4100: requests of 252, 256, 256 and 236 B (no 256 B boundary crossed).
  EXPECT_EQ(rr.member_requests, 4u * 4u);
  EXPECT_EQ(rr.stores, 4u);
}

// Endpoint 0 multicast-stores `bytes` of a pattern (`op`: kWrite or kWriteFull) to group g's
// window from offset 0; checks that it completes and that every member then holds the pattern.
void store_to_group(top::TxnFabric& f, int g, const std::vector<int>& members, size_t bytes, Opcode op) {
  std::vector<uint8_t> data(bytes);
  for (size_t k = 0; k < data.size(); ++k) data[k] = static_cast<uint8_t>(k * 13 + 1);
  TransferRequest r;
  r.op = op;
  r.addr = f.endpoints().address_map().group_base(g);
  r.bytes = data.size();
  r.data = data.data();
  EXPECT_EQ(one(f, 0, r).first, tl::Status::kOkay);
  for (int e : members) {
    std::vector<uint8_t> got(data.size());
    f.endpoints().memory(e).read(0, got.data(), got.size());
    EXPECT_EQ(got, data) << "endpoint " << e;
  }
}

// Which unit serves a request (doc/reduction.md): one requester's multicast stores are spread over
// every unit of the switch, a 1 KiB run to each in turn. 64 KiB from endpoint 0 to a group of 4 on
// a 16-port switch (16 units) is 64 runs, 4 to each unit: each unit takes in 4 KiB and sends it to
// the 4 members, 16 KiB. (When each port had one unit, unit 16 carried all of it.)
TEST(ReduceEngine, OneRequestersStoresSpreadOverEveryUnit) {
  top::TxnFabric f(engine_config({3, 2, 1, 1, 2}), false);
  const std::vector<int> members = {3, 5, 8, 12};
  store_to_group(f, f.endpoints().define_group(members), members, 64 * 1024, Opcode::kWrite);
  ASSERT_EQ(f.endpoints().engine_units(), 16);
  const auto& ports = f.endpoints().result().ports;
  for (int u = 16; u < 32; ++u) {
    EXPECT_EQ(ports[static_cast<size_t>(u)].rx_payload_bytes, 4096u) << "unit " << u;
    EXPECT_EQ(ports[static_cast<size_t>(u)].tx_payload_bytes, 4u * 4096u) << "unit " << u;
  }
}

// The engine replicates a packet, not a message (doc/reduction.md): a run's four 256 B stores
// reach their unit in one packet, and each member gets its four copies back to back, so they
// share packets again, even where a transmitter's look-ahead (16 messages) could not find the
// next copy to the same member behind a request's copies to 16 members. 16 KiB of WriteFull from
// endpoint 0 to all 16 endpoints is 16 runs, one to each of the 16 units. Without header
// compression a control half-flit holds two request headers (4 sectors each, tl/packet_format.h),
// so a member's four copies are two packets of (1 + 2 x 8 + 1) / 2 = 9 flits: 16 x 18 = 288 flits
// from each unit, and its four write responses to endpoint 0 (1 to 4 flits). One copy to a packet
// would be 16 x 4 x 5 = 320 flits.
TEST(ReduceEngine, EachMemberGetsARunsCopiesInSharedPackets) {
  top::TxnFabric f(engine_config({3, 2, 1, 1, 2}, {{"tl.compression", "false"}}), false);
  std::vector<int> members(16);
  for (int e = 0; e < 16; ++e) members[static_cast<size_t>(e)] = e;
  store_to_group(f, f.endpoints().define_group(members), members, 16 * 1024, Opcode::kWriteFull);
  ASSERT_EQ(f.endpoints().engine_units(), 16);
  const auto& ports = f.endpoints().result().ports;
  for (int u = 16; u < 32; ++u) {
    EXPECT_EQ(ports[static_cast<size_t>(u)].rx_payload_bytes, 1024u) << "unit " << u;
    EXPECT_EQ(ports[static_cast<size_t>(u)].tx_payload_bytes, 16u * 1024u) << "unit " << u;
    const uint64_t tx = ports[static_cast<size_t>(u)].tx_flits;
    if (u == 16) {  // run 0 leaves endpoint 0 in more packets (its transmitter starts with the
      EXPECT_LE(tx, 16u * 20u + 4u);  // first request alone), and its copies keep those packets
      continue;
    }
    EXPECT_GE(tx, 16u * 18u + 1u) << "unit " << u;
    EXPECT_LE(tx, 16u * 18u + 4u) << "unit " << u;
  }
}

TEST(ReduceEngine, LoadReduceReturnsTheReductionOfEveryMember) {
  top::TxnFabric f(engine_config({3, 2, 1, 1, 2}), false);
  const std::vector<int> members = {0, 2, 3, 7, 11};
  const int g = f.endpoints().define_group(members);
  // s32 max and sum over 64 elements; the host computes the expected values independently.
  std::vector<int32_t> want_max(64, INT32_MIN), want_sum(64, 0);
  for (int e : members)
    for (int k = 0; k < 64; ++k) {
      const auto v = static_cast<int32_t>((e * 977 + k * 131) % 2001) - 1000;
      put_u32(f, e, 8192 + 4 * static_cast<uint64_t>(k), static_cast<uint32_t>(v));
      want_max[static_cast<size_t>(k)] = std::max(want_max[static_cast<size_t>(k)], v);
      want_sum[static_cast<size_t>(k)] += v;
    }
  for (tl::RedOp op : {tl::RedOp::kMax, tl::RedOp::kSum}) {
    std::vector<int32_t> got(64);
    TransferRequest r;
    r.op = Opcode::kRead;
    r.addr = f.endpoints().address_map().group_base(g) + 8192;
    r.bytes = 256;
    r.rtype = tl::RedType::kS32;
    r.rop = op;
    r.result = reinterpret_cast<uint8_t*>(got.data());
    EXPECT_EQ(one(f, 6, r).first, tl::Status::kOkay);  // a non-member may load-reduce too
    EXPECT_EQ(got, op == tl::RedOp::kMax ? want_max : want_sum);
  }
}

TEST(ReduceEngine, ReduceAtDestinationsUpdatesEveryMember) {
  top::TxnFabric f(engine_config({3, 2, 1, 1, 2}), false);
  const int g = f.endpoints().define_group({2, 5});
  put_u32(f, 2, 64, 10);
  put_u32(f, 5, 64, 1000);
  const uint32_t add = 7;
  TransferRequest r;
  r.op = Opcode::kReduce;
  r.addr = f.endpoints().address_map().group_base(g) + 64;
  r.bytes = 4;
  r.rtype = tl::RedType::kU32;
  r.data = reinterpret_cast<const uint8_t*>(&add);
  EXPECT_EQ(one(f, 0, r).first, tl::Status::kOkay);
  EXPECT_EQ(get_u32(f, 2, 64), 17u);
  EXPECT_EQ(get_u32(f, 5, 64), 1007u);
}

TEST(ReduceEngine, RequestsItCannotServeGetErrors) {
  top::TxnFabric f(engine_config({3, 2, 1, 1, 2}, {{"accel.memory_bytes", "1048576"}}), false);
  const tl::AddressMap& map = f.endpoints().address_map();
  const int g = f.endpoints().define_group({1, 2});
  TransferRequest r;
  r.op = Opcode::kRead;
  r.bytes = 64;
  r.addr = map.group_base(g + 1);  // a group window with no group in it
  EXPECT_EQ(one(f, 0, r).first, tl::Status::kDecodeError);
  r.addr = map.group_base(g);
  r.rtype = tl::RedType::kF32;
  r.rop = tl::RedOp::kXor;  // not defined on floats
  EXPECT_EQ(one(f, 0, r).first, tl::Status::kUnsupported);
  r.op = Opcode::kAtomicR;  // atomics are not multicast
  r.bytes = 8;
  EXPECT_EQ(one(f, 0, r).first, tl::Status::kUnsupported);
  r.op = Opcode::kRead;
  r.rop = tl::RedOp::kSum;
  r.addr = map.group_base(g) + 2;  // misaligned for f32: the initiator's format check
  r.bytes = 4;
  EXPECT_EQ(one(f, 0, r).first, tl::Status::kMisaligned);
  r.addr = map.group_base(g) + map.memory;  // beyond the members' memory: their decode errors
  EXPECT_EQ(one(f, 0, r).first, tl::Status::kDecodeError);
  EXPECT_EQ(f.endpoints().result().reduce.rejected, 3u);

  top::TxnFabric off(engine_config({3, 2, 1, 1, 2}, {{"reduce.enable", "false"}}), false);
  r.addr = off.endpoints().address_map().group_base(0);
  EXPECT_EQ(one(off, 0, r).first, tl::Status::kDecodeError);
}

// Zero load, one 4 B load-reduce from endpoint 6 over M members, by hand:
//   request to the unit: hop (1 flit); the unit sends the M member reads one per cycle; the first
//   takes hop to its member, 1 cycle of memory (4 B at 32 B/cycle) + 50 latency, and its response
//   (2 flits: control + one beat) hop back; the M responses, ready one cycle apart, then share the
//   unit's link, 2 flits each, so the last tail arrives 2M - 1 cycles after the first head; the ALU
//   takes 1 cycle for that last 4 B contribution and alu_latency more; the answer (2 flits) goes
//   hop + 1 back.
TEST(ReduceEngine, ZeroLoadLoadReduceLatencyByHand) {
  for (const Pipe& p : {Pipe{3, 2, 1, 1, 2}, Pipe{20, 8, 4, 4, 16}})
    for (int m : {1, 3, 8})
      for (int alu_lat : {0, 6}) {
        top::TxnFabric f(engine_config(p, {{"reduce.alu_latency_cycles", std::to_string(alu_lat)}}), false);
        std::vector<int> members;
        for (int k = 0; k < m; ++k) members.push_back(8 + k);
        const int g = f.endpoints().define_group(members);
        uint32_t out = 0;
        TransferRequest r;
        r.op = Opcode::kRead;
        r.addr = f.endpoints().address_map().group_base(g) + 256;
        r.bytes = 4;
        r.result = reinterpret_cast<uint8_t*>(&out);
        const uint64_t hop = static_cast<uint64_t>(p.to_unit());
        const uint64_t want = hop + hop + 1 + 50 + hop + static_cast<uint64_t>(2 * m - 1) + 1 +
                              static_cast<uint64_t>(alu_lat) + hop + 1;
        EXPECT_EQ(one(f, 6, r).second, want) << "link " << p.link << ", " << m << " members, alu latency " << alu_lat;
      }
}

// One initiator streams load-reduces of 256 B over a group of 4 with few contexts: the unit
// holds each context for W cycles (accept -> response ready), so by Little's law it completes
// contexts / W requests per cycle. W is taken from one request at zero load; the memory latency is
// long enough that the gathers (4 x 5 flits each) keep the unit's link lightly loaded. One unit
// (reduce.units = 1), which every request then goes to.
TEST(ReduceEngine, FewContextsLimitBandwidthByLittlesLaw) {
  const Pipe p{20, 8, 4, 4, 16};
  for (int contexts : {2, 4, 8}) {
    auto cfg = engine_config(p, {{"reduce.contexts", std::to_string(contexts)},
                                 {"reduce.units", "1"},
                                 {"accel.mem_bytes_per_cycle", "2048"},
                                 {"accel.mem_latency_cycles", "400"}});
    top::TxnFabric f(cfg, false);
    const int g = f.endpoints().define_group({8, 9, 10, 11});
    TransferRequest r;
    r.op = Opcode::kRead;
    r.addr = f.endpoints().address_map().group_base(g);
    r.bytes = 256;
    one(f, 0, r);
    const auto& rr = f.endpoints().result().reduce;
    const double w = static_cast<double>(rr.context_cycles);  // one operation
    const uint64_t ops0 = rr.load_reduces, cyc0 = rr.context_cycles;
    r.bytes = 256 * 200;
    const uint64_t took = one(f, 0, r).second;
    ASSERT_EQ(rr.load_reduces - ops0, 200u);
    const double predicted = contexts / w * 256;  // bytes per cycle
    const double measured = 256.0 * 200 / static_cast<double>(took);
    EXPECT_NEAR(measured / predicted, 1.0, 0.15) << contexts << " contexts, W = " << w << " cycles, mean W under load "
                                                 << static_cast<double>(rr.context_cycles - cyc0) / 200;
  }
}

// A slow ALU: 256 B contributions at 4 B per cycle take 64 cycles each, 8 of them per request:
// the unit completes one load-reduce per 512 cycles whatever its contexts (one unit,
// reduce.units = 1, which every request then goes to).
TEST(ReduceEngine, SlowAluLimitsBandwidthToItsRate) {
  auto cfg = engine_config({3, 2, 1, 1, 2},
                           {{"reduce.alu_elems_per_cycle", "1"}, {"accel.mem_bytes_per_cycle", "2048"}, {"reduce.units", "1"}});
  top::TxnFabric f(cfg, false);
  const int g = f.endpoints().define_group({8, 9, 10, 11, 12, 13, 14, 15});
  TransferRequest r;
  r.op = Opcode::kRead;
  r.addr = f.endpoints().address_map().group_base(g);
  r.bytes = 256 * 200;
  const uint64_t took = one(f, 0, r).second;
  const double predicted = 256.0 / (8 * 64);
  EXPECT_NEAR(256.0 * 200 / static_cast<double>(took) / predicted, 1.0, 0.15);
  EXPECT_EQ(f.endpoints().result().reduce.alu_busy_cycles, 200u * 8 * 64);
}

// The units' receive buffer is their own: the crossbar outputs feeding them hold its credits, the
// accelerators' keep theirs, and the conservation check (run every 64 cycles) balances each side
// against its own size. With no shared part and one context, gathers still complete, correctly.
TEST(ReduceEngine, UnitsHaveTheirOwnReceiveBuffer) {
  for (const char* shared : {"0", "2048"}) {
    auto cfg = engine_config({3, 2, 1, 1, 2}, {{"reduce.rx_shared_flits", shared},
                                               {"reduce.contexts", "1"},
                                               {"sim.check_interval_cycles", "64"}});
    top::TxnFabric f(cfg, false);
    const uint64_t lanes = static_cast<uint64_t>(cfg.sw.lanes()), vc = static_cast<uint64_t>(cfg.endpoint_rx.vc_flits);
    EXPECT_EQ(f.sw().output_credits(16).capacity(), lanes * vc + std::stoull(shared));  // unit 0
    EXPECT_EQ(f.sw().output_credits(3).capacity(), lanes * vc + static_cast<uint64_t>(cfg.endpoint_rx.shared_flits));
    const int g = f.endpoints().define_group({8, 9, 10, 11});
    for (int m = 8; m < 12; ++m) {
      const uint32_t v = 100 + static_cast<uint32_t>(m);
      for (uint64_t off = 0; off < 4096; off += 4) f.endpoints().memory(m).write(off, reinterpret_cast<const uint8_t*>(&v), 4);
    }
    // Four initiators load-reduce 4 KiB each at once: requests queue in the unit's buffer.
    static uint8_t got[4][4096];
    Done d;
    for (int src = 0; src < 4; ++src) {
      TransferRequest r;
      r.op = Opcode::kRead;
      r.addr = f.endpoints().address_map().group_base(g);
      r.bytes = 4096;
      r.rtype = tl::RedType::kU32;
      r.result = got[src];
      r.client = &d;
      f.endpoints().submit(src, r, 0);
    }
    ASSERT_TRUE(f.run_until_idle(10'000'000));
    EXPECT_EQ(d.count, 4);
    EXPECT_EQ(d.status, tl::Status::kOkay);
    EXPECT_TRUE(top::check_txn_drained(f).empty());
    for (int src = 0; src < 4; ++src) {
      uint32_t sum;
      std::memcpy(&sum, got[src] + 4092, 4);
      EXPECT_EQ(sum, 108u + 109u + 110u + 111u) << "rx_shared_flits " << shared;
    }
  }
}

TEST(ReduceEngine, GroupTableRejectsBadGroups) {
  top::TxnFabric f(engine_config({3, 2, 1, 1, 2}, {{"reduce.groups", "2"}}), false);
  EXPECT_THROW(f.endpoints().define_group({}), std::invalid_argument);
  EXPECT_THROW(f.endpoints().define_group({1, 16}), std::invalid_argument);
  EXPECT_THROW(f.endpoints().define_group({1, 1}), std::invalid_argument);
  EXPECT_EQ(f.endpoints().define_group({1}), 0);
  EXPECT_EQ(f.endpoints().define_group({2}), 1);
  EXPECT_THROW(f.endpoints().define_group({3}), std::invalid_argument);
  f.endpoints().release_group(0);
  EXPECT_EQ(f.endpoints().define_group({3}), 0);
}

}  // namespace
}  // namespace upswitch::testing
