// The data-link layer alone (core/data_link.h), driven cycle by cycle without a switch, against
// hand-computed slot times, the go-back-N replay arithmetic and the window rule.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/data_link.h"

namespace upswitch::core {
namespace {

// The default UALink x4 port: 98.125 GB/s of TL flits on a 1.6 GHz core with 64 B flits.
constexpr double kRate = 98.125 / (64 * 1.6);  // 0.958... TL flits per cycle
constexpr uint32_t kLat = 128;

// A backlogged (or paced) TL sender and an in-order checker on one DataLink.
struct Harness {
  DataLink dl;
  uint64_t next_id = 0, received = 0, t = 0;
  uint64_t gap = 0;  // 0: send whenever the DL takes a flit; else one flit every `gap` cycles
  uint64_t limit = UINT64_MAX;  // flits to send
  std::vector<uint64_t> sent_at, got_at;
  bool in_order = true;

  Harness(const DlParams& p, const LinkFaults& f = {}, double rate = kRate) : dl(p, f, 64, rate, kLat, 7, 1) {}

  void step() {
    Flit f;
    if (dl.receive(t, f)) {
      if (f.payload != received) in_order = false;
      ++received;
      got_at.push_back(t);
    }
    if (next_id < limit && (gap == 0 || t % gap == 0) && dl.ready(t)) {
      f = Flit{};
      f.payload = static_cast<uint32_t>(next_id++);
      dl.take(t);
      dl.send(t, f);
      sent_at.push_back(t);
    }
    ++t;
  }
  void run_until(uint64_t end) {
    while (t < end) step();
  }
};

DlParams dl_params() {
  DlParams p;
  p.enable = true;
  return p;
}

// Cycles from a corrupt DL flit's slot x to the slot its replay starts in (both slot starts):
// NAK sent at S(x+1) + L + rx, back at + L + ack, replay in the first slot at or after that.
uint64_t replay_slots(const DataLink& dl, uint64_t x, const DlParams& p) {
  const uint64_t nak_back = dl.slot_start(x + 1) + 2 * kLat + p.rx_cycles + p.ack_cycles;
  return dl.first_slot_at(nak_back) - x;
}

TEST(DataLink, SlotsAreSixPointFourNanosecondsAtTheDefaultPort) {
  Harness h(dl_params());
  // 628 B at 61.328125 B/cycle = 10.24 cycles = 6.4 ns at 1.6 GHz (facts §3.1).
  EXPECT_NEAR(h.dl.slot_cycles(), 10.24, 1e-6);
  for (uint64_t x : {0, 1, 2, 3, 25, 1000, 123457})
    EXPECT_EQ(h.dl.slot_start(x), static_cast<uint64_t>(std::ceil(10.24 * static_cast<double>(x) - 1e-9))) << x;
  EXPECT_EQ(h.dl.first_slot_at(11), 1u);
  EXPECT_EQ(h.dl.first_slot_at(12), 2u);
  EXPECT_EQ(h.dl.first_slot_at(0), 0u);
}

TEST(DataLink, ALoneFlitWaitsForTheNextSlotAndTheWholeDlFlit) {
  const DlParams p = dl_params();
  Harness h(p);
  h.limit = 1;
  h.run_until(400);
  ASSERT_EQ(h.received, 1u);
  // Sent at 0; the first slot after it starts at ceil(10.24) = 11 and ends at ceil(20.48) = 21;
  // then the link latency and the CRC check.
  EXPECT_EQ(h.got_at[0], 21 + kLat + p.rx_cycles);
}

TEST(DataLink, ABackloggedLinkCarriesItsTlRateAndPacksFlitsAcrossDlFlits) {
  Harness h(dl_params());
  h.run_until(200000);
  EXPECT_TRUE(h.in_order);
  // Delivered in a window well past the start: payload / slot = 61.33 B/cycle = kRate flits.
  uint64_t in_window = 0;
  for (uint64_t g : h.got_at) in_window += g >= 100000 && g < 200000;
  EXPECT_NEAR(static_cast<double>(in_window) / 100000.0, kRate, 0.002);
  // Every slot carried a full DL flit: 628 B each, TL flits straddling.
  const DlStats& s = h.dl.stats();
  EXPECT_EQ(s.frames_replayed, 0u);
  EXPECT_NEAR(static_cast<double>(s.tl_flits) * 64.0 / static_cast<double>(s.frames_sent), 628.0, 1.0);
}

TEST(DataLink, WithoutErrorsFlitsLeaveOnePerCycleInSendOrder) {
  Harness h(dl_params());
  h.run_until(50000);
  ASSERT_TRUE(h.in_order);
  for (size_t i = 1; i < h.got_at.size(); ++i) ASSERT_GT(h.got_at[i], h.got_at[i - 1]);
}

TEST(DataLink, GoBackNGoodputFollowsTheReplayArithmetic) {
  for (double rate : {1e-3, 1e-2, 3e-2}) {
    DlParams p = dl_params();
    p.flit_error_rate = rate;
    Harness h(p);
    h.run_until(2000000);
    ASSERT_TRUE(h.in_order) << rate;
    const DlStats& s = h.dl.stats();
    // Every failed attempt costs the W slots from it to its replay (Bertsekas & Gallager, go-back-N):
    // slots per delivered DL flit = 1 + W p / (1 - p).
    const double w = static_cast<double>(replay_slots(h.dl, 1000, p));
    const double expected = 1.0 / (1.0 + w * rate / (1.0 - rate));
    const double busy = static_cast<double>(s.frames_sent + s.frames_replayed);
    const double by_counters = static_cast<double>(s.frames_sent) / busy;
    EXPECT_NEAR(by_counters / expected, 1.0, 0.05) << "p = " << rate;
    // Goodput itself, against the error-free link, agrees with retransmitted / total.
    const double goodput = static_cast<double>(h.received) / (static_cast<double>(h.t) * kRate);
    EXPECT_NEAR(goodput / by_counters, 1.0, 0.01) << "p = " << rate;
    EXPECT_GT(s.crc_errors, 0u);
    EXPECT_LE(s.replay_requests, s.crc_errors);
  }
}

TEST(DataLink, EachIsolatedErrorDelaysItsFlitByOneReplayRoundTrip) {
  DlParams p = dl_params();
  p.flit_error_rate = 0.02;
  Harness h(p);
  h.gap = 1000;  // one flit per DL flit, far apart: errors never overlap
  h.run_until(4000000);
  ASSERT_TRUE(h.in_order);
  const DlStats& s = h.dl.stats();
  ASSERT_GT(s.crc_errors, 40u);
  EXPECT_EQ(s.replay_requests, s.crc_errors);  // every error its own replay
  uint64_t delayed = 0;
  for (size_t i = 0; i < h.got_at.size(); ++i) {
    const uint64_t x = h.dl.first_slot_at(h.sent_at[i] + 1);
    const uint64_t clean = h.dl.slot_start(x + 1) + kLat + p.rx_cycles;
    if (h.got_at[i] == clean) continue;
    ++delayed;
    // Replayed once: its replay slot r = x + W; more than once: a multiple of W later.
    uint64_t r = x;
    uint64_t tries = 0;
    while (h.dl.slot_start(r + 1) + kLat + p.rx_cycles < h.got_at[i] && tries < 10) {
      r += replay_slots(h.dl, r, p);
      ++tries;
    }
    EXPECT_EQ(h.got_at[i], h.dl.slot_start(r + 1) + kLat + p.rx_cycles) << "flit " << i;
  }
  // Every error hit a lone flit's DL flit (replays included): one delay per error, or fewer
  // delayed flits than errors when a replay was hit again.
  EXPECT_LE(delayed, s.crc_errors);
  EXPECT_GE(delayed, s.crc_errors * 9 / 10);
  // Mean added latency at this rate: p x W slots per flit, within 5%.
  double extra = 0;
  for (size_t i = 0; i < h.got_at.size(); ++i)
    extra += static_cast<double>(h.got_at[i] -
                                 (h.dl.slot_start(h.dl.first_slot_at(h.sent_at[i] + 1) + 1) + kLat + p.rx_cycles));
  extra /= static_cast<double>(h.got_at.size());
  const double w_cycles = static_cast<double>(replay_slots(h.dl, 1000, p)) * h.dl.slot_cycles();
  EXPECT_NEAR(extra / (p.flit_error_rate / (1 - p.flit_error_rate) * w_cycles), 1.0, 0.25);
}

TEST(DataLink, AReplayWindowSmallerThanTheAckLoopLimitsThroughput) {
  DlParams p = dl_params();
  p.replay_window = 4;
  Harness h(p);
  h.run_until(400000);
  ASSERT_TRUE(h.in_order);
  // A DL flit's ack returns S(x+1) + 2L + rx + ack after its slot starts, and the window frees
  // one slot per ack: at most `window` DL flits per ack loop (the credit round-trip rule for DL flits).
  const double loop = h.dl.slot_cycles() + 2.0 * kLat + p.rx_cycles + p.ack_cycles;
  const double slots_per_loop = std::ceil(loop / h.dl.slot_cycles());
  const double expected_flits = kRate * std::min(1.0, p.replay_window / slots_per_loop);
  uint64_t in_window = 0;
  for (uint64_t g : h.got_at) in_window += g >= 200000 && g < 400000;
  EXPECT_NEAR(static_cast<double>(in_window) / 200000.0 / expected_flits, 1.0, 0.05);
  EXPECT_EQ(h.dl.stats().max_unacked, 4u);
}

TEST(DataLink, ALinkDownIntervalStallsAndLosesNothing) {
  DlParams p = dl_params();
  LinkFaults f;
  f.down.push_back(DownInterval{20000, 30000});
  Harness h(p, f);
  h.run_until(100000);
  EXPECT_TRUE(h.in_order);
  const DlStats& s = h.dl.stats();
  EXPECT_EQ(s.link_ups, 1u);
  EXPECT_GT(s.frames_lost_down, 0u);   // DL flits in flight at 20000 were lost ...
  EXPECT_GT(s.frames_replayed, 0u);    // ... and resent after link-up
  // Nothing crosses the link while it is down: no release between the TL flits of the last DL
  // flit that arrived before 20000 (at most 10, one per cycle) and the first one sent after 30000.
  const uint64_t last_before = 20000 + static_cast<uint64_t>(p.rx_cycles) + 10, first_after = 30000 + kLat;
  for (uint64_t g : h.got_at) EXPECT_FALSE(g > last_before && g < first_after) << g;
  // Everything sent was delivered but what is still on its way at the end.
  EXPECT_EQ(h.received + h.dl.in_flight(), h.next_id);
  EXPECT_LT(h.dl.in_flight(), 200u);
}

TEST(DataLink, DlFlitsResentAfterALinkUpAreAcknowledgedAgain) {
  // Found by tests/fuzz/fuzz_data_link: with a window of one DL flit, a DL flit that arrived but
  // whose ack was lost in a down interval is resent at link-up; the receiver drops the
  // duplicate and must acknowledge it again, or the full window never opens.
  DlParams p = dl_params();
  p.replay_window = 1;
  // DL flit 0 (slot 1, cycles 11-21) is accepted at 21 + 128 + 2 = 151; its ack would be back at
  // 151 + 128 + 6 = 285, but the link is down from 200 to 1000.
  LinkFaults f;
  f.down.push_back(DownInterval{200, 1000});
  Harness h(p, f);
  h.run_until(60000);
  EXPECT_TRUE(h.in_order);
  EXPECT_EQ(h.dl.stats().frames_duplicate, 1u);
  // Then one DL flit per ack loop (slot + 2L + rx + ack = 274.24 cycles, 27 slots): 9.8 TL
  // flits every 276.5 cycles for the 59000 cycles after the link-up.
  EXPECT_NEAR(static_cast<double>(h.received), 59000.0 / (27 * 10.24) * 9.8125, 60.0);
}

TEST(DataLink, BurstsCorruptConsecutiveDlFlits) {
  DlParams p = dl_params();
  p.flit_error_rate = 1e-3;
  p.burst_flits = 8;
  Harness h(p);
  h.run_until(1000000);
  ASSERT_TRUE(h.in_order);
  const DlStats& s = h.dl.stats();
  // A burst that hits a DL flit hits the next ones too, but costs one replay.
  EXPECT_GT(s.crc_errors, 4 * s.replay_requests);
}

TEST(DataLink, BitErrorRateIsTheDlFlitErrorRateOfItsBits) {
  DlParams p = dl_params();
  p.bit_error_rate = 1e-6;
  EXPECT_NEAR(p.start_probability(), 1.0 - std::pow(1.0 - 1e-6, 5120.0), 1e-12);
}

TEST(DataLink, ErrorsDoNotDependOnTraffic) {
  // The error process runs over slots, so two links with the same seed and stream hit the
  // same slots whatever they carry: the lone-flit link sees no more replays than slots it used.
  DlParams p = dl_params();
  p.flit_error_rate = 0.05;
  Harness a(p), b(p);
  b.gap = 50;
  a.run_until(100000);
  b.run_until(100000);
  EXPECT_TRUE(a.in_order);
  EXPECT_TRUE(b.in_order);
  EXPECT_LT(b.dl.stats().crc_errors, a.dl.stats().crc_errors);
}

}  // namespace
}  // namespace upswitch::core
