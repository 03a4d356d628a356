// `upswitch coll`, tested on the real binary: the nccl-tests-style table on stdout and as CSV and
// JSON, the same table for any number of threads, and one-line errors with exit status 2 and
// nothing written.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "cli_support.h"

using namespace upswitch_cli;  // NOLINT: test file

namespace {

int lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

TEST(CollCli, WritesTheTableAsTextCsvAndJson) {
  const fs::path out = scratch("coll_ok");
  const Result r = run("coll --ranks 2,3 -b 1K -e 4K -f 4 --type bf16 --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  // nccl-tests' layout: a section per collective, algorithm and group, the size column first.
  EXPECT_NE(r.out.find("# all_reduce, algorithm switch, protocol simple, 1 channel, 3 ranks"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("busbw"), std::string::npos);
  EXPECT_NE(r.out.find("# Avg bus bandwidth"), std::string::npos);
  // 3 algorithms x 2 group sizes x 2 sizes (1K, 4K).
  const std::string csv = slurp(out / "coll.csv");
  EXPECT_EQ(lines(csv), 1 + 12) << csv;
  EXPECT_EQ(csv.rfind("collective,algorithm,protocol,channels,ranks,bytes,", 0), 0u) << csv;
  const nlohmann::json j = nlohmann::json::parse(slurp(out / "coll.json"));
  EXPECT_EQ(j["meta"]["type"], "bf16");
  EXPECT_EQ(j["meta"]["slice_bytes"], "auto");
  EXPECT_TRUE(j["meta"].contains("config"));
  ASSERT_EQ(j["rows"].size(), 12u);
  for (const auto& row : j["rows"]) {
    EXPECT_EQ(row["wrong"], 0) << row.dump();  // checked against the host reference
    EXPECT_GT(row["time_us"].get<double>(), 0.0);
    const double factor = 2.0 * (row["ranks"].get<double>() - 1) / row["ranks"].get<double>();
    EXPECT_NEAR(row["busbw_gbytes_per_s"].get<double>(), row["algbw_gbytes_per_s"].get<double>() * factor, 0.002);
  }
}

TEST(CollCli, SameTableForAnyNumberOfThreads) {
  const fs::path a = scratch("coll_j1"), b = scratch("coll_j2");
  const std::string args = "coll --coll all --ranks 4 -b 256 -e 64K -f 16 --quiet --jobs ";
  ASSERT_EQ(run(args + "1 --out " + a.string()).status, 0);
  ASSERT_EQ(run(args + "2 --out " + b.string()).status, 0);
  EXPECT_EQ(slurp(a / "coll.csv"), slurp(b / "coll.csv"));
  EXPECT_EQ(slurp(a / "coll.json"), slurp(b / "coll.json"));
}

TEST(CollCli, WithoutTheEngineAllMeansRingAndOneShot) {
  const Result r = run("coll --set reduce.enable=false --ranks 4 -b 1K -e 1K --quiet --out " + scratch("coll_ne").string());
  ASSERT_EQ(r.status, 0) << r.err;
  const Result bad = run("coll --set reduce.enable=false --algo switch -e 1K --quiet");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("reduce.enable"), std::string::npos) << bad.err;
}

// --protocol: one row set per protocol for the ring, each exact; oneshot and switch run simple.
// LL puts 8 B of flag beside every 8 B of data, so at a size where the links are the limit its
// ring takes at least 1.8x as long as with LL128: a 256 B request carries 128 B of data with LL,
// 256 B of data and 32 B of flags (128 B lines of 120 B) with LL128, so (128+128)/128 against
// (256+32)/256 = 1.78 on the data half-flits alone. Each LL request also brings its own header
// and acknowledgement for half the data, which measures as 2.5-2.65x (doc/nccl.md); at most 3x.
TEST(CollCli, ProtocolsAreRowsOfTheRingAndExact) {
  const fs::path out = scratch("coll_proto");
  const Result r = run("coll --coll all_reduce,all_gather,broadcast --ranks 4 -b 4K -e 4M -f 1024 --protocol all "
                       "--quiet --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(slurp(out / "coll.json"));
  std::map<std::string, double> us;  // collective/algorithm/protocol/bytes -> time
  for (const auto& row : j["rows"]) {
    EXPECT_EQ(row["wrong"], 0) << row.dump();
    const std::string algo = row["algorithm"], proto = row["protocol"];
    if (algo != "ring") {
      EXPECT_EQ(proto, "simple") << row.dump();
    }
    us[row["collective"].get<std::string>() + "/" + algo + "/" + proto + "/" + std::to_string(row["bytes"].get<uint64_t>())] =
        row["time_us"].get<double>();
  }
  for (const char* c : {"all_reduce", "all_gather", "broadcast"}) {
    for (const char* p : {"simple", "ll128", "ll"}) ASSERT_EQ(us.count(std::string(c) + "/ring/" + p + "/4096"), 1u) << c << p;
  }
  for (const char* c : {"all_reduce", "all_gather", "broadcast"}) {
    const std::string k = std::string(c) + "/ring/";
    const double ll = us[k + "ll/4194304"], ll128 = us[k + "ll128/4194304"];
    EXPECT_GT(ll / ll128, 1.78) << c;
    EXPECT_LT(ll / ll128, 3.0) << c;
    EXPECT_LT(us[k + "ll128/4096"], us[k + "simple/4096"]) << c;  // small: no round trip per step
  }
  const std::string csv = slurp(out / "coll.csv");
  EXPECT_NE(csv.find("\nall_gather,ring,ll128,1,4,"), std::string::npos) << csv;
}

// Each protocol's per-step cost, by hand (doc/nccl.md "Per-step cost"): a ring step of Simple waits,
// beyond LL128's landing of the slice, for the write's acknowledgement (the completer's memory
// access, 192 + 1 cycles, and the response's trip through the switch, S(1) = 288 cycles) and then for
// the flag's trip (S(1) = 288), plus a cycle to hand each over: 771 cycles. At 8 ranks and 4 KiB
// per rank each of the 13 flagged steps of the all-reduce has one slice, so the two times differ by
// 13 x 771 cycles; the model must agree within 10%.
TEST(CollCli, SimpleStepCostsOneRoundTripAndAFlagMoreThanLl128) {
  const fs::path out = scratch("coll_step");
  const Result r = run("coll --ranks 8 -b 32K -e 32K --algo ring --protocol simple,ll128 --quiet --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(slurp(out / "coll.json"));
  ASSERT_EQ(j["rows"].size(), 2u);
  const double simple = j["rows"][0]["cycles"].get<double>(), ll128 = j["rows"][1]["cycles"].get<double>();
  ASSERT_EQ(j["rows"][1]["protocol"], "ll128");
  const double per_step = (simple - ll128) / 13.0;
  EXPECT_NEAR(per_step, 771.0, 77.1) << "simple " << simple << " ll128 " << ll128;
}

// coll.channels: the buffer split into contiguous shares, each its own run over the same ranks, all
// at once. Every algorithm stays exact, and the rows say how many channels ran (a share that comes
// out empty runs none). Where the step latency binds (8 ranks, 64 KiB: the links are a tenth
// busy), C channels of S/C each take as long as one run of S/C alone, within 10%; where the links
// bind (8 MiB), channels cannot beat them: at least 0.95 of one channel's time.
TEST(CollCli, ChannelsSplitTheBufferAndOverlapTheirSteps) {
  const fs::path out = scratch("coll_channels");
  const Result r = run("coll --coll all --ranks 4 -b 1K -e 64K -f 64 --set coll.channels=3 --quiet --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(slurp(out / "coll.json"));
  for (const auto& row : j["rows"]) {
    EXPECT_EQ(row["wrong"], 0) << row.dump();
    EXPECT_EQ(row["channels"], row["bytes"].get<uint64_t>() == 1024 ? 2 : 3) << row.dump();  // 1 KiB: 512 + 512
  }
  auto cycles = [](const std::string& args) {
    const fs::path o = scratch("coll_channels_t");
    const Result t = run("coll --ranks 8 --algo ring --quiet --out " + o.string() + " " + args);
    EXPECT_EQ(t.status, 0) << t.err;
    return nlohmann::json::parse(slurp(o / "coll.json"))["rows"][0]["cycles"].get<double>();
  };
  const double four = cycles("-b 64K -e 64K --set coll.channels=4"), alone = cycles("-b 16K -e 16K");
  EXPECT_NEAR(four / alone, 1.0, 0.1) << four << " " << alone;
  const double big4 = cycles("-b 8M -e 8M --set coll.channels=4"), big1 = cycles("-b 8M -e 8M");
  EXPECT_GE(big4 / big1, 0.95) << big4 << " " << big1;
}

// --algo auto (doc/nccl.md "Algorithm choice"): the cost model's pick per size, run and checked
// like any row. On the default preset at 8 ranks, for all-reduce and all-gather from 4 KiB to
// 16 MiB, the pick is within 5% of the fastest of the algorithms and protocols NCCL has (ring with
// Simple, LL128 or LL; the switch engine), each forced; every row says what was picked, exact.
TEST(CollCli, AutoIsWithinFivePercentOfTheBestForcedRow) {
  const fs::path out = scratch("coll_auto");
  const Result r = run("coll --coll all_reduce,all_gather --ranks 8 -b 4K -e 16M -f 16 --algo auto,ring,switch "
                       "--protocol all --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(slurp(out / "coll.json"));
  std::map<std::pair<std::string, uint64_t>, double> best, picked;
  int autos = 0;
  for (const auto& row : j["rows"]) {
    EXPECT_EQ(row["wrong"], 0) << row.dump();
    const auto key = std::make_pair(row["collective"].get<std::string>(), row["bytes"].get<uint64_t>());
    const double t = row["time_us"].get<double>();
    if (row["selection"] == "auto") {
      ++autos;
      picked[key] = t;
      EXPECT_GT(row["predicted_us"].get<double>(), 0.0) << row.dump();
    } else {
      EXPECT_GT(row["predicted_us"].get<double>(), 0.0) << row.dump();  // forced rows: the prediction for what ran
      best[key] = best.count(key) ? std::min(best[key], t) : t;
    }
  }
  EXPECT_EQ(autos, 8);
  for (const auto& [key, t] : picked) EXPECT_LE(t, 1.05 * best[key]) << key.first << " " << key.second;
  const std::string csv = slurp(out / "coll.csv");
  EXPECT_NE(csv.find(",selection,predicted_us,"), std::string::npos);
  EXPECT_NE(r.out.find("algorithm auto"), std::string::npos) << r.out;
}

// On the dgx-h100 preset auto channels give the switch algorithm enough to cover the engine's
// round trip (8 at 16 MiB: the measured best of 1, 2, 4, 8, 16 and 32 in doc/nccl.md). At 64 KiB
// the rule's count is trimmed to 1 (a window of slices per rank); the cost model weighs 1 to 8
// channels, and its pick must be within 5% of the faster of the forced 1- and 8-channel rows.
TEST(CollCli, AutoChannelsCoverTheRoundTripAndTrimForSmallMessages) {
  const fs::path out = scratch("coll_auto_dgx");
  const Result r = run("coll --preset dgx-h100 --ranks 8 -b 64K -e 16M -f 256 --algo switch --set coll.channels=0 --quiet "
                       "--out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(slurp(out / "coll.json"));
  ASSERT_EQ(j["rows"].size(), 2u);
  EXPECT_EQ(j["rows"][0]["algorithm"], "switch");
  const int small = j["rows"][0]["channels"].get<int>();
  EXPECT_TRUE(small == 1 || small == 2 || small == 4 || small == 8) << small;
  EXPECT_EQ(j["rows"][1]["algorithm"], "switch");
  EXPECT_EQ(j["rows"][1]["channels"], 8);
  for (const auto& row : j["rows"]) EXPECT_EQ(row["wrong"], 0) << row.dump();
  double best = 1e300;
  for (const char* c : {"1", "8"}) {
    const Result f = run(std::string("coll --preset dgx-h100 --ranks 8 -b 64K -e 64K --algo switch --quiet --set "
                                     "coll.channels=") + c + " --out " + out.string());
    ASSERT_EQ(f.status, 0) << f.err;
    const nlohmann::json k = nlohmann::json::parse(slurp(out / "coll.json"));
    best = std::min(best, k["rows"][0]["time_us"].get<double>());
  }
  EXPECT_LE(j["rows"][0]["time_us"].get<double>(), 1.05 * best) << j["rows"][0].dump();
}

// coll.channels = 0 (auto) on forced rows: each size runs the count the cost model weighs best
// for the row's algorithm and protocol. On dgx-h100 a 4 MiB Simple ring needs 16 channels' SMs
// (36.7 GB/s each) to cover the 441.6 GB/s of its 18 links; the pick is within 5% of the best
// explicit count, and runs exactly as that count does when named. The GPU's fixed costs are off:
// the rule is about covering the links.
TEST(CollCli, AutoChannelsOnForcedRowsComeWithinFivePercentOfTheBestCount) {
  const fs::path out = scratch("coll_auto_ch");
  const std::string base = std::string("coll --preset dgx-h100 --ranks 8 -b 4M -e 4M --algo ring --set coll.data=timing "
                                       "--quiet") + kNoGpuFixedCosts;
  const Result r = run(base + "--set coll.channels=0 --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json a = nlohmann::json::parse(slurp(out / "coll.json"))["rows"][0];
  const int picked = a["channels"].get<int>();
  EXPECT_GE(picked, 16) << a.dump();
  double best = 1e300;
  uint64_t same = 0;
  for (int c : {1, 2, 4, 8, 16, 32}) {
    const Result f = run(base + "--set coll.channels=" + std::to_string(c) + " --out " + out.string());
    ASSERT_EQ(f.status, 0) << f.err;
    const nlohmann::json k = nlohmann::json::parse(slurp(out / "coll.json"))["rows"][0];
    best = std::min(best, k["time_us"].get<double>());
    if (c == picked) same = k["cycles"].get<uint64_t>();
  }
  EXPECT_EQ(a["cycles"].get<uint64_t>(), same);
  EXPECT_LE(a["time_us"].get<double>(), 1.05 * best) << a.dump();
}

// The multicast broadcast (doc/nccl.md "Broadcast"): the root multicast-stores the buffer and the
// switch spreads its stores over every engine unit, so each link carries the buffer once: the
// root's uplink and every downlink. busbw therefore stays below the best-packed link (17 flits per
// 1 KiB: 0.94 of the link) and, at 2, 8, 16 and 32 ranks, reaches the issue's 0.85 of the ring
// all-gather in the same run; through the root's one unit it was B / N (12.3 GB/s at 8 ranks).
// At 32 ranks each downlink carries the buffer in the same packets as the ring all-gather's, so
// the broadcast is at least 0.95 of it; with one copy to a packet (before a unit replicated
// packets, doc/reduction.md) it was 0.875.
TEST(CollCli, MulticastBroadcastCarriesTheBufferOncePerLink) {
  const fs::path out = scratch("coll_mcast_bcast");
  const Result r = run("coll --coll broadcast,all_gather --ranks 2,8,16,32 -b 4M -e 4M --algo switch,ring --quiet --out " +
                       out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(slurp(out / "coll.json"));
  ASSERT_EQ(j["rows"].size(), 16u);
  const double link = 98.125;  // GB/s of TL flits per direction (ualink-x4)
  std::map<int, double> bcast, gather;
  for (const auto& row : j["rows"]) {
    EXPECT_EQ(row["wrong"], 0);
    const int n = row["ranks"].get<int>();
    const double busbw = row["busbw_gbytes_per_s"].get<double>();
    if (row["collective"] == "broadcast" && row["algorithm"] == "switch") bcast[n] = busbw;
    if (row["collective"] == "all_gather" && row["algorithm"] == "ring") gather[n] = busbw;
  }
  ASSERT_EQ(bcast.size(), 4u);
  ASSERT_EQ(gather.size(), 4u);
  for (const auto& [n, b] : bcast) {
    EXPECT_LE(b, link * 0.94) << n << " ranks";
    EXPECT_GE(b, (n == 32 ? 0.95 : 0.85) * gather[n]) << n << " ranks: ring all-gather " << gather[n];
  }
}

// The GPU's issue limits (accel.sm_gbytes_per_s, accel.multimem_gbytes_per_s; doc/nccl.md): on
// links far faster than the SMs, a collective moves what its SMs issue. A ring all-gather rank
// sends (N-1)/N of the buffer, so busbw = channels x rate; an in-switch all-reduce rank issues
// 2/N of it (its slice loaded and stored), so busbw = 2(N-1)/N x algbw = (N-1) x channels x rate.
// Within 6% below those bounds (the pipeline's fill and drain), never above; exact.
TEST(CollCli, IssueLimitsBoundEachChannelToItsSmRate) {
  const fs::path out = scratch("coll_sm_rate");
  const Result r = run("coll --ranks 4 -b 8M -e 8M --coll all_gather --algo ring --quiet --set accel.sm_gbytes_per_s=4 "
                       "--set coll.channels=2 --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(slurp(out / "coll.json"));
  ASSERT_EQ(j["rows"].size(), 1u);
  const double ring = j["rows"][0]["busbw_gbytes_per_s"].get<double>();
  EXPECT_EQ(j["rows"][0]["wrong"], 0);
  EXPECT_LE(ring, 2 * 4.0 * 1.0001);
  EXPECT_GE(ring, 2 * 4.0 * 0.94);

  const Result s = run("coll --ranks 4 -b 8M -e 8M --coll all_reduce --algo switch --quiet --set "
                       "accel.multimem_gbytes_per_s=2 --set accel.sm_gbytes_per_s=0.5 --set coll.channels=2 --out " +
                       out.string());
  ASSERT_EQ(s.status, 0) << s.err;
  const nlohmann::json k = nlohmann::json::parse(slurp(out / "coll.json"));
  const double nvls = k["rows"][0]["busbw_gbytes_per_s"].get<double>();
  EXPECT_EQ(k["rows"][0]["wrong"], 0);
  EXPECT_LE(nvls, 3 * 2 * 2.0 * 1.0001);  // the SM rate (0.5) does not bound multimem operations
  EXPECT_GE(nvls, 3 * 2 * 2.0 * 0.94);
}

// The measured DGX H100 (facts §2.5, [N11][N12]): ring all-reduce busbw about 370 GB/s and NVLS
// about 480 at 8 GPUs, at 2-4 GB where fixed costs vanish. The dgx-h100 preset (128 B stores,
// 36.7 GB/s per channel's SM, NCCL's launch and step costs) with 16 channels: the α-β fit of 16
// and 64 MiB (busbw of the time the extra 48 MiB takes) must land within 10% of both
// (doc/nccl.md "The measured systems"). Timing-only data: exactness is the other tests' part.
TEST(CollCli, DgxH100WithChannelsMatchesTheMeasuredNode) {
  const fs::path out = scratch("coll_dgx");
  const Result r = run("coll --preset dgx-h100 --ranks 8 -b 16M -e 64M -f 4 --algo ring,switch --set coll.channels=16 "
                       "--set coll.data=timing --quiet --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(slurp(out / "coll.json"));
  ASSERT_EQ(j["rows"].size(), 4u);
  std::map<std::string, std::map<uint64_t, double>> us;
  for (const auto& row : j["rows"]) {
    EXPECT_EQ(row["channels"], 16) << row.dump();
    us[row["algorithm"].get<std::string>()][row["bytes"].get<uint64_t>()] = row["time_us"].get<double>();
  }
  for (const char* algo : {"ring", "switch"}) {
    const double dt = us[algo][64u << 20] - us[algo][16u << 20];
    ASSERT_GT(dt, 0) << algo;
    const double busbw = 2.0 * 7 / 8 * static_cast<double>(48u << 20) / (dt * 1000.0);
    const double measured = std::string(algo) == "ring" ? 370.0 : 480.0;
    EXPECT_NEAR(busbw, measured, 0.1 * measured) << algo;
    std::printf("[ info ] dgx-h100 %s, 16 channels, alpha-beta busbw of 16..64 MiB: %.1f GB/s (measured %.0f)\n", algo,
                busbw, measured);
  }
}

// NCCL on 8 x H100 runs the ring with LL up to about 1 MB and NVLS from 2 MB (facts §2.8, [N28]);
// the issue asks for the switch between 256 KiB and 4 MiB. With the preset's launch and step costs
// (NCCL's own, less what the model simulates), auto picks the ring with LL at 256 KiB and the
// switch algorithm at 4 MiB, and each pick is within 5% of the fastest forced row, as simulated.
TEST(CollCli, DgxH100AutoGoesFromTheLlRingToTheSwitchAsNcclDoes) {
  const fs::path out = scratch("coll_dgx_auto");
  const Result r = run("coll --preset dgx-h100 --ranks 8 -b 256K -e 4M -f 16 --algo auto,ring,switch --protocol all "
                       "--set coll.channels=0 --set coll.data=timing --quiet --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(slurp(out / "coll.json"));
  std::map<uint64_t, double> best;
  std::map<uint64_t, nlohmann::json> picked;
  for (const auto& row : j["rows"]) {
    const uint64_t b = row["bytes"].get<uint64_t>();
    if (row["selection"] == "auto") {
      picked[b] = row;
    } else {
      best[b] = best.count(b) ? std::min(best[b], row["time_us"].get<double>()) : row["time_us"].get<double>();
    }
  }
  ASSERT_EQ(picked.size(), 2u);
  EXPECT_EQ(picked[256u << 10]["algorithm"], "ring") << picked[256u << 10].dump();
  EXPECT_EQ(picked[256u << 10]["protocol"], "ll") << picked[256u << 10].dump();
  EXPECT_EQ(picked[4u << 20]["algorithm"], "switch") << picked[4u << 20].dump();
  for (const auto& [b, row] : picked) EXPECT_LE(row["time_us"].get<double>(), 1.05 * best[b]) << row.dump();
}

// coll.data = timing (doc/nccl.md "Timing-only data"): every collective under every algorithm and
// protocol, and --algo auto's channels, take exactly the cycles of the checked run, on one switch and
// on two tiers (the engine tree), with no result checked (wrong = -1).
TEST(CollCli, TimingOnlyDataTakesTheCyclesOfTheCheckedRun) {
  const std::string nets[] = {
      "--ranks 5 -b 40K -e 40K --algo all --protocol all",
      "--ranks 8 -b 1M -e 1M --algo auto --preset dgx-h100",
      "--set topology.kind=two_tier --set topology.leaves=2 --set topology.endpoints_per_leaf=3 --set topology.spines=2 "
      "--set topology.uplinks_per_leaf=2 --ranks 6 -b 24K -e 24K --algo all"};
  for (const std::string& net : nets) {
    auto rows = [&](const std::string& data) {
      const fs::path o = scratch("coll_timing_" + data);
      const Result r = run("coll --coll all " + net + " --set coll.data=" + data + " --quiet --out " + o.string());
      EXPECT_EQ(r.status, 0) << r.err;
      return nlohmann::json::parse(slurp(o / "coll.json"))["rows"];
    };
    const nlohmann::json checked = rows("checked"), timing = rows("timing");
    ASSERT_EQ(checked.size(), timing.size()) << net;
    ASSERT_GT(checked.size(), 0u);
    for (size_t i = 0; i < checked.size(); ++i) {
      EXPECT_EQ(checked[i]["wrong"], 0) << net << " " << checked[i].dump();
      EXPECT_EQ(timing[i]["wrong"], -1) << net << " " << timing[i].dump();
      EXPECT_EQ(timing[i]["cycles"], checked[i]["cycles"]) << net << " " << checked[i].dump();
      EXPECT_EQ(timing[i]["algorithm"], checked[i]["algorithm"]) << net;
    }
  }
}

// Line protocols on networks of switches: the landing count follows each slice over planes (a
// rank's writes spread over its ports), two tiers and a topology file, and every result is exact.
TEST(CollCli, ProtocolsAreExactOnNetworks) {
  const std::string topologies = std::string(UPSWITCH_SOURCE_DIR) + "/configs/topologies/";
  const std::string nets[] = {
      "--set topology.kind=planes --set topology.endpoints=8 --set topology.planes=2 --ranks 8",
      "--set topology.kind=two_tier --set topology.leaves=2 --set topology.endpoints_per_leaf=3 --set topology.spines=2 "
      "--set topology.uplinks_per_leaf=2 --ranks 6",
      "--set topology.kind=file --set topology.file=" + topologies + "small_clos.yaml --ranks 4"};
  for (const std::string& net : nets) {
    const fs::path out = scratch("coll_proto_net");
    const Result r = run("coll --coll all_reduce,reduce_scatter,all_gather,broadcast --algo ring --protocol ll128,ll "
                         "-b 1K -e 256K -f 256 --quiet --out " + out.string() + " " + net);
    ASSERT_EQ(r.status, 0) << net << "\n" << r.err;
    const nlohmann::json j = nlohmann::json::parse(slurp(out / "coll.json"));
    ASSERT_EQ(j["rows"].size(), 4u * 2u * 2u) << net;
    for (const auto& row : j["rows"]) EXPECT_EQ(row["wrong"], 0) << net << " " << row.dump();
  }
}

TEST(CollCli, BadInputIsOneLineExitTwoAndNothingWritten) {
  const BadInput cases[] = {
      {"coll --ranks 0", "--ranks 0"},
      {"coll --ranks 73", "--ranks 73: expected 1 .. 72 ranks (the topology's endpoints)"},
      {"coll --placement 0,72", "--placement: endpoint 72 is not in the topology (0 .. 71)"},
      {"coll --placement 3,3", "--placement: endpoint 3 listed twice"},
      {"coll --placement leaves", "--placement 'leaves': expected packed, spread or a comma-separated list"},
      {"coll --placement 0,1,2 --ranks 4", "--placement: the list names 3 endpoints for a group of 4"},
      {"coll --ranks x", "--ranks 'x'"},
      {"coll --type f8", "--type 'f8'"},
      {"coll --op mul", "--op 'mul'"},
      {"coll --op xor", "integer type"},
      {"coll -b 0", "--min-bytes 0"},
      {"coll -f 1", "--step-factor 1"},
      {"coll --slice-bytes 100", "--slice-bytes 100"},
      {"coll --coll gather", "--coll 'gather'"},
      {"coll --algo tree", "--algo 'tree'"},
      {"coll --algo auto,auto", "--algo 'auto,auto': expected all or a comma-separated list of auto, all, ring, oneshot, switch (each once"},
      {"coll --algo all,ring", "--algo 'all,ring': expected all or a comma-separated list"},
      {"coll --algo auto --protocol ll", "--protocol ll: the forced ring rows' protocols; --algo auto picks its own"},
      {"coll --coll broadcast --root 9", "--root 9"},
      {"coll --set reduce.contexts=0", "reduce.contexts"},
      {"coll --coll all_to_all --algo ring", "all_to_all is oneshot only"},
      {"coll --jobs x", "--jobs"},
      {"coll --protocol ll64", "--protocol 'll64': expected all or a comma-separated list of simple, ll128, ll"},
      {"coll --protocol ll,ll", "--protocol: ll listed twice"},
      {"coll --set coll.protocol=fast", "coll.protocol"},
      {"coll --set coll.store_bytes=100", "coll.store_bytes = 100: expected 64, 128, 192 or 256"},
      {"coll --set coll.store_bytes=512", "coll.store_bytes"},
      {"coll --set coll.channels=-1", "coll.channels"},
      {"coll --set coll.data=fast", "coll.data"},
      {"coll --set coll.channels=9 --set reduce.groups=8", "coll.channels = 9: the switch algorithm takes a multicast group per channel"},
  };
  for (const BadInput& b : cases) {
    const fs::path out = scratch("coll_bad_out");
    expect_bad_input(std::string(b.args) + " -e 1K --out " + out.string(), b.must_mention, out);
  }
}

}  // namespace
