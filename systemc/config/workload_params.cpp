// The workload parameters (workload.*, moe.*, tp.*; doc/workloads.md), declared once like every
// other key. Defaults: a Mixtral-like MoE layer (hidden 4096, top-2) with one expert per rank over
// all 72 ports, and Megatron-style TP over nine groups of eight, sized so that the default mixed
// workload simulates in well under two minutes.
#include "config/param_builders.h"
#include "traffic/workload_params.h"

namespace upswitch::config {

void add_workload_params(std::vector<ParamSpec>& t) {
  using namespace builders;  // NOLINT: the builders are this file's vocabulary
  using traffic::Gating;
  using traffic::TpPlacement;
  using traffic::WorkloadKind;
  t.push_back(enum_param("workload.kind", [](Config& c) -> WorkloadKind& { return c.workload.kind; },
                         {"moe", "tp", "mixed"}, "mixed",
                         "What `upswitch workload` runs: the MoE all-to-alls (moe.*), the TP collectives (tp.*), or "
                         "both at once on one switch (their interference)."));
  t.push_back(int_param("workload.steps", [](Config& c) -> int& { return c.workload.steps; }, 1, 1, 100000, "steps",
                        "Training steps simulated; each step runs every layer of each workload."));
  t.push_back(text_param("workload.placement", [](Config& c) -> std::string& { return c.workload.placement; }, "packed",
                         "packed, spread or a comma-separated endpoint list",
                         "Which endpoints the ranks of `upswitch workload` (MoE ranks, then the TP groups' ranks) and "
                         "the accelerator ids of an `upswitch replay` trace run on: packed = rank i on endpoint i; "
                         "spread = dealt over the leaf switches one leaf at a time, then ordered by leaf (as `coll "
                         "--placement spread`); a list = rank i on the i-th endpoint listed, as many as the workload "
                         "has ranks (doc/workloads.md \"Placement\")."));
  // --- MoE expert parallelism
  t.push_back(int_param("moe.ranks", [](Config& c) -> int& { return c.workload.moe.ranks; }, 0, 0, 1024, "ranks",
                        "Expert-parallel ranks: accelerators 0 .. moe.ranks-1; 0 = every port."));
  t.push_back(int_param("moe.tokens", [](Config& c) -> int& { return c.workload.moe.tokens; }, 64, 1, 1 << 20, "tokens",
                        "Tokens each rank routes per layer (micro-batch x sequence / expert-parallel split)."));
  t.push_back(int_param("moe.hidden", [](Config& c) -> int& { return c.workload.moe.hidden; }, 4096, 1, 1 << 20,
                        "elements", "Hidden size: elements per token sent to an expert and back."));
  t.push_back(int_param("moe.elem_bytes", [](Config& c) -> int& { return c.workload.moe.elem_bytes; }, 2, 1, 8, "bytes",
                        "Bytes per element on the wire (2 = bf16; 1 = fp8 dispatch as in DeepSeek-V3)."));
  t.push_back(int_param("moe.experts", [](Config& c) -> int& { return c.workload.moe.experts; }, 0, 0, 1 << 20,
                        "experts",
                        "Routed experts of a layer; expert e lives on rank e / moe.experts_per_rank. 0 = ranks x "
                        "moe.experts_per_rank (72 at the defaults)."));
  t.push_back(int_param("moe.experts_per_rank", [](Config& c) -> int& { return c.workload.moe.experts_per_rank; }, 1, 1,
                        1 << 20, "experts", "Experts each rank hosts (moe.experts <= ranks x this)."));
  t.push_back(int_param("moe.top_k", [](Config& c) -> int& { return c.workload.moe.top_k; }, 2, 1, 64, "experts",
                        "Distinct experts each token is routed to (Mixtral: 2; DeepSeek-V3: 8)."));
  t.push_back(enum_param("moe.gating", [](Config& c) -> Gating& { return c.workload.moe.gating; },
                         {"uniform", "zipf", "hot", "file"}, "uniform",
                         "Expert popularity: uniform; zipf (P(e) ~ 1/(e+1)^moe.zipf_s); hot (moe.hot_experts draw "
                         "moe.hot_fraction of the picks); file (moe.assignment_file)."));
  t.push_back(float_param("moe.zipf_s", [](Config& c) -> double& { return c.workload.moe.zipf_s; }, 1.0, 0.0, 10.0, "",
                          "Zipf exponent of the zipf gating (0 = uniform)."));
  t.push_back(int_list_param("moe.hot_experts", [](Config& c) -> std::vector<int>& { return c.workload.moe.hot_experts; },
                             "[0]", 0, 1 << 20, "The hot experts of the hot gating."));
  t.push_back(float_param("moe.hot_fraction", [](Config& c) -> double& { return c.workload.moe.hot_fraction; }, 0.5, 0.0,
                          1.0, "", "Share of all picks that go to the hot experts (hot gating)."));
  t.push_back(text_param("moe.assignment_file", [](Config& c) -> std::string& { return c.workload.moe.assignment_file; },
                         "", "a path, or '' (file gating)",
                         "Token-to-expert assignment: one line per token, `RANK TOKEN EXPERT...` with moe.top_k "
                         "distinct experts; `#` comments. Used for every layer and step."));
  t.push_back(float_param("moe.capacity_factor", [](Config& c) -> double& { return c.workload.moe.capacity_factor; }, 0.0,
                          0.0, 1000.0, "",
                          "Expert capacity = ceil(factor x ranks x tokens x top_k / experts) tokens per layer (GShard); "
                          "picks beyond it are dropped. 0 = no limit."));
  t.push_back(bool_param("moe.dedup", [](Config& c) -> bool& { return c.workload.moe.dedup; }, false,
                         "Send a token once to a rank that hosts several of its experts (DeepEP) instead of once per "
                         "expert."));
  t.push_back(float_param("moe.compute_us", [](Config& c) -> double& { return c.workload.moe.compute_us; }, 5.0, 0.0, 1e9,
                          "us", "Expert compute of a layer, between the end of dispatch and the start of combine."));
  t.push_back(int_param("moe.channels", [](Config& c) -> int& { return c.workload.moe.channels; }, 0, 0, 64,
                        "channels",
                        "Channels of each MoE all-to-all (doc/nccl.md, \"Channels\"): every pair's bytes are split "
                        "over them, each issued by one SM per rank at accel.sm_gbytes_per_s; 0 = auto, the count "
                        "`--algo auto` weighs best."));
  t.push_back(int_param("moe.layers", [](Config& c) -> int& { return c.workload.moe.layers; }, 1, 1, 100000, "layers",
                        "MoE layers per step, run one after another."));
  // --- tensor parallelism
  t.push_back(int_param("tp.group_size", [](Config& c) -> int& { return c.workload.tp.group_size; }, 8, 2, 1024, "ranks",
                        "Ranks per tensor-parallel group."));
  t.push_back(int_param("tp.groups", [](Config& c) -> int& { return c.workload.tp.groups; }, 0, 0, 1024, "groups",
                        "Concurrent TP groups; 0 = as many as fit (72 / 8 = nine groups of eight)."));
  t.push_back(enum_param("tp.placement", [](Config& c) -> TpPlacement& { return c.workload.tp.placement; },
                         {"contiguous", "strided"}, "contiguous",
                         "Ports of group g: contiguous (g x size ...) or strided (g, g + groups, ...)."));
  t.push_back(int_param("tp.hidden", [](Config& c) -> int& { return c.workload.tp.hidden; }, 4096, 1, 1 << 20, "elements",
                        "Hidden size of the model."));
  t.push_back(int_param("tp.seq_len", [](Config& c) -> int& { return c.workload.tp.seq_len; }, 256, 1, 1 << 22, "tokens",
                        "Sequence length of a micro-batch."));
  t.push_back(int_param("tp.micro_batch", [](Config& c) -> int& { return c.workload.tp.micro_batch; }, 1, 1, 1 << 16,
                        "sequences", "Micro-batch size."));
  t.push_back(int_param("tp.layers", [](Config& c) -> int& { return c.workload.tp.layers; }, 1, 1, 100000, "layers",
                        "Transformer layers per step."));
  t.push_back(enum_param("tp.dtype", [](Config& c) -> int& { return c.workload.tp.dtype; }, {"f32", "f16", "bf16"},
                         "bf16", "Activation type, reduced in the switch or by the ranks."));
  t.push_back(enum_param("tp.algo", [](Config& c) -> int& { return c.workload.tp.algo; },
                         {"ring", "oneshot", "switch", "auto"}, "auto",
                         "Collective algorithm (doc/reduction.md): ring, oneshot, the switch's engine (NVLS), or auto: "
                         "per collective and size what `--algo auto` picks (doc/nccl.md, \"Algorithm choice\"), as "
                         "NCCL does when NCCL_ALGO is unset."));
  t.push_back(enum_param("tp.protocol", [](Config& c) -> int& { return c.workload.tp.protocol; },
                         {"simple", "ll128", "ll", "auto"}, "auto",
                         "Protocol of the TP ring collectives (doc/nccl.md, \"Protocols\"); auto: chosen with the "
                         "algorithm, as NCCL does when NCCL_PROTO is unset. oneshot and switch run simple."));
  t.push_back(int_param("tp.channels", [](Config& c) -> int& { return c.workload.tp.channels; }, 0, 0, 64, "channels",
                        "Channels of each TP collective (doc/nccl.md, \"Channels\"), each issued by one SM per rank "
                        "at accel.sm_gbytes_per_s; 0 = auto: chosen with the algorithm. The switch algorithm takes a "
                        "multicast group per channel, and the TP groups run at once."));
  t.push_back(bool_param("tp.sequence_parallel", [](Config& c) -> bool& { return c.workload.tp.sequence_parallel; },
                         false,
                         "Sequence parallelism: each all-reduce becomes an all-gather before the block and a "
                         "reduce-scatter after it."));
  t.push_back(bool_param("tp.backward", [](Config& c) -> bool& { return c.workload.tp.backward; }, false,
                         "Also simulate the backward pass: the same collectives again, layers in reverse."));
  t.push_back(float_param("tp.compute_us", [](Config& c) -> double& { return c.workload.tp.compute_us; }, 10.0, 0.0, 1e9,
                          "us",
                          "Compute of one layer in one pass, half before each of its two blocks' collectives; TP "
                          "collectives sit on the critical path, so step time = compute + communication."));
}

}  // namespace upswitch::config
