// Transaction timing against hand arithmetic: zero-load round trips as the sum of the switch
// pipeline, packet serialisation and the memory's access time, cycle for cycle; and the
// transaction layer's protocol efficiency from the UALink header and data-half-flit sizes.
#include <gtest/gtest.h>

#include <cstring>

#include <memory>

#include "txn_support.h"

namespace upswitch::testing {
namespace {

using endpoint::TransferRequest;
using tl::Opcode;

struct Pipe {
  int link, route, sa, xbar, egress;
  int base() const { return 2 * link + route + sa + xbar + egress; }  // head flit, endpoint to endpoint
};

std::vector<std::pair<std::string, std::string>> pipe_sets(const Pipe& p, int mem_latency, int mem_bpc, int vcs) {
  auto sets = pipeline_sets(8, p.link, p.route, p.sa, p.xbar, p.egress, mem_latency, mem_bpc);
  sets.emplace_back("switch.vcs", std::to_string(vcs));
  return sets;
}

// Submits one transfer on an idle fabric and returns its latency (submission to completion).
uint64_t one_transfer(top::TxnFabric& f, TransferRequest r) {
  static uint8_t buf[4096];
  r.data = buf;
  r.result = buf;
  const uint64_t before = f.endpoints().result().ops[static_cast<size_t>(r.op)].latency.count();
  const uint64_t t0 = f.now();
  f.endpoints().submit(2, r, t0);
  EXPECT_TRUE(f.run_until_idle(1'000'000));
  const auto& h = f.endpoints().result().ops[static_cast<size_t>(r.op)].latency;
  EXPECT_EQ(h.count(), before + 1);
  return h.max();
}

struct Case {
  const char* what;
  Opcode op;
  uint64_t offset, bytes;
  int req_flits, resp_flits;  // by hand from facts §1.6 (see packet_format.h)
};

TEST(TxnZeroLoad, RoundTripIsPipelinePlusSerialisationPlusMemory) {
  // req/resp flits: ceil((1 control half + data halves) / 2); a 64 B beat is 2 halves, a write
  // adds a byte-enable half, an atomic carries 3 halves, responses carry read data / old values.
  const Case cases[] = {
      {"read 4 B", Opcode::kRead, 0, 4, 1, 2},
      {"atomic_nr 8 B", Opcode::kAtomicNR, 8, 8, 2, 1},
      {"read 8 B across a beat", Opcode::kRead, 60, 8, 1, 3},
      {"write 64 B", Opcode::kWrite, 256, 64, 2, 1},
      {"atomic_r 8 B", Opcode::kAtomicR, 512, 8, 2, 2},
      {"writefull 128 B", Opcode::kWriteFull, 768, 128, 3, 1},
      {"read 256 B", Opcode::kRead, 1024, 256, 1, 5},
      {"write 256 B", Opcode::kWrite, 1280, 256, 5, 1},
  };
  for (const Pipe& p : {Pipe{3, 2, 1, 1, 2}, Pipe{20, 8, 4, 4, 16}}) {
    for (int bpc : {32, 2048}) {
      const int mem_lat = 50;
      for (const Case& c : cases) {
        auto f = std::make_unique<top::TxnFabric>(make_txn_config(pipe_sets(p, mem_lat, bpc, 4)), false);
        TransferRequest r;
        r.op = c.op;
        r.addr = f->endpoints().address_map().window_base(5) + c.offset;
        r.bytes = c.bytes;
        const uint64_t ser = (c.bytes + static_cast<uint64_t>(bpc) - 1) / static_cast<uint64_t>(bpc);
        const uint64_t want = static_cast<uint64_t>(p.base() + c.req_flits - 1) + ser + mem_lat +
                              static_cast<uint64_t>(p.base() + c.resp_flits - 1);
        EXPECT_EQ(one_transfer(*f, r), want) << c.what << ", link " << p.link << ", " << bpc << " B/cycle";
      }
    }
  }
}

// A 1 KiB read is four 256 B requests issued on consecutive cycles. With 2 KiB/cycle memory the
// four responses are ready on consecutive cycles, behind the first one's 5 flits:
//  * four VCs: the requests' 256 B regions map to four VCs, so are their responses, each its own
//    5-flit packet, back to back: the last tail leaves 19 cycles after the first head.
//  * one VC: responses 2-4 queue behind the first and leave as one packet of three compressed
//    headers (3 sectors) and 24 data halves = 13 flits: the tail leaves 5 + 12 = 17 cycles later.
TEST(TxnZeroLoad, MultiRequestTransferPacksQueuedResponses) {
  const Pipe p{3, 2, 1, 1, 2};
  const int mem_lat = 50;
  for (int vcs : {4, 1}) {
    auto f = std::make_unique<top::TxnFabric>(make_txn_config(pipe_sets(p, mem_lat, 2048, vcs)), false);
    TransferRequest r;
    r.op = Opcode::kRead;
    r.addr = f->endpoints().address_map().window_base(5);
    r.bytes = 1024;
    const uint64_t first_ready = static_cast<uint64_t>(p.base()) + 1 + mem_lat;  // request 1 flit, 1 cycle memory
    const uint64_t last_tail_leaves = vcs == 4 ? 19 : 17;
    EXPECT_EQ(one_transfer(*f, r), first_ready + last_tail_leaves + static_cast<uint64_t>(p.base())) << vcs << " VCs";
    const auto& res = f->endpoints().result();
    EXPECT_EQ(res.window_packets[1], vcs == 4 ? 4u : 2u);
    EXPECT_EQ(res.window_flits[1], vcs == 4 ? 20u : 18u);
  }
}

// The memory is a bandwidth (doc/transactions.md "Completer"): writes that together move less
// than a cycle's bytes finish on the same cycle. A 1 KiB WriteFull on one VC is four 256 B
// requests issued on consecutive cycles: the first leaves alone (1 control half + 8 data halves =
// 5 flits), the other three queue behind it and leave as one packet of 13 flits (as the read's
// responses above), so the second packet's tail reaches the completer 17 cycles after the first's
// head, at base + 17. Its three writes, 768 B against 2048 B a cycle, are all done one cycle later
// and their three responses are ready together at base + 18 + 50: they leave in one 1-flit packet
// and arrive base later. A memory that took a cycle per access would answer them on three cycles,
// in three packets, and the transfer would end two cycles later (94).
TEST(TxnZeroLoad, SmallWritesShareAMemoryCycle) {
  const Pipe p{3, 2, 1, 1, 2};
  const int mem_lat = 50;
  auto f = std::make_unique<top::TxnFabric>(make_txn_config(pipe_sets(p, mem_lat, 2048, 1)), false);
  TransferRequest r;
  r.op = Opcode::kWriteFull;
  r.addr = f->endpoints().address_map().window_base(5);
  r.bytes = 1024;
  EXPECT_EQ(one_transfer(*f, r), static_cast<uint64_t>(2 * p.base() + 17 + 1 + mem_lat));  // 92
  const auto& res = f->endpoints().result();
  EXPECT_EQ(res.window_packets[0], 2u);  // requests
  EXPECT_EQ(res.window_flits[0], 18u);
  EXPECT_EQ(res.window_packets[1], 2u);  // responses: the first write's, then the other three's
  EXPECT_EQ(res.window_flits[1], 2u);
}

// Protocol efficiency of a long stream of 256 B writes from one endpoint to another, one VC,
// one request per cycle: the first packet carries one (uncompressed: address-cache miss) message;
// every later one packs as many as its control half-flit holds, since the queue stays longer.
double stream_efficiency(bool compression, Opcode op, uint64_t& flits) {
  auto cfg = make_txn_config({{"switch.ports", "4"},
                              {"switch.vcs", "1"},
                              {"tl.compression", compression ? "true" : "false"},
                              {"link.gbytes_per_s", "0"}});
  auto f = std::make_unique<top::TxnFabric>(cfg, false);
  static uint8_t data[256];
  for (int k = 0; k < 400; ++k) {
    TransferRequest r;
    r.op = op;
    r.addr = f->endpoints().address_map().window_base(1) + 256 * static_cast<uint64_t>(k);
    r.bytes = 256;
    r.data = data;
    f->endpoints().submit(0, r, 0);
  }
  EXPECT_TRUE(f->run_until_idle(10'000'000));
  const auto& res = f->endpoints().result();
  flits = res.window_flits[0];
  EXPECT_EQ(res.window_payload[0], 400u * 256u);
  return static_cast<double>(res.window_payload[0]) / (64.0 * static_cast<double>(res.window_flits[0]));
}

TEST(TxnEfficiency, StreamOfWritesMatchesTheHeaderArithmetic) {
  uint64_t flits = 0;
  // WriteFull, compressed (2 sectors): 4 per control half -> 1 + 4*8 halves = 17 flits per 1 KiB.
  // 400 = 1 (5 flits) + 99 x 4 (17 flits) + 3 (1 + 24 halves = 13 flits).
  double e = stream_efficiency(true, Opcode::kWriteFull, flits);
  EXPECT_EQ(flits, 5u + 99u * 17u + 13u);
  EXPECT_NEAR(e, 102400.0 / (64.0 * (5 + 99 * 17 + 13)), 1e-12);
  EXPECT_NEAR(1024.0 / (17 * 64), 0.941, 0.001);  // the steady state: UALink's "up to ~95%" (facts §1.6)
  // Uncompressed (4 sectors): 2 per control half -> 1 + 16 halves = 9 flits per 512 B.
  // 400 = 1 (5 flits) + 199 x 2 (9 flits) + 1 (5 flits).
  e = stream_efficiency(false, Opcode::kWriteFull, flits);
  EXPECT_EQ(flits, 5u + 199u * 9u + 5u);
  // Write with byte enables, compressed: 4 x (8 data + 1 enable halves) + 1 = 37 halves = 19 flits.
  // 400 = 1 (1 + 9 halves = 5 flits) + 99 x 4 (19) + 3 (1 + 27 halves = 14 flits).
  e = stream_efficiency(true, Opcode::kWrite, flits);
  EXPECT_EQ(flits, 5u + 99u * 19u + 14u);
  EXPECT_NEAR(e, 102400.0 / (64.0 * flits), 1e-12);
}

// The transmitter's lookahead: writes alternating between two destinations still pack four to a
// packet per destination (each destination's queue order kept), so the flits are those of two
// separate 200-request streams: per destination 1 uncompressed (5 flits) + 49 x 4 (17) + 3 (13).
TEST(TxnEfficiency, InterleavedDestinationsPackAsSeparateStreams) {
  auto cfg = make_txn_config({{"switch.ports", "4"}, {"switch.vcs", "1"}, {"link.gbytes_per_s", "0"}});
  auto f = std::make_unique<top::TxnFabric>(cfg, false);
  const auto& map = f->endpoints().address_map();
  static uint8_t data[400][256];
  for (int k = 0; k < 400; ++k) {
    const int dst = 1 + k % 2, j = k / 2;
    std::memset(data[k], j & 0xff, 256);
    TransferRequest r;
    r.op = Opcode::kWriteFull;
    r.addr = map.window_base(dst) + 256 * static_cast<uint64_t>(j % 50);  // each slot written 4 times
    r.bytes = 256;
    r.data = data[k];
    f->endpoints().submit(0, r, 0);
  }
  ASSERT_TRUE(f->run_until_idle(10'000'000));
  const auto& res = f->endpoints().result();
  EXPECT_EQ(res.window_flits[0], 2u * (5u + 49u * 17u + 13u));
  EXPECT_EQ(res.window_messages[0], 400u);
  // Per-destination order: every slot holds its last write (j = 150 .. 199).
  for (int dst : {1, 2})
    for (int slot = 0; slot < 50; ++slot) {
      uint8_t got[256];
      f->endpoints().memory(dst).read(static_cast<uint64_t>(slot) * 256, got, 256);
      EXPECT_EQ(got[0], static_cast<uint8_t>(150 + slot)) << "dst " << dst << " slot " << slot;
      EXPECT_EQ(got[255], static_cast<uint8_t>(150 + slot));
    }
}

}  // namespace
}  // namespace upswitch::testing
