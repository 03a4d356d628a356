// Trace replay (top/trace_replay.h, doc/trace.md) against independent expectations:
// - one replayed collective starts and ends on the same cycles as the same collective added to a
//   CollectiveRunner directly (same configuration), at cycle 0 and at a later at_us;
// - `after` + `delay_us`: an operation starts exactly delay cycles after its predecessor's
//   recorded end (the cycle after it without a delay), for every pairing of collectives and
//   transactions, and never before its at_us;
// - a single read takes the same cycles as the same read submitted directly;
// - a read after a write returns the documented data pattern, which is also in the target's memory;
// - a decode error is a result in the row, not a failure; too many concurrent in-switch
//   collectives for the multicast group table is a ConfigError naming the line.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "coll_support.h"
#include "coll/channels.h"
#include "top/coll_choice.h"
#include "top/trace_replay.h"
#include "traffic/trace.h"

namespace upswitch::testing {
namespace {

using coll::Algorithm;
using coll::Collective;

traffic::Trace parse(const std::string& text) {
  std::istringstream in(text);
  return traffic::parse_trace(in, "t.jsonl");
}

uint64_t cycles_of(const config::Config& c, double us) { return static_cast<uint64_t>(std::llround(us * c.clock_ghz * 1000)); }

config::Config eight_ports() { return make_txn_config({{"switch.ports", "8"}}); }

TEST(ReplayFidelity, OneCollectiveMatchesTheRunnerCycleForCycle) {
  const config::Config cfg = eight_ports();
  for (const char* algo : {"ring", "switch"}) {
    for (double at_us : {0.0, 1.25}) {
      const coll::CollectiveSpec s = spec_of(Collective::kAllReduce, algo[0] == 'r' ? Algorithm::kRing : Algorithm::kSwitch,
                                             first_ranks(8), 256 * 1024);
      top::TxnFabric direct(cfg, false);
      coll::CollectiveRunner runner(direct);
      const int id = runner.add(s, cycles_of(cfg, at_us));
      ASSERT_TRUE(runner.run());

      top::TxnFabric f(cfg, false);
      std::ostringstream line;
      line << "{\"id\": \"ar\", \"op\": \"all_reduce\", \"algo\": \"" << algo
           << "\", \"protocol\": \"simple\", \"channels\": 1, \"ranks\": [0, 1, 2, 3, 4, 5, 6, 7], \"bytes\": 262144, "
              "\"at_us\": "
           << at_us << "}\n";
      top::TraceReplayer replay(f, parse(line.str()));
      ASSERT_TRUE(replay.run());
      const coll::CollectiveRun& want = runner.get(id);
      ASSERT_EQ(replay.runs_of(0).size(), 1u);
      const coll::CollectiveRun& got = replay.runner().get(replay.runs_of(0).front());
      EXPECT_EQ(got.start, want.start) << algo << " at " << at_us;
      EXPECT_EQ(got.end, want.end) << algo << " at " << at_us;
      const top::ReplayRow row = replay.rows()[0];
      EXPECT_EQ(row.start, want.start);
      EXPECT_EQ(row.end, want.end);
      EXPECT_DOUBLE_EQ(row.time_us, static_cast<double>(want.end - want.start) / (cfg.clock_ghz * 1000));
      EXPECT_EQ(row.status, tl::Status::kOkay);
      EXPECT_TRUE(top::check_txn_drained(f).empty());
      std::printf("[ info ] all_reduce %s 8 ranks 256 KiB at %.2f us: cycles %llu .. %llu (replay and runner)\n", algo,
                  at_us, static_cast<unsigned long long>(got.start), static_cast<unsigned long long>(got.end));
    }
  }
}

TEST(ReplayFidelity, AfterPlusDelayStartsExactlyDelayCyclesAfterThePredecessorsEnd) {
  const config::Config cfg = eight_ports();
  // Transactions to ranks of the collectives go 1 GiB up, clear of their buffers.
  const traffic::Trace t = parse(
      "{\"id\": \"a\", \"op\": \"all_reduce\", \"ranks\": [0, 1, 2, 3], \"bytes\": 65536}\n"
      "{\"id\": \"b\", \"op\": \"all_gather\", \"ranks\": [0, 1, 2, 3], \"bytes\": 65536, \"after\": [\"a\"], "
      "\"delay_us\": 0.5}\n"
      "{\"id\": \"w\", \"op\": \"write\", \"src\": 4, \"dst\": 5, \"bytes\": 4096, \"offset\": 1073741824}\n"
      "{\"id\": \"c\", \"op\": \"broadcast\", \"algo\": \"switch\", \"ranks\": [4, 5, 6, 7], \"bytes\": 32768, "
      "\"after\": [\"w\"], \"delay_us\": 0.25}\n"
      "{\"id\": \"r\", \"op\": \"read\", \"src\": 6, \"dst\": 7, \"bytes\": 1024, \"offset\": 1073741824, "
      "\"after\": [\"c\"], \"delay_us\": 1}\n"
      "{\"id\": \"z\", \"op\": \"read\", \"src\": 0, \"dst\": 1, \"bytes\": 64, \"offset\": 1073741824, \"after\": [\"b\"]}\n"
      "{\"id\": \"late\", \"op\": \"write\", \"src\": 2, \"dst\": 3, \"bytes\": 64, \"offset\": 1073741824, "
      "\"after\": [\"w\"], \"at_us\": 40}\n"
      "{\"id\": \"both\", \"op\": \"all_reduce\", \"algo\": \"oneshot\", \"ranks\": [0, 4], \"bytes\": 4096, "
      "\"after\": [\"r\", \"z\"], \"delay_us\": 0.125}\n");
  top::TxnFabric f(cfg, false);
  top::TraceReplayer replay(f, t);
  ASSERT_TRUE(replay.run());
  const std::vector<top::ReplayRow> rows = replay.rows();
  ASSERT_EQ(rows.size(), 8u);
  const auto& a = rows[0];
  const auto& b = rows[1];
  const auto& w = rows[2];
  const auto& c = rows[3];
  const auto& r = rows[4];
  const auto& z = rows[5];
  const auto& late = rows[6];
  const auto& both = rows[7];
  for (const auto& x : rows) {
    EXPECT_EQ(x.status, tl::Status::kOkay) << x.id;
    EXPECT_GT(x.end, x.start) << x.id;
  }
  // The rows' ends are the runner's and the transfers' own records.
  EXPECT_EQ(a.end, replay.runner().get(replay.runs_of(0).back()).end);
  EXPECT_EQ(b.start, replay.runner().get(replay.runs_of(1).front()).start);
  EXPECT_EQ(a.start, 0u);
  EXPECT_EQ(w.start, 0u);
  EXPECT_EQ(b.start, a.end + cycles_of(cfg, 0.5));   // collective -> collective
  EXPECT_EQ(c.start, w.end + cycles_of(cfg, 0.25));  // transaction -> collective
  EXPECT_EQ(r.start, c.end + cycles_of(cfg, 1.0));   // collective -> transaction
  EXPECT_EQ(z.start, b.end + 1);                     // no delay: the cycle after
  EXPECT_EQ(late.start, cycles_of(cfg, 40.0));       // at_us is later than w's end
  EXPECT_GT(late.start, w.end + 1);
  EXPECT_EQ(both.start, std::max(r.end, z.end) + cycles_of(cfg, 0.125));  // the last of two
  EXPECT_EQ(cycles_of(cfg, 0.5), 800u);  // 1.6 GHz
  std::printf("[ info ] a %llu..%llu b %llu..%llu w %llu..%llu c %llu..%llu r %llu..%llu\n",
              static_cast<unsigned long long>(a.start), static_cast<unsigned long long>(a.end),
              static_cast<unsigned long long>(b.start), static_cast<unsigned long long>(b.end),
              static_cast<unsigned long long>(w.start), static_cast<unsigned long long>(w.end),
              static_cast<unsigned long long>(c.start), static_cast<unsigned long long>(c.end),
              static_cast<unsigned long long>(r.start), static_cast<unsigned long long>(r.end));
  EXPECT_TRUE(top::check_txn_drained(f).empty());
}

struct DoneAt : endpoint::TransferClient {
  uint64_t cycle = 0;
  tl::Status status = tl::Status::kOkay;
  void transfer_done(uint64_t, tl::Status s, uint64_t c) override {
    cycle = c;
    status = s;
  }
};

TEST(ReplayFidelity, ASingleReadTakesTheCyclesOfTheSameReadSubmittedDirectly) {
  const config::Config cfg = eight_ports();
  for (uint64_t bytes : {64u, 4096u}) {
    top::TxnFabric direct(cfg, false);
    DoneAt done;
    endpoint::TransferRequest q;
    q.op = tl::Opcode::kRead;
    q.addr = direct.endpoints().address_map().window_base(5) + 512;
    q.bytes = bytes;
    q.client = &done;
    direct.endpoints().submit(2, q, 0);
    ASSERT_TRUE(direct.run_until_idle(1'000'000));
    ASSERT_EQ(done.status, tl::Status::kOkay);

    top::TxnFabric f(cfg, false);
    top::TraceReplayer replay(
        f, parse("{\"id\": \"r\", \"op\": \"read\", \"src\": 2, \"dst\": 5, \"offset\": 512, \"bytes\": " +
                 std::to_string(bytes) + "}\n"));
    ASSERT_TRUE(replay.run());
    const top::ReplayRow row = replay.rows()[0];
    EXPECT_EQ(row.start, 0u);
    EXPECT_EQ(row.end, done.cycle) << bytes;
    EXPECT_EQ(f.now(), direct.now());
    std::printf("[ info ] %llu B read: %llu cycles (replay and direct)\n", static_cast<unsigned long long>(bytes),
                static_cast<unsigned long long>(row.end));
  }
}

TEST(ReplayFidelity, AReadAfterAWriteReturnsTheWrittenPattern) {
  const config::Config cfg = eight_ports();
  // 1000 B from offset 100: requests split at 256 B boundaries, a short first and last one.
  const traffic::Trace t = parse(
      "# the write is on line 2: byte i is (i + 2) & 0xff\n"
      "{\"id\": \"w\", \"op\": \"write\", \"src\": 0, \"dst\": 3, \"bytes\": 1000, \"offset\": 100}\n"
      "{\"id\": \"r\", \"op\": \"read\", \"src\": 6, \"dst\": 3, \"bytes\": 1000, \"offset\": 100, \"after\": [\"w\"]}\n"
      "{\"id\": \"f\", \"op\": \"atomic_r\", \"src\": 1, \"dst\": 3, \"bytes\": 8, \"offset\": 104, \"after\": [\"r\"]}\n");
  top::TxnFabric f(cfg, false);
  top::TraceReplayer replay(f, t, true);
  ASSERT_TRUE(replay.run());
  std::vector<uint8_t> want(1000);
  for (size_t i = 0; i < want.size(); ++i) want[i] = static_cast<uint8_t>((i + 2) & 0xff);
  EXPECT_EQ(replay.read_data(1), want);
  // The fetch-add returned the old 8 B (bytes 4..11 of the write) and added its operand, the
  // pattern of line 4: bytes 4, 5, ..., 11.
  const std::vector<uint8_t> old(want.begin() + 4, want.begin() + 12);
  EXPECT_EQ(replay.read_data(2), old);
  uint64_t before = 0, operand = 0;
  for (int b = 7; b >= 0; --b) {
    before = (before << 8) | old[static_cast<size_t>(b)];
    operand = (operand << 8) | static_cast<uint64_t>(b + 4);
  }
  std::vector<uint8_t> mem(1000);
  f.endpoints().memory(3).read(100, mem.data(), mem.size());
  const uint64_t sum = before + operand;
  for (int b = 0; b < 8; ++b) want[static_cast<size_t>(4 + b)] = static_cast<uint8_t>(sum >> (8 * b));
  EXPECT_EQ(mem, want);
  for (const auto& row : replay.rows()) EXPECT_EQ(row.status, tl::Status::kOkay) << row.id;
}

TEST(ReplayFidelity, ADecodeErrorIsReportedInItsRowAndTheReplayGoesOn) {
  const config::Config cfg = make_txn_config({{"switch.ports", "8"}, {"accel.memory_bytes", "1048576"}});
  const traffic::Trace t = parse(
      "{\"id\": \"beyond\", \"op\": \"read\", \"src\": 0, \"dst\": 1, \"bytes\": 512, \"offset\": 1048320}\n"
      "{\"id\": \"next\", \"op\": \"write\", \"src\": 0, \"dst\": 1, \"bytes\": 64, \"after\": [\"beyond\"]}\n");
  const top::ReplayResult r = top::replay_trace(cfg, t);
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.rows[0].status, tl::Status::kDecodeError);  // its second request is beyond the memory
  EXPECT_EQ(r.rows[1].status, tl::Status::kOkay);
  EXPECT_EQ(r.rows[1].start, r.rows[0].end + 1);
}

TEST(ReplayFidelity, MoreConcurrentSwitchCollectivesThanGroupsIsAConfigError) {
  const config::Config cfg = make_txn_config({{"switch.ports", "8"}, {"reduce.groups", "1"}});
  const std::string a = "{\"id\": \"a\", \"op\": \"all_reduce\", \"algo\": \"switch\", \"ranks\": [0, 1], \"bytes\": 65536}\n";
  const std::string b = "{\"id\": \"b\", \"op\": \"all_reduce\", \"algo\": \"switch\", \"ranks\": [2, 3], \"bytes\": 65536";
  try {
    top::replay_trace(cfg, parse(a + b + "}\n"));
    FAIL() << "two switch collectives ran at once with one multicast group";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("line 2: starts at cycle 0 on 1 switch-algorithm channels while 1 run, which leaves 0 "
                                             "of the multicast groups (reduce.groups = 1)"),
              std::string::npos)
        << e.what();
  }
  // Ordered, they share the group.
  const top::ReplayResult r = top::replay_trace(cfg, parse(a + b + ", \"after\": [\"a\"]}\n"));
  EXPECT_EQ(r.rows[1].start, r.rows[0].end + 1);
}

