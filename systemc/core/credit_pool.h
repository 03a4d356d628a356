// A sender's credits for one receiver buffer: `reserved` credits per class (VC) plus a shared
// pool. A flit takes a reserved credit when its class has one, else a shared one, and records
// which; the receiver returns the same kind (UALink TL/UPLI pool/VC credits, facts §1.7).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace upswitch::core {

class CreditPool {
 public:
  CreditPool() = default;
  CreditPool(int classes, uint32_t reserved, uint32_t shared) { reset(classes, reserved, shared); }

  void reset(int classes, uint32_t reserved, uint32_t shared) {
    reserved_max_ = reserved;
    shared_max_ = shared;
    reserved_.assign(classes, reserved);
    shared_ = shared;
  }
  bool can_take(int cls) const { return reserved_[cls] > 0 || shared_ > 0; }
  // Takes one credit; returns true when it came from the shared pool.
  bool take(int cls) {
    if (reserved_[cls] > 0) {
      --reserved_[cls];
      return false;
    }
    if (shared_ == 0) throw std::logic_error("CreditPool: credit underflow");
    --shared_;
    return true;
  }
  void give(int cls, bool shared) {
    if (shared) {
      if (shared_ >= shared_max_) throw std::logic_error("CreditPool: shared credit overflow");
      ++shared_;
    } else {
      if (reserved_[cls] >= reserved_max_) throw std::logic_error("CreditPool: credit overflow");
      ++reserved_[cls];
    }
  }
  uint32_t reserved(int cls) const { return reserved_[cls]; }
  uint32_t shared() const { return shared_; }
  int classes() const { return static_cast<int>(reserved_.size()); }
  uint64_t total() const {
    uint64_t t = shared_;
    for (uint32_t r : reserved_) t += r;
    return t;
  }
  uint64_t capacity() const { return uint64_t{reserved_max_} * reserved_.size() + shared_max_; }

 private:
  std::vector<uint32_t> reserved_;
  uint32_t shared_ = 0;
  uint32_t reserved_max_ = 0;
  uint32_t shared_max_ = 0;
};

}  // namespace upswitch::core
