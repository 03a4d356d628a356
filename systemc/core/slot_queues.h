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
    slots_.assign(static_cast<size_t>(slots), Slot{});
    queues_.assign(static_cast<size_t>(queues), Queue{});
    free_ = slots ? 0 : -1;
    for (int s = 0; s < slots; ++s) slots_[static_cast<size_t>(s)].next = s + 1 < slots ? s + 1 : -1;
    used_ = 0;
  }
  bool empty(int q) const { return queues_[static_cast<size_t>(q)].head < 0; }
  const Flit& front(int q) const { return slots_[static_cast<size_t>(queues_[static_cast<size_t>(q)].head)].flit; }
  // Command credits the front flit needs: its messages if it is a head flit; 0 if none or empty.
  uint8_t front_need(int q) const { return queues_[static_cast<size_t>(q)].need; }
  // Command credits a flit at the front of a queue needs: its messages if it is a head flit.
  static uint8_t need_of(const Flit& f) { return f.head() ? f.msgs : 0; }
  int used() const { return used_; }
  int capacity() const { return static_cast<int>(slots_.size()); }

  void push(int q, const Flit& f) {
    if (free_ < 0) throw std::logic_error("SlotQueues: buffer overflow (credit protocol broken)");
    const int s = free_;
    Slot& slot = slots_[static_cast<size_t>(s)];
    free_ = slot.next;
    slot.flit = f;
    slot.next = -1;
    Queue& qu = queues_[static_cast<size_t>(q)];
    if (qu.tail >= 0) {
      slots_[static_cast<size_t>(qu.tail)].next = s;
    } else {
      qu.head = s;
      qu.need = need_of(f);
    }
    qu.tail = s;
    ++used_;
  }
  Flit pop(int q) {
    Queue& qu = queues_[static_cast<size_t>(q)];
    const int s = qu.head;
    Slot& slot = slots_[static_cast<size_t>(s)];
    qu.head = slot.next;
    if (qu.head < 0) {
      qu.tail = -1;
      qu.need = 0;
    } else {
      qu.need = need_of(slots_[static_cast<size_t>(qu.head)].flit);
    }
    slot.next = free_;
    free_ = s;
    --used_;
    return slot.flit;
  }

 private:

  // A slot's flit beside its link, and a queue's ends beside its front flit's need, so a push or
  // a pop touches few cache lines (the switches of a network together exceed the caches).
  struct Slot {
    Flit flit;
    int next = -1;
  };
  struct Queue {
    int head = -1, tail = -1;
    uint8_t need = 0;
  };
  std::vector<Slot> slots_;
  std::vector<Queue> queues_;
  int free_ = -1;
  int used_ = 0;
};

}  // namespace upswitch::core