// A collective line leaves what it does not name to the replay, as NCCL does without NCCL_ALGO and
// NCCL_PROTO: absent, the row runs what top::choose_collective picks; named channels run as that
// many runs over coll::channel_shares, cycle for cycle the same as the runner given those shares.
TEST(ReplayChoice, AutoRunsTheChoiceAndChannelsRunAsTheirShares) {
  const config::Config cfg = make_preset_txn_config("dgx-h100");
  const coll::CollectiveSpec s = spec_of(Collective::kAllReduce, Algorithm::kRing, first_ranks(8), 4 << 20);
  const top::CollChoice want = top::choose_collective(cfg, s);
  {
    top::TxnFabric f(cfg, false);
    top::TraceReplayer replay(
        f, parse("{\"id\": \"ar\", \"op\": \"all_reduce\", \"ranks\": [0, 1, 2, 3, 4, 5, 6, 7], \"bytes\": 4194304}\n"));
    ASSERT_TRUE(replay.run());
    const top::ReplayRow row = replay.rows()[0];
    EXPECT_EQ(row.algorithm, coll::algorithm_name(want.algo));
    EXPECT_EQ(row.protocol, coll::protocol_name(want.protocol));
    EXPECT_EQ(row.channels, want.channels);
    EXPECT_EQ(replay.runs_of(0).size(), static_cast<size_t>(want.channels));
    std::printf("[ info ] dgx-h100 all_reduce 8 ranks 4 MiB, auto: %s in %.2f us\n", top::choice_name(want).c_str(),
                row.time_us);
  }
  coll::CollectiveSpec ll128 = s;
  ll128.protocol = coll::Protocol::kLl128;
  top::TxnFabric direct(cfg, false);
  coll::CollectiveRunner runner(direct);
  uint64_t end = 0;
  for (const coll::CollectiveSpec& share : coll::channel_shares(ll128, 4)) runner.add(share, 0);
  ASSERT_TRUE(runner.run());
  for (size_t k = 0; k < runner.size(); ++k) end = std::max(end, runner.get(static_cast<int>(k)).end);
  top::TxnFabric f(cfg, false);
  top::TraceReplayer replay(f, parse("{\"id\": \"ar\", \"op\": \"all_reduce\", \"algo\": \"ring\", \"protocol\": "
                                     "\"ll128\", \"channels\": 4, \"ranks\": [0, 1, 2, 3, 4, 5, 6, 7], \"bytes\": 4194304}\n"));
  ASSERT_TRUE(replay.run());
  const top::ReplayRow row = replay.rows()[0];
  EXPECT_EQ(row.algorithm, "ring");
  EXPECT_EQ(row.protocol, "ll128");
  EXPECT_EQ(row.channels, 4);
  EXPECT_EQ(row.start, 0u);
  EXPECT_EQ(row.end, end);
}

