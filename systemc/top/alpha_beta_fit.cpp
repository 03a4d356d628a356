#include "top/alpha_beta_fit.h"

#include <algorithm>
#include <cmath>

namespace upswitch::top {
namespace {

// Weighted sums of the relative-error objective: w = 1 / time^2.
struct Sums {
  double w = 0, wx = 0, wy = 0, wxx = 0, wxy = 0;
};

Sums weighted_sums(const std::vector<SizeTime>& pts) {
  Sums s;
  for (const SizeTime& p : pts) {
    const double w = 1.0 / (p.time * p.time);
    s.w += w;
    s.wx += w * p.bytes;
    s.wy += w * p.time;
    s.wxx += w * p.bytes * p.bytes;
    s.wxy += w * p.bytes * p.time;
  }
  return s;
}

}  // namespace

std::optional<AlphaBetaFit> fit_alpha_beta(const std::vector<SizeTime>& pts) {
  if (pts.size() < 2) return std::nullopt;
  for (const SizeTime& p : pts)
    if (!(p.time > 0) || !(p.bytes >= 0) || !std::isfinite(p.time) || !std::isfinite(p.bytes)) return std::nullopt;
  const auto [lo, hi] = std::minmax_element(pts.begin(), pts.end(),
                                            [](const SizeTime& a, const SizeTime& b) { return a.bytes < b.bytes; });
  if (lo->bytes == hi->bytes) return std::nullopt;

  const Sums s = weighted_sums(pts);
  // Centred on the weighted mean size, so sizes of 2^20 and more lose no precision in x^2.
  const double xm = s.wx / s.w, ym = s.wy / s.w;
  double sxx = 0, sxy = 0;
  for (const SizeTime& p : pts) {
    const double w = 1.0 / (p.time * p.time);
    sxx += w * (p.bytes - xm) * (p.bytes - xm);
    sxy += w * (p.bytes - xm) * (p.time - ym);
  }
  double slope = sxy / sxx;
  double alpha = ym - slope * xm;
  if (slope < 0) {  // time falls with size: no bandwidth term; α alone
    slope = 0;
    alpha = ym;
  } else if (alpha < 0) {  // a negative latency: the best line through the origin
    alpha = 0;
    slope = s.wxy / s.wxx;
  }

  AlphaBetaFit f;
  f.alpha = alpha;
  f.time_per_byte = slope;
  if (slope > 0) f.beta = 1.0 / slope;
  f.points = pts.size();
  f.min_bytes = lo->bytes;
  f.max_bytes = hi->bytes;
  double mean = 0;
  for (const SizeTime& p : pts) mean += p.time;
  mean /= static_cast<double>(pts.size());
  double ss_res = 0, ss_tot = 0;
  for (const SizeTime& p : pts) {
    const double fit = alpha_beta_time(f, p.bytes);
    ss_res += (fit - p.time) * (fit - p.time);
    ss_tot += (p.time - mean) * (p.time - mean);
    f.max_rel_error = std::max(f.max_rel_error, std::abs(fit - p.time) / p.time);
  }
  if (ss_tot > 0) f.r2 = 1.0 - ss_res / ss_tot;
  return f;
}

double alpha_beta_time(const AlphaBetaFit& fit, double bytes) { return fit.alpha + bytes * fit.time_per_byte; }

std::vector<AlphaBetaFit> fit_alpha_beta_pieces(std::vector<SizeTime> pts, double target) {
  std::stable_sort(pts.begin(), pts.end(), [](const SizeTime& a, const SizeTime& b) { return a.bytes < b.bytes; });
  const auto whole = fit_alpha_beta(pts);
  if (!whole) return {};
  if (whole->max_rel_error <= target) return {*whole};
  // The split point k: [0, k] and [k, n), each needing two distinct sizes.
  size_t best_k = 0;
  double best_err = 0;
  for (size_t k = 1; k + 1 < pts.size(); ++k) {
    const auto a = fit_alpha_beta({pts.begin(), pts.begin() + static_cast<std::ptrdiff_t>(k) + 1});
    const auto b = fit_alpha_beta({pts.begin() + static_cast<std::ptrdiff_t>(k), pts.end()});
    if (!a || !b) continue;
    const double err = std::max(a->max_rel_error, b->max_rel_error);
    if (best_k == 0 || err < best_err) {
      best_k = k;
      best_err = err;
    }
  }
  if (best_k == 0) return {*whole};
  const auto k = static_cast<std::ptrdiff_t>(best_k);
  std::vector<AlphaBetaFit> out = fit_alpha_beta_pieces({pts.begin(), pts.begin() + k + 1}, target);
  for (const AlphaBetaFit& f : fit_alpha_beta_pieces({pts.begin() + k, pts.end()}, target)) out.push_back(f);
  return out;
}

}  // namespace upswitch::top
