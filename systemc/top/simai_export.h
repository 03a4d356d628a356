// SimAI's bus-bandwidth inputs from the planner table (doc/workloads.md, "SimAI"), one set per
// group size N of the collective table, in SimAI's own file layouts:
//   simai_busbw_nN.yaml         the busbw.yaml of SimAI-Analytical's -busbw option: busbw per
//                               parallelism group (TP, DP, EP, PP) and collective, in GB/s that
//                               SimAI reads as 2^30 B/s;
//   simai_nvlink_ratio_nN.csv   its nvlink_ratio.csv: per message size, busbw relative to the
//                               largest size (all-gather and reduce-scatter of a TP group);
//   simai_ata_ratio_nN.csv      its ata_ratio.csv: the same for all-to-all.
// Each value is a measured row of coll.csv (or p2p.csv for PP), converted; nothing is modelled here.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "top/planner_table.h"

namespace upswitch::top {

constexpr double kSimaiBytesPerGB = 1073741824.0;  // SimAI's GBps = 1 / (1024^3) (system/Common.hh)

// The collective SimAI names and the row upswitch gives it: the largest measured size, from the
// algorithm with the highest busbw there (NCCL's tuner picks the fastest too).
struct SimaiPick {
  coll::Collective coll = coll::Collective::kAllReduce;
  const CollRow* row = nullptr;  // null: not measured at this group size
};

struct SimaiBusbw {
  int ranks = 0;
  std::vector<SimaiPick> picks;  // all_reduce, all_gather, reduce_scatter, all_to_all
  const P2pRow* pp = nullptr;    // PP's point-to-point busbw: the best write pair stream
};

SimaiBusbw simai_busbw(const PlannerTable& t, int ranks);
// (file name, content) of every SimAI file for the group size; a ratio file only when its
// collective was measured at two sizes or more.
std::vector<std::pair<std::string, std::string>> simai_files(const PlannerTable& t, int ranks);
nlohmann::ordered_json simai_json(const PlannerTable& t, int ranks);

}  // namespace upswitch::top
