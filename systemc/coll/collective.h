// Collective operations over the transaction layer (doc/reduction.md): what a user asks for
// (a collective, an algorithm, a group of endpoints, a size, an element type and a reduction),
// the nccl-tests definitions of algorithm and bus bandwidth, and the per-rank traffic each
// algorithm moves.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "coll/protocol.h"
#include "tl/reduce_alu.h"

namespace upswitch::coll {

enum class Collective : uint8_t { kAllReduce, kReduceScatter, kAllGather, kBroadcast, kAllToAll };
constexpr int kCollectives = 5;
// ring: neighbour to neighbour, pipelined in slices; oneshot: every rank to every other rank
// directly; switch: the switch's reduction engine (NCCL NVLS: load-reduce, multicast store).
enum class Algorithm : uint8_t { kRing, kOneShot, kSwitch };
constexpr int kAlgorithms = 3;

const char* collective_name(Collective c);  // "all_reduce", "reduce_scatter", ...
const char* algorithm_name(Algorithm a);    // "ring", "oneshot", "switch"
bool parse_collective(const std::string& text, Collective& out);
bool parse_algorithm(const std::string& text, Algorithm& out);
// Whether the pair exists (all-to-all is direct: oneshot only).
bool algorithm_applies(Collective c, Algorithm a);
bool reduces(Collective c);  // all-reduce and reduce-scatter

struct CollectiveSpec {
  Collective coll = Collective::kAllReduce;
  Algorithm algo = Algorithm::kRing;
  std::vector<int> ranks;  // accelerator ids, in ring order
  // nccl-tests' "size": all-reduce and broadcast: the buffer of each rank; reduce-scatter: the
  // input of each rank (N chunks); all-gather: the output of each rank (N chunks); all-to-all:
  // what each rank sends in all (N blocks). A multiple of the element size and of 4 B.
  uint64_t bytes = 0;
  tl::RedType type = tl::RedType::kF32;
  tl::RedOp op = tl::RedOp::kSum;
  int root = 0;                      // broadcast: index into ranks
  std::vector<uint64_t> pair_bytes;  // all-to-all: N x N, [i*N+j] = bytes rank i sends to rank j; empty = even
  uint64_t slice_bytes = 0;          // pipelining unit of ring and switch algorithms; 0 = default_slice
  // Switch algorithm: slices a rank has in flight; slice j's load-reduce waits for slice j-window's,
  // so each slice's multicast store is issued between them (NCCL runs the two phases concurrently).
  int window = 4;
  // Ring and chain algorithms (oneshot and switch run simple, whatever it says).
  Protocol protocol = Protocol::kSimple;
  // SMs issuing the run's transfers on each rank, each at accel.sm_gbytes_per_s (multimem ops:
  // accel.multimem_gbytes_per_s): a channel is one (coll/channels.h); 0 = no issue limit (a caller
  // that runs a collective as one unbounded pipeline; doc/nccl.md).
  int sms = 0;
};

// The slice an algorithm pipelines in when the spec leaves it at 0. Ring: an eighth of a rank's
// chunk (NCCL keeps 8 steps of a chunk in flight), in 256 B units, from 4 KiB to 64 KiB, so that
// the per-slice acknowledgement and flag latency overlaps the data even when chunks are small
// (many ranks); broadcast takes the whole buffer as its chunk; all-to-all interleaves its blocks
// over the peers in slices of an eighth of the mean block (4 KiB .. 64 KiB). Switch: 8 KiB, so that a window of
// slices keeps the engine's gathers short while earlier slices' stores flow. Both measured best in
// doc/reduction.md.
uint64_t default_slice(const CollectiveSpec& s);
inline uint64_t slice_of(const CollectiveSpec& s) { return s.slice_bytes ? s.slice_bytes : default_slice(s); }

// Checks a spec against a fabric of `accelerators` endpoints; returns "" or what is wrong.
std::string check_spec(const CollectiveSpec& s, int accelerators);

// nccl-tests: algbw = size / time; busbw = algbw x factor (doc/reduction.md).
double bus_factor(Collective c, int n);

// Chunk c of N over `bytes` (4 B- and element-aligned, 256 B-aligned when chunks are at least 256 B):
// [chunk_begin(c), chunk_begin(c+1)).
uint64_t chunk_begin(uint64_t bytes, int n, int c, int elem);

// All-to-all: bytes rank i sends to rank j.
uint64_t pair_bytes(const CollectiveSpec& s, int i, int j);

}  // namespace upswitch::coll
