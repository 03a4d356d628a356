// A trace of timed operations (doc/trace.md): JSON Lines, one transaction or collective call per
// line, each with an earliest start and optional dependencies on earlier lines. Parsing only: the
// checks that need a configuration (accelerator ids, memory) and the replay itself are in
// systemc/top/trace_replay.h.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "coll/collective.h"
#include "tl/ops.h"

namespace upswitch::traffic {

struct TraceOp {
  int line = 0;    // 1-based line of the trace
  std::string id;  // unique; letters, digits and _ - . : /
  std::string op;  // the operation's name as written
  bool collective = false;
  bool compute = false;        // compute on accelerator `rank` for duration_us (neither of the others)
  double at_us = 0;            // earliest start, from the start of the run
  std::vector<size_t> after;   // indexes of earlier ops (distinct) that must complete first
  double delay_us = 0;         // extra wait after the last of them
  coll::CollectiveSpec spec;   // collectives
  // Collectives: what the trace fixes of the algorithm choice (doc/nccl.md, "Algorithm choice"):
  // `algo` and `protocol` absent or "auto" leave them to the replay; `channels` 0 = auto.
  bool algo_given = true, protocol_given = true;
  int channels = 1;
  // Transactions: `bytes` at `offset` in `dst`'s window, issued by `src`; atomics are one element
  // of `bytes` (4 or 8).
  tl::Opcode opcode = tl::Opcode::kRead;
  tl::AtomicOp atomic = tl::AtomicOp::kAdd;
  int src = 0, dst = 0;
  uint64_t bytes = 0, offset = 0;
  // Compute: one accelerator computes one thing at a time, so a rank's compute operations run one
  // after another in the order they become ready (doc/trace.md).
  int rank = 0;
  double duration_us = 0;

  bool transaction() const { return !collective && !compute; }
};

struct Trace {
  std::string name;  // the path, as errors quote it
  std::vector<TraceOp> ops;
};

// Bounds the format sets (doc/trace.md): times in us, transaction and collective sizes in bytes.
constexpr double kTraceMaxUs = 1e9;
constexpr uint64_t kTraceMaxTxnBytes = uint64_t{1} << 30;
constexpr uint64_t kTraceMaxCollBytes = uint64_t{1} << 40;

// Throws config::ConfigError, one line naming the trace, the line number, the field, the value and
// what is allowed. `name` is how errors name the stream.
Trace parse_trace(std::istream& in, const std::string& name);
// Reads and parses the file at `path` (ConfigError when it cannot be read).
Trace read_trace(const std::string& path);

// The data of a trace write or atomic operand: byte i is (i + line) & 0xff (doc/trace.md).
std::vector<uint8_t> trace_data(const TraceOp& op);

}  // namespace upswitch::traffic
