// The point-to-point table (top/p2p_table.h, `upswitch p2p`) against independent expectations:
// the zero-load 64 B read as the hand sum of the pipeline, serialisation and memory; a WriteFull
// stream at the link's payload rate times the TL packing efficiency; latency that grows with
// size; every operation and size present; the small fabric used for pair runs agreeing with the
// full one; identical output for identical inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "top/p2p_table.h"
#include "txn_support.h"

namespace upswitch::testing {
namespace {

using tl::Opcode;
using top::P2pPoint;

constexpr Opcode kAllOps[] = {Opcode::kRead, Opcode::kWrite, Opcode::kWriteFull, Opcode::kAtomicR, Opcode::kAtomicNR};

// Every row the brief asks for, written out: reads and writes 4 B .. max, writefull 64 B .. max,
// atomics at 4 B and 8 B elements, single and 64 B multi-element.
std::set<std::tuple<int, uint64_t, int>> expected_rows(uint64_t max_bytes) {
  std::set<std::tuple<int, uint64_t, int>> want;
  for (uint64_t b = 4; b <= max_bytes; b *= 2) {
    want.emplace(static_cast<int>(Opcode::kRead), b, 0);
    want.emplace(static_cast<int>(Opcode::kWrite), b, 0);
    if (b >= 64) want.emplace(static_cast<int>(Opcode::kWriteFull), b, 0);
  }
  for (Opcode op : {Opcode::kAtomicR, Opcode::kAtomicNR})
    for (auto [bytes, elem] : {std::pair<uint64_t, int>{4, 4}, {8, 8}, {64, 4}, {64, 8}})
      if (bytes <= max_bytes) want.emplace(static_cast<int>(op), bytes, elem);
  return want;
}

TEST(P2pTable, HasEveryOperationAndSize) {
  for (uint64_t max : {uint64_t{1} << 20, uint64_t{4096}, uint64_t{32}, uint64_t{4}}) {
    const std::vector<P2pPoint> pts = top::p2p_points({}, max, tl::AtomicOp::kAdd);
    std::set<std::tuple<int, uint64_t, int>> got;
    for (const P2pPoint& p : pts) EXPECT_TRUE(got.emplace(static_cast<int>(p.op), p.bytes, p.elem_bytes).second);
    EXPECT_EQ(got, expected_rows(max)) << "max " << max;
  }
  EXPECT_EQ(top::p2p_points({}, 1 << 20, tl::AtomicOp::kAdd).size(), 19u + 19u + 15u + 4u + 4u);
  // Only the operations asked for, in the order given; requests are 256 B pieces.
  const auto pts = top::p2p_points({Opcode::kAtomicNR, Opcode::kRead}, 1024, tl::AtomicOp::kAdd);
  ASSERT_EQ(pts.size(), 4u + 9u);
  EXPECT_EQ(pts.front().op, Opcode::kAtomicNR);
  EXPECT_EQ(pts.back().op, Opcode::kRead);
  EXPECT_EQ(top::p2p_requests(pts.back()), 4u);
  EXPECT_EQ(top::p2p_requests(P2pPoint{Opcode::kWrite, 256, 0}), 1u);
  EXPECT_EQ(top::p2p_requests(P2pPoint{Opcode::kWrite, 1 << 20, 0}), 4096u);
  // A compare-and-swap updates at most 32 B: its multi-element row is 32 B.
  for (const P2pPoint& p : top::p2p_points({Opcode::kAtomicR}, 1 << 20, tl::AtomicOp::kCas))
    EXPECT_LE(p.bytes, 32u);
}

TEST(P2pTable, ZeroLoadReadIsTheHandSum) {
  struct Pipe {
    int link, route, sa, xbar, egress, mem_lat, mem_bpc;
  };
  for (const Pipe& p : {Pipe{3, 2, 1, 1, 2, 50, 2048}, Pipe{20, 8, 4, 4, 16, 192, 16}, Pipe{128, 8, 4, 4, 16, 192, 2048}}) {
    const config::Config cfg = make_txn_config({{"switch.ports", "8"},
                                                {"link.gbytes_per_s", "0"},
                                                {"link.latency_cycles", std::to_string(p.link)},
                                                {"switch.routing_cycles", std::to_string(p.route)},
                                                {"switch.sw_alloc_cycles", std::to_string(p.sa)},
                                                {"switch.xbar_cycles", std::to_string(p.xbar)},
                                                {"switch.egress_cycles", std::to_string(p.egress)},
                                                {"accel.mem_latency_cycles", std::to_string(p.mem_lat)},
                                                {"accel.mem_bytes_per_cycle", std::to_string(p.mem_bpc)}});
    const uint64_t one_way = 2 * p.link + p.route + p.sa + p.xbar + p.egress;  // head flit, endpoint to endpoint
    // A read request is one flit; its 64 B response is a control half-flit + two data halves = 2 flits.
    const uint64_t resp_flits = 2;
    const uint64_t ser = (64 + p.mem_bpc - 1) / p.mem_bpc;
    const uint64_t want = 2 * one_way + (resp_flits - 1) + ser + p.mem_lat;
    EXPECT_EQ(top::p2p_zero_load_cycles(cfg, P2pPoint{Opcode::kRead, 64, 0}), want) << "link " << p.link;

    // The table reports the same number, and ns at the configured clock.
    top::P2pOptions opt;
    opt.ops = {Opcode::kRead};
    opt.max_bytes = 64;
    opt.pair_warmup_cycles = 200;
    opt.pair_measure_cycles = 1000;
    opt.uniform_random = false;
    const top::P2pTable t = top::measure_p2p_table(cfg, opt);
    ASSERT_EQ(t.rows.size(), 5u);
    EXPECT_EQ(t.rows.back().latency_cycles, want);
    EXPECT_DOUBLE_EQ(t.rows.back().latency_ns, static_cast<double>(want) / cfg.clock_ghz);
  }
}

// A stream of 256 B WriteFulls packs four compressed requests per control half-flit: 1 + 4 x 8
// halves = 17 flits per 1 KiB. With credits that never run out (short links), the stream runs at
// the link's byte rate times 1024 / (17 x 64).
TEST(P2pTable, WriteFullStreamRunsAtTheLinkPayloadRate) {
  for (const char* link_gbps : {"98.125", "0", "50"}) {
    const config::Config cfg = make_txn_config({{"switch.ports", "4"},
                                                {"link.gbytes_per_s", link_gbps},
                                                {"link.latency_cycles", "8"},
                                                {"link.credit_delay_cycles", "8"}});
    const double link_bytes_per_s = 64.0 * cfg.link_flits_per_cycle() * cfg.clock_ghz;  // GB/s
    const double eff = 1024.0 / (17 * 64);
    const top::BandwidthResult r = top::p2p_pair_bandwidth(cfg, P2pPoint{Opcode::kWriteFull, 256, 0}, 2000, 10000);
    const double gbps = r.payload_bytes_per_cycle * cfg.clock_ghz;
    EXPECT_NEAR(gbps, link_bytes_per_s * eff, 0.02 * link_bytes_per_s * eff) << "link " << link_gbps << " GB/s";
    EXPECT_NEAR(r.efficiency, eff, 0.01) << "link " << link_gbps << " GB/s";
    EXPECT_EQ(r.window_cycles, 10000u);
    // A stream can never beat its link.
    EXPECT_LE(gbps, link_bytes_per_s);
  }
}

TEST(P2pTable, LatencyGrowsWithSize) {
  const config::Config cfg = make_txn_config({{"switch.ports", "4"}});
  for (Opcode op : kAllOps) {
    uint64_t prev = 0, prev_bytes = 0;
    for (const P2pPoint& p : top::p2p_points({op}, 16384, tl::AtomicOp::kAdd)) {
      const uint64_t lat = top::p2p_zero_load_cycles(cfg, p);
      EXPECT_GE(lat, prev) << tl::opcode_name(op) << " " << p.bytes << " B";
      // Past one request, every doubling adds serialisation.
      if (prev_bytes >= 256 && p.bytes > prev_bytes) {
        EXPECT_GT(lat, prev) << tl::opcode_name(op) << " " << p.bytes;
      }
      prev = lat;
      prev_bytes = p.bytes;
    }
  }
  // 16 KiB of reads come back at no more than the link's rate: at least bytes / link bytes per cycle.
  const uint64_t big = top::p2p_zero_load_cycles(cfg, P2pPoint{Opcode::kRead, 16384, 0});
  const uint64_t small = top::p2p_zero_load_cycles(cfg, P2pPoint{Opcode::kRead, 256, 0});
  EXPECT_GE(static_cast<double>(big - small), (16384.0 - 256.0) / (64.0 * cfg.link_flits_per_cycle()));
}

// The latency and pair runs use a 4-port copy of the configuration: one pair's traffic meets no
// other, so the 72-port fabric gives the same cycles and bytes.
TEST(P2pTable, SmallPairFabricAgreesWithTheFullOne) {
  const config::Config full = make_txn_config({});
  ASSERT_EQ(full.sw.ports, 72);
  const config::Config small = top::pair_config(full, 4);
  EXPECT_EQ(small.sw.ports, 4);
  for (const P2pPoint& p : {P2pPoint{Opcode::kRead, 64, 0}, P2pPoint{Opcode::kWrite, 4096, 0},
                            P2pPoint{Opcode::kWriteFull, 256, 0}, P2pPoint{Opcode::kAtomicR, 8, 8}}) {
    EXPECT_EQ(top::p2p_zero_load_cycles(small, p), top::p2p_zero_load_cycles(full, p)) << tl::opcode_name(p.op);
    const top::BandwidthResult a = top::p2p_pair_bandwidth(small, p, 1000, 3000);
    const top::BandwidthResult b = top::p2p_pair_bandwidth(full, p, 1000, 3000);
    EXPECT_EQ(a.payload_bytes_per_cycle, b.payload_bytes_per_cycle) << tl::opcode_name(p.op);
    EXPECT_EQ(a.efficiency, b.efficiency) << tl::opcode_name(p.op);
  }
  // A routing table (with transactions only the identity is allowed) pins the size: the
  // configuration is used as it is.
  std::string table = "[";
  for (int d = 0; d < 8; ++d) table += (d ? "," : "") + std::to_string(d);
  const config::Config routed = make_txn_config({{"switch.ports", "8"}, {"switch.routing_table", table + "]"}});
  EXPECT_EQ(top::pair_config(routed, 4).sw.ports, 8);
}

TEST(P2pTable, WholeTableOnASmallFabric) {
  const config::Config cfg = make_txn_config({{"switch.ports", "8"}});
  top::P2pOptions opt;
  opt.max_bytes = 1024;
  opt.pair_warmup_cycles = opt.random_warmup_cycles = 500;
  opt.pair_measure_cycles = opt.random_measure_cycles = 2000;
  const top::P2pTable t = top::measure_p2p_table(cfg, opt);
  const std::vector<P2pPoint> pts = top::p2p_points({}, 1024, tl::AtomicOp::kAdd);
  ASSERT_EQ(t.rows.size(), pts.size());
  const double link = 64.0 * cfg.link_flits_per_cycle() * cfg.clock_ghz;
  for (size_t i = 0; i < pts.size(); ++i) {
    const top::P2pRow& r = t.rows[i];
    const std::string what = std::string(tl::opcode_name(r.point.op)) + " " + std::to_string(r.point.bytes);
    EXPECT_EQ(r.point.op, pts[i].op);
    EXPECT_EQ(r.point.bytes, pts[i].bytes);
    EXPECT_EQ(r.requests, top::p2p_requests(pts[i]));
    EXPECT_GT(r.latency_cycles, 0u) << what;
    EXPECT_LT(r.latency_ns, 1000.0) << what << ": UALink's round-trip target";
    EXPECT_GT(r.pair_gbytes_per_s, 0.0) << what;
    EXPECT_LE(r.pair_gbytes_per_s, link) << what;
    EXPECT_GT(r.efficiency, 0.0) << what;
    EXPECT_LT(r.efficiency, 1.0) << what;
    const bool multi_atomic = tl::is_atomic(r.point.op) && r.point.bytes != static_cast<uint64_t>(r.point.elem_bytes);
    EXPECT_EQ(r.uniform_random_gbytes_per_s.has_value(), !multi_atomic) << what;
    if (r.uniform_random_gbytes_per_s) {
      EXPECT_GT(*r.uniform_random_gbytes_per_s, 0.0) << what;
      EXPECT_LE(*r.uniform_random_gbytes_per_s, link) << what;
    }
  }
  // Outputs: a CSV line per row under the header, the same rows in the JSON, the method stated.
  const std::string csv = top::p2p_csv(t);
  EXPECT_EQ(csv.rfind("op,bytes,elem_bytes,requests,latency_cycles,latency_ns,pair_gbytes_per_s,efficiency,", 0), 0u);
  EXPECT_EQ(static_cast<size_t>(std::count(csv.begin(), csv.end(), '\n')), pts.size() + 1);
  const nlohmann::ordered_json j = top::p2p_json(t);
  EXPECT_EQ(j["rows"].size(), pts.size());
  for (const auto& row : j["rows"]) {  // the CSV's columns, in order
    std::vector<std::string> keys;
    for (auto it = row.begin(); it != row.end(); ++it) keys.push_back(it.key());
    EXPECT_EQ(nlohmann::ordered_json(keys), j["meta"]["columns"]);
  }
  EXPECT_TRUE(j["meta"]["method"].contains("pair"));
  EXPECT_EQ(j["meta"]["pair_fabric_ports"], 4);
  EXPECT_TRUE(j["rows"][pts.size() - 1]["uniform_random_gbytes_per_s"].is_null());  // atomic_nr 64 B, 8 B elements
  // The same inputs give the same bytes, on one thread or two.
  opt.jobs = 2;
  const top::P2pTable t2 = top::measure_p2p_table(cfg, opt);
  EXPECT_EQ(top::p2p_csv(t2), csv);
  EXPECT_EQ(top::p2p_json(t2).dump(2), j.dump(2));
}

TEST(P2pTable, BadInputsAreConfigErrors) {
  const config::Config cfg = make_txn_config({{"switch.ports", "4"}, {"accel.memory_bytes", "65536"},
                                              {"txn.footprint_bytes", "65536"}});
  top::P2pOptions opt;
  for (uint64_t bad : {uint64_t{0}, uint64_t{2}, uint64_t{1000}, uint64_t{1} << 31, uint64_t{1} << 17}) {
    opt.max_bytes = bad;
    EXPECT_THROW(top::check_p2p_inputs(cfg, opt), config::ConfigError) << bad;
  }
  opt.max_bytes = 65536;
  EXPECT_NO_THROW(top::check_p2p_inputs(cfg, opt));
  opt.ops = {Opcode::kRead, Opcode::kRead};
  EXPECT_THROW(top::check_p2p_inputs(cfg, opt), config::ConfigError);
  // Atomics the completers refuse would measure nothing.
  const config::Config no_atomics = make_txn_config({{"switch.ports", "4"}, {"accel.atomic_ops", "none"}});
  opt.ops = {};
  EXPECT_THROW(top::check_p2p_inputs(no_atomics, opt), config::ConfigError);
  opt.ops = {Opcode::kRead, Opcode::kWrite};
  EXPECT_NO_THROW(top::check_p2p_inputs(no_atomics, opt));
}

}  // namespace
}  // namespace upswitch::testing
