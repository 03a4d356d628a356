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

// Zeroes `words` words. Rows of up to 256 bits are a few stores: the compiler turns the plain
// loop into a call to memset, which for a 144-port switch's three words cost more than the stores.
inline void clear_words(uint64_t* row, int words) {
  if (words <= 2) {  // up to 128 ports: two stores
    if (words > 0) row[0] = 0;
    if (words == 2) row[1] = 0;
    return;
  }
  switch (words) {
    case 4: row[3] = 0; [[fallthrough]];
    case 3:
      row[2] = row[1] = row[0] = 0;
      return;
    default:
      for (int w = 0; w < words; ++w) row[w] = 0;
  }
}

inline bool any_bit(const uint64_t* row, int words) {
  for (int w = 0; w < words; ++w)
    if (row[w]) return true;
  return false;
}

// rr_find on rows of exactly W words (3 or 4: 129 to 256 ports, such as a 144-port switch with its
// reduction units): the masked words once, then the words from `start` on, then those before it,
// with no indexing by the start word, so the loops unroll into straight-line code.
template <int W>
inline int rr_find_words(const uint64_t* a, const uint64_t* mask, int bits, int start) {
  const int w0 = start >> 6;
  const uint64_t from = ~uint64_t{0} << (start & 63);
  uint64_t v[W];
  for (int w = 0; w < W; ++w) v[w] = mask ? a[w] & mask[w] : a[w];
  if (bits & 63) v[W - 1] &= (uint64_t{1} << (bits & 63)) - 1;  // valid bits of the last word
  for (int w = 0; w < W; ++w)
    if (const uint64_t x = v[w] & (w < w0 ? 0 : w == w0 ? from : ~uint64_t{0})) return (w << 6) + __builtin_ctzll(x);
  for (int w = 0; w < W; ++w)
    if (const uint64_t x = v[w] & (w < w0 ? ~uint64_t{0} : w == w0 ? ~from : 0)) return (w << 6) + __builtin_ctzll(x);
  return -1;
}

// rr_find on rows of more than four words, kept out of line so the short cases stay small enough
// to be inlined into the allocators.
__attribute__((noinline)) inline int rr_find_long(const uint64_t* a, const uint64_t* mask, int words, int bits,
                                                  int start) {
  // The start word from `start` on, the words after it, the words before it, then the start word
  // below `start`; each loop plain (no per-word tests of where it is).
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
  if (words == 3) return rr_find_words<3>(a, mask, bits, start);
  if (words == 4) return rr_find_words<4>(a, mask, bits, start);
  return rr_find_long(a, mask, words, bits, start);
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
    if (words_ <= 2) {  // up to 128 ports: two stores (rows are cleared only in matrices of 1+ bits)
      p[0] = 0;
      if (words_ == 2) p[1] = 0;
      return;
    }
    clear_words(p, words_);
  }
  int rows() const { return rows_; }
  int bits() const { return bits_; }
  int words() const { return words_; }

 private:
  int rows_ = 0, bits_ = 0, words_ = 0;
  std::vector<uint64_t> data_;
};

}  // namespace upswitch::core
