// Collective performance against independent expectations (doc/reduction.md):
// - traffic accounting: the payload bytes each rank's link carries, exactly as the algorithm's
//   formula says (ring 2(N-1)/N x S plus its 8 B flags; in-switch (N+1)/N x S each way);
// - ring bus bandwidth against the per-port data rate from the TL header arithmetic;
// - in-switch over ring: below 1 for 2-3 ranks, above from about 5 (as measured on NVSwitch,
//   facts §2.5), and at 8 ranks between the 1.15x floor this model holds and the 2(N-1)/(N+1)
//   ideal, which no model of this protocol can exceed;
// - small messages: ring time grows with its 2(N-1) steps, in-switch time stays about flat.
#include <gtest/gtest.h>

#include <map>

#include "coll_support.h"

namespace upswitch::testing {
namespace {

using coll::Algorithm;
using coll::Collective;

config::Config bw_config() { return make_txn_config({}); }

double busbw_gbs(const CollOutcome& o, const coll::CollectiveSpec& s) {
  const double algbw = static_cast<double>(s.bytes) / (o.time_us() * 1000.0);  // GB/s
  return algbw * coll::bus_factor(s.coll, static_cast<int>(s.ranks.size()));
}

// One all-reduce, f32 sum, results checked; memoised, as several tests compare the same runs.
const CollOutcome& all_reduce(Algorithm a, int n, uint64_t bytes) {
  static std::map<std::tuple<int, int, uint64_t>, CollOutcome> memo;
  const auto key = std::make_tuple(static_cast<int>(a), n, bytes);
  auto it = memo.find(key);
  if (it == memo.end()) {
    const auto s = spec_of(Collective::kAllReduce, a, first_ranks(n), bytes);
    CollOutcome o = run_collective(bw_config(), s, 3);
    EXPECT_EQ(o.check.wrong, 0u) << o.check.first;
    it = memo.emplace(key, std::move(o)).first;
  }
  return it->second;
}
double busbw(Algorithm a, int n, uint64_t bytes) {
  return busbw_gbs(all_reduce(a, n, bytes), spec_of(Collective::kAllReduce, a, first_ranks(n), bytes));
}

// The per-port data rate: a long stream of packed 256 B WriteFull requests moves 1 KiB in 17 flits
// (one control half-flit with four compressed headers, then 32 data half-flits; TL arithmetic,
// checked by TxnEfficiency.StreamOfWritesMatchesTheHeaderArithmetic).
double port_data_rate_gbs(const config::Config& c) { return c.link_gbytes_per_s * 1024.0 / (17.0 * 64.0); }

TEST(CollTraffic, RingMovesTwoNMinusOneOverNOfTheBufferEachWay) {
  for (int n : {3, 8}) {
    const uint64_t S = static_cast<uint64_t>(n) * 64 * 1024;  // equal 64 KiB chunks
    const auto s = spec_of(Collective::kAllReduce, Algorithm::kRing, first_ranks(n), S);
    const CollOutcome o = run_collective(bw_config(), s, 5, false);
    for (int r = 0; r < n; ++r) {
      const uint64_t flags = o.run.flags_by_rank[static_cast<size_t>(r)];
      const uint64_t want = 2 * static_cast<uint64_t>(n - 1) * S / static_cast<uint64_t>(n) + 8 * flags;
      EXPECT_EQ(o.ports[static_cast<size_t>(r)].tx_payload_bytes, want) << "n=" << n << " rank " << r;
      // Rank r receives from r-1 what r-1 sent, flags included.
      const uint64_t flags_in = o.run.flags_by_rank[static_cast<size_t>((r + n - 1) % n)];
      EXPECT_EQ(o.ports[static_cast<size_t>(r)].rx_payload_bytes,
                2 * static_cast<uint64_t>(n - 1) * S / static_cast<uint64_t>(n) + 8 * flags_in);
      // One flag per slice and step but the last step, which no one waits for (64 KiB chunks in
      // 8 KiB slices: an eighth of a chunk, coll::default_slice).
      EXPECT_EQ(coll::slice_of(s), 8192u);
      EXPECT_EQ(flags, 8 * (2 * static_cast<uint64_t>(n - 1) - 1));
    }
  }
}

TEST(CollTraffic, InSwitchMovesNPlusOneOverNOfTheBufferEachWay) {
  for (int n : {3, 8, 72}) {
    const uint64_t S = static_cast<uint64_t>(n) * 16 * 1024;
    const auto s = spec_of(Collective::kAllReduce, Algorithm::kSwitch, first_ranks(n), S);
    const CollOutcome o = run_collective(bw_config(), s, 5, false);
    const uint64_t want = static_cast<uint64_t>(n + 1) * S / static_cast<uint64_t>(n);
    for (int r = 0; r < n; ++r) {
      // Sent: the gathers' reads of all N slices (S) and its own slice's multicast store (S/N).
      EXPECT_EQ(o.ports[static_cast<size_t>(r)].tx_payload_bytes, want) << "n=" << n << " rank " << r;
      // Received: its slice's load-reduce results (S/N) and every member's store (S).
      EXPECT_EQ(o.ports[static_cast<size_t>(r)].rx_payload_bytes, want) << "n=" << n << " rank " << r;
    }
    EXPECT_EQ(o.reduce.load_reduces, S / 256);
    EXPECT_EQ(o.reduce.stores, S / 256);
    EXPECT_EQ(o.reduce.member_requests, 2 * static_cast<uint64_t>(n) * (S / 256));
  }
}

TEST(CollBandwidth, RingReachesNinetyPercentOfThePortDataRate) {
  const double rate = port_data_rate_gbs(bw_config());
  EXPECT_NEAR(rate, 92.36, 0.01);
  const double ring = busbw(Algorithm::kRing, 8, 16 << 20);
  EXPECT_GE(ring, 0.90 * rate);
  EXPECT_LE(ring, rate);  // busbw of a ring cannot beat the data rate
}

// At 4 MiB per rank: at 1 MiB one channel's window of load-reduce round trips binds the in-switch
// algorithm at 5 ranks (0.975 of the ring since the switch spreads every rank's requests over all
// its units, doc/reduction.md "Which unit serves a request"; 1.03 before).
TEST(CollBandwidth, InSwitchGainAppearsFromAboutFiveRanks) {
  const uint64_t S = 4 << 20;
  std::map<int, double> ratio;
  for (int n : {2, 3, 5, 8}) ratio[n] = busbw(Algorithm::kSwitch, n, S) / busbw(Algorithm::kRing, n, S);
  EXPECT_LT(ratio[2], 0.9) << "2 ranks: a load-reduce round trip costs more than one ring exchange";
  EXPECT_LT(ratio[3], 1.0);
  EXPECT_GT(ratio[5], 1.0);
  EXPECT_GT(ratio[8], ratio[5]);
}

TEST(CollBandwidth, InSwitchOverRingAtEightRanksStaysBelowTheIdeal) {
  const int n = 8;
  const double ring = busbw(Algorithm::kRing, n, 16 << 20), sw = busbw(Algorithm::kSwitch, n, 16 << 20);
  const double ideal = 2.0 * (n - 1) / (n + 1);  // 1.556: (N+1)/N x S each way against 2(N-1)/N x S
  // The model's defaults give about 1.2x, below NVSwitch's measured 1.30x (facts §2.5); the floor
  // catches a regression, the ideal is a hard limit (the engine's traffic is never less).
  EXPECT_GE(sw / ring, 1.15);
  EXPECT_LT(sw / ring, ideal);
  // In-switch bus bandwidth itself cannot exceed 2(N-1)/(N+1) of the port data rate.
  EXPECT_LT(sw, ideal * port_data_rate_gbs(bw_config()));
}

// The ideal 2(N-1)/(N+1) assumes both algorithms move their bytes equally well. At the defaults the
// crossbar (no speedup) carries the engine's all-to-all gathers and stores at ~90% of a link, the
// ring's permutation at ~96%, which holds the ratio at ~1.2x. Run the core twice as fast as its
// links (3.2 GHz against the same 98.1 GB/s: the crossbar, the reduction engine and the endpoints'
// issue logic all at twice the rate) and the in-switch algorithm approaches the ideal: at least
// 1.45x the ring at 8 ranks (93% of 1.556; measured 128.2 against 86.9 GB/s = 1.475x. It was above
// 1.5x while the ring's flags waited behind its own data; since they go first, doc/nccl.md, the
// ring reaches 0.885 of the port rate here). Crossbar speedup alone (switch.speedup = 2) gives about
// 1.3x (doc/reduction.md): the engine and the endpoints bind next.
TEST(CollBandwidth, WithTwiceTheCoreClockInSwitchApproachesTheIdealAtEightRanks) {
  const config::Config cfg = make_txn_config({{"switch.ports", "8"}, {"switch.clock_ghz", "3.2"}});
  const uint64_t S = 4 << 20;
  double bw[3] = {0, 0, 0};
  for (Algorithm a : {Algorithm::kRing, Algorithm::kSwitch}) {
    const auto s = spec_of(Collective::kAllReduce, a, first_ranks(8), S);
    const CollOutcome o = run_collective(cfg, s, 3, false);
    bw[static_cast<int>(a)] = busbw_gbs(o, s);
  }
  const double ideal = 2.0 * 7 / 9;
  EXPECT_GE(bw[2] / bw[0], 1.45) << "switch " << bw[2] << " GB/s, ring " << bw[0] << " GB/s";
  EXPECT_LT(bw[2] / bw[0], ideal);
}

// At 72 ranks the ring's 2(N-1) = 142 steps each pay a slice round trip and a flag, so its bus
// bandwidth falls while the in-switch algorithm's one gather and one store per slice do not:
// the ratio is far above 1.8x (and above the large-message ideal of 1.95).
TEST(CollBandwidth, InSwitchOverRingAt72RanksIsAtLeastOnePointEight) {
  const uint64_t S = 1 << 20;
  double bw[3] = {0, 0, 0};
  for (Algorithm a : {Algorithm::kRing, Algorithm::kSwitch}) {  // results are checked by CollCorrectness
    const auto s = spec_of(Collective::kAllReduce, a, first_ranks(72), S);
    bw[static_cast<int>(a)] = busbw_gbs(run_collective(bw_config(), s, 3, false), s);
  }
  EXPECT_GE(bw[2] / bw[0], 1.8) << "switch " << bw[2] << " GB/s, ring " << bw[0] << " GB/s";
}

// Few reduction contexts: N units (reduce.units = N), among which the switch spreads every rank's
// requests, serve the ranks' load-reduces and stores one context each, held W cycles (accept ->
// response ready), so by Little's law the all-reduce's S/256 loads and S/256 stores take about
// (S/256) x (W_load + W_store) / (N x contexts) = (S/N / 256) x (W_load + W_store) / contexts. W comes from one operation of each kind on an idle
// fabric; the collective must fall to that rate within 15%, far below its default bandwidth.
TEST(CollBandwidth, FewContextsLimitInSwitchBandwidthByLittlesLaw) {
  const int n = 8;
  const uint64_t S = 1 << 20;
  for (int contexts : {2, 4}) {
    const config::Config cfg = make_txn_config({{"reduce.contexts", std::to_string(contexts)}, {"reduce.units", std::to_string(n)}});
    // Zero-load context times of one 256 B load-reduce and one 256 B store over the group.
    double w[2];
    for (int k = 0; k < 2; ++k) {
      top::TxnFabric f(cfg, false);
      const int g = f.endpoints().define_group(first_ranks(n));
      static uint8_t buf[256];
      endpoint::TransferRequest r;
      r.op = k == 0 ? tl::Opcode::kRead : tl::Opcode::kWriteFull;
      r.addr = f.endpoints().address_map().group_base(g);
      r.bytes = 256;
      r.data = buf;
      r.result = buf;
      f.endpoints().submit(0, r, 0);
      ASSERT_TRUE(f.run_until_idle(1'000'000));
      w[k] = static_cast<double>(f.endpoints().result().reduce.context_cycles);
    }
    const auto s = spec_of(Collective::kAllReduce, Algorithm::kSwitch, first_ranks(n), S);
    const CollOutcome o = run_collective(cfg, s, 5, false);
    const double predicted = static_cast<double>(S / n / 256) * (w[0] + w[1]) / contexts;
    EXPECT_NEAR(static_cast<double>(o.cycles) / predicted, 1.0, 0.15)
        << contexts << " contexts: W load " << w[0] << ", W store " << w[1] << " cycles";
    EXPECT_LT(busbw_gbs(o, s), 0.5 * busbw(Algorithm::kSwitch, n, S));
  }
}

TEST(CollLatency, SmallMessagesRingGrowsWithItsStepsInSwitchStaysFlat) {
  const uint64_t S = 8192;
  const double r2 = all_reduce(Algorithm::kRing, 2, S).time_us(), r8 = all_reduce(Algorithm::kRing, 8, S).time_us();
  const double r72 = all_reduce(Algorithm::kRing, 72, S).time_us();
  const double s2 = all_reduce(Algorithm::kSwitch, 2, S).time_us(), s8 = all_reduce(Algorithm::kSwitch, 8, S).time_us();
  const double s72 = all_reduce(Algorithm::kSwitch, 72, S).time_us();
  // Ring: 2(N-1) dependent steps (2, 14, 142): time per step about the same at every N.
  const double step2 = r2 / 2, step8 = r8 / 14, step72 = r72 / 142;
  EXPECT_NEAR(step8 / step2, 1.0, 0.25);
  EXPECT_NEAR(step72 / step8, 1.0, 0.25);
  // In-switch: one load-reduce round trip and one multicast store whatever N (72 ranks add the
  // engine's gather of 72 contributions, not 70 more steps).
  EXPECT_LT(s72 / s2, 1.6);
  EXPECT_LT(s8 / s2, 1.3);
  EXPECT_LT(s72, r72 / 20);
}

}  // namespace
}  // namespace upswitch::testing
