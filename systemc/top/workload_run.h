// Runs the model-level workloads (doc/workloads.md) on one transaction fabric: MoE dispatch and
// combine all-to-alls and TP collectives, each a chain of collectives ordered by the runner
// (coll::CollectiveRunner::Order) with compute gaps between them; MoE and TP chains run at once in
// the mixed workload, sharing the switch. A run is a pure function of (configuration, seed).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "coll/collective.h"
#include "config/config.h"
#include "endpoint/txn_result.h"

namespace upswitch::top {

// One collective of the schedule, measured.
struct WorkloadPhase {
  std::string workload;  // "moe" or "tp"
  int step = 0, layer = 0;
  std::string pass;      // "fwd" or "bwd" (TP); "" (MoE)
  std::string phase;     // MoE: "dispatch", "combine"; TP: the collective's name
  int group = -1;        // TP group; -1 for MoE
  coll::Collective coll = coll::Collective::kAllToAll;
  coll::Algorithm algo = coll::Algorithm::kOneShot;  // as run: tp.algo = auto resolved
  coll::Protocol protocol = coll::Protocol::kSimple;
  int channels = 1;  // runs of the collective (coll/channels.h), each issued by one SM per rank
  int ranks = 0;
  uint64_t bytes = 0;             // nccl-tests size (MoE: the largest bytes a rank sends)
  uint64_t start = 0, end = 0;    // cycles
  double time_us = 0;
  // Per rank: payload sent to and received from other ranks (MoE; local copies excluded).
  uint64_t sent_max = 0, recv_max = 0;
  double sent_mean = 0, recv_mean = 0;
  // Per rank, from the phase's start to the last data arriving in its memory, in us: the slowest
  // rank and the mean over ranks (the straggler effect is slowest / mean).
  double rank_max_us = 0, rank_mean_us = 0;
  // MoE: payload between ranks / time, and the limit of a non-blocking network (every rank's links,
  // all of its ports, at their payload rate at once: the bound of uniform all-to-all; a tapered
  // network's bisection can be lower), GB/s; and the lower bound on the time set by the busiest
  // rank: max(sent, recv) / the rate of its links, in us.
  double a2a_gbps = 0, limit_gbps = 0, port_bound_us = 0;
  // The network over the phase's interval (every chain's traffic in it, top/link_load.h): flits
  // through each switch (on planes, each plane), the busiest switch over the mean one, and the
  // directed link busiest relative to its rate, with its flits and utilisation.
  std::vector<uint64_t> switch_flits;
  double switch_spread = 0;
  std::string busiest_link;
  uint64_t busiest_link_flits = 0;
  double busiest_link_utilisation = 0;
};

// One step of one workload (MoE, or one TP group).
struct WorkloadStep {
  std::string workload;
  int group = -1;
  int step = 0;
  double time_us = 0;     // from the end of the previous step (or 0) to the end of this one
  double compute_us = 0;  // compute the step's chain contains
  double comm_us = 0;     // time its collectives ran (the sum of their times)
  double exposed_us = 0;  // time_us - compute_us: communication not hidden behind compute
  uint64_t dropped = 0;   // MoE picks dropped by expert capacity
};

// One layer of one pass of one step of one workload (MoE, or one TP group): from the end of the
// chain's previous layer (or 0) to the end of its last collective, compute gaps included.
struct WorkloadLayer {
  std::string workload, pass;
  int group = -1, step = 0, layer = 0;
  double time_us = 0, comm_us = 0;
};

struct WorkloadResult {
  config::Config cfg;
  std::vector<WorkloadPhase> phases;
  std::vector<WorkloadLayer> layers;
  std::vector<WorkloadStep> steps;
  std::vector<endpoint::TxnPortResult> ports;  // per endpoint: payload and flit counters of the whole run
  std::vector<int> endpoints;  // workload.placement: rank i ran on endpoints[i]
  uint64_t cycles = 0;
  double wall_seconds = 0;
  bool interrupted = false;  // Ctrl-C: phases, layers and steps of the steps completed before it
};

// Throws config::ConfigError naming the key for parameters the workload cannot run with.
void check_workload(const config::Config& cfg);
WorkloadResult run_workload(const config::Config& cfg);

std::string workload_text(const WorkloadResult& r);  // a short per-step table
std::string workload_phases_csv(const WorkloadResult& r);
std::string workload_steps_csv(const WorkloadResult& r);
std::string workload_layers_csv(const WorkloadResult& r);
nlohmann::ordered_json workload_json(const WorkloadResult& r);  // config, its hash, version, steps, layers, phases

// FNV-1a 64 of the resolved configuration's JSON text, as 16 hex digits (records which
// configuration a table came from).
std::string config_hash(const config::Config& cfg);

}  // namespace upswitch::top
