// Trace parsing (traffic/trace.h, doc/trace.md): every field and its default, comments and blank
// lines, and every malformed line as one ConfigError line naming the line number; then the checks
// a configuration adds before a replay (top/trace_replay.h).
#include <gtest/gtest.h>

#include <sstream>

#include "config/param_table.h"
#include "top/trace_replay.h"
#include "traffic/trace.h"

namespace upswitch::testing {
namespace {

using traffic::Trace;
using traffic::TraceOp;

Trace parse(const std::string& text) {
  std::istringstream in(text);
  return traffic::parse_trace(in, "t.jsonl");
}

// The error for `text`, or "" when it parses.
std::string parse_error(const std::string& text) {
  try {
    parse(text);
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(TraceParse, ReadsEveryFieldOfACollective) {
  const Trace t = parse(
      "{\"id\": \"a\", \"op\": \"write\", \"src\": 0, \"dst\": 1, \"bytes\": 64}\n"
      "{\"id\": \"ar\", \"op\": \"all_reduce\", \"algo\": \"switch\", \"channels\": 5, \"ranks\": [3, 1, 2], "
      "\"bytes\": 3072, \"type\": \"s32\", \"redop\": \"max\", \"at_us\": 1.5, \"after\": [\"a\"], \"delay_us\": 0.25}\n"
      "{\"id\": \"bc\", \"op\": \"broadcast\", \"protocol\": \"ll\", \"ranks\": [0, 1], \"bytes\": 8, \"root\": 1}\n"
      "{\"id\": \"x\", \"op\": \"all_to_all\", \"ranks\": [0, 1], \"pair_bytes\": [0, 8, 16, 4]}\n");
  ASSERT_EQ(t.ops.size(), 4u);
  const TraceOp& ar = t.ops[1];
  EXPECT_EQ(ar.line, 2);
  EXPECT_EQ(ar.id, "ar");
  EXPECT_TRUE(ar.collective);
  EXPECT_EQ(ar.spec.coll, coll::Collective::kAllReduce);
  EXPECT_EQ(ar.spec.algo, coll::Algorithm::kSwitch);
  EXPECT_TRUE(ar.algo_given);
  EXPECT_FALSE(ar.protocol_given);  // absent: auto
  EXPECT_EQ(ar.channels, 5);
  EXPECT_EQ(ar.spec.ranks, (std::vector<int>{3, 1, 2}));
  EXPECT_EQ(ar.spec.bytes, 3072u);
  EXPECT_EQ(ar.spec.type, tl::RedType::kS32);
  EXPECT_EQ(ar.spec.op, tl::RedOp::kMax);
  EXPECT_DOUBLE_EQ(ar.at_us, 1.5);
  EXPECT_DOUBLE_EQ(ar.delay_us, 0.25);
  EXPECT_EQ(ar.after, (std::vector<size_t>{0}));
  EXPECT_EQ(t.ops[2].spec.root, 1);
  EXPECT_FALSE(t.ops[2].algo_given);  // the default: auto
  EXPECT_TRUE(t.ops[2].protocol_given);
  EXPECT_EQ(t.ops[2].spec.protocol, coll::Protocol::kLl);
  EXPECT_EQ(t.ops[2].channels, 0);  // the default: auto
  const TraceOp& x = t.ops[3];
  EXPECT_EQ(x.spec.algo, coll::Algorithm::kOneShot);  // all_to_all's only algorithm
  EXPECT_EQ(x.spec.pair_bytes, (std::vector<uint64_t>{0, 8, 16, 4}));
  EXPECT_EQ(x.spec.bytes, 20u);  // the largest row sum
}

TEST(TraceParse, ReadsEveryFieldOfATransactionAndTheDefaults) {
  const Trace t = parse(
      "# a comment, then a blank line\n"
      "\n"
      "   \n"
      "{\"id\": \"w\", \"op\": \"write\", \"src\": 4, \"dst\": 7, \"bytes\": 1000, \"offset\": 4100, \"at_us\": 2}\n"
      "  # indented comment\n"
      "{\"id\": \"f\", \"op\": \"atomic_nr\", \"src\": 1, \"dst\": 2, \"bytes\": 4, \"atomic\": \"max_u\", "
      "\"after\": [\"w\", \"w\"]}\n"
      "{\"id\": \"r\", \"op\": \"read\", \"src\": 0, \"dst\": 1, \"bytes\": 64}\r\n"
      "{\"id\": \"a.b:c/d-e_9\", \"op\": \"all_gather\", \"ranks\": [0], \"bytes\": 4}\n");
  ASSERT_EQ(t.ops.size(), 4u);
  const TraceOp& w = t.ops[0];
  EXPECT_EQ(w.line, 4);
  EXPECT_FALSE(w.collective);
  EXPECT_EQ(w.opcode, tl::Opcode::kWrite);
  EXPECT_EQ(w.src, 4);
  EXPECT_EQ(w.dst, 7);
  EXPECT_EQ(w.bytes, 1000u);
  EXPECT_EQ(w.offset, 4100u);
  EXPECT_DOUBLE_EQ(w.at_us, 2.0);
  const TraceOp& f = t.ops[1];
  EXPECT_EQ(f.line, 6);
  EXPECT_EQ(f.opcode, tl::Opcode::kAtomicNR);
  EXPECT_EQ(f.atomic, tl::AtomicOp::kMaxU);
  EXPECT_EQ(f.after, (std::vector<size_t>{0}));  // named twice, counted once
  const TraceOp& r = t.ops[2];
  EXPECT_EQ(r.opcode, tl::Opcode::kRead);
  EXPECT_EQ(r.offset, 0u);
  EXPECT_DOUBLE_EQ(r.at_us, 0.0);
  EXPECT_DOUBLE_EQ(r.delay_us, 0.0);
  EXPECT_TRUE(r.after.empty());
  EXPECT_EQ(r.atomic, tl::AtomicOp::kAdd);
  const TraceOp& g = t.ops[3];
  EXPECT_EQ(g.spec.type, tl::RedType::kF32);
  EXPECT_EQ(g.spec.op, tl::RedOp::kSum);
  EXPECT_EQ(g.spec.algo, coll::Algorithm::kRing);
  // The documented data of writes and atomic operands.
  const std::vector<uint8_t> d = traffic::trace_data(w);
  ASSERT_EQ(d.size(), 1000u);
  for (size_t i = 0; i < d.size(); ++i) ASSERT_EQ(d[i], (i + 4) % 256) << i;
  EXPECT_TRUE(parse("").ops.empty());
}

struct Bad {
  const char* trace;      // lines; the bad one is the last
  const char* mentions;   // besides "line N"
};

TEST(TraceParse, EveryMalformedLineIsOneErrorLineNamingItsNumber) {
  const std::string ok = "{\"id\": \"a\", \"op\": \"read\", \"src\": 0, \"dst\": 1, \"bytes\": 64}\n# comment\n";
  const Bad cases[] = {
      {"{\"id\": \"b\", \"op\": \"read\",", "invalid JSON"},
      {"[1, 2]", "expected a JSON object"},
      {"{\"id\": \"b\", \"op\": \"read\", \"src\": 0, \"dst\": 1, \"bytes\": 1E073741824}", "a number is out of range"},  // fuzz_trace
      {"{\"id\": \"b\", \"op\": \"read\", \"src\": 0, \"dst\": 1, \"bytes\": 64, \"size\": 3}", "unknown field 'size'"},
      {"{\"id\": \"b\", \"op\": \"read\", \"src\": 0, \"dst\": 1, \"bytes\": 64, \"ranks\": [0]}", "'ranks' does not apply to read"},
      {"{\"id\": \"b\", \"op\": \"read\", \"src\": 0, \"dst\": 1, \"bytes\": 64, \"atomic\": \"add\"}", "'atomic' does not apply"},
      {"{\"id\": \"b\", \"op\": \"all_reduce\", \"ranks\": [0, 1], \"bytes\": 64, \"root\": 0}", "'root' does not apply"},
      {"{\"op\": \"read\", \"src\": 0, \"dst\": 1, \"bytes\": 64}", "missing field 'id'"},
      {"{\"id\": 7, \"op\": \"read\", \"src\": 0, \"dst\": 1, \"bytes\": 64}", "field 'id' = 7"},
      {"{\"id\": \"a b\", \"op\": \"read\", \"src\": 0, \"dst\": 1, \"bytes\": 64}", "field 'id'"},
      {"{\"id\": \"a\", \"op\": \"read\", \"src\": 0, \"dst\": 1, \"bytes\": 64}", "already the id of line 1"},
      {"{\"id\": \"b\", \"src\": 0, \"dst\": 1, \"bytes\": 64}", "missing field 'op'"},
      {"{\"id\": \"b\", \"op\": \"gather\", \"ranks\": [0]}", "field 'op' = \"gather\""},
      {"{\"id\": \"b\", \"op\": \"reduce\", \"src\": 0, \"dst\": 1, \"bytes\": 64}", "field 'op' = \"reduce\""},
      {"{\"id\": \"b\", \"op\": \"all_reduce\", \"algo\": \"tree\", \"ranks\": [0, 1], \"bytes\": 64}", "field 'algo' = \"tree\""},
      {"{\"id\": \"b\", \"op\": \"all_to_all\", \"algo\": \"ring\", \"ranks\": [0, 1], \"bytes\": 64}", "oneshot only"},
      {"{\"id\": \"b\", \"op\": \"all_reduce\", \"protocol\": \"ll64\", \"ranks\": [0, 1], \"bytes\": 64}",
       "field 'protocol' = \"ll64\": expected auto, simple, ll128 or ll"},
      {"{\"id\": \"b\", \"op\": \"all_reduce\", \"channels\": 65, \"ranks\": [0, 1], \"bytes\": 64}",
       "field 'channels' = 65: expected 0 (auto) .. 64"},
      {"{\"id\": \"b\", \"op\": \"all_reduce\", \"channels\": -1, \"ranks\": [0, 1], \"bytes\": 64}",
       "field 'channels' = -1"},
      {"{\"id\": \"b\", \"op\": \"read\", \"src\": 0, \"dst\": 1, \"bytes\": 6}", "field 'bytes' = 6"},
      {"{\"id\": \"b\", \"op\": \"read\", \"src\": 0, \"dst\": 1, \"bytes\": 0}", "field 'bytes' = 0"},
      {"{\"id\": \"b\", \"op\": \"read\", \"src\": 0, \"dst\": 1, \"bytes\": 64.0}", "field 'bytes' = 64.0"},
      {"{\"id\": \"b\", \"op\": \"all_reduce\", \"ranks\": [0, 1], \"bytes\": 66}", "field 'bytes' = 66"},
      {"{\"id\": \"b\", \"op\": \"all_reduce\", \"ranks\": [0, 1], \"bytes\": 4, \"type\": \"f64\"}", "f64 element"},
      {"{\"id\": \"b\", \"op\": \"all_reduce\", \"ranks\": [0, 1]}", "missing field 'bytes'"},
      {"{\"id\": \"b\", \"op\": \"compute\", \"duration_us\": 1}", "missing field 'rank'"},
      {"{\"id\": \"b\", \"op\": \"compute\", \"rank\": 0}", "missing field 'duration_us'"},
      {"{\"id\": \"b\", \"op\": \"compute\", \"rank\": 0, \"duration_us\": -1}", "field 'duration_us' = -1"},
      {"{\"id\": \"b\", \"op\": \"compute\", \"rank\": 0, \"duration_us\": 1, \"bytes\": 4}", "'bytes' does not apply to compute"},
      {"{\"id\": \"b\", \"op\": \"read\", \"src\": 0, \"dst\": 1, \"bytes\": 64, \"rank\": 0}", "'rank' does not apply to read"},
      {"{\"id\": \"b\", \"op\": \"atomic_r\", \"src\": 0, \"dst\": 1, \"bytes\": 16}", "expected 4 or 8"},
      {"{\"id\": \"b\", \"op\": \"atomic_r\", \"src\": 0, \"dst\": 1, \"bytes\": 8, \"atomic\": \"mul\"}", "field 'atomic' = \"mul\""},
      {"{\"id\": \"b\", \"op\": \"read\", \"src\": 0, \"dst\": 1, \"bytes\": 64, \"at_us\": -1}", "field 'at_us' = -1"},
      {"{\"id\": \"b\", \"op\": \"read\", \"src\": 0, \"dst\": 1, \"bytes\": 64, \"at_us\": \"1\"}", "field 'at_us' = \"1\""},
      {"{\"id\": \"b\", \"op\": \"read\", \"src\": 0, \"dst\": 1, \"bytes\": 64, \"delay_us\": -0.5}", "field 'delay_us' = -0.5"},
      {"{\"id\": \"b\", \"op\": \"read\", \"src\": 0, \"dst\": 1, \"bytes\": 64, \"at_us\": 1e300}", "field 'at_us'"},
      {"{\"id\": \"b\", \"op\": \"read\", \"src\": -1, \"dst\": 1, \"bytes\": 64}", "field 'src' = -1"},
      {"{\"id\": \"b\", \"op\": \"read\", \"dst\": 1, \"bytes\": 64}", "missing field 'src'"},
      {"{\"id\": \"b\", \"op\": \"read\", \"src\": 0, \"dst\": 1, \"bytes\": 64, \"offset\": -4}", "field 'offset' = -4"},
      {"{\"id\": \"b\", \"op\": \"read\", \"src\": 0, \"dst\": 1, \"bytes\": 64, \"after\": \"a\"}", "field 'after' = \"a\""},
      {"{\"id\": \"b\", \"op\": \"read\", \"src\": 0, \"dst\": 1, \"bytes\": 64, \"after\": [\"zz\"]}", "'zz' is not the id of any line"},
      {"{\"id\": \"b\", \"op\": \"read\", \"src\": 0, \"dst\": 1, \"bytes\": 64, \"after\": [\"b\"]}", "own id"},
      {"{\"id\": \"b\", \"op\": \"all_reduce\", \"ranks\": [], \"bytes\": 64}", "field 'ranks' = []"},
      {"{\"id\": \"b\", \"op\": \"all_reduce\", \"ranks\": [0, 0], \"bytes\": 64}", "listed twice"},
      {"{\"id\": \"b\", \"op\": \"all_reduce\", \"ranks\": [0, -1], \"bytes\": 64}", "field 'ranks'"},
      {"{\"id\": \"b\", \"op\": \"all_reduce\", \"ranks\": [0, 1], \"bytes\": 64, \"type\": \"f8\"}", "field 'type' = \"f8\""},
      {"{\"id\": \"b\", \"op\": \"all_reduce\", \"ranks\": [0, 1], \"bytes\": 64, \"redop\": \"xor\"}", "not defined on f32"},
      {"{\"id\": \"b\", \"op\": \"broadcast\", \"ranks\": [0, 1], \"bytes\": 64, \"root\": 2}", "field 'root' = 2"},
      {"{\"id\": \"b\", \"op\": \"all_to_all\", \"ranks\": [0, 1], \"pair_bytes\": [4, 4, 4]}", "field 'pair_bytes'"},
      {"{\"id\": \"b\", \"op\": \"all_to_all\", \"ranks\": [0, 1], \"pair_bytes\": [4, 4, 4, 4], \"bytes\": 4}",
       "largest row sum (8)"},
  };
  for (const Bad& b : cases) {
    const std::string text = ok + b.trace + "\n";
    const std::string err = parse_error(text);
    EXPECT_NE(err.find("trace 't.jsonl' line 3: "), std::string::npos) << b.trace << "\n" << err;
    EXPECT_NE(err.find(b.mentions), std::string::npos) << b.trace << "\n" << err;
    EXPECT_EQ(err.find('\n'), std::string::npos) << err;
  }
  // `after` naming a later line says where it is.
  const std::string later = parse_error(
      "{\"id\": \"a\", \"op\": \"read\", \"src\": 0, \"dst\": 1, \"bytes\": 64, \"after\": [\"b\"]}\n"
      "{\"id\": \"b\", \"op\": \"read\", \"src\": 0, \"dst\": 1, \"bytes\": 64}\n");
  EXPECT_NE(later.find("line 1: field 'after' = [\"b\"]: 'b' is defined later, on line 2"), std::string::npos) << later;
  // Control characters in echoed values stay escaped: one line.
  const std::string ctl = parse_error("{\"id\": \"a\\nb\", \"op\": \"read\"}\n");
  EXPECT_NE(ctl.find("line 1: field 'id'"), std::string::npos) << ctl;
  EXPECT_EQ(ctl.find('\n'), std::string::npos) << ctl;
}

TEST(TraceParse, AnUnreadableFileIsAConfigError) {
  try {
    traffic::read_trace("/nonexistent/t.jsonl");
    FAIL();
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("trace '/nonexistent/t.jsonl': no such file"), std::string::npos);
  }
}

config::Config txn_config(const std::vector<std::pair<std::string, std::string>>& sets) {
  config::Config c = config::default_config();
  config::set_param(c, "traffic.kind", "transactions");
  for (const auto& [k, v] : sets) config::set_param(c, k, v);
  config::validate(c);
  return c;
}

std::string check_error(const std::vector<std::pair<std::string, std::string>>& sets, const std::string& text) {
  const config::Config c = txn_config(sets);
  try {
    top::check_trace(c, parse(text));
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(TraceCheck, TheConfigurationBoundsAcceleratorsMemoryAndTheEngine) {
  const std::vector<std::pair<std::string, std::string>> eight = {{"switch.ports", "8"}};
  const std::string ar =
      "{\"id\": \"ar\", \"op\": \"all_reduce\", \"algo\": \"ring\", \"protocol\": \"simple\", \"channels\": 1, "
      "\"ranks\": [0, 1, 2, 3], \"bytes\": 65536}\n";
  EXPECT_EQ(check_error(eight, ar), "");
  const std::string ranks = check_error(eight, ar + "{\"id\": \"b\", \"op\": \"all_gather\", \"ranks\": [0, 9], \"bytes\": 64}\n");
  EXPECT_NE(ranks.find("line 2: field 'ranks': accelerator 9 is not on this switch (0 .. 7; switch.ports = 8)"),
            std::string::npos)
      << ranks;
  const std::string src = check_error(eight, "{\"id\": \"r\", \"op\": \"read\", \"src\": 8, \"dst\": 1, \"bytes\": 64}\n");
  EXPECT_NE(src.find("line 1: field 'src' = 8: accelerator 8 is not on this switch"), std::string::npos) << src;
  const std::string dst = check_error(eight, "{\"id\": \"r\", \"op\": \"read\", \"src\": 0, \"dst\": 12, \"bytes\": 64}\n");
  EXPECT_NE(dst.find("line 1: field 'dst' = 12"), std::string::npos) << dst;
  const std::string engine = check_error(
      {{"switch.ports", "8"}, {"reduce.enable", "false"}},
      "{\"id\": \"ar\", \"op\": \"all_reduce\", \"algo\": \"switch\", \"ranks\": [0, 1], \"bytes\": 64}\n");
  EXPECT_NE(engine.find("line 1: field 'algo' = \"switch\": needs the reduction engine (reduce.enable = true)"),
            std::string::npos)
      << engine;
  // Buffers: input, output, stage (ring reduction) and flags, 4 KiB-aligned: 3 x 64 KiB + 4 KiB.
  const traffic::Trace one = parse(ar);
  EXPECT_EQ(top::trace_collective_bytes(txn_config(eight), one), 3u * 65536 + 4096);
  const std::string memory = check_error({{"switch.ports", "8"}, {"accel.memory_bytes", "262144"}, {"txn.footprint_bytes", "4096"}},
                                         ar + "# two of them do not fit\n" + ar.substr(0, 10) + "2" + ar.substr(10));
  EXPECT_NE(memory.find("line 3: the collectives up to this line need 401408 B of buffers in each rank's memory; "
                        "accel.memory_bytes = 262144"),
            std::string::npos)
      << memory;
  // Transactions to a collective rank stay above the collectives' buffers; to other accelerators,
  // anywhere in the window.
  const std::string clash = check_error(eight, ar + "{\"id\": \"w\", \"op\": \"write\", \"src\": 5, \"dst\": 2, \"bytes\": 64, "
                                                    "\"offset\": 200000}\n");
  EXPECT_NE(clash.find("line 2: field 'offset' = 200000: accelerator 2 is a rank of the trace's collectives, whose "
                       "buffers take the first 200704 B of its memory: expected an offset >= 200704"),
            std::string::npos)
      << clash;
  EXPECT_EQ(check_error(eight, ar + "{\"id\": \"w\", \"op\": \"write\", \"src\": 5, \"dst\": 2, \"bytes\": 64, "
                                    "\"offset\": 200704}\n"),
            "");
  EXPECT_EQ(check_error(eight, ar + "{\"id\": \"w\", \"op\": \"write\", \"src\": 2, \"dst\": 5, \"bytes\": 64}\n"), "");
  const std::string window = check_error(
      {{"switch.ports", "8"}, {"accel.window_bytes", "1048576"}, {"accel.memory_bytes", "1048576"}},
      "{\"id\": \"w\", \"op\": \"write\", \"src\": 5, \"dst\": 2, \"bytes\": 64, \"offset\": 1048544}\n");
  EXPECT_NE(window.find("line 1: field 'offset' = 1048544: offset + bytes = 1048608 leaves the target's address window "
                        "(accel.window_bytes = 1048576)"),
            std::string::npos)
      << window;
}

}  // namespace
}  // namespace upswitch::testing
