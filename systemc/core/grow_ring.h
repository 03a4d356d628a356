// A FIFO ring indexed by absolute position (a 64-bit count that never wraps), for queues whose
// bound is set by the traffic (credits) rather than known at construction: it doubles when full,
// so it allocates only while it grows to the largest occupancy a run reaches, never per item in
// steady state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace upswitch::core {

template <class T>
class GrowRing {
 public:
  explicit GrowRing(uint32_t capacity = 16) : items_(round_up(capacity)) {}

  uint64_t begin() const { return begin_; }  // absolute index of the oldest item
  uint64_t end() const { return end_; }      // absolute index one past the newest
  uint64_t size() const { return end_ - begin_; }
  bool empty() const { return end_ == begin_; }

  T& at(uint64_t i) { return items_[i & (items_.size() - 1)]; }
  const T& at(uint64_t i) const { return items_[i & (items_.size() - 1)]; }
  T& front() { return at(begin_); }
  const T& front() const { return at(begin_); }

  void push_back(const T& v) {
    if (size() == items_.size()) grow();
    at(end_++) = v;
  }
  void pop_front() { ++begin_; }

 private:
  static std::size_t round_up(uint32_t n) {
    std::size_t c = 1;
    while (c < n) c <<= 1;
    return c;
  }
  void grow() {
    std::vector<T> bigger(items_.size() * 2);
    for (uint64_t i = begin_; i != end_; ++i) bigger[i & (bigger.size() - 1)] = at(i);
    items_.swap(bigger);
  }
  std::vector<T> items_;
  uint64_t begin_ = 0, end_ = 0;
};

}  // namespace upswitch::core
