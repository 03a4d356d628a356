// Packet mode (switch.packet_mode) on the plain cycle core, against cycle counts worked out by
// hand: a 4-port VOQ switch with no pipeline stages and 1-cycle links, driven flit by flit. A
// flit sent on an input link in cycle t is queued and can be granted in cycle t + 1, and a
// granted flit leaves on its output link in the same cycle.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/link.h"
#include "core/switch_core.h"

namespace upswitch::core {
namespace {

struct Sent {
  uint64_t cycle;
  uint64_t packet;
  bool head, tail;
};

class Harness {
 public:
  Harness(bool packet_mode, int vcs, int down_vc_flits, uint32_t credit_delay, int classes = 1) {
    SwitchParams p;
    p.ports = 4;
    p.vcs = vcs;
    p.classes = classes;
    p.vc_buffer_flits = 16;
    p.shared_buffer_flits = 0;
    p.queueing = Queueing::kVoq;
    p.allocator = "islip";
    p.allocator_iterations = 1;
    p.packet_mode = packet_mode;
    // With two classes (requests on lanes [0, vcs), responses above) every head also needs a
    // command credit at the receiver: plenty here.
    core_ = std::make_unique<SwitchCore>(p, DownstreamBuffer{down_vc_flits, 0, classes > 1 ? 64 : 0, 0});
    for (int i = 0; i < 4; ++i) {
      in_.emplace_back(std::make_unique<Link>(1, 1));
      out_.emplace_back(std::make_unique<Link>(1, credit_delay));
      core_->connect(i, in_.back().get(), out_.back().get());
    }
  }

  // One packet of `flits` flits from `input` to `output` on `vc`, its flits sent in the cycles
  // from `start` on, one per cycle, skipping the cycle `gap` (none by default).
  void packet(int input, int output, int vc, int flits, uint64_t id, uint64_t start, uint64_t gap = ~0ULL) {
    uint64_t t = start;
    for (int k = 0; k < flits; ++k, ++t) {
      if (t == gap) ++t;
      Flit f;
      f.packet_id = id;
      f.src = static_cast<uint16_t>(input);
      f.dst = static_cast<uint16_t>(output);
      f.size = static_cast<uint16_t>(flits);
      f.vc = static_cast<uint8_t>(vc);
      f.flags = static_cast<uint8_t>((k == 0 ? Flit::kHead : 0) | (k == flits - 1 ? Flit::kTail : 0));
      f.msgs = 1;
      plan_.push_back({t, input, f});
    }
  }

  // Runs `cycles` cycles; returns what left on `output`, in order. The receiver behind each
  // output frees a slot as soon as a flit arrives.
  std::vector<Sent> run(int output, uint64_t cycles) {
    std::vector<Sent> got;
    for (uint64_t t = 0; t < cycles; ++t) {
      for (const auto& s : plan_)
        if (s.cycle == t) in_[static_cast<size_t>(s.input)]->send_flit(t, s.flit);
      core_->tick(t);
      for (auto& in : in_) {  // the senders take their credits back (they send regardless)
        Credit c;
        in->receive_credit(t, c);
      }
      for (int o = 0; o < 4; ++o) {
        Flit f;
        while (out_[static_cast<size_t>(o)]->receive_flit(t, f)) {
          // Sent on the output link one cycle earlier.
          if (o == output) got.push_back({t - 1, f.packet_id, f.head(), f.tail()});
          Credit c;
          c.vc = f.vc;
          c.shared = f.shared_credit();
          out_[static_cast<size_t>(o)]->send_credit(t, c);
        }
      }
    }
    return got;
  }

 private:
  struct Planned {
    uint64_t cycle;
    int input;
    Flit flit;
  };
  std::unique_ptr<SwitchCore> core_;
  std::vector<std::unique_ptr<Link>> in_, out_;
  std::vector<Planned> plan_;
};

std::string order(const std::vector<Sent>& s) {
  std::string o;
  for (const auto& x : s) o += static_cast<char>('A' + x.packet);
  return o;
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
    Harness h(pm, 2, 16, 1);
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
  Harness h(pm, 2, 16, 1);
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
  Harness h(true, 2, 16, 1);
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
  Harness h(true, 2, 4, 5);
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
  Harness h(true, 1, 16, 1, 2);
  h.packet(0, 2, 0, 4, 0, 0);
  h.packet(1, 2, 1, 1, 17, 1);
  const auto got = h.run(2, 20);
  expect_back_to_back(got, "ARAAA");
}

}  // namespace
}  // namespace upswitch::core
