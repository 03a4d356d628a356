// The SystemC wrappers: the kernel can be started once per process, so ctest runs each TEST in
// its own process (gtest_discover_tests) and each TEST runs one simulation.
#include <gtest/gtest.h>

#include <memory>
#include <systemc>

#include "sc/sc_run.h"
#include "test_support.h"
#include "top/link_layers.h"

namespace upswitch::testing {
namespace {

// Runs `c` with the plain driver and under the kernel and expects the same cycles, latencies,
// crossbar counts and DL counters; returns the SystemC run.
std::unique_ptr<top::Fabric> expect_same_as_plain(const config::Config& c) {
  auto plain = run_plain(c);
  auto sc_fabric = std::make_unique<top::Fabric>(c);
  sc::run_systemc(*sc_fabric);
  EXPECT_EQ(sc_fabric->simulated_cycles(), plain->simulated_cycles());
  EXPECT_EQ(sc_fabric->endpoints().result().packet_latency.buckets(), plain->endpoints().result().packet_latency.buckets());
  for (int s = 0; s < plain->network().switches(); ++s) {
    EXPECT_EQ(sc_fabric->network().sw(s).stats().xbar_flits, plain->network().sw(s).stats().xbar_flits);
    EXPECT_EQ(sc_fabric->network().sw(s).stats().occupancy_flit_cycles,
              plain->network().sw(s).stats().occupancy_flit_cycles);
  }
  const auto a = top::collect_dl(*plain, c.sw.ports), b = top::collect_dl(*sc_fabric, c.sw.ports);
  EXPECT_EQ(a.up.stats.frames_replayed, b.up.stats.frames_replayed);
  EXPECT_EQ(a.down.stats.frames_replayed, b.down.stats.frames_replayed);
  EXPECT_EQ(a.up.stats.crc_errors, b.up.stats.crc_errors);
  EXPECT_TRUE(top::check_drained(*sc_fabric).empty());
  return sc_fabric;
}

TEST(SystemC, SameResultsAsThePlainDriver) {
  const auto c = make_config("tiny", {{"switch.queueing", "vc"}, {"traffic.rate", "0.7"}, {"traffic.packet_mix", "1:1,5:1"}});
  expect_same_as_plain(c);
}

TEST(SystemC, SameResultsAsThePlainDriverOnPlanes) {
  // One process per switch chip: four planes with endpoints spreading packets over them.
  const auto c = make_config("tiny", {{"topology.kind", "planes"}, {"topology.endpoints", "6"}, {"topology.planes", "4"},
                                      {"traffic.rate", "0.6"}, {"endpoint.port_select", "least_loaded"}});
  const auto sc_fabric = expect_same_as_plain(c);
  EXPECT_EQ(sc_fabric->network().switches(), 4);
}

TEST(SystemC, SameResultsAsThePlainDriverWithTheDlLayerReplaysAndALinkDown) {
  // The DL layer is evaluated lazily by whichever end touches a link first; the kernel wakes the
  // receivers from the DL's release bounds. Neither may change a single cycle.
  const auto c = make_config("tiny", {{"traffic.rate", "0.7"},
                                      {"traffic.packet_mix", "1:1,5:1"},
                                      {"link.dl.enable", "true"},
                                      {"link.dl.flit_error_rate", "3e-3"},
                                      {"faults.link_down", "2@3000-4000"}});
  const auto sc_fabric = expect_same_as_plain(c);
  const auto d = top::collect_dl(*sc_fabric, c.sw.ports);
  EXPECT_GT(d.up.stats.crc_errors + d.down.stats.crc_errors, 0u);
  EXPECT_EQ(d.up.stats.link_ups, 1u);
}

TEST(SystemC, PeriodicCheckerCatchesALostCredit) {
  const auto c = make_config("tiny", {{"traffic.rate", "0.4"}, {"sim.check_interval_cycles", "100"}});
  top::Fabric f(c);
  bool dropped = false;
  auto on_cycle = [&](uint64_t t) {
    if (t >= 2500 && !dropped) {
      f.sw().debug_drop_next_credit(3);
      dropped = true;
    }
  };
  EXPECT_THROW(sc::run_systemc(f, nullptr, on_cycle), top::ConservationError);
  EXPECT_TRUE(dropped);
}

TEST(SystemC, WatchdogStopsTheKernelWithTheState) {
  const auto c = make_config("tiny", {{"switch.vcs", "1"}, {"switch.vc_buffer_flits", "2"}, {"switch.shared_buffer_flits", "0"},
                                      {"traffic.rate", "0.3"}, {"sim.watchdog_cycles", "3000"}});
  top::Fabric f(c);
  int drops = 0;
  auto on_cycle = [&](uint64_t t) {
    if (t >= 1000 && drops < 40) {
      f.sw().debug_drop_next_credit(2);
      ++drops;
    }
  };
  try {
    sc::run_systemc(f, nullptr, on_cycle);
    FAIL() << "no deadlock reported";
  } catch (const core::DeadlockError& e) {
    EXPECT_NE(e.state().find("source 2:"), std::string::npos) << e.state();
  }
}

}  // namespace
}  // namespace upswitch::testing

int sc_main(int argc, char* argv[]) {
  ::testing::InitGoogleTest(&argc, argv);
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  return RUN_ALL_TESTS();
}
