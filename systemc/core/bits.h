// Bit-parallel helpers over rows of 64-bit words: the allocators and the request matrix use
// them so that a 72-port decision costs a few word operations, not a loop over ports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace upswitch::core {

inline int words_for(int bits) { return (bits + 63) / 64; }

// A well-spread 64-bit hash of `x` (splitmix64's step and finaliser): flow hashes for multipath
// and port selection.
inline uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

inline bool test_bit(const uint64_t* row, int b) { return (row[b >> 6] >> (b & 63)) & 1U; }
inline void set_bit(uint64_t* row, int b) { row[b >> 6] |= uint64_t{1} << (b & 63); }
inline void clear_bit(uint64_t* row, int b) { row[b >> 6] &= ~(uint64_t{1} << (b & 63)); }

inline bool any_bit(const uint64_t* row, int words) {
  for (int w = 0; w < words; ++w)
    if (row[w]) return true;
  return false;
}

// First set bit of (a & mask) at or after `start`, cyclically over `bits` bits; -1 if none.
// `mask` may be null (then a alone). This is a round-robin arbiter in a few instructions.
inline int rr_find(const uint64_t* a, const uint64_t* mask, int words, int bits, int start) {
  if (words <= 2) {  // up to 128 ports: straight-line code (the same answer as the loop below)
    const uint64_t top = (bits & 63) ? (uint64_t{1} << (bits & 63)) - 1 : ~uint64_t{0};  // valid bits of the last word
    const uint64_t from = ~uint64_t{0} << (start & 63);
    uint64_t v0 = mask ? a[0] & mask[0] : a[0];
    if (words == 1) {
      v0 &= top;
      const uint64_t after = v0 & from;
      return v0 ? __builtin_ctzll(after ? after : v0) : -1;
    }
    uint64_t v1 = (mask ? a[1] & mask[1] : a[1]) & top;
    if (start < 64) {
      if (const uint64_t after = v0 & from) return __builtin_ctzll(after);
      if (v1) return 64 + __builtin_ctzll(v1);
      return v0 ? __builtin_ctzll(v0) : -1;
    }
    if (const uint64_t after = v1 & from) return 64 + __builtin_ctzll(after);
    if (v0) return __builtin_ctzll(v0);
    return v1 ? 64 + __builtin_ctzll(v1) : -1;
  }
  // More words: the start word from `start` on, the words after it, the words before it, then
  // the start word below `start`; each loop plain (no per-word tests of where it is).
  const int w0 = start >> 6, last = words - 1;
  const uint64_t from = ~uint64_t{0} << (start & 63);
  const uint64_t top = (bits & 63) ? (uint64_t{1} << (bits & 63)) - 1 : ~uint64_t{0};  // valid bits of the last word
  auto raw = [&](int w) { return mask ? a[w] & mask[w] : a[w]; };
  const uint64_t first = w0 == last ? raw(w0) & top : raw(w0);
  if (const uint64_t v = first & from) return (w0 << 6) + __builtin_ctzll(v);
  for (int w = w0 + 1; w < last; ++w)
    if (const uint64_t v = raw(w)) return (w << 6) + __builtin_ctzll(v);
  if (w0 != last)
    if (const uint64_t v = raw(last) & top) return (last << 6) + __builtin_ctzll(v);
  for (int w = 0; w < w0; ++w)  // (all before the last word)
    if (const uint64_t v = raw(w)) return (w << 6) + __builtin_ctzll(v);
  if (const uint64_t v = first & ~from) return (w0 << 6) + __builtin_ctzll(v);
  return -1;
}

// A dense rows x bits matrix of bits, one row per requester.
class BitMatrix {
 public:
  BitMatrix() = default;
  BitMatrix(int rows, int bits) { resize(rows, bits); }
  void resize(int rows, int bits) {
    rows_ = rows;
    bits_ = bits;
    words_ = words_for(bits);
    data_.assign(static_cast<size_t>(rows) * words_, 0);
  }
  uint64_t* row(int r) { return data_.data() + static_cast<size_t>(r) * words_; }
  const uint64_t* row(int r) const { return data_.data() + static_cast<size_t>(r) * words_; }
  void clear_row(int r) {
    uint64_t* p = row(r);
    if (words_ <= 2) {  // up to 128 ports: two stores, not a call to memset
      p[0] = 0;
      if (words_ == 2) p[1] = 0;
      return;
    }
    for (int w = 0; w < words_; ++w) p[w] = 0;
  }
  int rows() const { return rows_; }
  int bits() const { return bits_; }
  int words() const { return words_; }

 private:
  int rows_ = 0, bits_ = 0, words_ = 0;
  std::vector<uint64_t> data_;
};

}  // namespace upswitch::core
