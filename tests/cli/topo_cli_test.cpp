// `upswitch topo` and runs on many-switch topologies from the command line (issue 18): what the
// rack presets print, the files they write, and one line with exit 2 for every topology error.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_support.h"

namespace upswitch_cli {
namespace {

const std::string kTopologies = std::string(UPSWITCH_SOURCE_DIR) + "/configs/topologies/";

TEST(TopoCli, TheRackPresetsDescribeTheirNetworks) {
  const fs::path dir = scratch("topo");
  fs::create_directories(dir);
  const Result r = run("topo --preset nvl72-rack --dot " + (dir / "rack.dot").string() + " --json " +
                       (dir / "rack.json").string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("18 switches, 72 endpoints, 1296 links"), std::string::npos) << r.out;
  // 18 links of 49.0625 GB/s per GPU; 36 GPUs' links cut in the bisection.
  EXPECT_NE(r.out.find("883.1 GB/s per direction"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(slurp(dir / "rack.json"));
  EXPECT_DOUBLE_EQ(j["bisection_gbytes_per_s"].get<double>(), 36 * 18 * 49.0625);
  EXPECT_EQ(j["diameter_switches"], 1);
  const std::string dot = slurp(dir / "rack.dot");
  EXPECT_EQ(dot.rfind("graph upswitch {", 0), 0u);
  EXPECT_NE(dot.find("sw17 [shape=box"), std::string::npos);

  const Result s = run("topo --preset superpod-256");
  ASSERT_EQ(s.status, 0) << s.err;
  EXPECT_NE(s.out.find("144 switches, 256 endpoints"), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("diameter   3 switches"), std::string::npos) << s.out;
}

// dgx-h100: 8 GPUs on 4 NVSwitch chips with 5, 4, 4 and 5 links from every GPU. The wiring
// counted from the --json links, and every bad topology.plane_links refused in one line.
TEST(TopoCli, TheDgxH100PresetWiresEveryGpuFiveFourFourFive) {
  const fs::path dir = scratch("topo_dgx");
  fs::create_directories(dir);
  const Result r = run("topo --preset dgx-h100 --json " + (dir / "dgx.json").string() + " --dot " +
                       (dir / "dgx.dot").string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("4 switches, 8 endpoints, 144 links"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("32 .. 40 ports in use per switch (switch.ports = 64)"), std::string::npos) << r.out;
  // 18 links of 24.53125 GB/s per GPU (25 GB/s NVLink4 at the DL efficiency kept from UALink).
  EXPECT_NE(r.out.find("18 ports, 441.6 GB/s per direction"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(slurp(dir / "dgx.json"));
  EXPECT_DOUBLE_EQ(j["bisection_gbytes_per_s"].get<double>(), 4 * 18 * 24.53125);
  // The DOT file's edges "epG -- swS [...]": links from each GPU to each chip.
  std::vector<std::vector<int>> links(4, std::vector<int>(8, 0));  // [chip][gpu]
  std::istringstream dot(slurp(dir / "dgx.dot"));
  for (std::string line; std::getline(dot, line);) {
    const size_t edge = line.find(" -- sw");
    if (edge == std::string::npos) continue;
    const size_t ep = line.find("ep");
    ASSERT_NE(ep, std::string::npos) << line;
    ++links[static_cast<size_t>(std::stoi(line.substr(edge + 6)))][static_cast<size_t>(std::stoi(line.substr(ep + 2)))];
  }
  const int want[4] = {5, 4, 4, 5};
  for (int s = 0; s < 4; ++s)
    for (int g = 0; g < 8; ++g)
      EXPECT_EQ(links[static_cast<size_t>(s)][static_cast<size_t>(g)], want[s]) << "chip " << s << ", GPU " << g;

  const fs::path out = scratch("topo_dgx_bad") / "x.json";
  expect_bad_input("topo --preset dgx-h100 --set topology.plane_links=[5,4,4] --json " + out.string(),
                   "topology.plane_links = [5,4,4]: expected 4 entries, one per plane (topology.planes = 4)", out);
  expect_bad_input("topo --preset dgx-h100 --set topology.plane_links=[5,0,4,5] --json " + out.string(),
                   "topology.plane_links = '[5,0,4,5]': expected a comma-separated list of integers from 1 to 64", out);
  expect_bad_input("topo --preset dgx-h100 --set topology.plane_links=[5,4,4,9] --json " + out.string(),
                   "topology.plane_links = [5,4,4,9] with topology.endpoints = 8: plane 3 needs 72 ports per switch: "
                   "expected at most switch.ports = 64", out);
  expect_bad_input("topo --preset dgx-h100 --set topology.plane_links=[5,4,4,65] --json " + out.string(),
                   "expected a comma-separated list of integers from 1 to 64", out);
  expect_bad_input("topo --set topology.plane_links=[5,4,4,5] --json " + out.string(),
                   "topology.plane_links = [5,4,4,5]: only read with topology.kind = planes", out);
  expect_bad_input("topo --preset dgx-h100 --set topology.links_per_plane=2 --json " + out.string(),
                   "topology.plane_links = [5,4,4,5] with topology.links_per_plane = 2", out);
  // input keeps one path per input port and destination, so transactions may use it; round_robin not.
  const fs::path run_out = scratch("topo_dgx_bad_run");
  expect_bad_input("run --preset dgx-h100 --set traffic.kind=transactions --set routing.multipath=round_robin --out " +
                       run_out.string(),
                   "routing.multipath = round_robin with traffic.kind = transactions", run_out);
}

TEST(TopoCli, TopologyErrorsAreOneLineAndExit2) {
  const fs::path out = scratch("topo_bad") / "x.dot";
  expect_bad_input("topo --set topology.kind=file --set topology.file=" + kTopologies + "ring4.yaml --dot " + out.string(),
                   "routing can deadlock: sw0.p1 -> sw1.p1 -> sw2.p1 -> sw3.p1 -> sw0.p1", out);
  expect_bad_input("topo --set topology.kind=planes --set topology.endpoints=73 --dot " + out.string(),
                   "needs 73 ports per switch: expected at most switch.ports = 72", out);
  expect_bad_input("topo --set topology.kind=file --dot " + out.string(), "topology.file is not set", out);
  expect_bad_input("topo --set topology.kind=file --set topology.file=/nonexistent.yaml --dot " + out.string(),
                   "/nonexistent.yaml", out);
  expect_bad_input("topo --set topology.kind=two_tier --set topology.leaves=4 --set topology.endpoints_per_leaf=4 "
                   "--set topology.spines=3 --set topology.uplinks_per_leaf=2 --dot " + out.string(),
                   "expected a multiple of topology.spines = 3", out);
  expect_bad_input("topo --set topology.kind=carousel --dot " + out.string(), "topology.kind", out);
  const fs::path run_out = scratch("topo_bad_run");
  expect_bad_input("coll --preset nvl72-rack --placement 0,72 --out " + run_out.string(),
                   "--placement: endpoint 72 is not in the topology (0 .. 71)", run_out);
  expect_bad_input("run --preset nvl72-rack --set traffic.kind=transactions --set endpoint.port_select=round_robin "
                   "--out " + run_out.string(),
                   "endpoint.port_select = round_robin with traffic.kind = transactions", run_out);
  expect_bad_input("run --preset nvl72-rack --set traffic.kind=transactions --set routing.multipath=adaptive "
                   "--out " + run_out.string(),
                   "routing.multipath = adaptive with traffic.kind = transactions", run_out);
  expect_bad_input("run --preset ualink-pod --set switch.queueing=fifo --out " + run_out.string(),
                   "a fifo input has one credit class", run_out);
  expect_bad_input("run --preset tiny --set topology.kind=file --set topology.file=" + kTopologies +
                       "ring4_dateline.yaml --out " + run_out.string(),
                   "has dateline links: expected switch.queueing = vc", run_out);
}

// Collectives and workloads on a two-tier fabric (issue 19): the placement and the topology are in
// the outputs, spread puts one rank on each leaf, and every result element is right.
TEST(TopoCli, CollAndWorkloadRunOnTwoTiers) {
  const std::string two_tier =
      " --set topology.kind=two_tier --set topology.leaves=4 --set topology.endpoints_per_leaf=4 --set topology.spines=2"
      " --set topology.uplinks_per_leaf=2 --set switch.ports=8";
  const fs::path dir = scratch("topo_coll");
  const Result r = run("coll" + two_tier + " --ranks 4 --placement spread --algo ring,switch -b 64K -e 64K --quiet --out " +
                       dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(slurp(dir / "coll.json"));
  EXPECT_EQ(j["meta"]["switches"], 6);
  EXPECT_EQ(j["meta"]["placement"], "spread (ring order: by leaf switch, then endpoint)");
  ASSERT_EQ(j["rows"].size(), 2u);
  for (const auto& row : j["rows"]) {
    EXPECT_EQ(row["wrong"], 0);
    EXPECT_EQ(row["endpoints"], nlohmann::json::parse("[0, 4, 8, 12]"));  // one per leaf of 4
  }
  EXPECT_NE(slurp(dir / "coll.csv").find(",spread,\"0,4,8,12\"\n"), std::string::npos);
  const fs::path wdir = scratch("topo_workload");
  const Result w = run("workload" + two_tier + " --set moe.tokens=64 --quiet --out " + wdir.string());
  ASSERT_EQ(w.status, 0) << w.err;
  EXPECT_TRUE(fs::exists(wdir / "workload.json"));
  // workload --placement: in the text and the JSON; bad lists are one line, exit 2.
  const fs::path pdir = scratch("topo_workload_placed");
  const Result p = run("workload" + two_tier + " --set workload.kind=moe --set moe.ranks=4 --set moe.tokens=16 "
                       "--placement spread --out " + pdir.string());
  ASSERT_EQ(p.status, 0) << p.err;
  EXPECT_NE(p.out.find("placement spread: ranks on endpoints 0,4,8,12"), std::string::npos) << p.out;
  const auto pj = nlohmann::json::parse(slurp(pdir / "workload.json"));
  EXPECT_EQ(pj["placement"]["endpoints"], nlohmann::json::parse("[0, 4, 8, 12]"));
  EXPECT_EQ(pj["config"]["workload"]["placement"], "spread");
  const fs::path bad = scratch("topo_placement_bad");
  expect_bad_input("workload" + two_tier + " --set workload.kind=moe --set moe.ranks=4 --placement 1,2 --out " + bad.string(),
                   "workload.placement = '1,2': the list names 2 endpoints for a group of 4 (the workload has 4 ranks)",
                   bad);
  expect_bad_input("workload" + two_tier + " --placement spred --out " + bad.string(),
                   "workload.placement = 'spred': expected packed, spread", bad);
  const fs::path trace = scratch("topo_trace") / "t.jsonl";
  fs::create_directories(trace.parent_path());
  std::ofstream(trace) << "{\"id\": \"w\", \"op\": \"write\", \"src\": 0, \"dst\": 1, \"bytes\": 4096}\n";
  const Result rp = run("replay " + trace.string() + two_tier + " --placement 15,3");
  ASSERT_EQ(rp.status, 0) << rp.err;
  EXPECT_NE(rp.out.find("placed by workload.placement = 15,3"), std::string::npos) << rp.out;
  expect_bad_input("replay " + trace.string() + two_tier + " --placement 3,16 --out " + bad.string(),
                   "workload.placement = '3,16': endpoint 16 is not in the topology (0 .. 15)", bad);
}

TEST(TopoCli, ARunOnPlanesWritesTheNetworkFiles) {
  const fs::path dir = scratch("topo_run");
  const Result r = run("run --preset tiny --set topology.kind=planes --set topology.endpoints=8 --set topology.planes=3 "
                       "--set traffic.rate=0.3 --quiet --out " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(slurp(dir / "summary.json"));
  EXPECT_EQ(j["topology"]["kind"], "planes");
  EXPECT_EQ(j["topology"]["switches"], 3);
  EXPECT_EQ(j["switches"].size(), 3u);
  EXPECT_DOUBLE_EQ(j["throughput"]["ports_per_endpoint"].get<double>(), 3.0);
  // Per endpoint: three links' worth of the per-link throughput.
  EXPECT_NEAR(j["throughput"]["accepted_gbytes_per_s_per_endpoint"].get<double>(),
              3 * j["throughput"]["accepted_gbytes_per_s_per_port"].get<double>(), 1e-6);
  const std::string links = slurp(dir / "links.csv");
  EXPECT_EQ(std::count(links.begin(), links.end(), '\n'), 1 + 2 * 8 * 3);  // header + both directions of 24 links
  EXPECT_NE(links.find("ep7.p2,sw2.p7,from_endpoint"), std::string::npos);
  // links.png: 3 rows (switches) of 8 cells (ports), 16 px each, then a gap and the scale strip.
  const std::string png = slurp(dir / "links.png");
  ASSERT_GT(png.size(), 24u);
  EXPECT_EQ(png.substr(1, 3), "PNG");
  auto be32 = [&](size_t at) {
    return (static_cast<uint32_t>(static_cast<uint8_t>(png[at])) << 24) | (static_cast<uint32_t>(static_cast<uint8_t>(png[at + 1])) << 16) |
           (static_cast<uint32_t>(static_cast<uint8_t>(png[at + 2])) << 8) | static_cast<uint8_t>(png[at + 3]);
  };
  EXPECT_EQ(be32(16), 8u * 16);           // width
  EXPECT_EQ(be32(20), 3u * 16 + 4 + 12);  // height
  const std::string ports = slurp(dir / "ports.csv");
  EXPECT_EQ(ports.rfind("port,endpoint,switch,switch_port,", 0), 0u);
}

TEST(TopoCli, TransactionsRunOnTwoTiersAndThePairTableOnPlanes) {
  const fs::path dir = scratch("topo_txn");
  const Result r = run("run --preset tiny --set traffic.kind=transactions --set topology.kind=two_tier "
                       "--set topology.leaves=4 --set topology.endpoints_per_leaf=2 --set topology.spines=2 "
                       "--set topology.uplinks_per_leaf=2 --set txn.load=0.3 --quiet --out " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(slurp(dir / "summary.json"));
  EXPECT_EQ(j["topology"]["kind"], "two_tier");
  EXPECT_EQ(j["switches"].size(), 6u);
  EXPECT_TRUE(j["conservation"]["ok"].get<bool>());
  EXPECT_EQ(j["statuses"]["okay"], j["stats"]["accel.requests_answered"]["value"]);
  EXPECT_GT(j["throughput"]["completed_gbytes_per_s_per_endpoint"].get<double>(), 0.0);
  EXPECT_NE(slurp(dir / "links.csv").find("sw0.p2,sw4.p0,inter_switch"), std::string::npos);
  EXPECT_EQ(slurp(dir / "ports.csv").rfind("endpoint,", 0), 0u);

  const fs::path p2p = scratch("topo_p2p");
  const Result t = run("p2p --preset tiny --set topology.kind=planes --set topology.endpoints=4 "
                       "--set topology.planes=4 --ops read --max-bytes 1024 --warmup-cycles 500 --measure-cycles 1000 --quiet --out " +
                       p2p.string());
  ASSERT_EQ(t.status, 0) << t.err;
}

}  // namespace
}  // namespace upswitch_cli
