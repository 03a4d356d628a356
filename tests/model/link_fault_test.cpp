// The data-link layer and the link faults in a whole transaction fabric, under the reference
// memory and scoreboard: nothing lost, duplicated or corrupted whatever the error rate or a link
// going down, the replay counters accounting for every failed DL flit, and a lost credit
// reported by the credit checker.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "test_support.h"
#include "top/conservation.h"
#include "top/link_layers.h"
#include "txn_random_mix.h"

namespace upswitch::testing {
namespace {

struct Directions {
  top::DlTotals up, down;
};

Directions dl_totals(const top::TxnFabric& f) {
  Directions d;
  for (int p = 0; p < f.endpoints().accelerators(); ++p) {
    top::add_dl_stats(d.up, f.uplink(p));
    top::add_dl_stats(d.down, f.downlink(p));
  }
  return d;
}

// Every transmission the receiver did not accept was sent again, and nothing else was.
void expect_replays_account_for_failures(const core::DlStats& s) {
  EXPECT_EQ(s.frames_replayed, s.crc_errors + s.frames_discarded + s.frames_duplicate + s.frames_lost_down);
  EXPECT_LE(s.replay_requests, s.crc_errors);
}

std::vector<std::pair<std::string, std::string>> dl_mix(const std::string& rate) {
  return {{"switch.ports", "16"},      {"reduce.enable", "false"},           {"link.dl.enable", "true"},
          {"link.dl.flit_error_rate", rate}, {"sim.check_interval_cycles", "2000"}};
}

TEST(LinkFaults, EveryRequestIsAnsweredOnceWithTheRightBytesAtErrorRatesUpTo1e3) {
  for (const char* rate : {"1e-9", "1e-6", "1e-4", "1e-3"}) {
    SCOPED_TRACE(rate);
    auto f = run_mix(dl_mix(rate), 8, 1500, false);  // the scoreboard checks every byte
    const Directions d = dl_totals(*f);
    const endpoint::TxnResult& r = f->endpoints().result();
    // Each TL flit crossed its DL exactly once in each direction.
    EXPECT_EQ(d.up.stats.tl_flits, r.flits_sent);
    EXPECT_EQ(d.down.stats.tl_flits, r.flits_received);
    for (const top::DlTotals* t : {&d.up, &d.down}) {
      const core::DlStats& s = t->stats;
      expect_replays_account_for_failures(s);
      // The injected errors: a binomial count over the data DL flits sent, within 5 sigma.
      const double p = std::stod(rate);
      const double n = static_cast<double>(s.frames_sent + s.frames_replayed);
      EXPECT_NEAR(static_cast<double>(s.crc_errors), p * n, 5 * std::sqrt(p * n) + 1) << "of " << n;
    }
    if (std::string(rate) == "1e-3") {
      EXPECT_GT(d.up.stats.crc_errors + d.down.stats.crc_errors, 100u);
    }
  }
}

// Every port sending flat out to the next one (packets): each link backlogged in both directions.
std::unique_ptr<top::Fabric> saturated_shift(const std::string& rate) {
  return run_plain(make_config("", {{"switch.ports", "16"},
                                    {"traffic.pattern", "shift"},
                                    {"traffic.shift", "1"},
                                    {"traffic.rate", "1.0"},
                                    {"sim.warmup_cycles", "5000"},
                                    {"sim.measure_cycles", "60000"},
                                    {"sim.flush", "false"},
                                    {"link.dl.enable", "true"},
                                    {"link.dl.flit_error_rate", rate}}));
}

TEST(LinkFaults, WithoutErrorsTheDlLayerCarriesTheFullTlRate) {
  // link.gbytes_per_s is the TL rate: the wire runs 640/628 faster and the DL overhead is absorbed.
  auto f = saturated_shift("0");
  EXPECT_NEAR(accepted(*f), f->config().link_flits_per_cycle(), 0.002);
  const auto d = top::collect_dl(*f, 16);
  EXPECT_EQ(d.up.stats.frames_replayed, 0u);
  // Backlogged DL flits are full: 628 B of TL flits each (straddling), within one flit per run.
  EXPECT_NEAR(static_cast<double>(d.up.stats.tl_flits) * 64 / static_cast<double>(d.up.stats.frames_sent), 628.0, 1.0);
}

TEST(LinkFaults, GoodputFallsWithTheErrorRateAsGoBackNPredicts) {
  const config::Config c = make_config("", {{"link.dl.enable", "true"}});
  const core::DataLink probe(c.dl, {}, c.flit_bytes, c.link_flits_per_cycle(),
                             static_cast<uint32_t>(c.link_latency_cycles), 1, 1);
  // W: slots from a corrupt DL flit's slot to its replay's (the replay request's round trip).
  const uint64_t x = 1000;
  const uint64_t back = probe.slot_start(x + 1) + 2 * static_cast<uint64_t>(c.link_latency_cycles) +
                        static_cast<uint64_t>(c.dl.rx_cycles + c.dl.ack_cycles);
  const double w = static_cast<double>(probe.first_slot_at(back) - x);
  EXPECT_EQ(w, 27.0);  // ceil((10.24 + 256 + 8) / 10.24), doc/reliability.md
  double last = 2;
  for (const char* rate : {"1e-4", "1e-3", "1e-2"}) {
    SCOPED_TRACE(rate);
    auto f = saturated_shift(rate);
    const double p = std::stod(rate);
    const double predicted = 1.0 / (1.0 + w * p / (1.0 - p));
    const auto d = top::collect_dl(*f, 16);
    for (const top::DlTotals* t : {&d.up, &d.down}) {
      const double sent = static_cast<double>(t->stats.frames_sent);
      const double goodput = sent / (sent + static_cast<double>(t->stats.frames_replayed));
      EXPECT_NEAR(goodput / predicted, 1.0, 0.05);
    }
    // End to end a flit crosses two such links with finite buffers between them: the accepted
    // rate lies between the product of the two links' goodputs and one link's.
    const double a = accepted(*f) / f->config().link_flits_per_cycle();
    EXPECT_LE(a, predicted * 1.01);
    EXPECT_GE(a, predicted * predicted * 0.97);
    EXPECT_LT(a, last);
    last = a;
  }
}

TEST(LinkFaults, ALinkThatGoesDownAndUpStallsItsTrafficAndLosesNothing) {
  auto sets = dl_mix("0");
  sets.emplace_back("faults.link_down", "3@3000-9000");
  auto f = run_mix(sets, 8, 300, false);
  const Directions d = dl_totals(*f);
  EXPECT_EQ(d.up.stats.link_ups, 1u);
  EXPECT_EQ(d.down.stats.link_ups, 1u);
  EXPECT_GT(d.up.stats.frames_lost_down + d.down.stats.frames_lost_down, 0u);
  expect_replays_account_for_failures(d.up.stats);
  expect_replays_account_for_failures(d.down.stats);
  const endpoint::TxnResult& r = f->endpoints().result();
  EXPECT_EQ(d.up.stats.tl_flits, r.flits_sent);
  EXPECT_EQ(d.down.stats.tl_flits, r.flits_received);
  // The run outlasted the down interval (9000 ns = 14400 cycles), so port 3's traffic resumed.
  EXPECT_GT(f->now(), 14400u);
}

TEST(LinkFaults, ALostCreditIsReportedByTheCreditChecker) {
  auto sets = dl_mix("0");
  sets.emplace_back("faults.credit_loss", "5:up@500");
  sets.emplace_back("link.dl.enable", "false");
  auto f = std::make_unique<top::TxnFabric>(make_txn_config(sets), false);
  RandomMix mix(*f, 8, 300, 4096);
  mix.start();
  try {
    f->run_until_idle(50'000'000);
    ADD_FAILURE() << "the lost credit went unnoticed";
  } catch (const top::ConservationError& e) {
    EXPECT_NE(std::string(e.what()).find("input link of port 5"), std::string::npos) << e.what();
  }
  EXPECT_EQ(f->uplink(5).credits_lost(), 1u);
}

}  // namespace
}  // namespace upswitch::testing
