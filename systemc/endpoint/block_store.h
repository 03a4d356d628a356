// Elements (a transmitter's packets) in blocks that never move, grown one at a time, with the
// table of blocks reserved up front: one thread may grow a store while another reads the
// elements it already holds (the accelerator endpoints split over threads, top/parallel_run.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace upswitch::endpoint {

template <class T>
class BlockStore {
 public:
  static constexpr size_t kBlock = 1024;
  explicit BlockStore(size_t max_elements) : limit_((max_elements + kBlock - 1) / kBlock) {
    blocks_.reserve(limit_);
  }
  // Moved only while no other thread looks (a table of stores growing): the blocks stay put.
  BlockStore(BlockStore&& o) noexcept
      : limit_(o.limit_), blocks_(std::move(o.blocks_)), size_(o.size_.load(std::memory_order_relaxed)) {}
  BlockStore& operator=(BlockStore&&) = delete;
  // A new element, value-initialised; its index.
  uint32_t grow() {
    const size_t n = size_.load(std::memory_order_relaxed);
    if (n % kBlock == 0) {
      if (blocks_.size() == limit_)
        throw std::length_error("BlockStore: more than " + std::to_string(limit_ * kBlock) + " elements");
      blocks_.push_back(std::make_unique<T[]>(kBlock));
    }
    size_.store(n + 1, std::memory_order_release);
    return static_cast<uint32_t>(n);
  }
  T& operator[](uint32_t i) { return blocks_[i / kBlock][i % kBlock]; }
  const T& operator[](uint32_t i) const { return blocks_[i / kBlock][i % kBlock]; }
  // Elements grown so far (another thread may read it: what it has been handed exists).
  size_t size() const { return size_.load(std::memory_order_acquire); }

 private:
  size_t limit_;
  std::vector<std::unique_ptr<T[]>> blocks_;
  std::atomic<size_t> size_{0};
};

}  // namespace upswitch::endpoint