// Auto channels of an in-switch collective take the multicast groups left free; channels a line
// names must all find one.
TEST(ReplayChoice, InSwitchAutoChannelsRunOnTheGroupsLeftFree) {
  const config::Config cfg = make_txn_config({{"switch.ports", "8"}, {"reduce.groups", "4"}});
  const std::string a = "{\"id\": \"a\", \"op\": \"all_reduce\", \"algo\": \"switch\", \"channels\": 3, "
                        "\"ranks\": [0, 1, 2, 3], \"bytes\": 262144}\n";
  const top::ReplayResult r = top::replay_trace(
      cfg, parse(a + "{\"id\": \"b\", \"op\": \"all_reduce\", \"algo\": \"switch\", \"ranks\": [4, 5, 6, 7], "
                     "\"bytes\": 262144}\n"));
  EXPECT_EQ(r.rows[0].channels, 3);
  EXPECT_EQ(r.rows[1].channels, 1);
  EXPECT_EQ(r.rows[1].start, 0u) << "b runs beside a";
  try {
    top::replay_trace(cfg, parse(a + a.substr(0, 9) + "2" + a.substr(9)));
    FAIL() << "six channels ran on four multicast groups";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("line 2: starts at cycle 0 on 3 switch-algorithm channels while 3 run, which "
                                         "leaves 1 of the multicast groups"),
              std::string::npos)
        << e.what();
  }
}

