// The allocation requests built output by output (voq without packet mode or speedup: the common
// case, switch_requests_by_output.cpp, where each output's requests are kept from cycle to cycle
// while nothing they depend on changes) against the general path that builds them input by input
// every cycle (the reference here). Two switches get the same random traffic: multi-flit packets on every VC
// (so output VCs are held by packets), scarce downstream credits released after irregular holds,
// paced or unpaced output links, and with transactions' two message classes, packets of several
// messages that need a command credit each at the receiver behind the output (scarce, so outputs
// run short of them). They must send the same flits on the same outputs in the same cycles and
// count the same grants and credit stalls.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "core/bits.h"
#include "core/link.h"
#include "core/switch_core.h"

namespace upswitch::core {
namespace {

struct RigSetup {
  int ports;
  std::string allocator;
  double out_rate;  // output links' flits per cycle (< 1 paces them)
  int routing_cycles, pipeline_cycles;
  int cmd_vc = 0, cmd_shared = 0;  // command credits behind each output; 0 = synthetic packets (one class)
  int shared = 0;                  // shared flit credits behind each output (beside 2 per VC)
  int lanes() const { return cmd_vc ? 8 : 4; }
};

using Departure = std::tuple<uint64_t, int, uint64_t, int, int>;  // cycle, output, packet, flags, vc

// Senders respect the switch's input credits; each receiver behind an output returns its credits
// in arrival order, one per cycle, each no earlier than a hold drawn from the flit's identity (so
// both switches see the same holds as long as they send the same flits).
class Rig {
 public:
  Rig(const RigSetup& s, bool by_input) : s_(s) {
    SwitchParams p;
    p.ports = s.ports;
    p.vcs = 4;
    p.classes = s.cmd_vc ? 2 : 1;
    p.vc_buffer_flits = 4;
    p.queueing = Queueing::kVoq;
    p.allocator = s.allocator;
    p.allocator_iterations = 3;
    p.routing_cycles = s.routing_cycles;
    p.sw_alloc_cycles = s.pipeline_cycles;
    core_ = std::make_unique<SwitchCore>(p, DownstreamBuffer{2, s.shared, s.cmd_vc, s.cmd_shared});
    if (by_input) core_->build_requests_by_input();
    for (int i = 0; i < s.ports; ++i) {
      in_.push_back(std::make_unique<Link>(2, 2));
      out_.push_back(std::make_unique<Link>(1, 1, s.out_rate));
      core_->connect(i, in_.back().get(), out_.back().get());
    }
    credits_.assign(static_cast<size_t>(s.ports * s.lanes()), 4);
    queue_.resize(static_cast<size_t>(s.ports));
    held_.resize(static_cast<size_t>(s.ports));
  }

  // Packets per input, drawn once for both rigs: (destination, vc, flits).
  void plan(int input, int dst, int vc, int flits, int msgs) {
    queue_[static_cast<size_t>(input)].push_back({dst, vc, flits, msgs, 0});
  }

  std::vector<Departure> run(uint64_t cycles) {
    std::vector<Departure> out;
    for (uint64_t t = 0; t < cycles; ++t) {
      for (int i = 0; i < s_.ports; ++i) send(i, t);
      core_->tick(t);
      for (int i = 0; i < s_.ports; ++i) {
        Credit c;
        while (in_[static_cast<size_t>(i)]->receive_credit(t, c)) ++credits_[static_cast<size_t>(i * s_.lanes() + c.vc)];
      }
      for (int o = 0; o < s_.ports; ++o) {
        Flit f;
        auto& held = held_[static_cast<size_t>(o)];
        if (out_[static_cast<size_t>(o)]->receive_flit(t, f)) {
          out.emplace_back(t, o, f.payload, f.flags & (Flit::kHead | Flit::kTail), f.vc);
          const uint64_t hold = mix64(uint64_t{f.payload} * 131 + f.flags + static_cast<uint64_t>(o)) % 7;
          Credit c{f.vc, f.shared_credit()};
          if (f.tail()) {  // the packet's command slots come back with its tail's credit
            c.cmds = f.msgs;
            c.cmd_shared = f.cmd_shared;
          }
          held.push_back({t + hold, c});
        }
        if (!held.empty() && held.front().first <= t) {
          out_[static_cast<size_t>(o)]->send_credit(t, held.front().second);
          held.pop_front();
        }
      }
    }
    return out;
  }

