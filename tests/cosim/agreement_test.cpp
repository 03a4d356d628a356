// Cycle-exact agreement between the reference RTL and the model: 8 and 72 ports; uniform,
// permutation and hotspot traffic; loads 0.2, 0.6 and 1.0 (beyond saturation); iSLIP and the
// separable input-first allocator; at least 100,000 packets per case.
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "cosim/cosim_command.h"
#include "cosim/cosim_run.h"
#include "cosim/rtl_variants.h"

namespace upswitch::cosim {
namespace {

using Case = std::tuple<std::string, std::string, double, std::string>;  // preset, pattern, load, allocator

class Agreement : public ::testing::TestWithParam<Case> {};

TEST_P(Agreement, CycleExact) {
  const auto& [preset, pattern, load, allocator] = GetParam();
  CosimCliOptions o;
  o.preset = preset;
  o.pattern = pattern;
  o.load = std::to_string(load);
  o.packets = 100000;
  o.sets = {"switch.allocator=" + allocator};
  const config::Config cfg = resolve_cosim_config(o);
  const RtlVariant& v = match_variant(cfg);
  const CosimResult r = run_cosim(cfg, v, CosimOptions{});
  ASSERT_EQ(r.rtl_error, "");
  ASSERT_FALSE(r.mismatch_found) << describe(r.mismatch);
  EXPECT_TRUE(r.agree);
  // Both sides finished the whole measurement protocol and delivered the same packets.
  const traffic::RunResult& m = r.model.result;
  const traffic::RunResult& t = r.rtl.result;
  EXPECT_GE(m.packets_delivered, 100000u);
  EXPECT_EQ(m.packets_delivered, m.packets_created);
  EXPECT_EQ(t.packets_delivered, m.packets_delivered);
  EXPECT_EQ(t.end_cycle, m.end_cycle);
  EXPECT_EQ(t.packet_latency.count(), m.packet_latency.count());
  EXPECT_EQ(t.packet_latency.mean(), m.packet_latency.mean());
  EXPECT_EQ(t.packet_latency.percentile(0.99), m.packet_latency.percentile(0.99));
  ASSERT_EQ(t.ports.size(), m.ports.size());
  for (size_t p = 0; p < m.ports.size(); ++p) EXPECT_EQ(t.ports[p].accepted_flits, m.ports[p].accepted_flits) << p;
}

std::string name(const ::testing::TestParamInfo<Case>& info) {
  const auto& [preset, pattern, load, allocator] = info.param;
  std::string s = (preset == "tiny" ? "p8_" : "p72_") + pattern + "_load" + std::to_string(static_cast<int>(load * 10)) +
                  (allocator == "islip" ? "_islip" : "_sepif");
  return s;
}

INSTANTIATE_TEST_SUITE_P(Rtl, Agreement,
                         ::testing::Combine(::testing::Values("tiny", "ualink-x4"),
                                            ::testing::Values("uniform", "permutation", "hotspot"),
                                            ::testing::Values(0.2, 0.6, 1.0),
                                            ::testing::Values("islip", "separable_input_first")),
                         name);

}  // namespace
}  // namespace upswitch::cosim
