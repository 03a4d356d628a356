// The schedule of a model-level workload (doc/workloads.md), before anything is simulated: each
// chain (the MoE ranks; each TP group) as its collectives in order, with the compute that precedes
// each one. run_workload() simulates it; `upswitch workload --chakra` writes it as Chakra
// execution traces (chakra/workload_chakra.h). A pure function of (configuration, seed).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "coll/collective.h"
#include "config/config.h"
#include "top/workload_run.h"
#include "traffic/moe.h"

namespace upswitch::top {

struct ScheduledPhase {
  WorkloadPhase phase;          // what it is (workload, step, layer, pass, phase, group, collective, size)
  coll::CollectiveSpec spec;    // on endpoints (workload.placement applied)
  std::string slot;             // the buffer region it may reuse: one per kind of phase and chain
  // Compute on every rank of the chain after its previous collective (or from the start) and
  // before this one: in microseconds, and in cycles as the simulation waits (each piece rounded).
  double compute_before_us = 0;
  uint64_t compute_before_cycles = 0;
};

struct ScheduledChain {
  std::string workload;  // "moe" or "tp"
  int group = -1;        // TP group; -1 for MoE
  std::vector<ScheduledPhase> phases;
};

struct WorkloadSchedule {
  std::vector<int> endpoints;          // workload.placement: rank i runs on endpoints[i]
  std::vector<ScheduledChain> chains;  // MoE first, then the TP groups in order
  std::vector<WorkloadStep> steps;     // per chain and step: compute_us and dropped (times unset)
};

bool runs_moe(const config::Config& c);
bool runs_tp(const config::Config& c);
traffic::MoeParams resolved_moe(const config::Config& c);
// The endpoints the workload's ranks run on (workload.placement, top/placement.h): MoE rank i and
// TP rank i (traffic::tp_group_ranks' numbering) both run on endpoint placed[i]. Throws
// config::ConfigError naming the key.
std::vector<int> workload_endpoints(const config::Config& c);
std::vector<int> on_endpoints(const std::vector<int>& ranks, const std::vector<int>& placed);

// The configuration TP choices are made with (tp.algo, tp.protocol, tp.channels = auto): the TP
// groups run at once and each holds its switch-algorithm channels' multicast groups, so a group
// may take reduce.groups / groups of them (none: auto does not pick the switch algorithm).
config::Config tp_choice_config(const config::Config& cfg, int groups);

// Expects a configuration check_workload() accepted.
// The bytes workload_schedule(cfg) will hold, from the counts alone (phases x their rank lists and
// MoE pair matrices): checked against the memory limit before the schedule is built.
double workload_schedule_bytes(const config::Config& cfg);
WorkloadSchedule workload_schedule(const config::Config& cfg);

}  // namespace upswitch::top
