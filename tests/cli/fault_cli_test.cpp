// The partition and port-fault keys on the real binary: a transaction run with virtual pods, a
// port going down and completion timeouts gives the same answers under both kernels (the SystemC
// endpoints sleep and must wake for the switch's error answers and for deadlines), and every bad
// value is one line naming the key, exit status 2, nothing written.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "cli_support.h"

using namespace upswitch_cli;  // NOLINT: test file

namespace {

const std::string kFaultRun =
    "run --preset tiny --quiet --set traffic.kind=transactions --set txn.load=0.2 --set sim.measure_cycles=6000 "
    "--set partition.pods=0,0,0,0,1,1,1,1 --set faults.port_down=5@1500-3500 "
    "--set endpoint.completion_timeout_ns=1500 --set sim.check_interval_cycles=97 ";

// A slow memory: every request times out and its response comes back late.
const std::string kTimeoutRun =
    "run --preset tiny --quiet --set traffic.kind=transactions --set txn.load=0.05 --set sim.measure_cycles=6000 "
    "--set accel.mem_latency_cycles=400 --set endpoint.completion_timeout_ns=250 ";

// Both kernels: the same summary (statuses, counters, latencies) and a clean drain.
void expect_same_under_both_kernels(const std::string& args, nlohmann::json s[2]) {
  const char* kernels[2] = {"systemc", "plain"};
  for (int k = 0; k < 2; ++k) {
    const fs::path out = scratch(std::string("faults_") + kernels[k]);
    const Result r = run(args + "--kernel " + kernels[k] + " --out " + out.string());
    ASSERT_EQ(r.status, 0) << r.err;
    s[k] = nlohmann::json::parse(slurp(out / "summary.json"));
    EXPECT_TRUE(s[k]["conservation"]["ok"].get<bool>()) << s[k]["conservation"].dump();
  }
  EXPECT_EQ(s[0]["statuses"].dump(), s[1]["statuses"].dump());
  EXPECT_EQ(s[0]["stats"].dump(), s[1]["stats"].dump());
  EXPECT_EQ(s[0]["ops"].dump(), s[1]["ops"].dump());
  EXPECT_EQ(s[0]["sim"]["cycles"], s[1]["sim"]["cycles"]);
}

TEST(FaultCli, LateResponsesAreTheSameUnderBothKernels) {
  nlohmann::json s[2];
  expect_same_under_both_kernels(kTimeoutRun, s);
  const uint64_t timeouts = s[0]["statuses"]["completion_timeout"].get<uint64_t>();
  EXPECT_GT(timeouts, 0u);
  EXPECT_EQ(s[0]["statuses"]["okay"].get<uint64_t>(), 0u);
  EXPECT_EQ(s[0]["stats"]["accel.late_responses"]["value"].get<uint64_t>(), timeouts);
}

TEST(FaultCli, PodsAndAPortDownGiveTheSameAnswersUnderBothKernels) {
  nlohmann::json s[2];
  expect_same_under_both_kernels(kFaultRun, s);
  for (int k = 0; k < 2; ++k) {
    EXPECT_GT(s[k]["statuses"]["protection_violation"].get<uint64_t>(), 0u);
    EXPECT_GT(s[k]["statuses"]["target_abort"].get<uint64_t>(), 0u);
    EXPECT_GT(s[k]["statuses"]["completion_timeout"].get<uint64_t>(), 0u);
    uint64_t pv = 0;
    for (uint64_t v : s[k]["stats"]["switch.protection_violations"]["values"]) pv += v;
    EXPECT_EQ(pv, s[k]["statuses"]["protection_violation"].get<uint64_t>());
    EXPECT_TRUE(s[k]["stats"].contains("accel.late_responses"));
  }
}

TEST(FaultCli, BadInputIsOneLineExitTwoAndNothingWritten) {
  const std::string txn = "run --preset tiny --set traffic.kind=transactions ";
  const std::string timeout = "--set endpoint.completion_timeout_ns=1000 ";
  const std::string cases[][2] = {
      {txn + "--set partition.pods=0,1", "partition.pods = '0,1' has 2 entries: expected none (one pod) or one pod id"},
      {txn + "--set partition.pods=0,0,0,0,-1,1,1,1", "partition.pods = '0,0,0,0,-1,1,1,1'"},
      {txn + "--set partition.pods=0,x", "integers from 0 to 1023"},
      {txn + "--set faults.switch_down=0@100", "faults.switch_down = '0@100': takes switches of a network out of service"},
      {txn + "--set topology.kind=planes --set topology.endpoints=4 --set topology.planes=2 --set faults.switch_down=2@5",
       "faults.switch_down = '2@5': expected SWITCH@NS,... with SWITCH 0 .. 1"},
      {txn + "--set topology.kind=planes --set topology.endpoints=4 --set topology.planes=2 --set faults.switch_down=0@5,0@9",
       "each at most once"},
      {txn + "--set topology.kind=planes --set topology.endpoints=4 --set topology.planes=2 --set faults.switch_down=0@5,1@9",
       "faults.switch_down = '0@5,1@9': accelerator 0 would have no port left"},
      {txn + "--set topology.kind=two_tier --set topology.leaves=2 --set topology.endpoints_per_leaf=2 "
             "--set topology.spines=1 --set topology.uplinks_per_leaf=1 --set faults.switch_down=2@5",
       "faults.switch_down = '2@5': switch 0 reaches accelerator 2 only through switches taken out"},
      {txn + "--set topology.kind=planes --set topology.endpoints=6 --set topology.planes=2 --set partition.pods=0,1",
       "partition.pods = '0,1' has 2 entries: expected none (one pod) or one pod id 0 .. 1023 per accelerator (the "
       "topology has 6)"},
      {"run --preset tiny --set partition.pods=0,0,0,0,1,1,1,1",
       "partition.pods: applies to traffic.kind = transactions"},
      {txn + timeout + "--set faults.port_down=9@100", "faults.port_down = '9@100': expected PORT@START_NS[-END_NS]"},
      {txn + timeout + "--set faults.port_down=5@x", "faults.port_down = '5@x'"},
      {txn + timeout + "--set faults.port_down=5@300-200", "0 <= START_NS < END_NS"},
      {txn + timeout + "--set faults.port_down=5", "faults.port_down = '5'"},
      {txn + timeout + "--set faults.port_down=5@100,", "faults.port_down = '5@100,'"},
      {txn + "--set faults.port_down=5@100", "endpoint.completion_timeout_ns = 0: expected a timeout > 0"},
      {txn + "--set endpoint.completion_timeout_ns=-1", "endpoint.completion_timeout_ns = '-1'"},
      {"run --preset tiny --set endpoint.completion_timeout_ns=100", "applies to traffic.kind = transactions"},
      {"coll --preset tiny --set partition.pods=0,0,0,0,1,1,1,1 --ranks 8 -e 1K",
       "--ranks 8: ranks 0 (pod 0) and 4 (pod 1) are in different virtual pods"},
      {"workload --preset tiny --set partition.pods=0,0,0,0,1,1,1,1 --set workload.kind=tp",
       "tp group 0: ranks 0 (pod 0) and 4 (pod 1) are in different virtual pods"},
  };
  for (const auto& c : cases) {
    const fs::path out = scratch("fault_bad_out");
    expect_bad_input(c[0] + " --out " + out.string(), c[1], out);
  }
}

TEST(FaultCli, BadLinkLayerAndLinkFaultInputIsOneLineExitTwoAndNothingWritten) {
  const std::string dl = "run --preset tiny --set link.dl.enable=true ";
  const std::string cases[][2] = {
      {"run --preset tiny --set faults.link_errors=3=1e-3", "faults.link_errors = '3=1e-3': needs link.dl.enable = true"},
      {"run --preset tiny --set faults.link_down=3@10-20", "faults.link_down = '3@10-20': needs link.dl.enable = true"},
      {dl + "--set faults.link_errors=9=1e-3",
       "bad item '9=1e-3' (port 9 is not on the switch); expected PORT[:up|:down]=RATE"},
      {dl + "--set faults.link_errors=ep3.p1=1e-3", "bad item 'ep3.p1=1e-3' (ep3.p1 is not a port of the topology)"},
      // On networks links are named by id; a link between switches has directions out and in.
      {dl + "--set topology.kind=two_tier --set topology.leaves=2 --set topology.endpoints_per_leaf=2 "
            "--set topology.spines=1 --set topology.uplinks_per_leaf=1 --set faults.link_errors=sw2.p0:up=1e-3",
       "(sw2.p0 is a link between switches: its direction is out (leaving sw2.p0) or in); expected "
       "LINK[:up|:down|:out|:in]=RATE"},
      {dl + "--set topology.kind=two_tier --set topology.leaves=2 --set topology.endpoints_per_leaf=2 "
            "--set topology.spines=1 --set topology.uplinks_per_leaf=1 --set faults.credit_loss=switches@5",
       "bad item 'switches@5' (name one link, with its direction)"},
      {dl + "--set faults.link_errors=switches=1e-3", "(this topology has no links between switches)"},
      {dl + "--set topology.kind=planes --set topology.endpoints=4 --set topology.planes=2 --set faults.link_errors=ep1.p0:out=0.1",
       "(an accelerator link's direction is up or down)"},
      {dl + "--set topology.kind=planes --set topology.endpoints=4 --set topology.planes=2 --set faults.link_down=3@1-2",
       "(a plain port number names a link only with topology.kind = single); expected LINK@START_NS-END_NS"},
      {dl + "--set topology.kind=planes --set topology.endpoints=4 --set topology.planes=2 --set faults.link_down=ep3.p2@1-2",
       "(ep3.p2 is not a port of the topology)"},
      {"run --preset nvl72-rack --set traffic.kind=transactions --set endpoint.completion_timeout_ns=1000 "
       "--set faults.port_down=3@5",
       "faults.port_down = '3@5': '3' is not a link id; expected LINK@START_NS[-END_NS]"},
      {"run --preset nvl72-rack --set traffic.kind=transactions --set endpoint.completion_timeout_ns=1000 "
       "--set faults.port_down=ep3.p18@5",
       "ep3.p18 is not a port of the topology"},
      // Routing around sw1 -- sw2 of the dateline ring and back: at link-up, packets on the long way
      // would be turned back onto the channels they came by (network/reroute.h).
      {dl + "--set switch.queueing=vc --set topology.kind=file --set topology.file=" + std::string(UPSWITCH_SOURCE_DIR) +
            "/configs/topologies/ring4_dateline.yaml --set faults.link_down=sw1.p1@10-20",
       "faults.link_down = 'sw1.p1@10-20': the routes from cycle "},
      {dl + "--set faults.link_errors=3:sideways=1e-3", "bad item '3:sideways=1e-3'"},
      {dl + "--set faults.link_errors=3=0.9", "bad rate in '3=0.9'"},
      {dl + "--set faults.link_down=3@20-10", "'3@20-10' ends before it starts"},
      {dl + "--set faults.link_down=3@10", "bad item '3@10'; expected PORT@START_NS-END_NS"},
      {dl + "--set faults.link_down=3@10-20,3@15-30", "two intervals of port 3 overlap"},
      {dl + "--set faults.link_down=3:up@10-20", "bad item '3:up@10-20'"},
      {"run --preset tiny --set faults.credit_loss=3@100", "bad item '3@100'; expected PORT:up|down@NS"},
      {"run --preset tiny --set faults.credit_loss=3:up@soon", "faults.credit_loss: 'soon' is not a time"},
      {dl + "--set link.dl.payload_bytes=640", "link.dl.payload_bytes = 640: expected less than link.dl.flit_bytes"},
      {dl + "--set link.dl.tx_fifo_flits=5", "link.dl.tx_fifo_flits = 5: expected at least 11"},
      {dl + "--set link.dl.flit_error_rate=1e-3 --set link.dl.bit_error_rate=1e-9", "expected at most one of them"},
      {dl + "--set link.dl.flit_error_rate=0.7", "link.dl.flit_error_rate"},
      {dl + "--set link.dl.replay_window=300", "link.dl.replay_window"},
  };
  for (const auto& c : cases) {
    const fs::path out = scratch("dl_bad_out");
    expect_bad_input(c[0] + " --out " + out.string(), c[1], out);
  }
}

// A lost credit is an invariant violation: exit 4, the link named on stderr.
TEST(FaultCli, ALostCreditStopsTheRunWithTheLinkNamed) {
  const fs::path out = scratch("credit_loss_out");
  const Result r = run("run --preset tiny --set traffic.rate=0.4 --set sim.check_interval_cycles=200 "
                       "--set faults.credit_loss=2:up@300 --out " + out.string());
  EXPECT_EQ(r.status, 4) << r.err;
  EXPECT_NE(r.err.find("input link of port 2"), std::string::npos) << r.err;
}

}  // namespace
