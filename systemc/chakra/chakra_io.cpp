#include "chakra/chakra_io.h"

#include <fstream>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/logging.h>

#include "et_def.pb.h"
#include "config/config.h"
#include "config/input_file.h"

namespace upswitch::chakra {
namespace {

namespace pb = ChakraProtoMsg;
using google::protobuf::io::ArrayInputStream;
using google::protobuf::io::CodedInputStream;
using google::protobuf::io::CodedOutputStream;
using google::protobuf::io::OstreamOutputStream;

const char* const kNodeTypes[] = {"INVALID_NODE",  "METADATA_NODE",  "MEM_LOAD_NODE", "MEM_STORE_NODE",
                                  "COMP_NODE",     "COMM_SEND_NODE", "COMM_RECV_NODE", "COMM_COLL_NODE",
                                  "STORAGE_NODE",  "BATCH_NODE",     "CHECKPOINT_NODE"};
const char* const kCommTypes[] = {"ALL_REDUCE", "REDUCE",         "ALL_GATHER",           "GATHER",
                                  "SCATTER",    "BROADCAST",      "ALL_TO_ALL",           "REDUCE_SCATTER",
                                  "REDUCE_SCATTER_BLOCK", "BARRIER"};

class FileError {
 public:
  explicit FileError(const std::string& path) : path_(path) {}
  [[noreturn]] void at(size_t index, const std::string& what) const {
    throw config::ConfigError("chakra trace '" + path_ + "' message " + std::to_string(index) + ": " + what);
  }
  [[noreturn]] void node(size_t index, uint64_t id, const std::string& what) const {
    throw config::ConfigError("chakra trace '" + path_ + "' node " + std::to_string(index) + " (id " + std::to_string(id) +
                              "): " + what);
  }

