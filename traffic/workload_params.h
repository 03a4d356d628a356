// Parameters of the model-level workloads (doc/workloads.md): mixture-of-experts dispatch and
// combine all-to-alls, and tensor-parallel all-reduces, described by model dimensions. Defaults,
// units and ranges are declared once, in systemc/config/workload_params.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace upswitch::traffic {

// Which generators `upswitch workload` runs: MoE alone, TP alone, or both at once on one switch.
enum class WorkloadKind : uint8_t { kMoe, kTp, kMixed };

// How tokens pick experts: uniform; Zipf over expert ids (expert 0 the most popular); a fixed set of
// hot experts that draw a given share of the picks; or an assignment read from a file.
enum class Gating : uint8_t { kUniform, kZipf, kHot, kFile };

struct MoeParams {
  int ranks = 0;             // ranks 0 .. ranks-1 (0 = every accelerator)
  int tokens = 0;            // tokens per rank per layer
  int hidden = 0;            // elements per token
  int elem_bytes = 0;        // bytes per element on the wire
  int experts = 0;           // expert e lives on rank e / experts_per_rank
  int experts_per_rank = 0;
  int top_k = 0;             // distinct experts per token
  Gating gating = Gating::kUniform;
  double zipf_s = 0;         // Zipf exponent: P(e) ~ 1 / (e + 1)^s
  std::vector<int> hot_experts;
  double hot_fraction = 0;   // share of picks that go to the hot experts (spread evenly over them)
  std::string assignment_file;
  double capacity_factor = 0;  // expert capacity = ceil(cf x ranks x tokens x top_k / experts); 0 = none
  bool dedup = false;          // a token goes once to a rank hosting several of its experts (DeepEP)
  double compute_us = 0;       // expert compute between dispatch and combine
  int channels = 0;            // 0 = auto
  int layers = 0;
};

// tp.algo and tp.protocol: chosen per collective (doc/nccl.md, "Algorithm choice").
constexpr int kTpAuto = 3;

enum class TpPlacement : uint8_t { kContiguous, kStrided };

struct TpParams {
  int group_size = 0;   // ranks per tensor-parallel group
  int groups = 0;       // concurrent groups (0 = ports / group_size)
  TpPlacement placement = TpPlacement::kContiguous;
  int hidden = 0, seq_len = 0, micro_batch = 0, layers = 0;
  int dtype = 0;        // tl::RedType of the activations (f32, f16, bf16)
  int algo = kTpAuto;   // coll::Algorithm, or kTpAuto
  int protocol = kTpAuto;  // coll::Protocol, or kTpAuto
  int channels = 0;     // 0 = auto
  bool sequence_parallel = false;  // reduce-scatter + all-gather instead of all-reduce
  bool backward = false;           // also the backward pass (as many collectives again)
  double compute_us = 0;           // per layer and pass, split evenly before the layer's collectives
};

struct WorkloadParams {
  WorkloadKind kind = WorkloadKind::kMixed;
  int steps = 0;
  std::string placement = "packed";  // workload.placement: packed, spread or an endpoint list
  MoeParams moe;
  TpParams tp;
};

}  // namespace upswitch::traffic
