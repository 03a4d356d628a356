// Tensor-parallel traffic (doc/workloads.md "TP"): Megatron-style layers whose activations are
// all-reduced inside each TP group twice per layer and pass (after attention and after the MLP), or,
// with sequence parallelism, all-gathered before and reduce-scattered after each of the two blocks.
// Plain C++: sizes and groups come from the model dimensions alone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "coll/collective.h"
#include "traffic/workload_params.h"

namespace upswitch::traffic {

// "" or what is wrong (the key and what is allowed) for `accelerators` endpoints.
std::string check_tp(const TpParams& p, int accelerators);

int tp_group_count(const TpParams& p, int accelerators);
// The accelerators of group g: contiguous (g*n .. g*n+n-1) or strided (g, g+G, g+2G, ...).
std::vector<int> tp_group_ranks(const TpParams& p, int accelerators, int g);

// The activation of one micro-batch: seq_len x micro_batch x hidden elements of the dtype; the
// nccl-tests size of every TP collective (all-reduce buffer, reduce-scatter input, all-gather output).
uint64_t tp_activation_bytes(const TpParams& p);

// One layer's work in one pass, in order: compute (`compute` set, `compute_us` long; coll unused) or a
// collective of `bytes` (its nccl-tests size).
struct TpStep {
  bool compute = false;
  coll::Collective coll = coll::Collective::kAllReduce;
  uint64_t bytes = 0;
  double compute_us = 0;
};
std::vector<TpStep> tp_layer_steps(const TpParams& p);

}  // namespace upswitch::traffic
