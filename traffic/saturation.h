// Saturation judged over consecutive sample windows (issue "fidelity under real packets"), as
// BookSim's convergence test judges over sample periods: the measurement window is cut into
// `windows` equal parts; the sources' backlog is sampled at every boundary and the latency of
// what is delivered in each part is averaged. A run is saturated when
//  - the backlog grows by a least-squares trend that is both significant (the slope at least 3
//    standard errors above zero) and large (over 0.5% of the offered load over the window, and
//    more than a few packets per port); or
//  - the backlog grew by more than 2% of the offered load from the first sample to the last (the
//    rule before); or
//  - the latency of what is delivered climbs by a significant trend (3 standard errors) adding up
//    to more than a quarter of its mean over the window: the queue then grows behind the sources
//    (a transaction's completer queue), where the backlog does not see it.
// A growing queue has no steady state: a run just past the knee (offered 1% above what the switch
// accepts) grows its backlog by about 1% of the offered load, which the single end-to-end
// comparison against 2% missed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace upswitch::traffic {

struct SaturationEvidence {
  int windows = 0;
  double queue_growth = 0;    // backlog trend x window length (least squares over the samples)
  double queue_growth_t = 0;  // that slope over its standard error (0 when the samples lie exactly on a line)
  double latency_slope = 0;   // mean packet latency per part: least-squares slope, cycles per part
  double latency_slope_t = 0; // that slope over its standard error
  double latency_mean = 0;    // mean of the parts' mean latencies, cycles
  std::vector<double> backlog;       // the samples, windows + 1 of them
  std::vector<double> mean_latency;  // per part (0 when no packet was delivered in it)
};

class SaturationDetector {
 public:
  SaturationDetector() = default;
  SaturationDetector(uint64_t begin, uint64_t end, int windows);

  // The next cycle at which sample() wants the backlog (UINT64_MAX after the last one).
  uint64_t next_sample() const { return next_ < samples_.size() ? at(next_) : UINT64_MAX; }
  // The backlog at the first simulated cycle at or after next_sample() (it cannot change in the
  // cycles skipped while idle).
  void sample(double backlog);
  // A measured packet delivered at cycle t with this latency.
  void delivered(uint64_t t, uint64_t latency);

  SaturationEvidence evidence() const;
  // The verdict from the evidence (backlog and offered in `unit`s: flits, bytes); `reason` says
  // why when saturated.
  static bool saturated(const SaturationEvidence& e, double offered, double min_growth, const char* unit,
                        std::string* reason);

 private:
  uint64_t at(size_t k) const { return begin_ + (end_ - begin_) * k / (samples_.size() - 1); }
  uint64_t begin_ = 0, end_ = 0;
  std::vector<double> samples_;
  size_t next_ = 0;
  std::vector<double> lat_sum_, lat_count_;
};

}  // namespace upswitch::traffic
