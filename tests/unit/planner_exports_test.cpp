// The planner table's exports (top/astra_export.h, top/simai_export.h, top/table_fits.h) from a
// table written by hand, against numbers worked out by hand: the ASTRA-sim bandwidth is the stated
// collective's busbw in the stated unit, npus_count the group size; SimAI's files, read the way
// SimAI reads them (tests/simai_reader.h), give back each measured busbw in its 2^30 B/s unit;
// the fits recover the α and β the rows were generated from.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include <yaml-cpp/yaml.h>

#include "simai_reader.h"
#include "top/astra_export.h"
#include "top/planner_exports.h"
#include "top/simai_export.h"
#include "top/table_fits.h"
#include "txn_support.h"

namespace upswitch::testing {
namespace {

using coll::Algorithm;
using coll::Collective;

constexpr double kGiB = 1073741824.0;

// A row of `bytes` whose time follows α + bytes / β (us, bytes per us) and busbw = algbw x factor.
top::CollRow row(Collective c, Algorithm a, int n, uint64_t bytes, double alpha_us, double beta) {
  top::CollRow r;
  r.coll = c;
  r.algo = a;
  r.ranks = n;
  r.bytes = bytes;
  r.time_us = alpha_us + static_cast<double>(bytes) / beta;
  r.algbw = static_cast<double>(bytes) / (r.time_us * 1000.0);
  r.busbw = r.algbw * coll::bus_factor(c, n);
  return r;
}

top::P2pRow p2p_row(tl::Opcode op, uint64_t bytes, uint64_t cycles, double pair) {
  top::P2pRow r;
  r.point = top::P2pPoint{op, bytes, 0};
  r.latency_cycles = cycles;
  r.latency_ns = static_cast<double>(cycles) / 1.6;
  r.pair_gbytes_per_s = pair;
  return r;
}

// Group sizes 1 and 8; at 8: ring and switch all-reduce, ring and oneshot all-gather, oneshot
// all-to-all, each at 1 MiB and 4 MiB (and 64 KiB for the all-gathers).
top::PlannerTable hand_table(bool with_all_reduce = true) {
  top::PlannerTable t;
  t.cfg = make_txn_config({{"accel.mem_latency_cycles", "192"}, {"accel.mem_bytes_per_cycle", "64"}});
  t.opt.coll.group_sizes = {1, 8};
  for (uint64_t b : {uint64_t{1} << 20, uint64_t{4} << 20}) {
    if (with_all_reduce) {
      t.coll.rows.push_back(row(Collective::kAllReduce, Algorithm::kRing, 8, b, 20.0, 50'000.0));
      t.coll.rows.push_back(row(Collective::kAllReduce, Algorithm::kSwitch, 8, b, 10.0, 40'000.0));
    }
    t.coll.rows.push_back(row(Collective::kAllToAll, Algorithm::kOneShot, 8, b, 5.0, 70'000.0));
  }
  for (uint64_t b : {uint64_t{64} << 10, uint64_t{1} << 20, uint64_t{4} << 20}) {
    t.coll.rows.push_back(row(Collective::kAllGather, Algorithm::kRing, 8, b, 8.0, 90'000.0));
    t.coll.rows.push_back(row(Collective::kAllGather, Algorithm::kOneShot, 8, b, 2.0, 60'000.0));
  }
  t.p2p.rows.push_back(p2p_row(tl::Opcode::kWrite, 64, 770, 33.0));
  t.p2p.rows.push_back(p2p_row(tl::Opcode::kWrite, 4096, 849, 82.575));
  t.p2p.rows.push_back(p2p_row(tl::Opcode::kWriteFull, 4096, 840, 87.491));
  return t;
}

double measured(const top::PlannerTable& t, Collective c, Algorithm a, uint64_t bytes) {
  for (const top::CollRow& r : t.coll.rows)
    if (r.coll == c && r.algo == a && r.bytes == bytes) return r.busbw;
  return 0.0;
}

// ASTRA-sim's Switch dimension charges a send 2 x latency + bytes / bandwidth: the bandwidth is
// the best write pair stream (one sender to one receiver), and the latency the one that fits the
// ring all-reduce: the hand table's ring is 20 us + bytes / 50,000 B/us, and 50,000 B/us is 8/14
// of the pair stream (to 1e-4), so ASTRA-sim's 14 sends reproduce it with 20 us over 14 steps of
// two hops each (to 0.5 ns: the 1e-4 of the stream, over 4 MiB).
TEST(AstraExport, BandwidthIsThePairStreamAndLatencyTheRingStepInTheStatedUnit) {
  top::PlannerTable t = hand_table();
  EXPECT_EQ(top::astra_group_sizes(t), std::vector<int>{8});  // one rank: no network to describe
  const double bw = 87.491;  // the writefull 4096 B pair stream, GB/s = B/ns
  const double latency = 20.0 * 1000.0 / (2.0 * 14.0);
  for (top::AstraUnits u : {top::AstraUnits::kBinary, top::AstraUnits::kDecimal}) {
    t.opt.astra_units = u;
    const top::AstraNetwork a = top::astra_network(t, 8);
    ASSERT_EQ(a.dims.size(), 1u);
    EXPECT_EQ(a.npus_count, 8);
    EXPECT_EQ(a.dims[0].topology, "Switch");
    EXPECT_DOUBLE_EQ(a.dims[0].bandwidth_gbps, bw);
    EXPECT_EQ(a.dims[0].bandwidth_source["kind"], "p2p");
    EXPECT_EQ(a.dims[0].bandwidth_source["op"], "writefull");
    EXPECT_NEAR(a.dims[0].latency_ns, latency, 0.5);
    EXPECT_EQ(a.dims[0].latency_source["kind"], "coll");
    EXPECT_EQ(a.dims[0].latency_source["collective"], "all_reduce");
    EXPECT_EQ(a.dims[0].latency_source["bytes"].back(), 4194304u);
    EXPECT_EQ(a.dims[0].latency_source["steps"], 14);
    EXPECT_LT(a.dims[0].latency_source["max_relative_error"].get<double>(), 1e-4);
    const YAML::Node y = YAML::Load(top::astra_network_yaml(t, a));
    EXPECT_EQ(y["topology"][0].as<std::string>(), "Switch");
    EXPECT_EQ(y["npus_count"][0].as<int>(), 8);
    const double unit = u == top::AstraUnits::kBinary ? kGiB : 1e9;
    EXPECT_NEAR(y["bandwidth"][0].as<double>() * unit / 1e9, bw, 0.0006 * unit / 1e9);
    EXPECT_NEAR(y["latency"][0].as<double>(), latency, 0.5);
    // ASTRA-sim's ring over the file: 14 sends of 1/8 of the size, each 2 latencies + bytes / bw,
    // gives back the measured rows (the hand table's β, 50,000 B/us, is 8/14 of the pair stream).
    for (double b : {1048576.0, 4194304.0})
      EXPECT_NEAR(14.0 * (2.0 * latency + b / 8.0 / bw) / 1000.0 / (20.0 + b / 50'000.0), 1.0, 1e-4) << b;
  }
  EXPECT_EQ(top::astra_file_name(8), "astra_network_n8.yml");
  // Binary by hand: the rate x 10^9 / 2^30.
  t.opt.astra_units = top::AstraUnits::kBinary;
  const YAML::Node y = YAML::Load(top::astra_network_yaml(t, top::astra_network(t, 8)));
  EXPECT_NEAR(y["bandwidth"][0].as<double>(), bw * 0.931322574615479, 0.0006);
}

TEST(AstraExport, FallbacksWithoutARingAllReduceARingOrAPairStream) {
  // No ring all-reduce: the ring all-gather, 7 steps. Its hand rows, 8 us + bytes / 90,000 B/us
  // at 64 KiB, 1 and 4 MiB, are slower per byte than 7 sends of 1/8 at the pair stream, so the
  // fitted latency sits above the rows' own 8 us / 14 = 571 ns: by hand, with T the rows' times
  // (8,728, 19,651 and 54,603 ns) and b their sends (7/8 of the size at 87.491 B/ns: 655, 10,487
  // and 41,947 ns), sum (T - b) / T^2 / sum 1 / T^2 = 8,345 ns, over 2 x 7 hops = 596 ns.
  const top::PlannerTable t = hand_table(false);
  const top::AstraNetwork a = top::astra_network(t, 8);
  EXPECT_EQ(a.dims[0].latency_source["collective"], "all_gather");
  EXPECT_EQ(a.dims[0].latency_source["steps"], 7);
  EXPECT_NEAR(a.dims[0].latency_ns, 596.0, 1.0);
  // ... and no latency fits those rows better in relative least squares.
  auto sq_error = [&](double lat) {
    double e = 0;
    for (const top::CollRow& r : t.coll.rows)
      if (r.coll == Collective::kAllGather && r.algo == Algorithm::kRing) {
        const double ns = r.time_us * 1000.0;
        e += std::pow((7.0 * (2.0 * lat + static_cast<double>(r.bytes) / 8.0 / 87.491)) / ns - 1.0, 2);
      }
    return e;
  };
  EXPECT_LT(sq_error(a.dims[0].latency_ns), sq_error(a.dims[0].latency_ns - 5.0));
  EXPECT_LT(sq_error(a.dims[0].latency_ns), sq_error(a.dims[0].latency_ns + 5.0));
  // One ring size only: its step less its send's serialization, over two hops.
  top::PlannerTable one = hand_table();
  std::vector<top::CollRow> kept;
  for (const top::CollRow& r : one.coll.rows)
    if (r.algo != Algorithm::kRing || r.bytes == (4u << 20)) kept.push_back(r);
  one.coll.rows = kept;
  const top::AstraNetwork o = top::astra_network(one, 8);
  EXPECT_EQ(o.dims[0].latency_source["kind"], "coll");
  const double step_ns = (20.0 + 4194304.0 / 50'000.0) * 1000.0 / 14.0;
  EXPECT_NEAR(o.dims[0].latency_ns, (step_ns - 524288.0 / 87.491) / 2.0, 1e-6);
  // No collective: the 64 B write round trip, less the memory access, over 4 link crossings.
  top::PlannerTable none = hand_table(false);
  none.coll.rows.clear();
  const top::AstraNetwork p = top::astra_network(none, 8);
  EXPECT_EQ(p.dims[0].bandwidth_source["op"], "writefull");
  EXPECT_DOUBLE_EQ(p.dims[0].bandwidth_gbps, 87.491);
  EXPECT_EQ(p.dims[0].latency_source["kind"], "p2p");
  EXPECT_NEAR(p.dims[0].latency_ns, (770.0 - 193.0) / 4.0 / 1.6, 1e-9);
  // No p2p rows: the ring all-reduce's busbw is the per-link rate.
  top::PlannerTable no_p2p = hand_table();
  no_p2p.p2p.rows.clear();
  const top::AstraNetwork c = top::astra_network(no_p2p, 8);
  EXPECT_EQ(c.dims[0].bandwidth_source["kind"], "coll");
  EXPECT_EQ(c.dims[0].bandwidth_source["collective"], "all_reduce");
  EXPECT_NEAR(c.dims[0].bandwidth_gbps, measured(no_p2p, Collective::kAllReduce, Algorithm::kRing, 4u << 20), 1e-9);
}

// With --algo auto rows (table's default), SimAI gets what NCCL would run: the auto row at the
// largest size even where a forced row is faster, and the ratio file follows the auto series
// whatever each size picked.
TEST(SimaiExport, TakesTheAutoRowsWhenTheTableHasThem) {
  top::PlannerTable t = hand_table();
  const std::pair<uint64_t, Algorithm> picks[] = {{64u << 10, Algorithm::kRing}, {1u << 20, Algorithm::kSwitch}, {4u << 20, Algorithm::kSwitch}};
  for (const auto& [b, a] : picks) {
    top::CollRow r = row(Collective::kAllGather, a, 8, b, 9.0, 80'000.0);
    r.chosen = true;
    t.coll.rows.push_back(r);
  }
  const auto files = top::simai_files(t, 8);
  const upswitch_simai::Busbw y = upswitch_simai::read_busbw_yaml(files[0].second);
  const top::CollRow top_row = row(Collective::kAllGather, Algorithm::kSwitch, 8, 4u << 20, 9.0, 80'000.0);
  EXPECT_NEAR(y.at("TP").at("allgather") * kGiB / 1e9, top_row.busbw, 0.001);  // not the faster forced ring row
  EXPECT_NE(files[0].second.find("all_gather auto (switch/simple/1ch)"), std::string::npos) << files[0].second;
  EXPECT_NEAR(y.at("TP").at("allreduce") * kGiB / 1e9, measured(t, Collective::kAllReduce, Algorithm::kRing, 4u << 20), 0.001);
  const auto nv = upswitch_simai::read_ratio_csv(files[1].second);
  ASSERT_EQ(nv.size(), 3u);
  for (const auto& r : nv) {
    const top::CollRow ref = row(Collective::kAllGather, Algorithm::kRing, 8, static_cast<uint64_t>(r.size), 9.0, 80'000.0);
    EXPECT_NEAR(r.cells[0], ref.busbw / top_row.busbw, 1e-6) << r.size;
  }
  EXPECT_EQ(top::simai_json(t, 8)["tp"]["allgather"]["selection"], "auto");
}

TEST(SimaiExport, BusbwFileGivesBackEachMeasuredBusbwInSimAIsUnit) {
  const top::PlannerTable t = hand_table();
  const auto files = top::simai_files(t, 8);
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[0].first, "simai_busbw_n8.yaml");
  EXPECT_EQ(files[1].first, "simai_nvlink_ratio_n8.csv");
  EXPECT_EQ(files[2].first, "simai_ata_ratio_n8.csv");
  const upswitch_simai::Busbw b = upswitch_simai::read_busbw_yaml(files[0].second);
  // The best algorithm at the largest size, in 2^30 B/s: ring all-reduce (ring beats switch at
  // 4 MiB: 20 + 83.9 us against 10 + 104.9 us), ring all-gather, oneshot all-to-all.
  auto busbw = [&](Collective c, Algorithm a) { return measured(t, c, a, 4u << 20); };
  EXPECT_NEAR(b.at("TP").at("allreduce") * kGiB / 1e9, busbw(Collective::kAllReduce, Algorithm::kRing), 0.001);
  EXPECT_NEAR(b.at("TP").at("allgather") * kGiB / 1e9, busbw(Collective::kAllGather, Algorithm::kRing), 0.001);
  EXPECT_NEAR(b.at("TP").at("alltoall") * kGiB / 1e9, busbw(Collective::kAllToAll, Algorithm::kOneShot), 0.001);
  EXPECT_NEAR(b.at("EP").at("alltoall") * kGiB / 1e9, busbw(Collective::kAllToAll, Algorithm::kOneShot), 0.001);
  EXPECT_FALSE(b.at("TP").count("reducescatter"));  // not measured: null
  EXPECT_FALSE(b.count("DP"));                      // every DP value null: off the switch
  EXPECT_NEAR(b.at("PP").at("busbw") * kGiB / 1e9, 87.491, 0.001);
  // The nvlink ratio file: all-gather's chosen (ring) rows over its 4 MiB row, one per size.
  const auto nv = upswitch_simai::read_ratio_csv(files[1].second);
  ASSERT_EQ(nv.size(), 3u);
  const double top_bw = busbw(Collective::kAllGather, Algorithm::kRing);
  for (const auto& r : nv) {
    ASSERT_EQ(r.cells.size(), 11u);  // SimAI's twelve scale columns; the last, empty, is not a cell
    const top::CollRow ref = row(Collective::kAllGather, Algorithm::kRing, 8, static_cast<uint64_t>(r.size), 8.0, 90'000.0);
    EXPECT_NEAR(r.cells[0], ref.busbw / top_bw, 1e-6) << r.size;
    for (size_t i = 1; i < r.cells.size(); ++i) EXPECT_EQ(r.cells[i], 1.0);  // other scales: no adjustment
  }
  EXPECT_EQ(nv.front().size, 65536.0);
  EXPECT_EQ(nv.back().cells[0], 1.0);
  EXPECT_EQ(upswitch_simai::read_ratio_csv(files[2].second).size(), 2u);
}

TEST(TableFits, RecoverTheAlphaAndBetaTheRowsCameFrom) {
  const top::PlannerTable t = hand_table();
  const std::vector<top::TableFit> fits = top::coll_fits(t.coll);
  ASSERT_EQ(fits.size(), 5u);  // all_reduce ring, switch; all_to_all; all_gather ring, oneshot
  for (const top::TableFit& f : fits) {
    ASSERT_TRUE(f.fit.beta) << f.operation;
    EXPECT_EQ(f.kind, "coll");
    EXPECT_EQ(f.ranks, 8);
    if (f.operation == "all_reduce" && f.algorithm == "ring") {
      EXPECT_NEAR(f.fit.alpha, 20.0, 1e-9);
      EXPECT_NEAR(*f.fit.beta, 50'000.0, 1e-6);
    }
    if (f.operation == "all_gather" && f.algorithm == "oneshot") {
      EXPECT_NEAR(f.fit.alpha, 2.0, 1e-9);
      EXPECT_NEAR(*f.fit.beta, 60'000.0, 1e-6);
      EXPECT_EQ(f.fit.points, 3u);
      EXPECT_EQ(f.fit.min_bytes, 65536.0);
    }
    EXPECT_LT(f.fit.max_rel_error, 1e-9);
  }
  // β in the files is GB/s (10^9 B/s): 50000 B/us = 50 GB/s.
  const std::string csv = top::fits_csv(fits);
  EXPECT_NE(csv.find("coll,all_reduce,ring,8,0,2,1048576,4194304,20.000000,50.0000,1.000000,0.000000\n"),
            std::string::npos)
      << csv;
  // --algo auto rows are their own group, apart from the forced rows of the algorithm they picked.
  top::CollTable with_auto = t.coll;
  for (uint64_t b : {uint64_t{1} << 20, uint64_t{4} << 20}) {
    top::CollRow a = row(Collective::kAllReduce, Algorithm::kRing, 8, b, 10.0, 100'000.0);
    a.chosen = true;
    with_auto.rows.push_back(a);
  }
  const std::vector<top::TableFit> fa = top::coll_fits(with_auto);
  ASSERT_EQ(fa.size(), 6u);
  EXPECT_EQ(fa.back().algorithm, "auto");
  EXPECT_NEAR(fa.back().fit.alpha, 10.0, 1e-9);
  EXPECT_NEAR(*fa.back().fit.beta, 100'000.0, 1e-6);
  // p2p: one fit per operation of two sizes or more (writefull has one size).
  const std::vector<top::TableFit> p = top::p2p_fits(t.p2p);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].operation, "write");
  EXPECT_NEAR(p[0].fit.alpha, 770 / 1.6 / 1000 - 64 * (849.0 - 770.0) / 4032 / 1.6 / 1000, 1e-12);
}

TEST(PlannerExports, FilesPerGroupSizeAndNoneForOneRank) {
  const top::PlannerTable t = hand_table();
  std::vector<std::string> names;
  for (const auto& f : top::planner_export_files(t, "# head\n")) names.push_back(f.first);
  EXPECT_EQ(names, (std::vector<std::string>{"fits.csv", "astra_network_n8.yml", "simai_busbw_n8.yaml",
                                             "simai_nvlink_ratio_n8.csv", "simai_ata_ratio_n8.csv"}));
  nlohmann::ordered_json j;
  top::add_exports_json(t, j);
  EXPECT_EQ(j["astra_network"].size(), 1u);
  EXPECT_EQ(j["astra_network"][0]["npus_count"], 8);
  EXPECT_EQ(j["simai"][0]["ranks"], 8);
  EXPECT_EQ(j["fits"]["rows"].size(), 6u);
}

}  // namespace
}  // namespace upswitch::testing
