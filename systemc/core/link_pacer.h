// The transmit rate of a link slower than the core clock (e.g. a 98.1 GB/s UALink x4 port on a
// 102.4 GB/s-per-cycle core): a token bucket in 32.32 fixed point. Each cycle adds `rate`
// flits of tokens, a flit needs one token, and the bucket holds 1 + rate tokens, so a
// backlogged sender gets exactly `rate` flits per cycle on average and a sender back from idle
// may run at one flit per cycle until about one flit ahead (the serializer's rate-matching slack).
// Integer arithmetic only, so every platform paces identically. rate >= 1: no pacing.
#pragma once

#include <algorithm>
#include <cstdint>

namespace upswitch::core {

class LinkPacer {
 public:
  static constexpr uint64_t kOne = uint64_t{1} << 32;

  LinkPacer() = default;
  explicit LinkPacer(double flits_per_cycle) {
    if (flits_per_cycle > 0 && flits_per_cycle < 1.0) {
      rate_ = static_cast<uint64_t>(flits_per_cycle * static_cast<double>(kOne));
      cap_ = kOne + rate_;
      tokens_ = cap_;
      full_after_ = cap_ / rate_;
    }
  }
  bool paced() const { return rate_ != 0; }
  // Whether a flit may start in cycle `t` (cycles must not go backwards).
  bool ready(uint64_t t) {
    if (!rate_) return true;
    refill(t);
    return tokens_ >= kOne;
  }
  // Starts a flit in cycle `t`; call only after ready(t).
  void take(uint64_t t) {
    if (!rate_) return;
    refill(t);
    tokens_ -= kOne;
  }
  // The first cycle at or after `t` at which ready() holds, with no take in between; call after
  // ready(t) or take(t) (a refill splits into steps without changing the result, so this is
  // exactly where polling ready() every cycle would first say yes).
  uint64_t next_ready(uint64_t t) const {
    if (!rate_ || tokens_ >= kOne) return t;
    return t + (kOne - tokens_ + rate_ - 1) / rate_;
  }
  double flits_per_cycle() const { return rate_ ? static_cast<double>(rate_) / static_cast<double>(kOne) : 1.0; }

 private:
  void refill(uint64_t t) {
    if (t <= last_) return;
    const uint64_t dt = t - last_;
    last_ = t;
    // dt * rate_ cannot overflow below this bound, and at or above it the bucket is full anyway.
    tokens_ = dt > full_after_ ? cap_ : std::min(cap_, tokens_ + dt * rate_);
  }
  uint64_t rate_ = 0, cap_ = 0, tokens_ = 0, last_ = 0;
  uint64_t full_after_ = 0;  // cap_ / rate_, kept so that a refill (every send) does not divide
};

}  // namespace upswitch::core
