// Packet mode (switch.packet_mode) on the plain cycle core, against cycle counts worked out by
// hand: a 4-port VOQ switch with no pipeline stages and 1-cycle links, driven flit by flit
// (core_harness.h).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core_harness.h"

namespace upswitch::core {
namespace {

using test::Harness;
using test::order;
using test::Sent;

Harness pm_harness(bool packet_mode, int vcs, int down_vc_flits, uint32_t credit_delay, int classes = 1) {
  SwitchParams p = test::harness_params(vcs, classes);
  p.packet_mode = packet_mode;
  return Harness(p, down_vc_flits, credit_delay);
}

// The flits left output 2 in the order `want` (one letter per packet), one per cycle from cycle 1.
void expect_back_to_back(const std::vector<Sent>& got, const std::string& want) {
  ASSERT_EQ(got.size(), want.size());
  EXPECT_EQ(order(got), want);
  for (size_t k = 0; k < got.size(); ++k) EXPECT_EQ(got[k].cycle, k + 1) << "flit " << k;
}

// Two inputs send a 4-flit packet each to output 2, on different VCs, from cycle 0. Both heads
// are queued in cycle 1; the output's grant pointer starts at input 0, so A goes first.
// Flit by flit, iSLIP alternates between the two held VCs: A B A B A B A B in cycles 1-8. In
// packet mode input 0 keeps output 2 until A's tail: A in cycles 1-4, then B in 5-8.
TEST(PacketMode, AMatchedPairKeepsItsOutputUntilTheTail) {
  for (const bool pm : {false, true}) {
    Harness h = pm_harness(pm, 2, 16, 1);
    h.packet(0, 2, 0, 4, 0, 0);
    h.packet(1, 2, 1, 4, 1, 0);
    const auto got = h.run(2, 20);
    ASSERT_EQ(got.size(), 8u);
    EXPECT_EQ(order(got), pm ? "AAAABBBB" : "ABABABAB") << "packet mode " << pm;
    for (size_t k = 0; k < got.size(); ++k) EXPECT_EQ(got[k].cycle, k + 1) << "packet mode " << pm << " flit " << k;
  }
}

// Input 3's packet D (8 flits, sent in cycles 0-7) takes output 1 in cycle 1. Input 0 sends A
// (4 flits to output 1, VC 0) in cycles 1-4 and C (4 flits to output 2, VC 1) in cycles 5-8.
// Flit by flit, A shares output 1 with D on the VC D does not hold. In packet mode output 1
// stays D's until its tail (cycle 8); C's head, queued in cycle 6, takes output 2 and holds
// input 0 until its tail (cycle 9), so A waits for both: A in cycles 10-13.
std::vector<Sent> two_outputs(bool pm, int output) {
  Harness h = pm_harness(pm, 2, 16, 1);
  h.packet(3, 1, 1, 8, 3, 0);
  h.packet(0, 1, 0, 4, 0, 1);
  h.packet(0, 2, 1, 4, 2, 5);
  return h.run(output, 30);
}

TEST(PacketMode, AMatchedInputFinishesItsPacketBeforeStartingAnother) {
  const auto out1 = two_outputs(true, 1), out2 = two_outputs(true, 2);
  ASSERT_EQ(out1.size(), 12u);
  ASSERT_EQ(out2.size(), 4u);
  EXPECT_EQ(order(out1), "DDDDDDDDAAAA");
  EXPECT_EQ(out1[7].cycle, 8u);
  EXPECT_EQ(out1[8].cycle, 10u);
  EXPECT_EQ(out1[11].cycle, 13u);
  EXPECT_EQ(out2.front().cycle, 6u);
  EXPECT_EQ(out2.back().cycle, 9u);
  const auto flit1 = two_outputs(false, 1);
  ASSERT_EQ(flit1.size(), 12u);
  EXPECT_EQ(order(flit1).substr(0, 4), "DADA");
}

// A's sender leaves cycle 2 empty (it sends A's flits in 0, 1, 3 and 4), so A's third flit is
// not there in cycle 3: that ends the match, and B (one flit from input 1 on VC 1, queued in
// cycle 3) takes output 2 in that cycle. A's third flit, granted in cycle 4, matches the pair
// again. Were the match kept, output 2 would idle in cycle 3 and B would wait for A's tail (5).
TEST(PacketMode, AMatchEndsWhenThePacketsNextFlitIsNotThere) {
  Harness h = pm_harness(true, 2, 16, 1);
  h.packet(0, 2, 0, 4, 0, 0, 2);
  h.packet(1, 2, 1, 1, 1, 2);
  const auto got = h.run(2, 20);
  expect_back_to_back(got, "AABAA");
}

// Output 2's receiver has 4 slots per VC and returns each credit 5 cycles after the flit arrived
// (usable in cycle send + 1 + 5). A (6 flits on VC 0, queued in cycles 1-6) takes the four in
// cycles 1-4; in cycle 5 its fifth flit has no credit, which ends the match, so B (2 flits on
// VC 1 from input 1, queued in 4-5, masked in 4) takes output 2 in 5-6. A goes on when A0's
// credit is back (7) and A1's (8). Were the match kept, output 2 would idle in cycles 5-6.
TEST(PacketMode, AMatchEndsWhenThePacketHasNoCredit) {
  Harness h = pm_harness(true, 2, 4, 5);
  h.packet(0, 2, 0, 6, 0, 0);
  h.packet(1, 2, 1, 2, 1, 3);
  const auto got = h.run(2, 30);
  expect_back_to_back(got, "AAAABBAA");
}

// Transactions (two classes: lane 0 requests, lane 1 responses). A's request packet (4 flits
// from input 0) is matched to output 2 in cycle 1; R, a one-flit response from input 1, is queued
// for output 2 in cycle 2. A request's match yields while a response waits for its output, so R
// competes in cycle 2 and wins (output 2's grant pointer moved past input 0 in cycle 1); A's
// next flit is matched again in cycle 3. Kept, the match would have made R wait for A's tail (5).
TEST(PacketMode, ARequestsMatchYieldsToAWaitingResponse) {
  Harness h = pm_harness(true, 1, 16, 1, 2);
  h.packet(0, 2, 0, 4, 0, 0);
  h.packet(1, 2, 1, 1, 17, 1);
  const auto got = h.run(2, 20);
  expect_back_to_back(got, "ARAAA");
}

}  // namespace
}  // namespace upswitch::core
