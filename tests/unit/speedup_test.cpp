// Crossbar speedup (switch.speedup) on the plain cycle core, against cycle counts worked out by
// hand on the 4-port harness of core_harness.h (VOQ, iSLIP with one iteration, no pipeline
// stages unless stated, 1-cycle links).
//
// The scenario: input 0 sends C to output 2 in cycle 0; input 1 sends A to output 2 in cycle 0
// and B to output 3 in cycle 1. Every grant and accept pointer starts at port 0.
//  - Speedup 1: in cycle 1 output 2 grants input 0 (C). In cycle 2 input 1 holds A and B and
//    both outputs grant it; it accepts output 2 (A), and with one iteration output 3 idles. B
//    leaves in cycle 3.
//  - Speedup 2: in cycle 1 the second round gives output 2 a second flit, A, which waits in the
//    output buffer and leaves in cycle 2, when B crosses to output 3.
//  - Speedup 2 with a 1-flit output buffer: C fills output 2's buffer in cycle 1, so A waits;
//    in cycle 2 input 1 sends A in the first round and B in the second: two flits, and two
//    credits, from one input in one cycle.
#include <gtest/gtest.h>

#include <vector>

#include "core_harness.h"

namespace upswitch::core {
namespace {

using test::Harness;
using test::Sent;

struct Outcome {
  std::vector<Sent> out2, out3;
  std::vector<std::pair<uint64_t, int>> credits;
  std::vector<uint64_t> buffer_peak;
};

Outcome scenario(int speedup, int output_buffer, int egress_cycles = 0) {
  SwitchParams p = test::harness_params(1);
  p.speedup = speedup;
  p.output_buffer_flits = output_buffer;
  p.egress_cycles = egress_cycles;
  Outcome r;
  for (int out : {2, 3}) {
    Harness h(p, 16, 1);
    h.packet(0, 2, 0, 1, 2, 0);  // C
    h.packet(1, 2, 0, 1, 0, 0);  // A
    h.packet(1, 3, 0, 1, 1, 1);  // B
    (out == 2 ? r.out2 : r.out3) = h.run(out, 12);
    r.credits = h.credits();
    r.buffer_peak = h.core().stats().output_buffer_peak;
  }
  return r;
}

std::vector<uint64_t> cycles(const std::vector<Sent>& s) {
  std::vector<uint64_t> c;
  for (const auto& x : s) c.push_back(x.cycle);
  return c;
}

TEST(Speedup, WithoutSpeedupTheSecondOutputIdles) {
  const Outcome r = scenario(1, 1);
  EXPECT_EQ(test::order(r.out2), "CA");
  EXPECT_EQ(cycles(r.out2), (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(cycles(r.out3), (std::vector<uint64_t>{3}));
}

TEST(Speedup, AnOutputTakesTwoFlitsInACycleAndSendsThemAtTheLinkRate) {
  const Outcome r = scenario(2, 32);
  EXPECT_EQ(test::order(r.out2), "CA");
  EXPECT_EQ(cycles(r.out2), (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(cycles(r.out3), (std::vector<uint64_t>{2}));
  EXPECT_EQ(r.buffer_peak[2], 2u);
  EXPECT_EQ(r.buffer_peak[3], 1u);
  // C and A crossed in cycle 1, B in cycle 2; each credit is usable one cycle after it was sent.
  EXPECT_EQ(r.credits, (std::vector<std::pair<uint64_t, int>>{{2, 0}, {2, 1}, {3, 1}}));
}

TEST(Speedup, AFullOutputBufferTakesNoGrantAndAnInputSendsTwoFlitsInACycle) {
  const Outcome r = scenario(2, 1);
  EXPECT_EQ(cycles(r.out2), (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(cycles(r.out3), (std::vector<uint64_t>{2}));
  EXPECT_EQ(r.buffer_peak[2], 1u);
  EXPECT_EQ(r.credits, (std::vector<std::pair<uint64_t, int>>{{2, 0}, {3, 1}, {3, 1}}));
}

// The egress pipeline (here 2 cycles) delays every flit by the same amount; a flit that crossed
// in the second round of a cycle behind another for the same output leaves one cycle later.
TEST(Speedup, PipelineStagesDelayEveryFlitAlike) {
  const Outcome r = scenario(2, 32, 2);
  EXPECT_EQ(cycles(r.out2), (std::vector<uint64_t>{3, 4}));
  EXPECT_EQ(cycles(r.out3), (std::vector<uint64_t>{4}));
}

TEST(Speedup, RefusesPacketModeAndAMissingOutputBuffer) {
  SwitchParams p = test::harness_params(1);
  p.speedup = 2;
  p.output_buffer_flits = 0;
  EXPECT_THROW(SwitchCore(p, DownstreamBuffer{16, 0, 0, 0}), std::invalid_argument);
  p.output_buffer_flits = 8;
  p.packet_mode = true;
  EXPECT_THROW(SwitchCore(p, DownstreamBuffer{16, 0, 0, 0}), std::invalid_argument);
}

}  // namespace
}  // namespace upswitch::core