  const SwitchStats& stats() const { return core_->stats(); }

 private:
  struct Pkt {
    int dst, vc, flits, msgs, sent;
  };
  void send(int i, uint64_t t) {
    auto& q = queue_[static_cast<size_t>(i)];
    if (q.empty()) return;
    Pkt& k = q.front();
    int& cr = credits_[static_cast<size_t>(i * s_.lanes() + k.vc)];
    if (cr == 0) return;
    --cr;
    Flit f;
    f.src = static_cast<uint16_t>(i);
    f.dst = static_cast<uint16_t>(k.dst);
    f.size = static_cast<uint16_t>(k.flits);
    f.vc = static_cast<uint8_t>(k.vc);
    f.msgs = static_cast<uint8_t>(k.msgs);
    f.flags = static_cast<uint8_t>((k.sent == 0 ? Flit::kHead : 0) | (k.sent + 1 == k.flits ? Flit::kTail : 0));
    f.payload = static_cast<uint32_t>(i) << 20 | static_cast<uint32_t>(q.size());  // packets left: one id per packet
    if (q.size() >= (1U << 20)) throw std::logic_error("request paths test: too many packets for the id");
    in_[static_cast<size_t>(i)]->send_flit(t, f);
    if (++k.sent == k.flits) q.pop_front();
  }

