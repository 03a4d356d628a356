// A source's queue of packets waiting to be sent: a power-of-two ring that doubles when full,
// so memory grows only with the deepest backlog ever reached, never per packet.
#pragma once

#include <cstdint>
#include <vector>

namespace upswitch::traffic {

struct PacketDesc {
  uint64_t id = 0;
  uint64_t created = 0;
  uint32_t dst = 0;
  uint16_t size = 1;
  bool measured = false;
};

class PacketRing {
 public:
  // `capacity`: a power of two (per-destination queues start small: a source has one per endpoint).
  explicit PacketRing(size_t capacity = 16) : ring_(capacity) {}
  bool empty() const { return count_ == 0; }
  size_t size() const { return count_; }
  const PacketDesc& front() const { return ring_[head_]; }
  void push(const PacketDesc& p) {
    if (count_ == ring_.size()) grow();
    ring_[(head_ + count_) & (ring_.size() - 1)] = p;
    ++count_;
  }
  PacketDesc pop() {
    const PacketDesc p = ring_[head_];
    head_ = (head_ + 1) & (ring_.size() - 1);
    --count_;
    return p;
  }
  void clear() { head_ = count_ = 0; }

 private:
  void grow() {
    std::vector<PacketDesc> bigger(ring_.size() * 2);
    for (size_t k = 0; k < count_; ++k) bigger[k] = ring_[(head_ + k) & (ring_.size() - 1)];
    ring_.swap(bigger);
    head_ = 0;
  }
  std::vector<PacketDesc> ring_;
  size_t head_ = 0, count_ = 0;
};

}  // namespace upswitch::traffic
