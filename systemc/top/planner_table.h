// The planners' table (`upswitch table`, doc/workloads.md "Tables for planners"): for one
// configuration, the collective table (time, algbw, busbw per collective, algorithm, group size
// and message size), the point-to-point table (zero-load round trip and bandwidth per operation
// and size), and MoE all-to-all times per token count and skew. What is derived from them (α-β
// fits, ASTRA-sim and SimAI inputs) is in top/table_fits.h, top/astra_export.h, top/simai_export.h.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "top/astra_units.h"
#include "top/coll_table.h"
#include "top/p2p_table.h"

namespace upswitch::top {

struct PlannerOptions {
  CollTableOptions coll;
  P2pOptions p2p;
  // Latency under load: synthetic all-to-all of one operation and size at `loaded_load` of the link
  // byte rate (txn.*; the run's own measurement protocol), p50 and p99 per (op, size).
  std::vector<tl::Opcode> loaded_ops = {tl::Opcode::kRead, tl::Opcode::kWrite};
  std::vector<uint64_t> loaded_sizes = {64, 256, 4096};
  double loaded_load = 0.25;
  std::vector<int> moe_tokens = {16, 64, 256};   // tokens per rank
  std::vector<double> moe_skews = {0.0, 0.5, 1.0};  // Zipf exponents (0 = uniform)
  int jobs = 2;
  AstraUnits astra_units = AstraUnits::kBinary;  // the ASTRA-sim version the network files are for
};

struct MoeRow {
  int tokens = 0;
  double zipf_s = 0;
  uint64_t sent_mean = 0, recv_max = 0;  // bytes per rank to other ranks (dispatch)
  double dispatch_us = 0, combine_us = 0;
  double straggler = 0;  // dispatch: slowest rank / mean rank
  double a2a_gbps = 0;   // dispatch: bytes between ranks / time
  double port_bound_us = 0;
};

struct LoadedLatencyRow {
  tl::Opcode op = tl::Opcode::kRead;
  uint64_t bytes = 0;
  double load = 0;
  bool saturated = false;           // then the percentiles are not valid (null in the files)
  double p50_ns = 0, p99_ns = 0, mean_ns = 0;
  uint64_t samples = 0;
};

struct PlannerTable {
  config::Config cfg;
  PlannerOptions opt;
  CollTable coll;
  P2pTable p2p;
  std::vector<LoadedLatencyRow> loaded;
  std::vector<MoeRow> moe;
  bool interrupted = false;  // Ctrl-C: the parts and rows completed before it; later parts empty
};

// Throws config::ConfigError (one line) for inputs the table cannot measure.
void check_planner_inputs(const config::Config& cfg, const PlannerOptions& opt);
// `progress(part, done, total)`: part is "coll", "p2p", "loaded" or "moe".
PlannerTable measure_planner_table(
    const config::Config& cfg, const PlannerOptions& opt,
    const std::function<void(const char* part, size_t done, size_t total)>& progress = {});

std::string moe_table_csv(const PlannerTable& t);
std::string loaded_latency_csv(const PlannerTable& t);
// {upswitch_version, config_hash, interrupted, config, coll, p2p, p2p_loaded, moe, and unless
// interrupted: fits (top/table_fits.h), astra_network and simai (one entry per exported group size)}
nlohmann::ordered_json planner_json(const PlannerTable& t);

}  // namespace upswitch::top
