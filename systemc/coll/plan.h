// A collective as the transfers each rank issues and the order between them (doc/reduction.md
// "Algorithms"): a pure function of the spec and the buffer layout, so tests can check the
// schedule and its traffic without running the fabric.
#pragma once

#include <cstdint>
#include <vector>

#include "coll/collective.h"
#include "tl/ops.h"

namespace upswitch::coll {

// Where a collective's buffers sit: the same offsets in every rank's memory (and, for the switch
// algorithms, in the group's multicast window). Flags are 8 B words.
struct Layout {
  uint64_t in = 0, out = 0, stage = 0, flags = 0;  // stage: where a ring rank receives data it reduces
  uint64_t in_bytes = 0, out_bytes = 0;
  int flag_count = 0;
  uint64_t end() const { return flags + 8 * static_cast<uint64_t>(flag_count); }
};

struct PlanOp {
  int rank = 0;  // initiator, index into spec.ranks
  tl::Opcode op = tl::Opcode::kWrite;
  bool mc = false;          // to the group's multicast window (peer unused)
  int peer = -1;            // target, index into spec.ranks
  uint64_t remote = 0;      // offset in the target's window (or the group's)
  uint64_t local = 0;       // own-memory offset: data source, or where read data goes
  uint64_t bytes = 0;       // 0: nothing moves, the op only passes its dependencies on
  int after = -1;           // an op of the same rank that must complete first
  int gate = -1;            // another one (the switch algorithm's window of slices in flight)
  int wait_flag = -1;       // a flag of this rank that must have arrived first
  int notify_peer = -1;     // when complete: an 8 B flag write to this rank...
  int notify_flag = -1;     // ...setting this flag of it
  // Before the transfer, the rank's own device reduces staged data into its buffer:
  // own[fold_at, +fold_bytes) = op(own[fold_at...], own[fold_from...]) (ring reduction steps).
  uint64_t fold_at = 0, fold_from = 0, fold_bytes = 0;
};

struct Plan {
  std::vector<PlanOp> ops;
  // Local copies done before any transfer (a device-side copy, taken as free): (rank, from, to, bytes).
  struct Copy {
    int rank;
    uint64_t from, to, bytes;
  };
  std::vector<Copy> copies;
};

// The layout of a collective whose buffers start at `base` (a multiple of 4096).
Layout make_layout(const CollectiveSpec& s, uint64_t base);
Plan make_plan(const CollectiveSpec& s, const Layout& l);

}  // namespace upswitch::coll
