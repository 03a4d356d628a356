// Mixture-of-experts expert-parallel traffic (doc/workloads.md "MoE"): which experts each token
// picks (the gating distribution or a file), which picks the experts' capacity drops, and the bytes
// every rank sends every other rank in the dispatch all-to-all (the combine sends them back).
// Plain C++: tests check it without running the fabric.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "traffic/workload_params.h"

namespace upswitch::traffic {

struct MoeAssignment {
  int ranks = 0, tokens = 0, top_k = 0;
  // expert[(r * tokens + t) * top_k + i]: the i-th pick of token t of rank r; -1 once dropped.
  std::vector<int32_t> expert;
  uint64_t dropped = 0;  // picks dropped by the capacity limit
  int32_t& at(int r, int t, int i) {
    return expert[(static_cast<size_t>(r) * static_cast<size_t>(tokens) + static_cast<size_t>(t)) *
                      static_cast<size_t>(top_k) + static_cast<size_t>(i)];
  }
  int32_t at(int r, int t, int i) const { return const_cast<MoeAssignment*>(this)->at(r, t, i); }
};

inline int expert_rank(const MoeParams& p, int e) { return e / p.experts_per_rank; }

// The parameters with their automatic values filled in for `accelerators` endpoints: ranks 0 = every
// accelerator; experts 0 = ranks x experts_per_rank (every rank hosts its share).
MoeParams resolve_moe(const MoeParams& p, int accelerators);

// "" or what is wrong with the parameters for `accelerators` endpoints (the key and the allowed
// values); automatic values are resolved first.
std::string check_moe(const MoeParams& p, int accelerators);

// The picks of one layer, drawn from the gating distribution with its own random stream per
// (seed, layer); no capacity limit applied yet.
MoeAssignment draw_assignment(const MoeParams& p, uint64_t seed, uint64_t layer);

// The picks from a text file: one line per token, `RANK TOKEN EXPERT...` (top_k distinct experts),
// every (rank, token) exactly once; `#` starts a comment. Throws config::ConfigError naming the
// file, the line and what is wrong.
MoeAssignment read_assignment(const MoeParams& p, const std::string& path);
// The same from a stream; `name` is what errors call the input.
MoeAssignment read_assignment(const MoeParams& p, std::istream& in, const std::string& name);

// The capacity limit (GShard): each expert keeps at most capacity(p) picks, taking tokens in the
// order token 0 of every rank, token 1 of every rank, ..., and drops the rest.
uint64_t expert_capacity(const MoeParams& p);
void apply_capacity(const MoeParams& p, MoeAssignment& a);

// Dispatch bytes, ranks x ranks, [i * ranks + j] = bytes rank i sends rank j: one token of
// hidden x elem_bytes per kept pick (per rank with dedup), the diagonal included (a local copy).
std::vector<uint64_t> dispatch_bytes(const MoeParams& p, const MoeAssignment& a);

}  // namespace upswitch::traffic
