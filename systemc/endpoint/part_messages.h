// The accelerator endpoints' messages, in one pool per part (a set of endpoints one thread runs,
// top/parallel_run.h). A handle carries its pool in its top bits, so any part reads any message;
// only the part that acquired a message releases it (its owner: an initiator's request and its
// response, an engine unit's member request and its response), so each pool's free list has one
// thread. Each pool's table of blocks is reserved, so a pool growing never moves what another
// thread reads.
#pragma once

#include <cstdint>
#include <vector>

#include "tl/message.h"

namespace upswitch::endpoint {

class PartMessages {
 public:
  static constexpr int kShift = 24;  // messages per part: 2^24
  static constexpr uint32_t kIndex = (uint32_t{1} << kShift) - 1;
  static constexpr int kMaxParts = 64;

  PartMessages() { set_parts(1); }
  // Parts 0 .. n-1 (more only; part 0's messages stay where they are).
  void set_parts(int n) {
    const size_t before = pools_.size();
    pools_.resize(static_cast<size_t>(n));
    for (size_t k = before; k < pools_.size(); ++k) pools_[k].reserve(size_t{1} << kShift);
  }
  uint32_t acquire(int part) { return (static_cast<uint32_t>(part) << kShift) | pools_[static_cast<size_t>(part)].acquire(); }
  void release(uint32_t h) { pools_[h >> kShift].release(h & kIndex); }
  tl::Message& operator[](uint32_t h) { return pools_[h >> kShift][h & kIndex]; }
  const tl::Message& operator[](uint32_t h) const { return pools_[h >> kShift][h & kIndex]; }
  size_t in_use() const {
    size_t n = 0;
    for (const tl::MessagePool& p : pools_) n += p.in_use();
    return n;
  }

 private:
  std::vector<tl::MessagePool> pools_;
};

}  // namespace upswitch::endpoint
