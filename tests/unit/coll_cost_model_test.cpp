// The collective cost model behind --algo auto (coll/cost_model.h), against wire bytes counted by
// hand from the packet format and against cycle counts worked out by hand for plans small enough
// to follow; and the bandwidth bound it must reach for a large ring.
#include <gtest/gtest.h>

#include "coll/cost_model.h"
#include "coll_support.h"

namespace upswitch::testing {
namespace {

coll::CostParams params() {
  coll::CostParams c;
  c.link_bytes_per_cycle = 64;
  c.unit_bytes_per_cycle = 64;
  c.unit_pool_bytes_per_cycle = 8 * 64;  // 8 units (a flit a cycle each), shared by all ranks
  c.hop_cycles = 100;
  c.mem_latency_cycles = 50;
  c.mem_bytes_per_cycle = 64;
  c.alu_latency_cycles = 4;
  return c;
}

coll::CollectiveSpec spec(coll::Collective k, coll::Algorithm a, int n, uint64_t bytes, coll::Protocol p) {
  coll::CollectiveSpec s = spec_of(k, a, first_ranks(n), bytes);
  s.protocol = p;
  return s;
}

// tl/packet_format.h: a 256 B WriteFull is 8 data half-flits. Streamed to one destination, four
// share a packet: one control half-flit and 32 data halves in 17 whole flits (272 B each), and its
// acknowledgement takes an eighth of a half-flit (4 B); alone, it is a control half-flit and 8
// data halves in 5 flits (320 B). LL128 adds 3 lines' 8 B flags, one half-flit (4 x 9 + 1 halves:
// 19 flits); LL carries 128 B of data and 128 B of flags per request. An endpoint that deals
// 256 B pieces over its ports sends two 128 B stores to a port in a row: two share a packet, 1 +
// 2 x 4 halves in 5 flits (160 B each).
TEST(CollCostModel, WireBytesFollowThePacketFormat) {
  const coll::CostParams c = params();
  EXPECT_DOUBLE_EQ(coll::wire_bytes(coll::Protocol::kSimple, 256, c, true), 272.0 + 4.0);
  EXPECT_DOUBLE_EQ(coll::wire_bytes(coll::Protocol::kSimple, 256, c, false), 320.0);
  EXPECT_DOUBLE_EQ(coll::wire_bytes(coll::Protocol::kLl128, 256, c, true), 19 * 64 / 4.0 + 4.0);
  EXPECT_DOUBLE_EQ(coll::wire_bytes(coll::Protocol::kLl, 256, c, true), 2 * (272.0 + 4.0));
  EXPECT_DOUBLE_EQ(coll::wire_bytes(coll::Protocol::kSimple, 4096, c, true), 16 * 276.0);
  EXPECT_DOUBLE_EQ(coll::wire_bytes(coll::Protocol::kSimple, 0, c, true), 0.0);
  coll::CostParams dealt = c;
  dealt.store_bytes = 128;
  dealt.msgs_per_packet = 2;
  EXPECT_DOUBLE_EQ(coll::wire_bytes(coll::Protocol::kSimple, 256, dealt, true), 2 * (160.0 + 4.0));
}

// Two ranks, all-gather of 8 KiB: each writes its 4 KiB chunk to the other at once, one step, no
// flags. 16 requests of 276 B at 64 B a cycle (69 cycles), a hop to land, the memory, the
// acknowledgement's cycle and hop back: 69 + 100 + 50 + 1 + 100 = 320.
TEST(CollCostModel, OneStepIsTheWireThenTheRoundTrip) {
  const coll::CostParams c = params();
  const auto s = spec(coll::Collective::kAllGather, coll::Algorithm::kRing, 2, 8192, coll::Protocol::kSimple);
  EXPECT_DOUBLE_EQ(coll::predict_cycles(s, 1, c), 320.0);
}

// Three ranks, all-gather of 3 x 4 KiB (one 4 KiB slice per chunk, two steps). LL128: a slice is
// 16 x 308 B, 77 cycles; step 1 lands at 77 + 100 = 177 with its flag inside, so step 2 goes 2
// hand-over cycles later and completes at 179 + 77 + 100 + 151 = 507. Simple: step 1 lands at
// 69 + 100 = 169, is acknowledged at 320 and its flag arrives a hop later (420); step 2 is then
// 422 + 69 + 100 + 151 = 742.
TEST(CollCostModel, SimpleStepsWaitForTheAcknowledgementAndTheFlag) {
  const coll::CostParams c = params();
  const auto ll128 = spec(coll::Collective::kAllGather, coll::Algorithm::kRing, 3, 3 * 4096, coll::Protocol::kLl128);
  const auto simple = spec(coll::Collective::kAllGather, coll::Algorithm::kRing, 3, 3 * 4096, coll::Protocol::kSimple);
  EXPECT_DOUBLE_EQ(coll::predict_cycles(ll128, 1, c), 77 + 100 + 2 + 77 + 100 + 151.0);
  EXPECT_DOUBLE_EQ(coll::predict_cycles(simple, 1, c), 422 + 69 + 100 + 151.0);
}

// A large ring all-reduce is bound by its links: 2 (n-1)/n of the buffer per rank, at 276 B of
// wire per 256 B, within 2% (the steps' latency is the rest).
TEST(CollCostModel, LargeRingReachesTheLinkBound) {
  const coll::CostParams c = params();
  const uint64_t bytes = uint64_t{64} << 20;
  const auto s = spec(coll::Collective::kAllReduce, coll::Algorithm::kRing, 8, bytes, coll::Protocol::kSimple);
  const double bound = 2.0 * 7 / 8 * static_cast<double>(bytes) * 276.0 / 256.0 / 64.0;
  const double t = coll::predict_cycles(s, 1, c);
  EXPECT_GE(t, bound);
  EXPECT_LE(t, bound * 1.02);
}

// The switch algorithm's all-reduce moves S (1 + 1/n) per link, in single-message packets (320 B per
// 256 B) at the link's rate; the engine units take n contributions per byte reduced, the 8 ranks'
// n x S/8 each, so 8 units shared by the 8 ranks bind first: 8 x 8 x S/8 x 320/256 / (8 x 64)
// = S x 320/256 / 64 cycles. Channels cannot beat it.
TEST(CollCostModel, SwitchAllReduceIsBoundByTheUnitAndTheLinks) {
  coll::CostParams c = params();
  const uint64_t bytes = uint64_t{16} << 20;
  const auto s = spec(coll::Collective::kAllReduce, coll::Algorithm::kSwitch, 8, bytes, coll::Protocol::kSimple);
  const double unit = static_cast<double>(bytes) * 320.0 / 256.0 / 64.0;
  const double links = static_cast<double>(bytes) * 9.0 / 8.0 * 320.0 / 256.0 / 64.0;
  const double t = coll::predict_cycles(s, 1, c);
  EXPECT_GE(t, std::max(unit, links));
  EXPECT_LE(t, std::max(unit, links) * 1.03);
  EXPECT_GE(coll::predict_cycles(s, 4, c), std::max(unit, links));
  c.unit_pool_bytes_per_cycle = 1e6;  // units out of the way: the links bind
  EXPECT_GE(coll::predict_cycles(s, 1, c), links);
  EXPECT_LE(coll::predict_cycles(s, 1, c), links * 1.03);
}

// The GPU's issue limits: two ranks' one-step all-gather of 8 KiB at 8 B per cycle per SM. The SM
// issues the 4 KiB chunk in 512 cycles, longer than the link's 69, so the transfer ends then and
// its acknowledgement follows: 512 + 100 + 50 + 1 + 100 = 763. Two channels halve the SM's part:
// each 2 KiB share takes 256 cycles. A multimem rate does not bound ring transfers.
TEST(CollCostModel, AnSmIssuesAtItsRate) {
  coll::CostParams c = params();
  c.sm_bytes_per_cycle = 8;
  const auto s = spec(coll::Collective::kAllGather, coll::Algorithm::kRing, 2, 8192, coll::Protocol::kSimple);
  EXPECT_DOUBLE_EQ(coll::predict_cycles(s, 1, c), 512 + 100 + 50 + 1 + 100.0);
  EXPECT_DOUBLE_EQ(coll::predict_cycles(s, 2, c), 256 + 100 + 50 + 1 + 100.0);
  c.sm_bytes_per_cycle = 0;
  c.multimem_bytes_per_cycle = 8;
  EXPECT_DOUBLE_EQ(coll::predict_cycles(s, 1, c), 320.0);
}

// Channels share the rank's links, and each link takes transfers in the order they start. A
// 2-rank chain broadcast of 64 KiB in LL128 at 8 B per cycle per SM: every slice of the root is
// ready at once, but each channel's SM issues its 4 KiB slices 512 cycles apart, and a slice's
// wire is 77 cycles. On 4 channels (16 KiB each, 4 slices) the link carries the 4 channels'
// k-th slices in 308 cycles after each 512-cycle step, so the SMs bind: the last slice is issued
// at 4 x 512 = 2048, then a hop and its acknowledgement (100 + 50 + 1 + 100). On 1 channel: 8 KiB
// slices, 8 x 1024 + 251. (Taken in the order they became ready, channel 0's late slices held
// the link from the others': 2788 on 4 channels.)
TEST(CollCostModel, ChannelsShareTheLinksInTheOrderTheirSlicesStart) {
  coll::CostParams c = params();
  c.sm_bytes_per_cycle = 8;
  const auto s = spec(coll::Collective::kBroadcast, coll::Algorithm::kRing, 2, 64 * 1024, coll::Protocol::kLl128);
  EXPECT_DOUBLE_EQ(coll::predict_cycles(s, 4, c), 2048 + 100 + 50 + 1 + 100.0);
  EXPECT_DOUBLE_EQ(coll::predict_cycles(s, 1, c), 8 * 1024 + 100 + 50 + 1 + 100.0);
}

// The plan's dependencies, not only its bytes: a chain broadcast's time grows with the chain
// (n - 1 hops of the first slice) at a size where the links do not bind.
TEST(CollCostModel, ChainLatencyGrowsWithTheRanks) {
  const coll::CostParams c = params();
  const auto b4 = spec(coll::Collective::kBroadcast, coll::Algorithm::kRing, 4, 4096, coll::Protocol::kLl128);
  const auto b8 = spec(coll::Collective::kBroadcast, coll::Algorithm::kRing, 8, 4096, coll::Protocol::kLl128);
  // Each extra hop: the slice's wire (77), a hop (100) and the hand-over (2).
  EXPECT_DOUBLE_EQ(coll::predict_cycles(b8, 1, c) - coll::predict_cycles(b4, 1, c), 4 * (77.0 + 100 + 2));
}

}  // namespace
}  // namespace upswitch::testing
