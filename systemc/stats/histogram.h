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
  static constexpr int kLinearBits = 9;  // values below 512 get a bucket each
  static constexpr int kSubBits = 8;     // 256 buckets per octave above that

 public:
  void add(uint64_t v, uint64_t times);
  // One value: the path every delivered packet takes, inline (the same counts as add(v, 1)).
  void add(uint64_t v) {
    const size_t i = index_of(v);
    if (i >= counts_.size()) counts_.resize(i + 1, 0);
    ++counts_[i];
    ++count_;
    sum_ += v;
    if (v > max_) max_ = v;
    if (v < min_) min_ = v;
  }
  void merge(const Histogram& other);
  uint64_t count() const { return count_; }
  uint64_t max() const { return max_; }
  uint64_t min() const { return count_ ? min_ : 0; }
  double mean() const { return count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0.0; }
  // Smallest bucket value v with count(<= v) >= q * count(); 0 when empty. q in [0, 1].
  uint64_t percentile(double q) const;
  // (lower edge, count) of every non-empty bucket, ascending.
  std::vector<std::pair<uint64_t, uint64_t>> buckets() const;

  static size_t index_of(uint64_t v) {
    if (v < (uint64_t{1} << kLinearBits)) return static_cast<size_t>(v);
    const int e = 63 - __builtin_clzll(v);  // >= kLinearBits
    const uint64_t sub = (v >> (e - kSubBits)) & ((uint64_t{1} << kSubBits) - 1);
    return (size_t{1} << kLinearBits) + static_cast<size_t>(e - kLinearBits) * (size_t{1} << kSubBits) + sub;
  }
  static uint64_t lower_edge(size_t index);

 private:
  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  unsigned __int128 sum_ = 0;
  uint64_t max_ = 0;
  uint64_t min_ = UINT64_MAX;
};

}  // namespace upswitch::stats
