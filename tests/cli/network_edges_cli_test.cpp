// Network inputs we keep to ourselves (issue 58 item 6): hostile topology files, Chakra traces,
// fault specifications, placements and thread counts. Each class is refused in one stderr line
// naming the file and line (or the item) with exit 2 and nothing written, or runs correctly
// within bounded memory and time. doc/topology.md "Limits and refusals", doc/trace.md.
#include <nlohmann/json.hpp>

#include "cli_support.h"

namespace upswitch_cli {
namespace {

// Two switches of three ports, two endpoints on each, one link between them (line 14).
const char* const kBase =
    "switches:\n"                                       // 1
    "  - {id: 0, ports: 3}\n"                           // 2
    "  - {id: 1, ports: 3}\n"                           // 3
    "endpoints:\n"                                      // 4
    "  - {id: 0, ports: 1}\n"                           // 5
    "  - {id: 1, ports: 1}\n"                           // 6
    "  - {id: 2, ports: 1}\n"                           // 7
    "  - {id: 3, ports: 1}\n"                           // 8
    "links:\n"                                          // 9
    "  - [endpoint 0:0, switch 0:0]\n"                  // 10
    "  - [endpoint 1:0, switch 0:1]\n"                  // 11
    "  - [endpoint 2:0, switch 1:0]\n"                  // 12
    "  - [endpoint 3:0, switch 1:1]\n"                  // 13
    "  - [switch 0:2, switch 1:2, {latency_cycles: 16}]\n"  // 14
    "routing: shortest_path\n";                         // 15

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

fs::path write(const std::string& name, const std::string& text) {
  const fs::path dir = scratch("net_edges_in");
  fs::create_directories(dir);
  const fs::path f = dir / name;
  std::ofstream(f, std::ios::binary) << text;
  return f;
}

std::string run_with_topology(const fs::path& file, const fs::path& out) {
  return "run --preset tiny --set topology.kind=file --set topology.file=" + file.string() +
         " --set sim.measure_cycles=400 --set sim.warmup_cycles=100 --out " + out.string();
}

const char* const kLink14 = "[switch 0:2, switch 1:2, {latency_cycles: 16}]";

TEST(NetworkEdgesCli, TheBaseTopologyRuns) {
  const fs::path out = scratch("net_edges_base");
  const Result r = run(run_with_topology(write("base.yaml", kBase), out) + " --quiet");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(fs::exists(out / "summary.json"));
}

TEST(NetworkEdgesCli, TopologyFilesThatCannotWorkAreOneLineNamingFileAndLine) {
  const fs::path out = scratch("net_edges_topo");
  struct Case {
    const char* name;
    std::string text;
    std::string mention;  // after "FILE:"
  };
  const std::vector<Case> cases = {
      {"port_twice", replaced(kBase, kLink14, "[switch 0:1, switch 1:2]"),
       "14: links[4]: port sw0.p1 is used by two links (links[1] at line 11 and this one)"},
      {"beyond_radix", replaced(kBase, kLink14, "[switch 0:7, switch 1:2]"),
       "14: links[4]: port sw0.p7 does not exist (switch 0 has ports 0 .. 2)"},
      {"ports_over_radix", replaced(kBase, "{id: 1, ports: 3}", "{id: 1, ports: 300}"), "3: switches[1]: ports: '300'"},
      {"unknown_switch", replaced(kBase, kLink14, "[switch 0:2, switch 5:2]"), "14: links[4]: unknown switch 5"},
      {"unknown_endpoint", replaced(kBase, "[endpoint 3:0, switch 1:1]", "[endpoint 9:0, switch 1:1]"),
       "13: links[3]: unknown endpoint 9"},
      {"dangling", replaced(kBase, kLink14, "[switch 0:2]"), "14: links[4]: expected [END, END]"},
      {"self_link", replaced(kBase, kLink14, "[switch 0:2, switch 0:2]"),
       "14: links[4]: a link from port sw0.p2 to itself"},
      {"unconnected_port", replaced(kBase, "{id: 1, ports: 3}", "{id: 1, ports: 4}"),
       "3: switches[1]: port sw1.p3 is not connected"},
      {"unreachable",
       replaced(replaced(replaced(kBase, "  - " + std::string(kLink14) + "\n", ""), "{id: 0, ports: 3}", "{id: 0, ports: 2}"),
                "{id: 1, ports: 3}", "{id: 1, ports: 2}"),
       "14: routing: switch 1 has no route to endpoint 0"},
      {"latency_negative", replaced(kBase, "latency_cycles: 16", "latency_cycles: -1"), "14: links[4]: latency_cycles: '-1'"},
      {"latency_nan", replaced(kBase, "latency_cycles: 16", "latency_cycles: .nan"), "14: links[4]: latency_cycles: '.nan'"},
      {"rate_nan", replaced(kBase, "latency_cycles: 16", "gbytes_per_s: nan"), "14: links[4]: gbytes_per_s: 'nan'"},
      {"rate_inf", replaced(kBase, "latency_cycles: 16", "gbytes_per_s: .inf"), "14: links[4]: gbytes_per_s: '.inf'"},
      {"rate_negative", replaced(kBase, "latency_cycles: 16", "gbytes_per_s: -3"), "14: links[4]: gbytes_per_s: '-3'"},
      {"rate_word", replaced(kBase, "latency_cycles: 16", "gbytes_per_s: fast"), "14: links[4]: gbytes_per_s: 'fast'"},
      {"bad_yaml", replaced(kBase, "routing: shortest_path", "routing: [1, 2"), "16: not valid YAML"},
  };
  for (const Case& c : cases) {
    const fs::path f = write(std::string(c.name) + ".yaml", c.text);
    expect_bad_input(run_with_topology(f, out), f.string() + ":" + c.mention, out);
    expect_bad_input("topo --set topology.kind=file --set topology.file=" + f.string() + " --json " +
                         (out / "t.json").string(),
                     f.string() + ":" + c.mention, out);
  }
}

// n switches in a line, an endpoint at each end: the routes between them cross all n.
std::string chain(int n) {
  std::string s = "switches:\n";
  for (int i = 0; i < n; ++i) s += "  - {id: " + std::to_string(i) + ", ports: 2}\n";
  s += "endpoints:\n  - {id: 0, ports: 1}\n  - {id: 1, ports: 1}\nlinks:\n  - [endpoint 0:0, switch 0:0]\n";
  s += "  - [endpoint 1:0, switch " + std::to_string(n - 1) + ":1]\n";
  for (int i = 0; i + 1 < n; ++i) s += "  - [switch " + std::to_string(i) + ":1, switch " + std::to_string(i + 1) + ":0]\n";
  return s + "routing: shortest_path\n";
}

TEST(NetworkEdgesCli, LongAndLargeNetworksRunBoundedOrAreRefusedBeforeTheyStart) {
  const fs::path out = scratch("net_edges_long");
  // 64 switches in a route is the limit: it runs; 65 and a 5,000-switch chain are refused.
  const Result ok = run("topo --set topology.kind=file --set topology.file=" + write("chain64.yaml", chain(64)).string());
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_NE(ok.out.find("diameter   64 switches between endpoints"), std::string::npos) << ok.out;
  const fs::path c65 = write("chain65.yaml", chain(65));
  expect_bad_input(run_with_topology(c65, out), c65.string() + ":137: routing: ", out);
  expect_bad_input(run_with_topology(c65, out), "crosses 65 switches; expected at most 64", out);
  const fs::path c5000 = write("chain5000.yaml", chain(5000));
  expect_bad_input(run_with_topology(c5000, out), c5000.string() + ":2: switches: 5000 items: expected at most 4096", out);
  // Nesting deeper than yaml-cpp allows is bad YAML, not a stack overflow.
  const fs::path deep = write("deep.yaml", "switches: " + std::string(100000, '['));
  expect_bad_input(run_with_topology(deep, out), deep.string() + ":", out);
  expect_bad_input(run_with_topology(deep, out), "not valid YAML", out);
}

// ---- Chakra traces: protobuf framing by hand, so that any framing can be written.

std::string varint(uint64_t v) {
  std::string s;
  while (v >= 0x80) {
    s += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  return s + static_cast<char>(v);
}
std::string framed(const std::string& m) { return varint(m.size()) + m; }
std::string meta() { return framed("\x0a\x05" "0.0.4"); }
std::string comp_node(uint64_t id, bool dep_on_previous) {
  std::string m = "\x08" + varint(id) + "\x18\x04";  // id, type COMP_NODE
  if (dep_on_previous) m += "\x20" + varint(id - 1);  // ctrl_deps
  m += "\x38\x01";                                   // duration_micros 1
  return framed(m);
}

fs::path chakra_prefix(const std::string& name, const std::string& rank0) {
  const fs::path dir = scratch("net_edges_et_" + name);
  fs::create_directories(dir);
  std::ofstream(dir / "x.0.et", std::ios::binary) << rank0;
  return dir / "x";
}

std::string replay(const fs::path& prefix, const fs::path& out) {
  return "replay --preset tiny --chakra " + prefix.string() + " --out " + out.string();
}

TEST(NetworkEdgesCli, ChakraFramingThatCannotBeReadIsOneLine) {
  const fs::path out = scratch("net_edges_chakra");
  const std::string good = meta() + comp_node(0, false) + comp_node(1, true) + comp_node(2, true);
  const struct {
    const char* name;
    std::string bytes;
    const char* mention;
  } cases[] = {
      {"truncated", good.substr(0, good.size() - 3), "message 3: malformed or truncated Node"},
      {"claims_more", good + varint(1000000) + "\x08\x01", "message 4: malformed or truncated Node: its length prefix claims 1000000 B, only 2 B are left in the file"},
      {"endless_varint", good + std::string(20, '\xff'), "message 4: truncated length prefix"},
      {"varint_11_bytes", good + std::string(10, '\xff') + "\x01", "message 4: truncated length prefix"},
      {"length_64_bit", good + varint(uint64_t{1} << 40) + "\x00", "message 4: malformed or truncated Node: its length prefix claims 1099511627776 B"},
      {"length_negative", good + varint(~uint64_t{0}) + "\x00", "message 4: malformed or truncated Node: its length prefix claims 18446744073709551615 B"},
      {"length_2g", good + varint((uint64_t{1} << 31) + 5) + "\x00", "message 4: malformed or truncated Node: its length prefix claims 2147483653 B, only 0 B are left"},
      {"cycle", meta() + framed(std::string("\x08\x00\x18\x04\x20\x01", 6)) + framed(std::string("\x08\x01\x18\x04\x20\x00", 6)),
       "node 1 (id 0, COMP_NODE): its dependencies form a cycle"},
      {"empty", "", "message 0: empty file"},
      // A name that is not UTF-8: protobuf's own log line is silenced, so still one line.
      {"not_utf8", meta() + framed(std::string("\x08\x00\x12\x02\xff\xfe\x18\x04", 8)),
       "message 1: malformed or truncated Node of 8 B"},
  };
  for (const auto& c : cases) {
    const fs::path prefix = chakra_prefix(c.name, c.bytes);
    expect_bad_input(replay(prefix, out), "chakra trace '" + prefix.string() + ".0.et' " + c.mention, out);
  }
}

// A long dependency chain is ordered without recursion (a topological sort with a queue): 50,000
// nodes each depending on the one before replay correctly; a million nodes are more than a
// trace may hold (chakra::kMaxChakraNodes) and are refused in one line, before the replay.
TEST(NetworkEdgesCli, LongDependencyChainsRunOrAreRefusedInOneLine) {
  std::string bytes = meta();
  for (uint64_t i = 0; i < 50000; ++i) bytes += comp_node(i, i > 0);
  const fs::path out = scratch("net_edges_chain");
  const Result r = run(replay(chakra_prefix("chain", bytes), out) + " --quiet");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string csv = slurp(out / "replay.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 50001);  // the header and one row per node, in order
  EXPECT_NE(csv.find("\n50000,r0.49999,compute,"), std::string::npos);
  for (uint64_t i = 50000; i < 1000000; ++i) bytes += comp_node(i, true);
  const fs::path prefix = chakra_prefix("million", bytes);
  const fs::path bad = scratch("net_edges_million");
  expect_bad_input(replay(prefix, bad), "chakra trace '" + prefix.string() + ".0.et' message 262145: more than 262144 nodes",
                   bad);
}

// ---- Faults and placements naming what the topology lacks, or with bad times.

TEST(NetworkEdgesCli, FaultsAndPlacementsNamingWhatIsNotThereAreOneLineNamingTheItem) {
  const fs::path out = scratch("net_edges_faults");
  const std::string planes = "run --preset tiny --set topology.kind=planes --set topology.endpoints=4 "
                             "--set topology.planes=2 --set sim.measure_cycles=400 --out " + out.string() + " ";
  const std::string dl = planes + "--set link.dl.enable=true ";
  const std::string txn = planes + "--set traffic.kind=transactions --set endpoint.completion_timeout_ns=2000 ";
  expect_bad_input(planes + "--set faults.switch_down=9@100", "faults.switch_down = '9@100'", out);
  expect_bad_input(planes + "--set faults.switch_down=0@-5", "faults.switch_down = '0@-5'", out);
  expect_bad_input(planes + "--set faults.switch_down=0@nan", "faults.switch_down = '0@nan'", out);
  expect_bad_input(dl + "--set faults.link_down=sw9.p0@10-20", "bad item 'sw9.p0@10-20' (sw9.p0 is not a port of the topology)", out);
  expect_bad_input(dl + "--set faults.link_down=ep0.p0@nan-20", "'nan' is not a time", out);
  expect_bad_input(dl + "--set faults.link_errors=ep9.p0=1e-4", "bad item 'ep9.p0=1e-4' (ep9.p0 is not a port of the topology)",
                   out);
  expect_bad_input(txn + "--set faults.port_down=ep9.p0@1", "ep9.p0 is not a port of the topology", out);
  expect_bad_input(txn + "--set faults.port_down=ep0.p0@5-2", "faults.port_down = 'ep0.p0@5-2'", out);
  const std::string workload = "workload --preset tiny --set moe.tokens=16 --set tp.seq_len=64 --set tp.hidden=256 --out " +
                               out.string() + " ";
  expect_bad_input(workload + "--set workload.placement=0,1,2,3,4,5,6,99", "workload.placement = '0,1,2,3,4,5,6,99'", out);
  expect_bad_input(workload + "--set workload.placement=-1,0", "workload.placement = '-1,0'", out);
}

// ---- Threads far above the switches and cores.

TEST(NetworkEdgesCli, HugeThreadCountsAreCappedOrRefused) {
  const std::string args = "run --preset tiny --set topology.kind=planes --set topology.endpoints=4 --set topology.planes=4 "
                           "--set sim.measure_cycles=400 --kernel plain --quiet ";
  const fs::path one = scratch("net_edges_threads_1"), many = scratch("net_edges_threads_many");
  ASSERT_EQ(run(args + "--threads 1 --out " + one.string()).status, 0);
  // The flag's range ends at 1024 (app/numeric_flags.h): far above these 4 switches and the cores.
  const Result r = run(args + "--threads 1024 --out " + many.string());
  ASSERT_EQ(r.status, 0) << r.err;
  auto counts = [](const fs::path& d) {
    nlohmann::json j = nlohmann::json::parse(slurp(d / "summary.json"));
    return j["throughput"].dump();
  };
  EXPECT_EQ(counts(many), counts(one));
  const fs::path out = scratch("net_edges_threads_bad");
  expect_bad_input(args + "--threads 100000 --out " + out.string(), "--threads 100000", out);
  expect_bad_input(args + "--threads 2147483648 --out " + out.string(), "--threads", out);
  expect_bad_input(args + "--threads -1 --out " + out.string(), "--threads -1", out);
}

}  // namespace
}  // namespace upswitch_cli
