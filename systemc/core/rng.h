// Deterministic random numbers: xoshiro256** (Blackman & Vigna) seeded through splitmix64, with
// our own distributions, so that a run is the same on every platform and standard library
// (std:: distributions are implementation-defined). One stream per source keeps results
// independent of the order in which ports are processed.
#pragma once

#include <cmath>
#include <cstdint>

namespace upswitch::core {

inline uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

class Rng {
 public:
  Rng() : Rng(0, 0) {}
  // `stream` separates independent sequences drawn from one run seed.
  Rng(uint64_t seed, uint64_t stream) {
    uint64_t x = seed ^ (stream * 0xd1342543de82ef95ULL + 0x2545f4914f6cdd1dULL);
    for (uint64_t& w : s_) w = splitmix64(x);
  }
  uint64_t next() {
    const uint64_t r = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return r;
  }
  // Uniform in [0, n).
  uint32_t below(uint32_t n) {
    return static_cast<uint32_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
  }
  // Uniform in (0, 1].
  double unit_open0() { return (static_cast<double>(next() >> 11) + 1.0) * 0x1.0p-53; }
  // Uniform in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Failures before the first success of a Bernoulli(p) sequence, given log_q = log(1 - p)
  // (precomputed by the caller; 0 means p = 1).
  uint64_t geometric_log(double log_q) {
    if (log_q == 0.0) return 0;
    const double g = std::floor(std::log(unit_open0()) / log_q);
    return g > 1e18 ? uint64_t{1000000000000000000ULL} : static_cast<uint64_t>(g);
  }
  static double log_q(double p) { return p >= 1.0 ? 0.0 : std::log1p(-p); }
  // Failures before the first success, by one integer comparison per trial: cheaper than a
  // logarithm when successes are likely (p >= 1/4). `threshold` = p * 2^64.
  uint64_t geometric_trials(uint64_t threshold) {
    uint64_t g = 0;
    while (next() >= threshold) ++g;
    return g;
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace upswitch::core
