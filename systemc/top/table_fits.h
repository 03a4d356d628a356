// α-β fits of the planner table (doc/workloads.md, "Fitted models"): time = α + bytes / β for
// each collective, algorithm and group size (the collective's time against its message size)
// and each point-to-point operation (the zero-load round trip of one transfer against its size),
// with the size range, R² and the largest relative error over the points they were fitted to.
// Where one line is more than 5% off some point (a ring's latency-bound small sizes), the group
// gets one fit per size range (piecewise), each within 5% or through its two sizes.
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

// The largest relative error a fit may have before it is split into pieces (fit_alpha_beta_pieces).
constexpr double kFitTargetError = 0.05;

// The fits of each (collective, algorithm, ranks) of at least two sizes, in table order; pieces
// of one group in size order.
std::vector<TableFit> coll_fits(const CollTable& t);
// The fits of each (operation, element size) of at least two sizes, in table order.
std::vector<TableFit> p2p_fits(const P2pTable& t);

std::string fits_csv(const std::vector<TableFit>& fits);
nlohmann::ordered_json fits_json(const std::vector<TableFit>& fits);

}  // namespace upswitch::top
