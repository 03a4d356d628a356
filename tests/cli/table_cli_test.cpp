// `upswitch table`, tested on the real binary: every file parses, its numbers agree with
// individual runs of the same points (`upswitch coll`, `upswitch p2p`, `upswitch workload`), and
// the ASTRA-sim network file is YAML with the keys its analytical backend reads, derived from the
// point-to-point rows as documented.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "cli_support.h"

using namespace upswitch_cli;  // NOLINT: test file

namespace {

const std::string kCfg = " --set switch.ports=8 --set moe.experts=8";

TEST(TableCli, FilesParseAndAgreeWithIndividualRuns) {
  const fs::path out = scratch("table_ok");
  const Result r = run("table" + kCfg + " --ranks 2,4 -b 64K -e 256K --p2p-max-bytes 1024 --moe-tokens 16 "
                       "--moe-skews 0,1 --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json t = nlohmann::json::parse(slurp(out / "table.json"));
  EXPECT_EQ(t["config_hash"].get<std::string>().size(), 16u);
  EXPECT_EQ(t["config"]["switch"]["ports"], 8);
  // Collectives: the same points measured alone by `upswitch coll`.
  const fs::path coll = scratch("table_coll");
  ASSERT_EQ(run("coll" + kCfg + " --coll all_reduce,all_to_all --ranks 2,4 -b 64K -e 256K -f 4 --no-check --quiet --out " +
                coll.string()).status, 0);
  const nlohmann::json c = nlohmann::json::parse(slurp(coll / "coll.json"));
  size_t matched = 0;
  for (const auto& row : c["rows"])
    for (const auto& mine : t["coll"]["rows"])
      if (mine["collective"] == row["collective"] && mine["algorithm"] == row["algorithm"] &&
          mine["ranks"] == row["ranks"] && mine["bytes"] == row["bytes"]) {
        EXPECT_EQ(mine["cycles"], row["cycles"]) << row.dump();
        ++matched;
      }
  EXPECT_EQ(matched, c["rows"].size());
  // Point to point: `upswitch p2p` with the same limit, row for row.
  const fs::path p2p = scratch("table_p2p");
  ASSERT_EQ(run("p2p" + kCfg + " --max-bytes 1024 --quiet --out " + p2p.string()).status, 0);
  const std::string mine = slurp(out / "p2p.csv");
  ASSERT_EQ(mine.rfind("# upswitch ", 0), 0u) << mine;  // the version and configuration line
  EXPECT_NE(mine.find(t["config_hash"].get<std::string>()), std::string::npos);
  EXPECT_EQ(mine.substr(mine.find('\n') + 1), slurp(p2p / "p2p.csv"));
  // Latency under load: the 256 B read row against `upswitch run` of the same synthetic point.
  const fs::path loaded = scratch("table_loaded");
  ASSERT_EQ(run("run" + kCfg + " --set traffic.kind=transactions --set txn.mix=read:1 --set txn.sizes=256:1 "
                "--set txn.load=0.25 --quiet --out " + loaded.string()).status, 0);
  const nlohmann::json s = nlohmann::json::parse(slurp(loaded / "summary.json"));
  const auto& lat = s["ops"]["read"]["latency"];
  bool found = false;
  for (const auto& row : t["p2p_loaded"])
    if (row["op"] == "read" && row["bytes"] == 256) {
      found = true;
      EXPECT_EQ(row["saturated"], false);
      EXPECT_EQ(row["samples"], lat["count"]);
      EXPECT_NEAR(row["p50_ns"].get<double>(), lat["p50"].get<double>() / s["config"]["switch"]["clock_ghz"].get<double>(), 1e-9);
      EXPECT_NEAR(row["p99_ns"].get<double>(), lat["p99_ns"].get<double>(), 1e-9);
      EXPECT_GE(row["p99_ns"].get<double>(), row["p50_ns"].get<double>());
    }
  EXPECT_TRUE(found);
  EXPECT_EQ(t["p2p_loaded"].size(), 6u);  // read and write at 64, 256 and 4096 B
  // MoE: the Zipf-1 row against `upswitch workload` at the same point.
  const fs::path moe = scratch("table_moe");
  ASSERT_EQ(run("workload" + kCfg + " --set workload.kind=moe --set moe.tokens=16 --set moe.gating=zipf "
                "--set moe.zipf_s=1 --set moe.compute_us=0 --quiet --out " + moe.string()).status, 0);
  const nlohmann::json w = nlohmann::json::parse(slurp(moe / "workload.json"));
  ASSERT_EQ(t["moe"].size(), 2u);
  EXPECT_EQ(t["moe"][1]["zipf_s"], 1.0);
  EXPECT_DOUBLE_EQ(t["moe"][1]["dispatch_us"].get<double>(), w["phases"][0]["time_us"].get<double>());
  EXPECT_DOUBLE_EQ(t["moe"][1]["combine_us"].get<double>(), w["phases"][1]["time_us"].get<double>());
  EXPECT_GT(t["moe"][1]["straggler"].get<double>(), t["moe"][0]["straggler"].get<double>());
  // ASTRA-sim: YAML with topology, npus_count, bandwidth (GB/s) and latency (ns), one dimension.
  const YAML::Node y = YAML::LoadFile((out / "astra_network.yml").string());
  ASSERT_TRUE(y["topology"] && y["npus_count"] && y["bandwidth"] && y["latency"]);
  EXPECT_EQ(y["topology"][0].as<std::string>(), "Switch");
  EXPECT_EQ(y["npus_count"][0].as<int>(), 8);
  // Bandwidth: the best streamed-write pair rate; latency: (64 B write round trip - memory) / 4 links.
  double best = 0, rt = 0;
  for (const auto& row : t["p2p"]["rows"]) {
    const std::string op = row["op"];
    if (op == "write" || op == "writefull") best = std::max(best, row["pair_gbytes_per_s"].get<double>());
    if (op == "write" && row["bytes"] == 64) rt = row["latency_cycles"].get<double>();
  }
  const auto& cfg = t["config"];
  const double memory = cfg["accel"]["mem_latency_cycles"].get<double>() +
                        std::ceil(64.0 / cfg["accel"]["mem_bytes_per_cycle"].get<double>());
  EXPECT_NEAR(y["bandwidth"][0].as<double>(), best, 0.001);
  EXPECT_NEAR(y["latency"][0].as<double>(), (rt - memory) / 4 / cfg["switch"]["clock_ghz"].get<double>(), 0.001);
}

TEST(TableCli, BadInputIsOneLineExitTwoAndNothingWritten) {
  const BadInput cases[] = {
      {"table --moe-tokens 0", "--moe-tokens 0"},
      {"table --moe-tokens x", "--moe-tokens 'x'"},
      {"table --moe-skews -1", "--moe-skews"},
      {"table --ranks 100", "--ranks"},
      {"table --p2p-max-bytes 1000", "1000"},
      {"table --set moe.experts=500", "moe.experts = 500"},
      {"table --load 0", "--load"},
      {"table --loaded-sizes 6", "txn.sizes"},
      {"table --loaded-sizes x", "--loaded-sizes 'x'"},
  };
  for (const BadInput& b : cases) {
    const fs::path out = scratch("table_bad_out");
    expect_bad_input(std::string(b.args) + " --out " + out.string(), b.must_mention, out);
  }
  const Result no_out = run("table");
  EXPECT_EQ(no_out.status, 2);
  EXPECT_NE(no_out.err.find("--out"), std::string::npos) << no_out.err;
}

}  // namespace
