#include "stats/histogram.h"

#include <algorithm>
#include <cmath>

namespace upswitch::stats {
uint64_t Histogram::lower_edge(size_t index) {
  if (index < (size_t{1} << kLinearBits)) return index;
  const size_t k = index - (size_t{1} << kLinearBits);
  const int e = static_cast<int>(k >> kSubBits) + kLinearBits;
  const uint64_t sub = k & ((size_t{1} << kSubBits) - 1);
  return (uint64_t{1} << e) | (sub << (e - kSubBits));
}

void Histogram::add(uint64_t v, uint64_t times) {
  const size_t i = index_of(v);
  if (i >= counts_.size()) counts_.resize(i + 1, 0);
  counts_[i] += times;
  count_ += times;
  sum_ += static_cast<unsigned __int128>(v) * times;
  max_ = std::max(max_, v);
  min_ = std::min(min_, v);
}

void Histogram::merge(const Histogram& o) {
  if (o.counts_.size() > counts_.size()) counts_.resize(o.counts_.size(), 0);
  for (size_t i = 0; i < o.counts_.size(); ++i) counts_[i] += o.counts_[i];
  count_ += o.count_;
  sum_ += o.sum_;
  max_ = std::max(max_, o.max_);
  min_ = std::min(min_, o.min_);
}

uint64_t Histogram::percentile(double q) const {
  if (count_ == 0) return 0;
  const uint64_t rank = std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_))));
  uint64_t seen = 0;
  for (size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank) return std::max(lower_edge(i), min_);
  }
  return max_;
}

std::vector<std::pair<uint64_t, uint64_t>> Histogram::buckets() const {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (size_t i = 0; i < counts_.size(); ++i)
    if (counts_[i]) out.emplace_back(lower_edge(i), counts_[i]);
  return out;
}

}  // namespace upswitch::stats
