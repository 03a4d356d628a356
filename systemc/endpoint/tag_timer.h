// Completion-timeout deadlines of one initiator's tags (endpoint.completion_timeout_ns): an
// intrusive list over the tags in the order they were armed. Every request gets the same timeout
// and tags are issued in time order, so the list is sorted by deadline: arming appends, an answer
// unlinks its tag in O(1), and the earliest deadline is the head. Arrays of max_outstanding
// entries, allocated once.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace upswitch::endpoint {

class TagTimer {
 public:
  void reset(int tags) {
    next_.assign(static_cast<size_t>(tags), kNone);
    prev_.assign(static_cast<size_t>(tags), kNone);
    deadline_.assign(static_cast<size_t>(tags), 0);
    armed_.assign(static_cast<size_t>(tags), 0);
    head_ = tail_ = kNone;
  }
  void arm(uint16_t tag, uint64_t deadline) {
    if (armed_[tag]) throw std::logic_error("TagTimer: tag armed twice");
    if (tail_ != kNone && deadline < deadline_[tail_]) throw std::logic_error("TagTimer: deadlines out of order");
    armed_[tag] = 1;
    deadline_[tag] = deadline;
    prev_[tag] = tail_;
    next_[tag] = kNone;
    if (tail_ != kNone)
      next_[tail_] = tag;
    else
      head_ = tag;
    tail_ = tag;
  }
  // Unlinks `tag`; nothing when it is not armed.
  void disarm(uint16_t tag) {
    if (!armed_[tag]) return;
    armed_[tag] = 0;
    const uint32_t p = prev_[tag], n = next_[tag];
    if (p != kNone)
      next_[p] = n;
    else
      head_ = n;
    if (n != kNone)
      prev_[n] = p;
    else
      tail_ = p;
  }
  bool armed(uint16_t tag) const { return armed_[tag] != 0; }
  bool empty() const { return head_ == kNone; }
  uint16_t front() const { return static_cast<uint16_t>(head_); }
  // The earliest deadline; UINT64_MAX when no tag is armed.
  uint64_t next_deadline() const { return head_ == kNone ? UINT64_MAX : deadline_[head_]; }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  std::vector<uint32_t> next_, prev_;
  std::vector<uint64_t> deadline_;
  std::vector<uint8_t> armed_;
  uint32_t head_ = kNone, tail_ = kNone;
};

}  // namespace upswitch::endpoint
