// Invariants over long random runs, and the checkers themselves: a lost credit is caught by the
// conservation checker and, when it starves a source, by the deadlock watchdog.
#include <gtest/gtest.h>

#include "test_support.h"

namespace upswitch::testing {
namespace {

struct Case {
  const char* name;
  std::vector<std::pair<std::string, std::string>> sets;
};

TEST(Conservation, LongRandomRunsLoseAndDuplicateNothing) {
  const std::vector<std::pair<std::string, std::string>> base = {
      {"switch.ports", "16"}, {"sim.warmup_cycles", "2000"}, {"sim.measure_cycles", "20000"},
      {"sim.check_interval_cycles", "997"}, {"switch.vc_buffer_flits", "4"}, {"switch.shared_buffer_flits", "6"},
      {"endpoint.rx_vc_flits", "3"}, {"endpoint.rx_shared_flits", "5"}, {"link.latency_cycles", "5"},
      {"link.credit_delay_cycles", "7"}};
  const Case cases[] = {
      {"voq-islip-mix", {{"switch.queueing", "voq"}, {"traffic.packet_mix", "1:0.5,3:0.3,8:0.2"}, {"traffic.rate", "0.9"}}},
      {"vc-separable", {{"switch.queueing", "vc"}, {"switch.allocator", "separable_input_first"}, {"traffic.packet_flits", "5"}, {"traffic.rate", "0.8"}}},
      {"vc-wavefront-hotspot", {{"switch.queueing", "vc"}, {"switch.allocator", "wavefront"}, {"traffic.pattern", "hotspot"},
                                {"traffic.hotspot_ports", "3,9"}, {"traffic.hotspot_fraction", "0.3"}, {"traffic.rate", "0.6"}}},
      {"fifo-onoff", {{"switch.queueing", "fifo"}, {"traffic.injection", "onoff"}, {"traffic.burst_packets", "6"},
                      {"traffic.packet_flits", "2"}, {"traffic.rate", "0.7"}}},
      {"voq-incast", {{"traffic.pattern", "incast"}, {"traffic.incast_target", "5"}, {"traffic.rate", "0.3"}}},
      {"voq-1vc-permutation", {{"switch.vcs", "1"}, {"traffic.pattern", "permutation"}, {"traffic.packet_flits", "4"}, {"traffic.rate", "1.0"}}},
  };
  // Flit by flit, in packet mode, and with crossbar speedup 2 into 3-flit output buffers (full
  // buffers refuse grants, inputs return two credits in a cycle).
  const Case modes[] = {{"", {}},
                        {" (packet mode)", {{"switch.packet_mode", "true"}}},
                        {" (speedup 2)", {{"switch.speedup", "2"}, {"switch.output_buffer_flits", "3"}}}};
  for (const Case& m : modes) {
    for (const Case& k : cases) {
      auto sets = base;
      sets.insert(sets.end(), k.sets.begin(), k.sets.end());
      sets.insert(sets.end(), m.sets.begin(), m.sets.end());
      const std::string name = std::string(k.name) + m.name;
      auto f = run_plain(make_config("", sets));
      const auto& r = f->endpoints().result();
      EXPECT_TRUE(top::check_drained(*f).empty()) << name << ": " << top::check_drained(*f)[0];
      EXPECT_EQ(r.packets_created, r.packets_delivered) << name;
      EXPECT_EQ(r.flits_created, r.flits_delivered) << name;
      EXPECT_GT(r.packets_created, 1000u) << name;
    }
  }
}

TEST(Conservation, CheckerCatchesALostCredit) {
  auto c = make_config("tiny", {{"traffic.rate", "0.4"}});
  top::Fabric f(c);
  bool dropped = false;
  std::vector<std::string> seen;
  f.run_plain([&](uint64_t t) {
    if (t == 3000 && !dropped) {
      f.sw().debug_drop_next_credit(5);
      dropped = true;
    }
    if (t > 3200 && seen.empty()) seen = top::check_conservation(f);
  });
  ASSERT_FALSE(seen.empty()) << "the checker missed the lost credit";
  EXPECT_NE(seen[0].find("input link of port 5"), std::string::npos) << seen[0];
  const auto end = top::check_drained(f);
  ASSERT_FALSE(end.empty());
  bool names_source = false;
  for (const auto& line : end) names_source |= line.find("source 5:") != std::string::npos;
  EXPECT_TRUE(names_source);
}

TEST(Conservation, PeriodicCheckStopsTheRunOnALostCredit) {
  auto c = make_config("tiny", {{"traffic.rate", "0.4"}, {"sim.check_interval_cycles", "100"}});
  top::Fabric f(c);
  EXPECT_THROW(f.run_plain([&](uint64_t t) {
    if (t == 2500) f.sw().debug_drop_next_credit(1);
  }),
               top::ConservationError);
}

TEST(Conservation, WatchdogReportsAStarvedSource) {
  // One VC with two credits and no pool: losing both leaves source 2 unable to ever send.
  auto c = make_config("tiny", {{"switch.vcs", "1"}, {"switch.vc_buffer_flits", "2"}, {"switch.shared_buffer_flits", "0"},
                                {"traffic.rate", "0.3"}, {"sim.watchdog_cycles", "3000"}});
  top::Fabric f(c);
  int drops = 0;
  try {
    f.run_plain([&](uint64_t t) {
      if (t >= 1000 && drops < 40) {  // keep dropping until the loop is empty
        f.sw().debug_drop_next_credit(2);
        ++drops;
      }
    });
    FAIL() << "the watchdog did not fire";
  } catch (const core::DeadlockError& e) {
    EXPECT_NE(std::string(e.what()).find("deadlock"), std::string::npos);
    EXPECT_NE(e.state().find("source 2:"), std::string::npos) << e.state();
  }
}

// A path longer than sim.watchdog_cycles is not a deadlock: the watchdogs' window grows to four
// round trips (config/watchdog.cpp). link.latency_cycles = 200000 used to stop every run.
TEST(Watchdog, LongLinksAreNotADeadlock) {
  auto c = make_config("tiny", {{"link.latency_cycles", "20000"}, {"sim.watchdog_cycles", "3000"},
                                {"sim.measure_cycles", "2000"}, {"traffic.rate", "0.3"}});
  EXPECT_GT(c.watchdog_window(), 4u * 4 * 20000);  // four round trips of two links each way
  auto f = run_plain(c);  // a false deadlock would throw (the credit loop limits it: saturated)
  EXPECT_GT(f->endpoints().result().measured_delivered, 100u);
  EXPECT_TRUE(top::check_drained(*f).empty());
}

// ... and a real deadlock on long links is still reported, within the scaled window: the starved
// source of WatchdogReportsAStarvedSource with 2,000-cycle links.
TEST(Watchdog, ARealDeadlockOnLongLinksIsStillReported) {
  auto c = make_config("tiny", {{"switch.vcs", "1"}, {"switch.vc_buffer_flits", "2"}, {"switch.shared_buffer_flits", "0"},
                                {"traffic.rate", "0.3"}, {"sim.watchdog_cycles", "3000"},
                                {"link.latency_cycles", "2000"}});
  const uint64_t window = c.watchdog_window();
  top::Fabric f(c);
  uint64_t last = 0;
  try {
    f.run_plain([&](uint64_t t) {
      last = t;
      if (t >= 1000 && t < 40000) f.sw().debug_drop_next_credit(2);  // every credit of port 2 in flight
    });
    FAIL() << "the watchdog did not fire";
  } catch (const core::DeadlockError& e) {
    EXPECT_NE(std::string(e.what()).find("deadlock"), std::string::npos);
    // Not before one window has passed; once the drops end at cycle 40000 the traffic still
    // moving backs up behind the starved input within a window or two, and a window later the
    // watchdog (the switch's or the endpoints') fires.
    EXPECT_GT(last, window);
    EXPECT_LT(last, 40000 + 4 * window) << "window " << window;
  }
}

TEST(Determinism, SameConfigAndSeedGiveTheSameRun) {
  auto c = make_config("tiny", {{"traffic.rate", "0.7"}, {"traffic.packet_mix", "1:1,4:1"}});
  auto a = run_plain(c), b = run_plain(c);
  EXPECT_EQ(a->endpoints().result().packet_latency.buckets(), b->endpoints().result().packet_latency.buckets());
  EXPECT_EQ(a->sw().stats().xbar_flits, b->sw().stats().xbar_flits);
  EXPECT_EQ(a->simulated_cycles(), b->simulated_cycles());
  c.measure.seed = 2;
  auto d = run_plain(c);
  EXPECT_NE(a->endpoints().result().packet_latency.buckets(), d->endpoints().result().packet_latency.buckets());
}

TEST(Routing, TableSendsEachDestinationToItsPort) {
  // Shift traffic src -> src+1, and a table that maps destination d to port 7 - d: port p
  // receives the traffic of destination 7 - p, and nothing is misdelivered (the sinks check).
  auto c = make_config("tiny", {{"traffic.pattern", "shift"}, {"traffic.rate", "0.5"},
                                {"switch.routing_table", "7,6,5,4,3,2,1,0"}, {"traffic.incast_sources", "0"}});
  auto f = run_plain(c);
  const auto& ports = f->endpoints().result().ports;
  for (int p = 0; p < 8; ++p) {
    const int dst = 7 - p, src = (dst + 7) % 8;
    EXPECT_NEAR(static_cast<double>(ports[p].accepted_flits), static_cast<double>(ports[src].offered_flits),
                0.05 * static_cast<double>(ports[src].offered_flits) + 20);
  }
  EXPECT_TRUE(top::check_drained(*f).empty());
}

TEST(Traffic, PatternsAndInjectionDeliverTheOfferedLoad) {
  for (const char* inj : {"bernoulli", "onoff"}) {
    auto f = run_plain(make_config("tiny", {{"traffic.injection", inj}, {"traffic.rate", "0.3"},
                                            {"sim.measure_cycles", "40000"}}));
    EXPECT_NEAR(offered(*f), 0.3, 0.015) << inj;
    EXPECT_NEAR(accepted(*f), offered(*f), 0.01) << inj;
  }
  // Incast: the target's link is the bottleneck: its rate, 98.125 GB/s over 102.4 GB/s per flit
  // per cycle (64 B at 1.6 GHz).
  auto f = run_plain(make_config("tiny", {{"traffic.pattern", "incast"}, {"traffic.rate", "0.5"},
                                          {"traffic.incast_target", "3"}, {"sim.flush", "false"}}));
  EXPECT_TRUE(f->endpoints().result().saturated);
  EXPECT_NEAR(static_cast<double>(f->endpoints().result().ports[3].accepted_flits) /
                  static_cast<double>(f->endpoints().result().window_cycles),
              98.125 / 102.4, 0.01);
}

}  // namespace
}  // namespace upswitch::testing
