// The α-β model of a communication time, time = α + bytes / β, fitted to measured (bytes, time)
// points (doc/workloads.md, "Fitted models"). Plain arithmetic, no model state: the planner
// table fits each operation, algorithm and group size with it, and tests feed it synthetic
// points of a known α and β.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace upswitch::top {

struct SizeTime {
  double bytes = 0;
  double time = 0;  // any unit; α comes out in the same unit, β in bytes per that unit
};

struct AlphaBetaFit {
  double alpha = 0;               // time of a zero-byte message
  double time_per_byte = 0;       // 1 / β; 0: the time does not grow with size over the points
  std::optional<double> beta;     // bytes per time unit; none when time_per_byte is 0
  std::optional<double> r2;       // 1 - SS_res / SS_tot of the times; none when every time is equal
  double max_rel_error = 0;       // max |fit - time| / time over the points
  double min_bytes = 0, max_bytes = 0;
  size_t points = 0;
};

// Least squares on the relative error: minimises sum(((α + bytes / β) - time) / time)^2, so a
// 64 KiB point counts as much as a 4 MiB one (plain least squares on the times would let the
// largest sizes decide α). α and 1/β are kept non-negative: when the unconstrained optimum has
// one of them negative, the best fit with that one at 0 is taken. Needs at least two distinct
// sizes and positive times; returns none otherwise.
std::optional<AlphaBetaFit> fit_alpha_beta(const std::vector<SizeTime>& points);

double alpha_beta_time(const AlphaBetaFit& fit, double bytes);

// Piecewise where one line does not hold: the fit over all points if its max_rel_error is within
// `target`; otherwise the points (sorted by size) are split in two at the point that gives the
// smaller worst error of the two halves, both halves keeping that point, and each half is fitted
// the same way. Pieces come in size order and cover the sizes without gaps (neighbours share their
// boundary size); a piece of two sizes goes through both (unless that line has α < 0, and is held
// at 0). Empty when fit_alpha_beta has no fit.
std::vector<AlphaBetaFit> fit_alpha_beta_pieces(std::vector<SizeTime> points, double target);

}  // namespace upswitch::top
