// A fixed-latency pipe carrying at most `per_cycle` items per cycle (one unless a crossbar with
// speedup feeds it). Every push has the same latency, so items leave in push order: the pipe is
// a ring FIFO of (latency+1) * per_cycle entries, push/pop/next_due are O(1), and nothing is
// allocated after construction whatever the traffic. pop() returns one item per call. The due
// cycle of the oldest item is kept beside the count, so a receiver polling an occupied pipe every
// cycle reads the ring only when an item is due.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace upswitch::core {

template <class T>
class alignas(64) DelayLine {  // its fields fill one cache line
  // The due cycle's low 32 bits (latencies are below 2^32 cycles): with a 16 B flit an entry
  // takes 20 B, so a cache line holds three of a link's flits in flight.
  struct Entry {
    uint32_t due = 0;
    T item{};
  };

 public:
  explicit DelayLine(uint32_t latency = 1, uint32_t per_cycle = 1) { reset(latency, per_cycle); }

  // Empties the line (and ends holding: a Writer of the old ring must not be used again).
  void reset(uint32_t latency, uint32_t per_cycle = 1) {
    latency_ = latency;
    per_cycle_ = per_cycle;
    size_ = (latency + 1) * per_cycle;
    ring_.assign(size_, Entry{});
    head_ = 0;
    count_ = 0;
    head_due_ = UINT64_MAX;
    last_due_ = 0;
    at_last_due_ = 0;
  }
  uint32_t latency() const { return latency_; }
  uint32_t count() const { return count_; }
  bool empty() const { return count_ == 0; }
  // Empty once cycle `t` is over: an item due at `t` is consumed in that cycle by its receiver,
  // whether or not the receiver has run yet, so this answer does not depend on process order.
  // (Items due at one cycle ≤ t are all that is left.)
  bool empty_after(uint64_t t) const {
    return count_ == 0 || (head_due_ <= t && static_cast<uint32_t>(head_due_) == ring_[wrap(head_ + count_ - 1)].due);
  }

  // Item sent at cycle `now`; pop(now + latency) returns it.
  void push(uint64_t now, const T& item) {
    const uint64_t due = now + latency_;
    check_due(due, last_due_, at_last_due_, per_cycle_);
    // Full only when the receiver let an item pass its due cycle (a model defect): stop here
    // rather than write over an item in flight.
    if (count_ == size_) throw std::logic_error("DelayLine: full, an item was not received at its due cycle");
    ++at_last_due_;
    const uint32_t tail = wrap(head_ + count_);
    prefetch<1>(ring_.data(), size_, tail);
    Entry& e = ring_[tail];  // written in place: no temporary Entry to copy
    e.due = static_cast<uint32_t>(due);
    e.item = item;
    if (count_++ == 0) head_due_ = due;
  }

  // The item due exactly at `now`, if any.
  bool pop(uint64_t now, T& out) {
    if (head_due_ != now) return false;  // also when empty (UINT64_MAX)
    out = ring_[head_].item;
    head_ = wrap(head_ + 1);
    prefetch<0>(ring_.data(), size_, head_);
    // The next item is due in [now, now + latency]: its cycle's low 32 bits give the whole.
    head_due_ = --count_ ? now + static_cast<uint32_t>(ring_[head_].due - static_cast<uint32_t>(now)) : UINT64_MAX;
    return true;
  }

  // The oldest item in flight, due or not (nullptr when empty): for a receiver's prefetch hints.
  const T* front() const { return count_ ? &ring_[head_].item : nullptr; }

  // Earliest due cycle among the items in flight; UINT64_MAX when empty.
  uint64_t next_due() const { return head_due_; }
  // Due cycle of the newest item ever pushed (0 before the first).
  uint64_t last_due() const { return last_due_; }

