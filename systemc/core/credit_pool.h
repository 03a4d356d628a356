// A sender's credits for one receiver buffer: `reserved` credits per lane (VC) plus shared pools.
// A flit takes a reserved credit when its lane has one, else a credit of its lane's pool, and
// records which; the receiver returns the same kind (UALink TL/UPLI pool/VC credits, facts §1.7).
// With message classes (transactions: requests and responses) the lanes are grouped, class c
// owning lanes [c*L, (c+1)*L), and each class has its own pool, so one class can never take the
// buffer space another needs to make progress.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace upswitch::core {

class CreditPool {
 public:
  CreditPool() = default;
  CreditPool(int lanes, uint32_t reserved, uint32_t shared, int pools = 1) { reset(lanes, reserved, shared, pools); }

  // `shared` credits are split evenly over `pools` (the remainder goes to pool 0).
  void reset(int lanes, uint32_t reserved, uint32_t shared, int pools = 1) {
    if (pools < 1 || lanes % pools != 0) throw std::logic_error("CreditPool: lanes must divide into pools");
    reserved_max_ = reserved;
    reserved_.assign(lanes, reserved);
    lanes_per_pool_ = lanes / pools;
    shared_max_.assign(pools, shared / pools);
    shared_max_[0] += shared % pools;
    shared_ = shared_max_;
  }
  int pool_of(int lane) const { return shared_.size() == 1 ? 0 : lane / lanes_per_pool_; }
  bool can_take(int lane) const { return reserved_[lane] > 0 || shared_[pool_of(lane)] > 0; }
  // Takes one credit; returns true when it came from the shared pool.
  bool take(int lane) {
    if (reserved_[lane] > 0) {
      --reserved_[lane];
      return false;
    }
    uint32_t& pool = shared_[pool_of(lane)];
    if (pool == 0) throw std::logic_error("CreditPool: credit underflow");
    --pool;
    return true;
  }
  void give(int lane, bool shared) {
    if (shared) {
      const int k = pool_of(lane);
      if (shared_[k] >= shared_max_[k]) throw std::logic_error("CreditPool: shared credit overflow");
      ++shared_[k];
    } else {
      if (reserved_[lane] >= reserved_max_) throw std::logic_error("CreditPool: credit overflow");
      ++reserved_[lane];
    }
  }
  // Several credits at once (transaction-layer command credits: one per message header).
  uint32_t available(int lane) const { return reserved_[lane] + shared_[pool_of(lane)]; }
  // Takes n credits, reserved first; returns how many came from the shared pool.
  uint32_t take_n(int lane, uint32_t n) {
    if (available(lane) < n) throw std::logic_error("CreditPool: credit underflow");
    const uint32_t r = n < reserved_[lane] ? n : reserved_[lane];
    reserved_[lane] -= r;
    shared_[pool_of(lane)] -= n - r;
    return n - r;
  }
  void give_n(int lane, uint32_t reserved, uint32_t shared) {
    const int k = pool_of(lane);
    if (reserved_[lane] + reserved > reserved_max_ || shared_[k] + shared > shared_max_[k])
      throw std::logic_error("CreditPool: credit overflow");
    reserved_[lane] += reserved;
    shared_[k] += shared;
  }
  uint32_t reserved(int lane) const { return reserved_[lane]; }
  // Shared credits left in the pool that `lane` draws from.
  uint32_t shared_for(int lane) const { return shared_[pool_of(lane)]; }
  // Shared credits left in all pools.
  uint32_t shared() const {
    uint32_t s = 0;
    for (uint32_t v : shared_) s += v;
    return s;
  }
  int classes() const { return static_cast<int>(reserved_.size()); }
  int pools() const { return static_cast<int>(shared_.size()); }
  uint64_t total() const {
    uint64_t t = shared();
    for (uint32_t r : reserved_) t += r;
    return t;
  }
  uint64_t capacity() const {
    uint64_t c = uint64_t{reserved_max_} * reserved_.size();
    for (uint32_t m : shared_max_) c += m;
    return c;
  }

 private:
  std::vector<uint32_t> reserved_;
  std::vector<uint32_t> shared_ = {0};
  std::vector<uint32_t> shared_max_ = {0};
  uint32_t reserved_max_ = 0;
  int lanes_per_pool_ = 0;
};

}  // namespace upswitch::core
