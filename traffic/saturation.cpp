#include "traffic/saturation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace upswitch::traffic {
namespace {

struct Fit {
  double slope = 0, se = 0;
};

// Least squares y = a + b x over x = 0, 1, ..., n-1: slope b and its standard error.
Fit fit_line(const std::vector<double>& y) {
  Fit f;
  const auto n = static_cast<double>(y.size());
  if (y.size() < 3) return f;
  double mx = (n - 1) / 2, my = 0;
  for (double v : y) my += v;
  my /= n;
  double sxx = 0, sxy = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    sxx += (static_cast<double>(i) - mx) * (static_cast<double>(i) - mx);
    sxy += (static_cast<double>(i) - mx) * (y[i] - my);
  }
  f.slope = sxy / sxx;
  double rss = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    const double r = y[i] - (my + f.slope * (static_cast<double>(i) - mx));
    rss += r * r;
  }
  f.se = std::sqrt(rss / (n - 2) / sxx);
  return f;
}

}  // namespace

SaturationDetector::SaturationDetector(uint64_t begin, uint64_t end, int windows)
    : begin_(begin), end_(end), samples_(static_cast<size_t>(std::max(1, windows)) + 1, 0.0),
      lat_sum_(static_cast<size_t>(std::max(1, windows)), 0.0),
      lat_count_(static_cast<size_t>(std::max(1, windows)), 0.0) {}

void SaturationDetector::sample(double backlog) {
  if (next_ < samples_.size()) samples_[next_++] = backlog;
}

void SaturationDetector::delivered(uint64_t t, uint64_t latency) {
  if (t < begin_ || t >= end_ || lat_sum_.empty()) return;
  const size_t k = static_cast<size_t>((t - begin_) * lat_sum_.size() / (end_ - begin_));
  lat_sum_[k] += static_cast<double>(latency);
  lat_count_[k] += 1;
}

SaturationEvidence SaturationDetector::evidence() const {
  SaturationEvidence e;
  e.windows = static_cast<int>(lat_sum_.size());
  e.backlog.assign(samples_.begin(), samples_.begin() + static_cast<std::ptrdiff_t>(next_));
  const Fit q = fit_line(e.backlog);
  e.queue_growth = q.slope * static_cast<double>(e.windows);
  e.queue_growth_t = q.se > 0 ? q.slope / q.se : 0;
  std::vector<double> lat;
  for (size_t k = 0; k < lat_sum_.size(); ++k) {
    e.mean_latency.push_back(lat_count_[k] > 0 ? lat_sum_[k] / lat_count_[k] : 0);
    if (lat_count_[k] > 0) lat.push_back(e.mean_latency.back());
  }
  const Fit l = fit_line(lat);
  e.latency_slope = l.slope;
  e.latency_slope_t = l.se > 0 ? l.slope / l.se : 0;
  for (double v : lat) e.latency_mean += v / static_cast<double>(lat.size());
  return e;
}

bool SaturationDetector::saturated(const SaturationEvidence& e, double offered, double min_growth, const char* unit,
                                   std::string* reason) {
  if (e.backlog.size() < 2) return false;
  const double end_to_end = e.backlog.back() - e.backlog.front();
  const double floor = std::max(min_growth, 0.005 * offered);
  const bool trend = e.queue_growth > floor && (e.queue_growth_t >= 3 || e.queue_growth_t == 0);
  const bool jump = end_to_end > std::max(min_growth, 0.02 * offered);
  const bool climbing = e.latency_slope_t >= 3 &&
                        e.latency_slope * static_cast<double>(e.windows) > 0.25 * e.latency_mean;
  if (!trend && !jump && !climbing) return false;
  if (reason) {
    char buf[400];
    if (trend || jump)
      std::snprintf(buf, sizeof buf,
                    "backlog grew by %.0f %s over the window (trend %.0f over %d sample windows, %.1f standard errors; "
                    "offered %.0f)",
                    end_to_end, unit, e.queue_growth, e.windows, e.queue_growth_t, offered);
    else
      std::snprintf(buf, sizeof buf,
                    "latency climbed by %.0f cycles over %d sample windows (%.1f standard errors; mean %.0f cycles)",
                    e.latency_slope * static_cast<double>(e.windows), e.windows, e.latency_slope_t, e.latency_mean);
    *reason = buf;
  }
  return true;
}

}  // namespace upswitch::traffic
