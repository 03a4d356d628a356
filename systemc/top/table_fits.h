// α-β fits of the planner table (doc/workloads.md, "Fitted models"): time = α + bytes / β for
// each collective, algorithm and group size (the collective's time against its message size)
// and each point-to-point operation (the zero-load round trip of one transfer against its size),
// with the size range, R² and the largest relative error over the points they were fitted to.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "top/alpha_beta_fit.h"
#include "top/coll_table.h"
#include "top/p2p_table.h"

namespace upswitch::top {

struct TableFit {
  std::string kind;       // "coll" or "p2p"
  std::string operation;  // the collective or the p2p operation
  std::string algorithm;  // the collective's algorithm; empty for p2p
  int ranks = 0;          // group size; 2 for p2p (one initiator, one target)
  int elem_bytes = 0;     // p2p atomics: the element size; 0 otherwise
  AlphaBetaFit fit;       // time in us, β in bytes per us (= MB/s; GB/s is β / 1000)
};

// One fit per (collective, algorithm, ranks) of at least two sizes, in table order.
std::vector<TableFit> coll_fits(const CollTable& t);
// One fit per (operation, element size) of at least two sizes, in table order.
std::vector<TableFit> p2p_fits(const P2pTable& t);

std::string fits_csv(const std::vector<TableFit>& fits);
nlohmann::ordered_json fits_json(const std::vector<TableFit>& fits);

}  // namespace upswitch::top
