// A log-linear histogram of non-negative integers (cycles): exact below 512, then 256 buckets
// per power of two (0.4% resolution). Percentiles use the nearest-rank rule and report the
// lower edge of the bucket, so they are exact wherever the bucket holds one value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace upswitch::stats {

class Histogram {
 public:
  void add(uint64_t v, uint64_t times = 1);
  void merge(const Histogram& other);
  uint64_t count() const { return count_; }
  uint64_t max() const { return max_; }
  uint64_t min() const { return count_ ? min_ : 0; }
  double mean() const { return count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0.0; }
  // Smallest bucket value v with count(<= v) >= q * count(); 0 when empty. q in [0, 1].
  uint64_t percentile(double q) const;
  // (lower edge, count) of every non-empty bucket, ascending.
  std::vector<std::pair<uint64_t, uint64_t>> buckets() const;

  static size_t index_of(uint64_t v);
  static uint64_t lower_edge(size_t index);

 private:
  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  unsigned __int128 sum_ = 0;
  uint64_t max_ = 0;
  uint64_t min_ = UINT64_MAX;
};

}  // namespace upswitch::stats