 private:
  const std::string& path_;
};

bool integer(const pb::AttributeProto& a, int64_t& v) {
  switch (a.value_case()) {
    case pb::AttributeProto::kInt32Val: v = a.int32_val(); return true;
    case pb::AttributeProto::kInt64Val: v = a.int64_val(); return true;
    case pb::AttributeProto::kUint32Val: v = a.uint32_val(); return true;
    case pb::AttributeProto::kUint64Val:
      if (a.uint64_val() > static_cast<uint64_t>(INT64_MAX)) return false;
      v = static_cast<int64_t>(a.uint64_val());
      return true;
    case pb::AttributeProto::kSint32Val: v = a.sint32_val(); return true;
    case pb::AttributeProto::kSint64Val: v = a.sint64_val(); return true;
    default: return false;
  }
}

void read_attrs(const pb::Node& m, Node& n, const FileError& err, size_t index) {
  for (const pb::AttributeProto& a : m.attr()) {
    const std::string& k = a.name();
    const auto want_int = [&](bool& has, int64_t& v) {
      if (!integer(a, v)) err.node(index, n.id, "attribute '" + k + "': expected an integer value (int32/int64/uint32/uint64)");
      has = true;
    };
    const auto want_text = [&](std::string& v) {
      if (a.value_case() != pb::AttributeProto::kStringVal) err.node(index, n.id, "attribute '" + k + "': expected a string_val");
      v = a.string_val();
    };
    bool ignored_flag = false;
    if (k == "comm_type") {
      int64_t v = 0;
      want_int(n.has_comm_type, v);
      if (v < 0 || v > static_cast<int64_t>(CommType::kBarrier))
        err.node(index, n.id, "attribute 'comm_type' = " + std::to_string(v) + ": expected a CollectiveCommType, 0 .. 9");
      n.comm_type = static_cast<CommType>(v);
    } else if (k == "comm_size") {
      want_int(n.has_comm_size, n.comm_size);
    } else if (k == "comm_src") {
      want_int(n.has_comm_src, n.comm_src);
    } else if (k == "comm_dst") {
      want_int(n.has_comm_dst, n.comm_dst);
    } else if (k == "comm_tag") {
      want_int(ignored_flag, n.comm_tag);
    } else if (k == "pg_name") {
      want_text(n.pg_name);
    } else if (k == "is_cpu_op") {
      if (a.value_case() != pb::AttributeProto::kBoolVal) err.node(index, n.id, "attribute 'is_cpu_op': expected a bool_val");
      n.is_cpu_op = a.bool_val();
    } else if (k == "upswitch_algo") {
      want_text(n.upswitch_algo);
    } else if (k == "upswitch_dtype") {
      want_text(n.upswitch_dtype);
    } else if (k == "upswitch_protocol") {
      want_text(n.upswitch_protocol);
    } else if (k == "upswitch_channels") {
      want_int(ignored_flag, n.upswitch_channels);
      if (n.upswitch_channels < 0 || n.upswitch_channels > 64)
        err.node(index, n.id, "attribute 'upswitch_channels' = " + std::to_string(n.upswitch_channels) + ": expected 0 (auto) .. 64");
    } else if (k == "upswitch_duration_ns") {
      want_int(ignored_flag, n.upswitch_duration_ns);
      if (n.upswitch_duration_ns < 0)
        err.node(index, n.id, "attribute 'upswitch_duration_ns' = " + std::to_string(n.upswitch_duration_ns) + ": expected >= 0");
    } else if (k == "upswitch_pair_bytes") {
      if (a.value_case() != pb::AttributeProto::kInt64List)
        err.node(index, n.id, "attribute 'upswitch_pair_bytes': expected an int64_list");
      n.upswitch_pair_bytes.assign(a.int64_list().values().begin(), a.int64_list().values().end());
    }
    // Any other attribute (num_ops, tensor_size, involved_dim, ...) is not modelled and is skipped.
  }
}

void add_int(pb::Node& m, const char* name, int64_t v) {
  pb::AttributeProto* a = m.add_attr();
  a->set_name(name);
  a->set_int64_val(v);
}
void add_text(pb::Node& m, const char* name, const std::string& v) {
  pb::AttributeProto* a = m.add_attr();
  a->set_name(name);
  a->set_string_val(v);
}

pb::Node to_message(const Node& n) {
  pb::Node m;
  m.set_id(n.id);
  m.set_name(n.name);
  m.set_type(static_cast<pb::NodeType>(n.type));
  for (uint64_t d : n.ctrl_deps) m.add_ctrl_deps(d);
  for (uint64_t d : n.data_deps) m.add_data_deps(d);
  m.set_start_time_micros(n.start_time_micros);
  m.set_duration_micros(n.duration_micros);
  pb::AttributeProto* cpu = m.add_attr();
  cpu->set_name("is_cpu_op");
  cpu->set_bool_val(n.is_cpu_op);
  if (n.has_comm_type) add_int(m, "comm_type", static_cast<int64_t>(n.comm_type));
  if (n.has_comm_size) add_int(m, "comm_size", n.comm_size);
  if (n.has_comm_src) add_int(m, "comm_src", n.comm_src);
  if (n.has_comm_dst) add_int(m, "comm_dst", n.comm_dst);
  if (n.comm_tag != 0 || n.type == NodeType::kCommSend || n.type == NodeType::kCommRecv) add_int(m, "comm_tag", n.comm_tag);
  if (!n.pg_name.empty()) add_text(m, "pg_name", n.pg_name);
  if (!n.upswitch_algo.empty()) add_text(m, "upswitch_algo", n.upswitch_algo);
  if (!n.upswitch_dtype.empty()) add_text(m, "upswitch_dtype", n.upswitch_dtype);
  if (!n.upswitch_protocol.empty()) add_text(m, "upswitch_protocol", n.upswitch_protocol);
  if (n.upswitch_channels > 0) add_int(m, "upswitch_channels", n.upswitch_channels);
  if (n.upswitch_duration_ns >= 0) add_int(m, "upswitch_duration_ns", n.upswitch_duration_ns);
  if (!n.upswitch_pair_bytes.empty()) {
    pb::AttributeProto* a = m.add_attr();
    a->set_name("upswitch_pair_bytes");
    for (int64_t b : n.upswitch_pair_bytes) a->mutable_int64_list()->add_values(b);
  }
  return m;
}

// One length-delimited message at the stream's position; false at a clean end of file.
template <typename M>
bool read_message(CodedInputStream& in, size_t file_bytes, M& m, const FileError& err, size_t index) {
  if (static_cast<size_t>(in.CurrentPosition()) >= file_bytes) return false;
  // The length as the 64-bit varint it may be (a varint32 reader would drop its high bits), never
  // trusted: it must fit in what is left of the file.
  uint64_t size = 0;
  if (!in.ReadVarint64(&size))
    err.at(index, "truncated length prefix (expected a varint of at most 10 bytes, then the message)");
  const uint64_t left = file_bytes - static_cast<uint64_t>(in.CurrentPosition());
  if (size > left)
    err.at(index, "malformed or truncated " + std::string(M::descriptor()->name()) + ": its length prefix claims " +
                      std::to_string(size) + " B, only " + std::to_string(left) + " B are left in the file");
  const CodedInputStream::Limit limit = in.PushLimit(static_cast<int>(size));
  if (!m.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage())
    err.at(index, "malformed or truncated " + std::string(M::descriptor()->name()) + " of " + std::to_string(size) + " B");
  in.PopLimit(limit);
  return true;
}

}  // namespace

const char* node_type_name(NodeType t) {
  const auto i = static_cast<size_t>(t);
  return i < std::size(kNodeTypes) ? kNodeTypes[i] : "?";
}
const char* comm_type_name(CommType t) {
  const auto i = static_cast<size_t>(t);
  return i < std::size(kCommTypes) ? kCommTypes[i] : "?";
}

bool Node::operator==(const Node& o) const {
  return id == o.id && name == o.name && type == o.type && ctrl_deps == o.ctrl_deps && data_deps == o.data_deps &&
         start_time_micros == o.start_time_micros && duration_micros == o.duration_micros &&
         has_comm_type == o.has_comm_type && has_comm_size == o.has_comm_size && has_comm_src == o.has_comm_src &&
         has_comm_dst == o.has_comm_dst && comm_type == o.comm_type && comm_size == o.comm_size &&
         comm_src == o.comm_src && comm_dst == o.comm_dst && comm_tag == o.comm_tag && pg_name == o.pg_name &&
         is_cpu_op == o.is_cpu_op && upswitch_algo == o.upswitch_algo && upswitch_dtype == o.upswitch_dtype &&
         upswitch_protocol == o.upswitch_protocol && upswitch_channels == o.upswitch_channels &&
         upswitch_pair_bytes == o.upswitch_pair_bytes && upswitch_duration_ns == o.upswitch_duration_ns;
}

RankTrace read_rank_trace(const std::string& path, size_t max_nodes) {
  return parse_rank_trace(config::read_input_file("chakra trace", path, kMaxChakraFileBytes), path, max_nodes);
}

RankTrace parse_rank_trace(const std::string& bytes, const std::string& name, size_t max_nodes) {
  const FileError err(name);
  // protobuf logs its own line for some malformed messages (a string field that is not UTF-8);
  // the error below is the one line a bad file gets (cli_fuzz seed 58 finding).
  const google::protobuf::LogSilencer quiet;
  ArrayInputStream raw(bytes.data(), static_cast<int>(bytes.size()));
  CodedInputStream in(&raw);
  in.SetTotalBytesLimit(static_cast<int>(kMaxChakraFileBytes));
  RankTrace t;
  pb::GlobalMetadata meta;
  if (!read_message(in, bytes.size(), meta, err, 0)) err.at(0, "empty file (expected a GlobalMetadata message, then the nodes)");
  t.version = meta.version();
  for (size_t index = 1;; ++index) {
    pb::Node m;
    if (!read_message(in, bytes.size(), m, err, index)) break;
    if (t.nodes.size() >= max_nodes)
      err.at(index, "more than " + std::to_string(max_nodes) + " nodes (with the earlier ranks' files); expected at most " +
                        std::to_string(kMaxChakraNodes) + " nodes in a trace's files together (doc/trace.md)");
    Node n;
    n.id = m.id();
    n.name = m.name();
    if (!pb::NodeType_IsValid(m.type()))
      err.node(index, n.id, "type " + std::to_string(static_cast<int>(m.type())) + ": expected a NodeType, 0 .. 10");
    n.type = static_cast<NodeType>(m.type());
    n.ctrl_deps.assign(m.ctrl_deps().begin(), m.ctrl_deps().end());
    n.data_deps.assign(m.data_deps().begin(), m.data_deps().end());
    n.start_time_micros = m.start_time_micros();
    n.duration_micros = m.duration_micros();
    read_attrs(m, n, err, index);
    t.nodes.push_back(std::move(n));
  }
  return t;
}

void write_rank_trace(const std::string& path, const RankTrace& t) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) throw config::ConfigError("chakra trace '" + path + "': cannot be written");
  {
    OstreamOutputStream raw(&file);
    CodedOutputStream out(&raw);
    pb::GlobalMetadata meta;
    meta.set_version(t.version.empty() ? kChakraVersion : t.version);
    out.WriteVarint32(static_cast<uint32_t>(meta.ByteSizeLong()));
    meta.SerializeToCodedStream(&out);
    for (const Node& n : t.nodes) {
      const pb::Node m = to_message(n);
      out.WriteVarint32(static_cast<uint32_t>(m.ByteSizeLong()));
      m.SerializeToCodedStream(&out);
    }
  }
  file.flush();
  if (!file) throw config::ConfigError("chakra trace '" + path + "': write failed");
}

}  // namespace upswitch::chakra
