// Chakra execution traces (systemc/chakra/, doc/trace.md "Chakra traces") against independent
// expectations:
// - write-then-read preserves every field of every node kind;
// - a file written here with protobuf's own API (not upswitch's writer), with attributes in other
//   integer encodings and attributes upswitch does not model, reads as written;
// - a hand-written 4-rank trace (compute gaps, an all-reduce, an all-to-all, dependencies)
//   replays in the expected order, and its total time is the sum of its compute and of the two
//   collectives measured alone as `upswitch coll` measures them, within 5%;
// - a send and its receive become one write that the receiver's later compute waits for;
// - malformed traces are one ConfigError naming the file and node: a cycle, a collective one
//   member never calls, a send without a receive, a collective upswitch does not run, a truncated
//   file;
// - a TP and an MoE workload written with `workload --chakra` and replayed take the time the
//   workload simulation measured, within 1%.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>

#include "chakra/chakra_trace.h"
#include "chakra/workload_chakra.h"
#include "coll_support.h"
#include "et_def.pb.h"
#include "top/coll_table.h"
#include "top/trace_replay.h"
#include "top/workload_run.h"

namespace upswitch::testing {
namespace {

namespace fs = std::filesystem;
namespace pb = ChakraProtoMsg;

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() / ("upswitch-chakra-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
  static inline int counter_ = 0;
};

// A file written with protobuf's API directly: the framing Chakra's readers expect.
void write_raw(const std::string& path, const std::vector<pb::Node>& nodes) {
  std::ofstream f(path, std::ios::binary);
  google::protobuf::io::OstreamOutputStream raw(&f);
  google::protobuf::io::CodedOutputStream out(&raw);
  pb::GlobalMetadata meta;
  meta.set_version("0.0.4");
  out.WriteVarint32(static_cast<uint32_t>(meta.ByteSizeLong()));
  meta.SerializeToCodedStream(&out);
  for (const pb::Node& n : nodes) {
    out.WriteVarint32(static_cast<uint32_t>(n.ByteSizeLong()));
    n.SerializeToCodedStream(&out);
  }
}

pb::Node raw_node(uint64_t id, pb::NodeType type, std::vector<uint64_t> deps) {
  pb::Node n;
  n.set_id(id);
  n.set_name("n" + std::to_string(id));
  n.set_type(type);
  for (uint64_t d : deps) n.add_ctrl_deps(d);
  return n;
}
void raw_attr_u64(pb::Node& n, const char* name, uint64_t v) {
  pb::AttributeProto* a = n.add_attr();
  a->set_name(name);
  a->set_uint64_val(v);
}
void raw_attr_i64(pb::Node& n, const char* name, int64_t v) {
  pb::AttributeProto* a = n.add_attr();
  a->set_name(name);
  a->set_int64_val(v);
}
pb::Node raw_comp(uint64_t id, uint64_t micros, std::vector<uint64_t> deps) {
  pb::Node n = raw_node(id, pb::COMP_NODE, std::move(deps));
  n.set_duration_micros(micros);
  raw_attr_u64(n, "num_ops", 123456);  // not modelled: skipped
  return n;
}
pb::Node raw_coll(uint64_t id, pb::CollectiveCommType t, uint64_t bytes, std::vector<uint64_t> deps) {
  pb::Node n = raw_node(id, pb::COMM_COLL_NODE, std::move(deps));
  raw_attr_i64(n, "comm_type", t);
  raw_attr_u64(n, "comm_size", bytes);  // uint64 here, int64 from upswitch's writer
  pb::AttributeProto* dims = n.add_attr();
  dims->set_name("involved_dim");
  dims->mutable_bool_list()->add_values(true);
  return n;
}

config::Config eight_ports() { return make_txn_config({{"switch.ports", "8"}}); }

TEST(ChakraIo, WriteThenReadPreservesEveryNode) {
  TempDir dir;
  chakra::RankTrace t;
  t.version = "0.0.4";
  chakra::Node comp;
  comp.id = 7;
  comp.name = "matmul";
  comp.type = chakra::NodeType::kComp;
  comp.duration_micros = 12;
  comp.upswitch_duration_ns = 12345;
  comp.start_time_micros = 99;
  comp.is_cpu_op = true;
  chakra::Node coll;
  coll.id = 8;
  coll.name = "grads";
  coll.type = chakra::NodeType::kCommColl;
  coll.ctrl_deps = {7};
  coll.data_deps = {7, 3};
  coll.has_comm_type = coll.has_comm_size = true;
  coll.comm_type = chakra::CommType::kAllToAll;
  coll.comm_size = 1 << 20;
  coll.pg_name = "tp0";
  coll.upswitch_algo = "oneshot";
  coll.upswitch_dtype = "bf16";
  coll.upswitch_protocol = "ll128";
  coll.upswitch_channels = 4;
  coll.upswitch_pair_bytes = {0, 1 << 19, 1 << 19};
  chakra::Node send;
  send.id = 9;
  send.type = chakra::NodeType::kCommSend;
  send.has_comm_dst = send.has_comm_size = true;
  send.comm_dst = 2;
  send.comm_size = 4096;
  send.comm_tag = 17;
  chakra::Node recv = send;
  recv.id = 10;
  recv.type = chakra::NodeType::kCommRecv;
  recv.has_comm_dst = false;
  recv.comm_dst = 0;
  recv.has_comm_src = true;
  recv.comm_src = 1;
  chakra::Node meta;
  meta.id = 3;
  meta.type = chakra::NodeType::kMetadata;
  t.nodes = {meta, comp, coll, send, recv};
  chakra::write_rank_trace(dir / "t.0.et", t);
  const chakra::RankTrace back = chakra::read_rank_trace(dir / "t.0.et");
  EXPECT_EQ(back.version, "0.0.4");
  ASSERT_EQ(back.nodes.size(), t.nodes.size());
  for (size_t i = 0; i < t.nodes.size(); ++i) EXPECT_TRUE(back.nodes[i] == t.nodes[i]) << "node " << i;
}

TEST(ChakraIo, ReadsAFileWrittenWithProtobufDirectly) {
  TempDir dir;
  pb::Node send = raw_node(4, pb::COMM_SEND_NODE, {2});
  raw_attr_u64(send, "comm_dst", 3);
  raw_attr_u64(send, "comm_size", 65536);
  {
    pb::AttributeProto* a = send.add_attr();
    a->set_name("comm_tag");
    a->set_int32_val(5);
  }
  write_raw(dir / "x.0.et", {raw_comp(2, 7, {}), raw_coll(3, pb::ALL_GATHER, 8192, {2}), send});
  const chakra::RankTrace t = chakra::read_rank_trace(dir / "x.0.et");
  EXPECT_EQ(t.version, "0.0.4");
  ASSERT_EQ(t.nodes.size(), 3u);
  EXPECT_EQ(t.nodes[0].type, chakra::NodeType::kComp);
  EXPECT_EQ(t.nodes[0].duration_micros, 7u);
  EXPECT_EQ(t.nodes[1].comm_type, chakra::CommType::kAllGather);
  EXPECT_EQ(t.nodes[1].comm_size, 8192);
  EXPECT_EQ(t.nodes[1].ctrl_deps, std::vector<uint64_t>{2});
  EXPECT_EQ(t.nodes[2].comm_dst, 3);
  EXPECT_EQ(t.nodes[2].comm_tag, 5);
  EXPECT_EQ(t.nodes[2].comm_size, 65536);

  // Truncated: the last message loses its tail.
  const auto size = fs::file_size(dir / "x.0.et");
  fs::resize_file(dir / "x.0.et", size - 3);
  try {
    (void)chakra::read_rank_trace(dir / "x.0.et");
    FAIL() << "a truncated file was read";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("message 3: malformed or truncated Node"), std::string::npos) << e.what();
  }
}

// Per rank: compute 5 us -> all-reduce 1 MiB -> compute 3 us -> all-to-all 256 KiB -> compute 2 us.
void write_four_rank_trace(const std::string& prefix) {
  for (int r = 0; r < 4; ++r)
    write_raw(prefix + "." + std::to_string(r) + ".et",
              {raw_comp(1, 5, {}), raw_coll(2, pb::ALL_REDUCE, 1 << 20, {1}), raw_comp(3, 3, {2}),
               raw_coll(4, pb::ALL_TO_ALL, 256 << 10, {3}), raw_comp(5, 2, {4})});
}

// Issue 58 item 6: framing is never trusted, and a trace holds at most kMaxChakraNodes nodes.
std::string varint(uint64_t v) {
  std::string s;
  while (v >= 0x80) {
    s += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  return s + static_cast<char>(v);
}

std::string parse_error(const std::string& bytes, size_t max_nodes = chakra::kMaxChakraNodes) {
  try {
    (void)chakra::parse_rank_trace(bytes, "t.0.et", max_nodes);
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(ChakraIo, HostileFramingAndTooManyNodesAreOneErrorNamingTheMessage) {
  const std::string meta = varint(7) + std::string("\x0a\x05" "0.0.4");
  auto node = [](uint64_t id) {
    const std::string m = "\x08" + varint(id) + "\x18\x04";
    return varint(m.size()) + m;
  };
  const std::string good = meta + node(0) + node(1) + node(2);
  EXPECT_EQ(parse_error(good), "");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {good + varint(uint64_t{1} << 40) + std::string(1, '\0'),
       "chakra trace 't.0.et' message 4: malformed or truncated Node: its length prefix claims 1099511627776 B, only 1 B "
       "are left in the file"},
      {good + varint(~uint64_t{0}), "message 4: malformed or truncated Node: its length prefix claims 18446744073709551615 B"},
      {good + std::string(11, '\xff'), "message 4: truncated length prefix"},
      {good + varint(100) + "\x08", "message 4: malformed or truncated Node: its length prefix claims 100 B, only 1 B"},
  };
  for (const auto& [bytes, want] : cases) EXPECT_NE(parse_error(bytes).find(want), std::string::npos) << parse_error(bytes);
  EXPECT_NE(parse_error(good, 2).find("message 3: more than 2 nodes"), std::string::npos) << parse_error(good, 2);
  EXPECT_EQ(parse_error(good, 3), "");
}

TEST(ChakraReplay, FourRankTraceTakesItsComputePlusTheCollectiveTable) {
  TempDir dir;
  write_four_rank_trace(dir / "w");
  const config::Config cfg = eight_ports();
  const traffic::Trace t = chakra::to_trace(chakra::read_chakra(dir / "w", ""));
  // 4 ranks x 3 computes, then one collective per pair of matched nodes.
  ASSERT_EQ(t.ops.size(), 14u);
  const top::ReplayResult r = top::replay_trace(cfg, t);
  ASSERT_FALSE(r.interrupted);
  std::map<std::string, std::vector<top::ReplayRow>> by_op;
  for (const top::ReplayRow& row : r.rows) by_op[row.op].push_back(row);
  ASSERT_EQ(by_op["all_reduce"].size(), 1u);
  ASSERT_EQ(by_op["all_to_all"].size(), 1u);
  ASSERT_EQ(by_op["compute"].size(), 12u);
  const top::ReplayRow& ar = by_op["all_reduce"][0];
  const top::ReplayRow& a2a = by_op["all_to_all"][0];
  // Order: every rank's first compute ends before the all-reduce starts; the second compute runs
  // between the collectives, the last after the all-to-all.
  double end = 0;
  for (const top::ReplayRow& c : by_op["compute"]) {
    if (c.start < ar.start) {
      EXPECT_NEAR(c.time_us, 5.0, 1e-3);
      EXPECT_LT(c.end, ar.start);
    } else if (c.start < a2a.start) {
      EXPECT_NEAR(c.time_us, 3.0, 1e-3);
      EXPECT_GT(c.start, ar.end);
      EXPECT_LT(c.end, a2a.start);
    } else {
      EXPECT_NEAR(c.time_us, 2.0, 1e-3);
      EXPECT_GT(c.start, a2a.end);
    }
    end = std::max(end, c.end_us);
  }
  // The collectives alone, measured as the coll table measures them.
  const top::CollRow ar_alone = top::measure_coll_point(
      cfg, spec_of(coll::Collective::kAllReduce, coll::Algorithm::kRing, first_ranks(4), 1 << 20), false);
  const top::CollRow a2a_alone = top::measure_coll_point(
      cfg, spec_of(coll::Collective::kAllToAll, coll::Algorithm::kOneShot, first_ranks(4), 256 << 10), false);
  const double predicted = 5 + ar_alone.time_us + 3 + a2a_alone.time_us + 2;
  EXPECT_NEAR(end, predicted, 0.05 * predicted) << "all-reduce " << ar_alone.time_us << " us, all-to-all "
                                                 << a2a_alone.time_us << " us";
  EXPECT_NEAR(ar.time_us, ar_alone.time_us, 0.05 * ar_alone.time_us);
  EXPECT_NEAR(a2a.time_us, a2a_alone.time_us, 0.05 * a2a_alone.time_us);
}

TEST(ChakraReplay, SendAndReceiveBecomeOneWriteTheReceiverWaitsFor) {
  TempDir dir;
  pb::Node send = raw_node(1, pb::COMM_SEND_NODE, {});
  raw_attr_i64(send, "comm_dst", 1);
  raw_attr_i64(send, "comm_size", 65536);
  pb::Node recv = raw_node(1, pb::COMM_RECV_NODE, {});
  raw_attr_i64(recv, "comm_src", 0);
  raw_attr_i64(recv, "comm_size", 65536);
  write_raw(dir / "p.0.et", {send});
  write_raw(dir / "p.1.et", {recv, raw_comp(2, 4, {1})});
  const traffic::Trace t = chakra::to_trace(chakra::read_chakra(dir / "p", ""));
  ASSERT_EQ(t.ops.size(), 2u);
  EXPECT_EQ(t.ops[0].op, "write");
  EXPECT_EQ(t.ops[0].src, 0);
  EXPECT_EQ(t.ops[0].dst, 1);
  EXPECT_EQ(t.ops[0].bytes, 65536u);
  EXPECT_TRUE(t.ops[1].compute);
  EXPECT_EQ(t.ops[1].after, std::vector<size_t>{0});
  const top::ReplayResult r = top::replay_trace(eight_ports(), t);
  EXPECT_EQ(r.rows[1].start, r.rows[0].end + 1);
}

void expect_error(const std::string& prefix, const std::string& want) {
  try {
    (void)chakra::to_trace(chakra::read_chakra(prefix, ""));
    ADD_FAILURE() << "accepted; expected an error with: " << want;
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
  }
}

TEST(ChakraReplay, MalformedTracesAreOneErrorNamingTheNode) {
  TempDir dir;
  write_raw(dir / "cyc.0.et", {raw_comp(1, 1, {2}), raw_comp(2, 1, {1})});
  expect_error(dir / "cyc", "cyc.0.et' node 1 (id 1, COMP_NODE): its dependencies form a cycle");

  write_raw(dir / "dep.0.et", {raw_comp(1, 1, {9})});
  expect_error(dir / "dep", "depends on id 9, which is no node of this file");

  write_raw(dir / "miss.0.et", {raw_coll(1, pb::ALL_REDUCE, 4096, {}), raw_coll(2, pb::ALL_REDUCE, 4096, {1})});
  write_raw(dir / "miss.1.et", {raw_coll(1, pb::ALL_REDUCE, 4096, {})});
  expect_error(dir / "miss", "has no counterpart on rank 1");

  // A protocol or channel count NCCL has not: the attribute named, with what is allowed.
  pb::Node proto = raw_coll(1, pb::ALL_REDUCE, 4096, {});
  pb::AttributeProto* pa = proto.add_attr();
  pa->set_name("upswitch_protocol");
  pa->set_string_val("fast");
  write_raw(dir / "proto.0.et", {proto});
  write_raw(dir / "proto.1.et", {proto});
  expect_error(dir / "proto", "upswitch_protocol = 'fast': expected auto, simple, ll128 or ll");
  pb::Node chans = raw_coll(1, pb::ALL_REDUCE, 4096, {});
  raw_attr_i64(chans, "upswitch_channels", 65);
  write_raw(dir / "chans.0.et", {chans});
  expect_error(dir / "chans", "attribute 'upswitch_channels' = 65: expected 0 (auto) .. 64");

  write_raw(dir / "red.0.et", {raw_coll(1, pb::REDUCE, 4096, {})});
  expect_error(dir / "red", "comm_type REDUCE: not modelled");

  pb::Node send = raw_node(1, pb::COMM_SEND_NODE, {});
  raw_attr_i64(send, "comm_dst", 1);
  raw_attr_i64(send, "comm_size", 64);
  write_raw(dir / "lone.0.et", {send});
  write_raw(dir / "lone.1.et", {raw_comp(1, 1, {})});
  expect_error(dir / "lone", "has no matching receive there");

  // Rank 0 calls A then B, rank 1 B then A (two groups of the same ranks): each waits for the other.
  std::ofstream(dir / "dl.groups.json") << R"({"a": [0, 1], "b": [0, 1]})";
  const auto in_group = [](pb::Node n, const char* g) {
    pb::AttributeProto* a = n.add_attr();
    a->set_name("pg_name");
    a->set_string_val(g);
    return n;
  };
  write_raw(dir / "dl.0.et", {in_group(raw_coll(1, pb::ALL_REDUCE, 4096, {}), "a"),
                              in_group(raw_coll(2, pb::ALL_REDUCE, 4096, {1}), "b")});
  write_raw(dir / "dl.1.et", {in_group(raw_coll(1, pb::ALL_REDUCE, 4096, {}), "b"),
                              in_group(raw_coll(2, pb::ALL_REDUCE, 4096, {1}), "a")});
  expect_error(dir / "dl", "for itself");
  expect_error(dir / "nofile", "no file");
}

}  // namespace
}  // namespace upswitch::testing
