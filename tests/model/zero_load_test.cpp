// Zero-load latency equals the sum of the configured pipeline and link latencies, cycle for
// cycle: L + Rt + [Va] + Sa + X + E + L + (P - 1), computed here from the keys, not the model.
#include <gtest/gtest.h>

#include "test_support.h"
#include "top/report.h"

namespace upswitch::testing {
namespace {

struct Pipe {
  int link, route, va, sa, xbar, egress, credit;
};

uint64_t by_hand(const Pipe& p, const std::string& queueing, int flits) {
  return static_cast<uint64_t>(p.link + p.route + (queueing == "vc" ? p.va : 0) + p.sa + p.xbar + p.egress +
                               p.link + (flits - 1));
}

// Eight ports, one packet at a time in the whole switch: shift traffic at a rate so low that
// packets never meet, and deep buffers so credits never wait.
std::unique_ptr<top::Fabric> run_alone(const Pipe& p, const std::string& queueing, int flits, const std::string& rate,
                                       const std::string& measure, bool speculative = false) {
  return run_plain(make_config("", {{"switch.ports", "8"},
                                    {"switch.queueing", queueing},
                                    {"switch.vcs", "2"},
                                    {"switch.speculative", speculative ? "true" : "false"},
                                    {"link.latency_cycles", std::to_string(p.link)},
                                    {"link.credit_delay_cycles", std::to_string(p.credit)},
                                    {"switch.routing_cycles", std::to_string(p.route)},
                                    {"switch.vc_alloc_cycles", std::to_string(p.va)},
                                    {"switch.sw_alloc_cycles", std::to_string(p.sa)},
                                    {"switch.xbar_cycles", std::to_string(p.xbar)},
                                    {"switch.egress_cycles", std::to_string(p.egress)},
                                    {"traffic.pattern", "shift"},
                                    {"traffic.rate", rate},
                                    {"traffic.packet_flits", std::to_string(flits)},
                                    {"sim.warmup_cycles", "0"},
                                    {"sim.measure_cycles", measure}}));
}

TEST(ZeroLoad, LatencyIsTheSumOfTheStages) {
  const Pipe pipes[] = {{1, 0, 0, 0, 0, 0, 1}, {3, 2, 1, 1, 1, 2, 4}, {128, 8, 4, 4, 4, 16, 144}, {7, 5, 6, 0, 3, 0, 2}};
  for (const Pipe& p : pipes) {
    for (const std::string q : {"fifo", "vc", "voq"}) {
      for (int flits : {1, 4}) {
        auto f = run_alone(p, q, flits, "0.0002", "400000");
        const auto& h = f->endpoints().result().packet_latency;
        ASSERT_GT(h.count(), 100u);
        const uint64_t want = by_hand(p, q, flits);
        EXPECT_EQ(h.min(), want) << q << " flits " << flits << " link " << p.link;
        EXPECT_EQ(h.percentile(0.5), want) << q << " flits " << flits << " link " << p.link;
        EXPECT_EQ(f->endpoints().result().network_latency.max(), want);
      }
    }
  }
}

// Speculation (vc queueing): a head asks for the crossbar in its last VC-allocation cycle, so a
// packet at zero load crosses one cycle earlier whenever Va >= 1, and the reported zero-load
// latency (the base of every queueing delay in summary.json) says so.
TEST(ZeroLoad, SpeculationSavesOneVcAllocationCycle) {
  for (const Pipe& p : {Pipe{1, 1, 1, 1, 1, 0, 1}, Pipe{3, 2, 3, 1, 1, 2, 4}, Pipe{2, 1, 0, 1, 0, 1, 2}}) {
    for (int flits : {1, 4}) {
      auto f = run_alone(p, "vc", flits, "0.001", "100000", true);
      const auto& h = f->endpoints().result().packet_latency;
      ASSERT_GT(h.count(), 50u);
      const uint64_t want = by_hand(p, "vc", flits) - (p.va > 0 ? 1 : 0);
      EXPECT_EQ(h.min(), want) << "va " << p.va << " flits " << flits;
      EXPECT_EQ(h.percentile(0.5), want) << "va " << p.va << " flits " << flits;
      EXPECT_EQ(top::zero_load_latency_cycles(*f, flits), want) << "va " << p.va << " flits " << flits;
    }
  }
}

}  // namespace
}  // namespace upswitch::testing