  RigSetup s_;
  std::unique_ptr<SwitchCore> core_;
  std::vector<std::unique_ptr<Link>> in_, out_;
  std::vector<int> credits_;  // per input VC: the sender's credits
  std::vector<std::deque<Pkt>> queue_;
  std::vector<std::deque<std::pair<uint64_t, Credit>>> held_;  // per output: credits waiting to go back
};

TEST(RequestPaths, OutputByOutputGrantsWhatInputByInputGrants) {
  const RigSetup setups[] = {
      {72, "islip", 0.479, 2, 1},                // the rack's switch: two words per row, paced links
      {72, "islip", 1.0, 0, 0},                  // unpaced
      {72, "separable_input_first", 0.6, 1, 2},  // an allocator that reads the requests by input
      {72, "wavefront", 0.479, 2, 0},
      {130, "islip", 0.8, 1, 1},                 // three words per row
      {8, "islip", 0.5, 0, 0},                   // one word, few ports: frequent conflicts
      // Transactions: outputs always short of command credits (3 per lane and 2 of a class's
      // shared pool, against packets of up to 5 messages), or only after a few packets (8 per lane
      // and 4 of the pool).
      {72, "islip", 0.479, 2, 1, 3, 4},
      {72, "islip", 1.0, 0, 0, 8, 8},
      {72, "separable_input_first", 0.6, 1, 2, 3, 4},
      {130, "wavefront", 0.8, 1, 1, 8, 8},
      {8, "islip", 0.5, 0, 0, 3, 4},
      // A shared pool behind each output too: taking its last credit or refilling it changes every
      // VC's credit at once.
      {72, "islip", 0.479, 2, 1, 0, 0, 1},
      {72, "separable_input_first", 1.0, 0, 0, 3, 4, 2},
  };
  for (const RigSetup& s : setups) {
    Rig general(s, true), fast(s, false);
    uint64_t x = 0x1234 + static_cast<uint64_t>(s.ports);
    for (int i = 0; i < s.ports; ++i)
      for (int k = 0; k < 60; ++k) {
        x = mix64(x);
        // Hot outputs (a third of the packets to four ports) so VCs are held and credits run out.
        const int dst = x % 3 == 0 ? static_cast<int>((x >> 8) % 4) : static_cast<int>((x >> 8) % static_cast<uint64_t>(s.ports));
        const int vc = static_cast<int>((x >> 20) % static_cast<uint64_t>(s.lanes()));
        const int flits = 1 + static_cast<int>((x >> 28) % 5);
        // At most what a lane can ever hold: its reserved slots and its class's half of the pool.
        const int most = std::min(6, s.cmd_vc + s.cmd_shared / 2);
        const int msgs = s.cmd_vc ? 1 + static_cast<int>((x >> 36) % static_cast<uint64_t>(most)) : 0;
        general.plan(i, dst, vc, flits, msgs);
        fast.plan(i, dst, vc, flits, msgs);
      }
    const auto a = general.run(3000), b = fast.run(3000);
    const std::string what = std::to_string(s.ports) + " ports, " + s.allocator + ", rate " + std::to_string(s.out_rate) +
                             ", command credits " + std::to_string(s.cmd_vc) + "+" + std::to_string(s.cmd_shared);
    ASSERT_GT(a.size(), static_cast<size_t>(s.ports) * 60) << what;  // traffic flowed
    ASSERT_EQ(a.size(), b.size()) << what;
    for (size_t k = 0; k < a.size(); ++k) ASSERT_EQ(a[k], b[k]) << what << ": departure " << k;
    EXPECT_EQ(general.stats().grants, fast.stats().grants) << what;
    EXPECT_EQ(general.stats().credit_stall_cycles, fast.stats().credit_stall_cycles) << what;
    uint64_t stalls = 0;
    for (uint64_t c : general.stats().credit_stall_cycles) stalls += c;
    EXPECT_GT(stalls, 0u) << what;  // the stall rules were exercised
    EXPECT_EQ(general.stats().xbar_flits, fast.stats().xbar_flits) << what;
  }
}

// Allocation takes a lane with a whole packet's command credits (kMaxPacketMessages) to fit any
// front flit without reading it, so every queueing mode refuses a head of more messages.
TEST(RequestPaths, EveryQueueingRefusesAHeadOfMoreMessagesThanAPacketCarries) {
  for (Queueing q : {Queueing::kFifo, Queueing::kVc, Queueing::kVoq}) {
    for (int msgs : {kMaxPacketMessages, kMaxPacketMessages + 1}) {
      SwitchParams p;
      p.ports = 2;
      p.vcs = 2;
      p.classes = 2;
      p.vc_buffer_flits = 4;
      p.queueing = q;
      p.allocator = "islip";
      p.allocator_iterations = 1;
      SwitchCore core(p, DownstreamBuffer{4, 0, 16, 0});
      Link in0(1, 1), in1(1, 1), out0(1, 1), out1(1, 1);
      core.connect(0, &in0, &out0);
      core.connect(1, &in1, &out1);
      Flit f;
      f.dst = 1;
      f.size = 1;
      f.flags = Flit::kHead | Flit::kTail;
      f.msgs = static_cast<uint8_t>(msgs);
      in0.send_flit(0, f);
      bool left = false;  // the flit reached the output's link
      auto run = [&] {
        for (uint64_t t = 0; t < 40; ++t) {
          core.tick(t);
          Flit got;
          left = out1.receive_flit(t, got) || left;
        }
      };
      const std::string what = "queueing " + std::to_string(static_cast<int>(q)) + ", " + std::to_string(msgs) + " messages";
      if (msgs > kMaxPacketMessages) {
        EXPECT_THROW(run(), std::logic_error) << what;
      } else {
        EXPECT_NO_THROW(run()) << what;
        EXPECT_TRUE(left) << what;  // a full packet's credits fit it
      }
    }
  }
}

}  // namespace
}  // namespace upswitch::core