// Compute: exactly its duration after it began; one at a time per accelerator, in the order the
// operations became ready; accelerators compute at once; a transaction after it starts the cycle after.
TEST(ReplayFidelity, ComputeTakesItsDurationOneAtATimePerAccelerator) {
  const config::Config cfg = eight_ports();
  const top::ReplayResult r = top::replay_trace(
      cfg, parse("{\"id\": \"a\", \"op\": \"compute\", \"rank\": 3, \"duration_us\": 2}\n"
                 "{\"id\": \"b\", \"op\": \"compute\", \"rank\": 3, \"duration_us\": 1, \"at_us\": 0.5}\n"
                 "{\"id\": \"c\", \"op\": \"compute\", \"rank\": 4, \"duration_us\": 1, \"at_us\": 0.5}\n"
                 "{\"id\": \"w\", \"op\": \"write\", \"src\": 3, \"dst\": 4, \"bytes\": 256, \"after\": [\"b\"]}\n"));
  const uint64_t one = cycles_of(cfg, 1.0), two = cycles_of(cfg, 2.0), half = cycles_of(cfg, 0.5);
  EXPECT_EQ(r.rows[0].start, 0u);
  EXPECT_EQ(r.rows[0].end, two);
  EXPECT_EQ(r.rows[1].start, two) << "b waits for a on accelerator 3";
  EXPECT_EQ(r.rows[1].end, two + one);
  EXPECT_EQ(r.rows[2].start, half) << "accelerator 4 is free";
  EXPECT_EQ(r.rows[2].end, half + one);
  EXPECT_EQ(r.rows[3].start, two + one + 1);
  EXPECT_EQ(r.rows[1].bytes, 0u);
}

