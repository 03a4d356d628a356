// Chakra execution-trace files (doc/trace.md, "Chakra traces"): one file per rank, a
// GlobalMetadata message then Node messages, each preceded by its length as a protobuf varint (the
// framing of Chakra's and ASTRA-sim's readers). Plain structures hold what upswitch models, so that
// nothing above this file needs protobuf; the schema is systemc/chakra/et_def.proto.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace upswitch::chakra {

// Chakra's NodeType and CollectiveCommType values.
enum class NodeType : int {
  kInvalid = 0, kMetadata = 1, kMemLoad = 2, kMemStore = 3, kComp = 4, kCommSend = 5, kCommRecv = 6,
  kCommColl = 7, kStorage = 8, kBatch = 9, kCheckpoint = 10
};
enum class CommType : int {
  kAllReduce = 0, kReduce = 1, kAllGather = 2, kGather = 3, kScatter = 4, kBroadcast = 5, kAllToAll = 6,
  kReduceScatter = 7, kReduceScatterBlock = 8, kBarrier = 9
};
const char* node_type_name(NodeType t);
const char* comm_type_name(CommType t);

// One node with the attributes upswitch reads; `has_*` tells whether the file gave the attribute.
// The upswitch_* attributes are upswitch's own (written by `workload --chakra`, ignored by
// ASTRA-sim): the algorithm, the element type, for an all-to-all the bytes to each member of the
// group in group order, and a compute node's duration in nanoseconds.
struct Node {
  uint64_t id = 0;
  std::string name;
  NodeType type = NodeType::kInvalid;
  std::vector<uint64_t> ctrl_deps, data_deps;
  uint64_t start_time_micros = 0, duration_micros = 0;
  bool has_comm_type = false, has_comm_size = false, has_comm_src = false, has_comm_dst = false;
  CommType comm_type = CommType::kAllReduce;
  int64_t comm_size = 0;
  int64_t comm_src = 0, comm_dst = 0, comm_tag = 0;
  std::string pg_name;
  bool is_cpu_op = false;
  std::string upswitch_algo, upswitch_dtype;
  // What NCCL_PROTO and the channel count would fix: "" / 0 when absent (chosen at replay).
  std::string upswitch_protocol;
  int64_t upswitch_channels = 0;
  std::vector<int64_t> upswitch_pair_bytes;
  // Compute to the nanosecond (duration_micros holds whole microseconds); -1: not given.
  int64_t upswitch_duration_ns = -1;

  bool operator==(const Node& o) const;
};

struct RankTrace {
  std::string version;  // GlobalMetadata.version
  std::vector<Node> nodes;
};

// The schema version upswitch writes into GlobalMetadata.
constexpr const char* kChakraVersion = "0.0.4";
// Largest file read (the nodes are held in memory).
constexpr uint64_t kMaxChakraFileBytes = uint64_t{1} << 30;
// Most nodes of a trace, all its rank files together: a replay holds every operation and its
// report row in memory (a few KiB each), so this bounds a run to about 1 GiB (doc/trace.md).
constexpr size_t kMaxChakraNodes = size_t{1} << 18;

// Throws config::ConfigError, one line naming the file, the node (index and id) and what is wrong:
// a file that cannot be read, a truncated or malformed message, an attribute of the wrong type.
// More than `max_nodes` nodes is such an error too.
RankTrace read_rank_trace(const std::string& path, size_t max_nodes = kMaxChakraNodes);
// The same on a file's bytes; `name` is how errors name the file.
RankTrace parse_rank_trace(const std::string& bytes, const std::string& name, size_t max_nodes = kMaxChakraNodes);
// Throws config::ConfigError naming the file when it cannot be written.
void write_rank_trace(const std::string& path, const RankTrace& t);

}  // namespace upswitch::chakra