  // Holding (parallel runs, Link::set_deferred): the sender and the receiver run on two threads
  // in the same window, no longer than the latency, so nothing sent in a window is due inside it.
  // The sender writes its items into the ring in place through a Writer kept on its side (its own
  // cache line: it reads and writes nothing of the line's own fields), and the items stay unseen
  // by the receiver until publish(), run between windows (after both threads stopped). Items
  // visible at a window's start are due within `latency` cycles of it and those written in the
  // window within `latency` cycles after, so a held line's ring has room for 2 x latency + 1
  // cycles of items.
  struct Writer {
    Entry* ring = nullptr;
    uint64_t last_due = 0;  // as the line's last_due_ and at_last_due_, the sender's copies
    uint32_t at_last_due = 0;
    uint32_t size = 0, latency = 0, per_cycle = 0;
    uint32_t tail = 0;  // the ring index of the next item
    uint32_t held = 0;  // items written since the last publish()
    uint32_t room = 0;  // items it may write before the next publish()
    uint64_t first_due = 0;  // the due cycle of the first of them (publish() need not read the ring)
  };
  // Starts (or ends) holding: the ring grows to 2 x latency + 1 cycles of items (or back),
  // keeping the items in flight. Not while a Writer holds unpublished items.
  void hold(bool on) {
    const uint32_t size = (on ? 2 * latency_ + 1 : latency_ + 1) * per_cycle_;
    if (size == size_) return;
    if (count_ > size) throw std::logic_error("DelayLine: more items in flight than an unheld line carries");
    std::vector<Entry> ring(size);
    for (uint32_t k = 0; k < count_; ++k) ring[k] = ring_[wrap(head_ + k)];
    ring_.swap(ring);
    size_ = size;
    head_ = 0;
  }
  // The sender's Writer, at the start of holding or after a publish(): where the next item goes.
  Writer writer() {
    return Writer{ring_.data(), last_due_, at_last_due_, size_, latency_, per_cycle_, wrap(head_ + count_), 0,
                  size_ - count_, 0};
  }
  // The sender's push while holding: as push(), into the ring beyond the visible items.
  static void push_held(Writer& w, uint64_t now, const T& item) {
    const uint64_t due = now + w.latency;
    check_due(due, w.last_due, w.at_last_due, w.per_cycle);
    if (w.held == w.room) throw std::logic_error("DelayLine: held items overflow the ring (a window longer than the line?)");
    ++w.at_last_due;
    if (w.held == 0) w.first_due = due;
    prefetch<1>(w.ring, w.size, w.tail);
    Entry& e = w.ring[w.tail];
    e.due = static_cast<uint32_t>(due);
    e.item = item;
    w.tail = w.tail + 1 == w.size ? 0 : w.tail + 1;
    ++w.held;
  }
  // Between windows, on the receiver's thread: the items the Writer holds become visible (as if
  // pushed now); returns the first one's due cycle, UINT64_MAX if none.
  uint64_t publish(Writer& w) {
    if (!w.held) return UINT64_MAX;
    const uint64_t due = w.first_due;
    if (count_ == 0) head_due_ = due;
    count_ += w.held;
    last_due_ = w.last_due;
    at_last_due_ = w.at_last_due;
    w.held = 0;
    w.room = size_ - count_;
    return due;
  }

 private:
  // Both pushes' rule: items come in due order, at most `per_cycle` of them with one due cycle
  // (`last_due` and `at_last_due`, the newest due cycle and the items pushed with it, move on to
  // `due`; the caller counts the item once it is written).
  static void check_due(uint64_t due, uint64_t& last_due, uint32_t& at_last_due, uint32_t per_cycle) {
    if (due != last_due) {
      if (due < last_due) throw std::logic_error("DelayLine: an item pushed into the past");
      last_due = due;
      at_last_due = 0;
    }
    if (at_last_due == per_cycle) throw std::logic_error("DelayLine: more items in one cycle than it carries");
  }

  // A ring is read and written in order, one entry per item, each written about `latency` cycles
  // before it is read: by then a network's other switches and endpoints have pushed it out of the
  // cache. So each pop and push asks for the entry a cache line ahead (a hint; no effect on what
  // the line holds).
  static constexpr uint32_t kAhead = (64 + sizeof(Entry) - 1) / sizeof(Entry);
  template <int Write>
  static void prefetch(const Entry* ring, uint32_t size, uint32_t i) {
    if (size <= kAhead) return;
    i += kAhead;
    __builtin_prefetch(ring + (i >= size ? i - size : i), Write);
  }

  // Index arithmetic without a division: arguments are below 2 * size_.
  uint32_t wrap(uint32_t i) const { return i >= size_ ? i - size_ : i; }

  std::vector<Entry> ring_;
  uint64_t head_due_ = UINT64_MAX;  // due cycle of the oldest item; UINT64_MAX when empty
  uint64_t last_due_ = 0;           // due cycle of the newest push
  uint32_t head_ = 0;
  uint32_t count_ = 0;
  uint32_t size_ = 2;
  uint32_t latency_ = 1;
  uint32_t per_cycle_ = 1;
  uint32_t at_last_due_ = 0;  // items pushed with that due cycle
};

}  // namespace upswitch::core
