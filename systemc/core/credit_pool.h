// A sender's credits for one receiver buffer: `reserved` credits per lane (VC) plus shared pools.
// A flit takes a reserved credit when its lane has one, else a credit of its lane's pool, and
// records which; the receiver returns the same kind (UALink TL/UPLI pool/VC credits, facts §1.7).
// With message classes (transactions: requests and responses) the lanes are grouped, class c
// owning lanes [c*L, (c+1)*L), and each class has its own pool, so one class can never take the
// buffer space another needs to make progress. The counters live inline (no heap), so a pool
// is a few cache lines that checking a credit touches at most once.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>

namespace upswitch::core {

class CreditPool {
 public:
  CreditPool() = default;
  CreditPool(int lanes, uint32_t reserved, uint32_t shared, int pools = 1) { reset(lanes, reserved, shared, pools); }

  // `shared` credits are split evenly over `pools` (the remainder goes to pool 0).
  static constexpr int kMaxLanes = 32, kMaxPools = 2;

  void reset(int lanes, uint32_t reserved, uint32_t shared, int pools = 1) {
    if (pools < 1 || pools > kMaxPools || lanes % pools != 0 || lanes > kMaxLanes)
      throw std::logic_error("CreditPool: lanes must divide into at most two pools, at most 32 lanes");
    lanes_ = lanes;
    pools_ = pools;
    reserved_max_ = reserved;
    reserved_.fill(0);
    for (int l = 0; l < lanes; ++l) reserved_[static_cast<size_t>(l)] = reserved;
    lanes_per_pool_ = lanes / pools;
    shared_max_.fill(0);
    for (int k = 0; k < pools; ++k) shared_max_[static_cast<size_t>(k)] = shared / static_cast<uint32_t>(pools);
    shared_max_[0] += shared % static_cast<uint32_t>(pools);
    shared_ = shared_max_;
  }
  int pool_of(int lane) const { return lane >= lanes_per_pool_ && pools_ > 1 ? 1 : 0; }
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
  // Takes one credit of the lane's pool (a sender that caps the pool per output spends pool
  // credits first, keeping the reserved ones for the flits the cap turns away).
  void take_shared(int lane) {
    uint32_t& pool = shared_[pool_of(lane)];
    if (pool == 0) throw std::logic_error("CreditPool: credit underflow");
    --pool;
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
  uint32_t shared() const { return shared_[0] + shared_[1]; }
  int classes() const { return lanes_; }
  int pools() const { return pools_; }
  uint64_t total() const {
    uint64_t t = shared();
    for (int l = 0; l < lanes_; ++l) t += reserved_[static_cast<size_t>(l)];
    return t;
  }
  uint64_t capacity() const { return uint64_t{reserved_max_} * static_cast<uint64_t>(lanes_) + shared_max_[0] + shared_max_[1]; }

 private:
  // What every take and give reads first, then the lanes' counters: with up to 10 lanes (4 VCs,
  // two message classes) one cache line holds all a take or a give touches.
  std::array<uint32_t, kMaxPools> shared_{};
  int lanes_per_pool_ = 1;
  int pools_ = 1;
  uint32_t reserved_max_ = 0;
  int lanes_ = 0;
  std::array<uint32_t, kMaxPools> shared_max_{};
  std::array<uint32_t, kMaxLanes> reserved_{};
};

}  // namespace upswitch::core
