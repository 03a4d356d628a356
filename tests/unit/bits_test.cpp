// rr_find against a one-bit-at-a-time reference, over widths that cross word boundaries.
#include <gtest/gtest.h>

#include "core/bits.h"
#include "traffic/rng.h"

namespace upswitch::core {
namespace {

int reference_rr(const std::vector<bool>& a, const std::vector<bool>& m, int start) {
  const int n = static_cast<int>(a.size());
  for (int k = 0; k < n; ++k) {
    const int b = (start + k) % n;
    if (a[b] && m[b]) return b;
  }
  return -1;
}

TEST(Bits, RoundRobinFindMatchesReference) {
  traffic::Rng rng(7, 1);
  for (int n : {1, 2, 8, 63, 64, 65, 72, 128, 129, 144, 192, 200, 255, 256, 257, 1000, 1024}) {
    BitMatrix a(1, n), m(1, n);
    for (int trial = 0; trial < 300; ++trial) {
      std::vector<bool> ra(n), rm(n);
      a.clear_row(0);
      m.clear_row(0);
      const double density = (trial % 5) * 0.05;
      for (int b = 0; b < n; ++b) {
        ra[b] = rng.unit() < density;
        rm[b] = rng.unit() < 0.7;
        if (ra[b]) set_bit(a.row(0), b);
        if (rm[b]) set_bit(m.row(0), b);
      }
      // Bits past the width in the last word (a row written carelessly) are not found.
      if (trial % 7 == 0)
        for (int b = n; b < a.words() * 64; ++b) set_bit(a.row(0), b);
      const int start = static_cast<int>(rng.below(static_cast<uint32_t>(n)));
      EXPECT_EQ(rr_find(a.row(0), m.row(0), a.words(), n, start), reference_rr(ra, rm, start))
          << "n=" << n << " start=" << start;
      std::vector<bool> all(n, true);
      EXPECT_EQ(rr_find(a.row(0), nullptr, a.words(), n, start), reference_rr(ra, all, start));
    }
  }
}

TEST(Bits, ClearWordsZeroesExactlyItsWords) {
  for (int words = 0; words <= 6; ++words) {
    std::vector<uint64_t> row(8, ~uint64_t{0});
    clear_words(row.data(), words);
    for (int w = 0; w < 8; ++w) EXPECT_EQ(row[static_cast<size_t>(w)], w < words ? 0 : ~uint64_t{0}) << words << " " << w;
  }
}

}  // namespace
}  // namespace upswitch::core
