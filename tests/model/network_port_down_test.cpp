// faults.port_down on networks (issue 19): the switch end of an accelerator link, named by link id
// (epE.pK or swS.pQ), goes down. Against the single-switch rules (tests/model/port_fault_test.cpp):
// requests to the accelerator behind it get target_abort at their first switch (as a partition
// rule), counted there and nowhere else, and nothing reaches its memory; everything else
// completes; the accelerator's own request through the down port is dropped at that port's switch
// and times out; naming a link between switches is refused with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "fault_support.h"

namespace upswitch::testing {
namespace {

using tl::Opcode;
using tl::Status;

// Two tiers, 4 leaves x 3 accelerators, 2 spines, at 1 GHz (faults.* times are cycles).
config::Config two_tier_down(const std::string& down) {
  return make_txn_config({{"topology.kind", "two_tier"},
                          {"topology.leaves", "4"},
                          {"topology.endpoints_per_leaf", "3"},
                          {"topology.spines", "2"},
                          {"topology.uplinks_per_leaf", "2"},
                          {"switch.ports", "8"},
                          {"switch.clock_ghz", "1"},
                          {"sim.check_interval_cycles", "7"},
                          {"faults.port_down", down},
                          {"endpoint.completion_timeout_ns", "20000"}});
}

// Accelerator 5 is on leaf 1 (switch 1), port 2.
TEST(NetworkPortDown, RequestsToADownAcceleratorPortGetTargetAbortAtItsLeaf) {
  for (const char* name : {"ep5.p0@300", "sw1.p2@300"}) {
    top::TxnFabric f(two_tier_down(name), false);
    static std::array<std::array<uint8_t, 64>, 512> bufs{};
    for (auto& b : bufs) b.fill(0x5a);
    Schedule s(f);
    std::vector<std::pair<int, int>> ids;  // (id, dst)
    size_t b = 0;
    for (int p = 0; p < 12; ++p)
      for (int q = 0; q < 12; ++q) {
        if (p == 5 || p == q) continue;
        ids.push_back({s.add(400, p, window_request(f, Opcode::kWrite, q, 64 * static_cast<uint64_t>(p), 64, bufs[b++].data())), q});
        ids.push_back({s.add(400, p, window_request(f, Opcode::kRead, q, 4096, 64, bufs[b++].data())), q});
      }
    const int own = s.add(500, 5, window_request(f, Opcode::kRead, 0, 0, 64, bufs[b++].data()));
    ASSERT_TRUE(s.run());
    uint64_t aborts = 0;
    for (const auto& [id, dst] : ids) {
      EXPECT_EQ(s.done(id).count, 1);
      EXPECT_EQ(s.done(id).status, dst == 5 ? Status::kTargetAbort : Status::kOkay) << name << " to " << dst;
      aborts += dst == 5;
    }
    EXPECT_EQ(aborts, 11u * 2u);
    EXPECT_EQ(s.done(own).status, Status::kCompletionTimeout) << "accelerator 5's own request leaves by the down port";
    // Rejected at the requester's own leaf (switches 0 .. 3 hold accelerators 0-2, 3-5, 6-8, 9-11):
    // two requests from each of its accelerators but 5; the spines see none.
    for (int sw = 0; sw < f.network().switches(); ++sw) {
      const core::SwitchStats& st = f.network().sw(sw).stats();
      const uint64_t requesters = sw == 1 ? 2 : sw < 4 ? 3 : 0;
      EXPECT_EQ(sum(st.target_aborts), 2 * requesters) << name << ": switch " << sw;
      EXPECT_EQ(sum(st.dropped_packets), sw == 1 ? 1u : 0u) << name << ": switch " << sw;
    }
    std::array<uint8_t, 64> mem{};
    for (int p = 0; p < 12; ++p) {
      f.endpoints().memory(5).read(64 * static_cast<uint64_t>(p), mem.data(), 64);
      EXPECT_EQ(mem, (std::array<uint8_t, 64>{})) << "a write reached the down accelerator";
    }
    EXPECT_EQ(top::check_txn_drained(f), std::vector<std::string>{});
  }
}

TEST(NetworkPortDown, ALinkBetweenSwitchesIsRefusedWithTheReason) {
  try {
    (void)two_tier_down("sw0.p3@100");
    FAIL() << "accepted";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("sw0.p3 is a link between switches; take it down with faults.link_down"),
              std::string::npos)
        << e.what();
  }
}

// A topology file's planes are its connected groups of switches: two_planes.yaml (two switches
// with no link between them, four accelerators with a port on each) is the planes kind's 4 x 2.
// With accelerator 1's plane-0 port down, requests to it that take plane 0 get target_abort at
// their plane-0 switch and those that take plane 1 complete, in the file exactly as on the planes
// kind; were the file one plane, every request to accelerator 1 would be refused.
TEST(NetworkPortDown, AFilesPlanesAreItsConnectedGroupsOfSwitches) {
  auto config_for = [](const std::vector<std::pair<std::string, std::string>>& topo) {
    std::vector<std::pair<std::string, std::string>> sets = topo;
    sets.insert(sets.end(), {{"switch.clock_ghz", "1"},
                             {"faults.port_down", "ep1.p0@300"},
                             {"endpoint.completion_timeout_ns", "20000"}});
    return make_txn_config(sets);
  };
  const config::Config planes = config_for({{"topology.kind", "planes"}, {"topology.endpoints", "4"}, {"topology.planes", "2"}});
  const config::Config file = config_for(
      {{"topology.kind", "file"}, {"topology.file", std::string(UPSWITCH_SOURCE_DIR) + "/configs/topologies/two_planes.yaml"}});
  ASSERT_EQ(file.network().switches[1].plane, 1);
  std::vector<Status> statuses[2];
  std::vector<uint64_t> aborts[2];
  for (int k = 0; k < 2; ++k) {
    top::TxnFabric f(k == 0 ? planes : file, false);
    static std::array<std::array<uint8_t, 256>, 64> bufs{};
    Schedule s(f);
    std::vector<int> ids;
    size_t b = 0;
    for (int p = 0; p < 4; ++p)
      for (int q = 0; q < 4; ++q) {
        if (p == 1 || p == q) continue;
        for (uint64_t a = 0; a < 4; ++a)  // 256 B stripes: both ports of the requester
          ids.push_back(s.add(400, p, window_request(f, Opcode::kWrite, q, 256 * a + 4096 * static_cast<uint64_t>(p), 256,
                                                     bufs[b++].data())));
      }
    ASSERT_TRUE(s.run());
    for (int id : ids) {
      EXPECT_EQ(s.done(id).count, 1);
      statuses[k].push_back(s.done(id).status);
    }
    for (int sw = 0; sw < f.network().switches(); ++sw) aborts[k].push_back(sum(f.network().sw(sw).stats().target_aborts));
    EXPECT_EQ(top::check_txn_drained(f), std::vector<std::string>{});
  }
  EXPECT_EQ(statuses[0], statuses[1]);
  EXPECT_EQ(aborts[0], aborts[1]);
  const auto refused = static_cast<size_t>(std::count(statuses[1].begin(), statuses[1].end(), Status::kTargetAbort));
  EXPECT_GT(refused, 0u);
  EXPECT_LT(refused, 3u * 4u);  // of the 12 writes to accelerator 1, those on plane 1 complete
  EXPECT_EQ(aborts[1][1], 0u);  // nothing is refused on plane 1
}

}  // namespace
}  // namespace upswitch::testing
