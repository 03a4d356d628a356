// Speculative switch allocation (switch.speculative) against bounds derived by hand, on a
// BookSim-like switch: vc queueing, 1 VC, 1-flit packets, 1-cycle stages and links, buffers deep
// enough that credits never wait (64 flits against a credit loop of 4-5 cycles).
//
// Without speculation, a packet's tail (here its only flit) crossing in cycle t frees its input
// VC; the next head, at the front from t, takes part in VC allocation in t + 1, becomes eligible
// for switch allocation Va = 1 cycle later, in t + 2, and crosses then: one packet every 2
// cycles per input VC, so at most 0.5 flits/port/cycle, and exactly 0.5 under a permutation
// (shift by one: no two inputs want the same output). With speculation the head asks for the
// crossbar in its VC-allocation cycle t + 1 and, alone at its output, crosses then: one packet
// per cycle, 1.0. Under uniform traffic both fall below their bound (outputs collide), and
// speculation stays ahead.
#include <gtest/gtest.h>

#include <string>

#include "test_support.h"

namespace upswitch::testing {
namespace {

using Sets = std::vector<std::pair<std::string, std::string>>;

Sets booksim_like(const std::string& pattern, bool speculative) {
  return {{"switch.ports", "16"},
          {"switch.queueing", "vc"},
          {"switch.vcs", "1"},
          {"switch.vc_buffer_flits", "64"},
          {"switch.shared_buffer_flits", "0"},
          {"switch.allocator", "separable_input_first"},
          {"switch.routing_cycles", "1"},
          {"switch.vc_alloc_cycles", "1"},
          {"switch.sw_alloc_cycles", "1"},
          {"switch.xbar_cycles", "1"},
          {"switch.egress_cycles", "0"},
          {"link.latency_cycles", "1"},
          {"link.credit_delay_cycles", "1"},
          {"link.gbytes_per_s", "0"},
          {"endpoint.rx_vc_flits", "64"},
          {"endpoint.rx_shared_flits", "0"},
          {"traffic.packet_flits", "1"},
          {"traffic.pattern", pattern},
          {"traffic.rate", "1.0"},
          {"switch.speculative", speculative ? "true" : "false"}};
}

TEST(Speculation, UnderAPermutationEachModeReachesItsBound) {
  const auto plain = run_plain(make_config("", booksim_like("shift", false)));
  const auto spec = run_plain(make_config("", booksim_like("shift", true)));
  EXPECT_NEAR(accepted(*plain), 0.5, 0.005);
  EXPECT_NEAR(accepted(*spec), 1.0, 0.01);
  // No head without a VC asked: in a permutation every VC allocation succeeds.
  EXPECT_EQ(spec->network().sw(0).stats().speculative_wasted, 0u);
  EXPECT_GT(spec->network().sw(0).stats().speculative_grants, 0u);
}

TEST(Speculation, UnderUniformTrafficSpeculationStaysAheadAndBelowItsBound) {
  for (const char* alloc : {"separable_input_first", "wavefront"}) {
    Sets plain_sets = booksim_like("uniform", false), spec_sets = booksim_like("uniform", true);
    plain_sets.emplace_back("switch.allocator", alloc);
    spec_sets.emplace_back("switch.allocator", alloc);
    const auto plain = run_plain(make_config("", plain_sets));
    const auto spec = run_plain(make_config("", spec_sets));
    const double p = accepted(*plain), s = accepted(*spec);
    EXPECT_LT(p, 0.5) << alloc;
    EXPECT_LT(s, 1.0) << alloc;
    EXPECT_GT(s, p + 0.05) << alloc << ": speculative " << s << ", non-speculative " << p;
    const core::SwitchStats& st = spec->network().sw(0).stats();
    EXPECT_GT(st.speculative_grants, 0u) << alloc;
    // Separable input-first: an output's VC arbiter and its switch arbiter are both round-robin
    // over the same heads and move past the same winner, so the switch grant always goes to the
    // head that won the VC and none is lost. The wavefront's rotating diagonal does not follow
    // the VC arbiter: some speculative grants go to heads whose VC allocation failed.
    if (std::string(alloc) == "wavefront")
      EXPECT_GT(st.speculative_wasted, 0u);
    else
      EXPECT_EQ(st.speculative_wasted, 0u);
  }
}

TEST(Speculation, OnlyVcQueueingHasAVcAllocationToOverlap) {
  for (const char* q : {"voq", "fifo"}) {
    Sets sets = booksim_like("uniform", true);
    sets.emplace_back("switch.queueing", q);
    EXPECT_THROW(make_config("", sets), config::ConfigError) << q;
  }
}

}  // namespace
}  // namespace upswitch::testing
