// Hotspots and their remedies against independent expectations. A hot output is offered more than
// its link carries (1 flit/cycle here), so it must run at exactly its capacity; every other
// output is offered less than that, so a switch that isolates the flows must deliver all of it.
// Without remedies the cold flows lose throughput: the sources' single FIFO waits behind a hot
// packet, and the inputs' shared buffer fills with hot flits. With per-destination injection
// queues (and, on top, the per-output cap on the shared pool) the cold flows get their offered
// load within 2%. The cap keeps credits conserved (checked every 101 cycles and at the end).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "config/param_table.h"
#include "stats/fairness.h"
#include "test_support.h"

namespace upswitch::testing {
namespace {

using Sets = std::vector<std::pair<std::string, std::string>>;

// 8 ports, VOQ iSLIP, 4 VCs x 8 + 16 shared slots, 4-flit packets, links at 1 flit/cycle; port 0
// hot: 40% of the packets plus its uniform share, i.e. 0.5 x 8 x (0.4 + 0.6 / 8) = 1.9 flits/cycle
// offered to it, and 0.3 flits/cycle to each cold destination. (With 2 VCs the hot link idles a
// few percent: both of its output VCs can be held by packets whose inputs are sending elsewhere.)
Sets hotspot(const Sets& extra) {
  Sets s = {{"switch.vcs", "4"},
            {"traffic.pattern", "hotspot"},  {"traffic.hotspot_ports", "0"}, {"traffic.hotspot_fraction", "0.4"},
            {"traffic.rate", "0.5"},         {"link.gbytes_per_s", "0"},      {"sim.warmup_cycles", "4000"},
            {"sim.measure_cycles", "10000"}, {"sim.check_interval_cycles", "101"}};
  s.insert(s.end(), extra.begin(), extra.end());
  return s;
}

struct Flows {
  double hot_offered, hot_accepted, cold_offered, cold_accepted;
  double jain_sources, mean_occupancy;
};

Flows run_flows(const Sets& extra) {
  const auto f = run_plain(make_config("tiny", hotspot(extra)));
  const auto& r = f->endpoints().result();
  EXPECT_TRUE(top::check_drained(*f).empty()) << top::check_drained(*f)[0];
  EXPECT_EQ(r.flits_created, r.flits_delivered);
  const double w = static_cast<double>(r.window_cycles);
  double occ = 0;
  for (uint64_t o : f->network().sw(0).stats().occupancy_flit_cycles) occ += static_cast<double>(o);
  return {static_cast<double>(r.hot.offered_flits) / w,  static_cast<double>(r.hot.accepted_flits) / w,
          static_cast<double>(r.cold.offered_flits) / w, static_cast<double>(r.cold.accepted_flits) / w,
          stats::jain_index(r.source_accepted),          occ / w / f->endpoint_ports()};
}

TEST(Hotspot, WithoutRemediesColdFlowsLose) {
  const Flows x = run_flows({});
  EXPECT_NEAR(x.hot_offered, 1.9, 0.1);
  EXPECT_NEAR(x.cold_offered, 2.1, 0.1);
  EXPECT_NEAR(x.hot_accepted, 1.0, 0.02);               // the hot output saturates
  EXPECT_LT(x.cold_accepted, 0.9 * x.cold_offered);     // the cold flows are held back
}

TEST(Hotspot, PerDestinationQueuesServeColdFlowsInFull) {
  const Flows x = run_flows({{"endpoint.injection_queues", "per_destination"}});
  EXPECT_NEAR(x.hot_accepted, 1.0, 0.02);
  EXPECT_NEAR(x.cold_accepted / x.cold_offered, 1.0, 0.02);
  EXPECT_GT(x.jain_sources, 0.99);  // every source gets its cold load and an equal part of the hot output
}

TEST(Hotspot, OutputCapWithPerDestinationQueuesServesColdFlowsInFull) {
  const Flows open = run_flows({{"endpoint.injection_queues", "per_destination"}});
  const Flows x = run_flows({{"endpoint.injection_queues", "per_destination"}, {"switch.shared_buffer_output_cap", "4"}});
  EXPECT_NEAR(x.hot_accepted, 1.0, 0.02);
  EXPECT_NEAR(x.cold_accepted / x.cold_offered, 1.0, 0.02);
  // Hot flits hold at most the 4 x 8 reserved slots and 4 shared ones of each input.
  EXPECT_LT(x.mean_occupancy, open.mean_occupancy);
  EXPECT_LT(x.mean_occupancy, 4 * 8 + 4 + 4.0);
}

TEST(Hotspot, OutputCapAloneCannotUndoTheSourcesFifo) {
  // The cap frees the shared pool, but a FIFO source still waits behind its hot packet.
  const Flows x = run_flows({{"switch.shared_buffer_output_cap", "4"}});
  EXPECT_NEAR(x.hot_accepted, 1.0, 0.02);
  EXPECT_LT(x.cold_accepted, 0.9 * x.cold_offered);
}

// Credits stay conserved with the cap on every queueing (fifo: one credit class), with packets
// larger than what the cap lets one output hold, and under uniform load.
TEST(Hotspot, OutputCapConservesCredits) {
  const Sets cases[] = {
      {{"switch.shared_buffer_output_cap", "3"}, {"traffic.packet_mix", "1:0.5,3:0.3,12:0.2"}},
      {{"switch.shared_buffer_output_cap", "1"}, {"switch.queueing", "fifo"}, {"endpoint.injection_queues", "per_destination"}},
      {{"switch.shared_buffer_output_cap", "5"}, {"switch.queueing", "vc"}, {"endpoint.injection_queues", "per_destination"},
       {"traffic.packet_mix", "2:0.5,40:0.5"}},
      {{"switch.shared_buffer_output_cap", "2"}, {"traffic.pattern", "uniform"}, {"traffic.rate", "0.9"}},
  };
  for (const Sets& k : cases) {
    const auto f = run_plain(make_config("tiny", hotspot(k)));  // conservation checked every 101 cycles
    const auto& r = f->endpoints().result();
    EXPECT_TRUE(top::check_drained(*f).empty()) << top::check_drained(*f)[0];
    EXPECT_EQ(r.packets_created, r.packets_delivered);
    EXPECT_GT(r.packets_created, 1000u);
    for (int p = 0; p < f->endpoint_ports(); ++p)
      for (int o = 0; o < f->network().sw(0).ports(); ++o) EXPECT_EQ(f->endpoints().shared_outstanding(p, o), 0u);
  }
}

TEST(Hotspot, UniformTrafficIsFair) {
  const auto f = run_plain(make_config("tiny", {{"sim.measure_cycles", "20000"}}));
  const auto& r = f->endpoints().result();
  EXPECT_GT(stats::jain_index(r.source_accepted), 0.99);
  EXPECT_GT(stats::jain_index(r.destination_accepted), 0.99);
  EXPECT_EQ(r.hot.offered_flits + r.hot.accepted_flits, 0u);  // no hot class outside the hotspot pattern
}

TEST(Hotspot, RemediesRefusedWhereTheyDoNotAct) {
  config::Config c = config::default_config();
  config::set_param(c, "switch.shared_buffer_output_cap", "8");
  config::set_param(c, "topology.kind", "planes");
  EXPECT_THROW(config::validate(c), config::ConfigError);
  c = config::default_config();
  config::set_param(c, "switch.shared_buffer_output_cap", "8");
  config::set_param(c, "traffic.kind", "transactions");
  EXPECT_THROW(config::validate(c), config::ConfigError);
  c = config::default_config();
  config::set_param(c, "endpoint.injection_queues", "per_destination");
  config::set_param(c, "traffic.kind", "transactions");
  EXPECT_THROW(config::validate(c), config::ConfigError);
  c = config::default_config();
  EXPECT_THROW(config::set_param(c, "endpoint.injection_queues", "voq"), config::ConfigError);
}

TEST(JainIndex, HandComputedValues) {
  EXPECT_DOUBLE_EQ(stats::jain_index(std::vector<double>{1, 1, 1, 1}), 1.0);
  EXPECT_DOUBLE_EQ(stats::jain_index(std::vector<double>{1, 0, 0, 0}), 0.25);  // 1/n: one gets all
  EXPECT_DOUBLE_EQ(stats::jain_index(std::vector<double>{1, 2, 3}), 36.0 / 42.0);  // 6^2 / (3 x 14)
  EXPECT_DOUBLE_EQ(stats::jain_index(std::vector<double>{0.5, 0.5, 1.0, 0.0}), 4.0 / 6.0);  // 2^2 / (4 x 1.5)
  EXPECT_DOUBLE_EQ(stats::jain_index(std::vector<uint64_t>{3, 3, 3}), 1.0);
  EXPECT_DOUBLE_EQ(stats::jain_index(std::vector<uint64_t>{2, 4}), 36.0 / 40.0);
  EXPECT_DOUBLE_EQ(stats::jain_index(std::vector<double>{}), 1.0);
  EXPECT_DOUBLE_EQ(stats::jain_index(std::vector<double>{0, 0}), 1.0);
}

}  // namespace
}  // namespace upswitch::testing
