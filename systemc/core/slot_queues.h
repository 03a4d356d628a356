// An input buffer: a fixed array of flit slots shared by any number of FIFO queues, each a
// linked list through the slots. One structure serves `fifo` (1 queue), `vc` (one per VC) and
// `voq` (one per output and VC) queueing; nothing is allocated after construction. Each queue
// also keeps, in one byte beside its head, the command credits its front flit needs (its messages
// if it is a head flit, else 0), so the allocator can test them without touching the flit slots.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "core/flit.h"

namespace upswitch::core {

class SlotQueues {
 public:
  SlotQueues() = default;
  SlotQueues(int queues, int slots) { reset(queues, slots); }

  void reset(int queues, int slots) {
    flits_.assign(slots, Flit{});
    next_.assign(slots, -1);
    head_.assign(queues, -1);
    tail_.assign(queues, -1);
    need_.assign(queues, 0);
    free_ = slots ? 0 : -1;
    for (int s = 0; s < slots; ++s) next_[s] = s + 1 < slots ? s + 1 : -1;
    used_ = 0;
  }
  bool empty(int q) const { return head_[q] < 0; }
  const Flit& front(int q) const { return flits_[head_[q]]; }
  // Command credits the front flit needs: its messages if it is a head flit; 0 if none or empty.
  uint8_t front_need(int q) const { return need_[q]; }
  int used() const { return used_; }
  int capacity() const { return static_cast<int>(flits_.size()); }

  void push(int q, const Flit& f) {
    if (free_ < 0) throw std::logic_error("SlotQueues: buffer overflow (credit protocol broken)");
    const int s = free_;
    free_ = next_[s];
    flits_[s] = f;
    next_[s] = -1;
    if (tail_[q] >= 0) {
      next_[tail_[q]] = s;
    } else {
      head_[q] = s;
      need_[q] = need_of(f);
    }
    tail_[q] = s;
    ++used_;
  }
  Flit pop(int q) {
    const int s = head_[q];
    head_[q] = next_[s];
    if (head_[q] < 0)
      tail_[q] = -1;
    need_[q] = head_[q] < 0 ? 0 : need_of(flits_[head_[q]]);
    next_[s] = free_;
    free_ = s;
    --used_;
    return flits_[s];
  }

 private:
  static uint8_t need_of(const Flit& f) { return f.head() ? f.msgs : 0; }

  std::vector<Flit> flits_;
  std::vector<uint8_t> need_;
  std::vector<int> next_, head_, tail_;
  int free_ = -1;
  int used_ = 0;
};

}  // namespace upswitch::core