TEST(ReplayFidelity, TheSameTraceGivesTheSameRows) {
  const config::Config cfg = eight_ports();
  std::ostringstream text;
  for (int i = 0; i < 24; ++i)
    text << "{\"id\": \"w" << i << "\", \"op\": \"write\", \"src\": " << i % 8 << ", \"dst\": " << 4 + (i * 3 + 1) % 4
         << ", \"bytes\": " << 256 * (1 + i % 5) << ", \"at_us\": " << 0.05 * i << "}\n";
  text << "{\"id\": \"ar\", \"op\": \"all_reduce\", \"algo\": \"switch\", \"ranks\": [0, 1, 2, 3], \"bytes\": 16384, "
          "\"at_us\": 0.2}\n";
  const top::ReplayResult x = top::replay_trace(cfg, parse(text.str()));
  const top::ReplayResult y = top::replay_trace(cfg, parse(text.str()));
  ASSERT_EQ(x.rows.size(), y.rows.size());
  for (size_t i = 0; i < x.rows.size(); ++i) {
    EXPECT_EQ(x.rows[i].start, y.rows[i].start);
    EXPECT_EQ(x.rows[i].end, y.rows[i].end);
  }
  EXPECT_EQ(x.cycles, y.cycles);
}

}  // namespace
}  // namespace upswitch::testing
