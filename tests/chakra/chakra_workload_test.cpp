// `upswitch workload --chakra` (chakra/workload_chakra.h): a workload written as Chakra traces and
// replayed takes the time the workload simulation itself measured (within 1%: the replay starts a
// rank's compute the cycle after its collective ends), has one collective per phase of the
// schedule with the same sizes, and the communicator groups are the workload's. The address cache
// is off here: a replay gives every collective fresh buffers where the workload reuses a chain's,
// and fresh 1 MiB regions miss the cache that reused ones hit (3.8% on the TP case with it on, all
// of it in the group whose buffers land across more regions); that is the model, not the files.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "chakra/chakra_trace.h"
#include "chakra/workload_chakra.h"
#include "top/trace_replay.h"
#include "top/workload_run.h"
#include "txn_support.h"

namespace upswitch::testing {
namespace {

namespace fs = std::filesystem;

void expect_round_trip(const config::Config& cfg, const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("upswitch-chakra-wl-" + std::to_string(::getpid()) + name);
  fs::create_directories(dir);
  const std::string prefix = (dir / "w").string();
  chakra::write_chakra(chakra::workload_chakra(cfg, prefix));
  const chakra::ChakraTrace back = chakra::read_chakra(prefix, "");
  const traffic::Trace trace = chakra::to_trace(back);
  fs::remove_all(dir);

  const top::WorkloadResult w = top::run_workload(cfg);
  const top::ReplayResult r = top::replay_trace(cfg, trace);
  uint64_t w_end = 0, r_end = 0;
  for (const top::WorkloadPhase& p : w.phases) w_end = std::max(w_end, p.end);
  std::vector<uint64_t> r_bytes, w_bytes;
  for (const top::ReplayRow& row : r.rows) {
    r_end = std::max(r_end, row.end);
    if (row.op != "compute") r_bytes.push_back(row.bytes);
    EXPECT_EQ(row.status, tl::Status::kOkay) << row.id;
  }
  for (const top::WorkloadPhase& p : w.phases) w_bytes.push_back(p.bytes);
  std::sort(r_bytes.begin(), r_bytes.end());
  std::sort(w_bytes.begin(), w_bytes.end());
  EXPECT_EQ(r_bytes, w_bytes) << name << ": one collective per phase, same sizes";
  EXPECT_NEAR(static_cast<double>(r_end), static_cast<double>(w_end), 0.01 * static_cast<double>(w_end))
      << name << ": replay " << r_end << " cycles, workload " << w_end;
}

TEST(ChakraWorkload, TpWorkloadReplaysInTheTimeItRan) {
  const config::Config cfg = make_txn_config({{"switch.ports", "8"}, {"tl.address_cache_entries", "0"}, {"workload.kind", "tp"}, {"tp.algo", "ring"},
                                              {"tp.group_size", "4"}, {"tp.hidden", "2048"}, {"tp.seq_len", "128"},
                                              {"tp.layers", "2"}, {"tp.backward", "true"}, {"tp.compute_us", "7.5"},
                                              {"workload.steps", "2"}});
  const chakra::ChakraTrace c = chakra::workload_chakra(cfg, "unused");
  ASSERT_EQ(c.ranks.size(), 8u);
  ASSERT_EQ(c.groups.size(), 2u);
  EXPECT_EQ(c.groups[0].first, "tp0");
  EXPECT_EQ(c.groups[0].second, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(c.groups[1].second, (std::vector<int>{4, 5, 6, 7}));
  // 3.75 us halves are not whole microseconds: the exact duration travels in upswitch_duration_ns.
  const auto comp = std::find_if(c.ranks[0].nodes.begin(), c.ranks[0].nodes.end(),
                                 [](const chakra::Node& n) { return n.type == chakra::NodeType::kComp; });
  ASSERT_NE(comp, c.ranks[0].nodes.end());
  EXPECT_EQ(comp->upswitch_duration_ns, 3750);
  expect_round_trip(cfg, "tp");
}

// What the workload was given beyond the algorithm (tp.protocol, tp.channels, as NCCL_PROTO and a
// channel count) travels in upswitch_protocol and upswitch_channels and runs again at replay,
// where the replay would otherwise choose both itself.
TEST(ChakraWorkload, ForcedProtocolAndChannelsRunAgainAtReplay) {
  const config::Config cfg = make_txn_config({{"switch.ports", "8"}, {"tl.address_cache_entries", "0"}, {"workload.kind", "tp"},
                                              {"tp.algo", "ring"}, {"tp.protocol", "ll"}, {"tp.channels", "3"},
                                              {"tp.group_size", "4"}, {"tp.hidden", "2048"}, {"tp.seq_len", "128"},
                                              {"tp.layers", "1"}, {"tp.compute_us", "2"}});
  const chakra::ChakraTrace c = chakra::workload_chakra(cfg, "unused");
  int colls = 0;
  for (const chakra::Node& n : c.ranks[0].nodes)
    if (n.type == chakra::NodeType::kCommColl) {
      ++colls;
      EXPECT_EQ(n.upswitch_protocol, "ll");
      EXPECT_EQ(n.upswitch_channels, 3);
    }
  EXPECT_GT(colls, 0);
  const top::ReplayResult r = top::replay_trace(cfg, chakra::to_trace(c));
  int replayed = 0;
  for (const top::ReplayRow& row : r.rows) {
    if (row.op == "compute") continue;
    ++replayed;
    EXPECT_EQ(row.algorithm, "ring") << row.id;
    EXPECT_EQ(row.protocol, "ll") << row.id;
    EXPECT_EQ(row.channels, 3) << row.id;
  }
  EXPECT_EQ(replayed, 2 * colls);  // both groups
  expect_round_trip(cfg, "tp-ll");
}

TEST(ChakraWorkload, MoeWorkloadWithSkewedExpertsReplaysInTheTimeItRan) {
  // Zipf gating: ranks send different amounts, carried in upswitch_pair_bytes.
  const config::Config cfg = make_txn_config({{"switch.ports", "8"}, {"tl.address_cache_entries", "0"}, {"workload.kind", "moe"}, {"moe.tokens", "64"},
                                              {"moe.hidden", "512"}, {"moe.experts", "8"}, {"moe.gating", "zipf"},
                                              {"moe.compute_us", "2"}, {"moe.layers", "2"}, {"workload.steps", "2"}});
  const chakra::ChakraTrace c = chakra::workload_chakra(cfg, "unused");
  ASSERT_EQ(c.groups.size(), 1u);
  EXPECT_EQ(c.groups[0].first, "moe");
  bool uneven = false;
  for (const chakra::Node& n : c.ranks[0].nodes)
    if (n.type == chakra::NodeType::kCommColl) uneven = uneven || n.comm_size != c.ranks[1].nodes[n.id].comm_size;
  EXPECT_TRUE(uneven) << "zipf gating should make ranks send different amounts";
  expect_round_trip(cfg, "moe");
}

}  // namespace
}  // namespace upswitch::testing
