// Histogram percentiles against exact order statistics of the same samples.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "stats/histogram.h"
#include "traffic/rng.h"

namespace upswitch::stats {
namespace {

uint64_t exact_percentile(std::vector<uint64_t> v, double q) {
  std::sort(v.begin(), v.end());
  const size_t rank = std::max<size_t>(1, static_cast<size_t>(std::ceil(q * static_cast<double>(v.size()))));
  return v[rank - 1];
}

TEST(Histogram, ExactBelow512AndWithinResolutionAbove) {
  traffic::Rng rng(1, 2);
  for (uint64_t scale : {100ull, 500ull, 5000ull, 10000000ull}) {
    Histogram h;
    std::vector<uint64_t> v;
    uint64_t sum = 0;
    for (int k = 0; k < 20000; ++k) {
      const uint64_t x = static_cast<uint64_t>(-std::log(rng.unit_open0()) * static_cast<double>(scale));
      h.add(x);
      v.push_back(x);
      sum += x;
    }
    EXPECT_DOUBLE_EQ(h.mean(), static_cast<double>(sum) / 20000.0);
    EXPECT_EQ(h.max(), *std::max_element(v.begin(), v.end()));
    for (double q : {0.0, 0.5, 0.9, 0.99, 0.999, 1.0}) {
      const uint64_t want = exact_percentile(v, q), got = h.percentile(q);
      if (want < 512)
        EXPECT_EQ(got, want) << "q=" << q;
      else
        EXPECT_NEAR(static_cast<double>(got), static_cast<double>(want), static_cast<double>(want) / 256.0 + 1)
            << "q=" << q;
      EXPECT_LE(got, want);
    }
  }
}

TEST(Histogram, BucketEdgesRoundTrip) {
  for (uint64_t v : {0ull, 1ull, 511ull, 512ull, 513ull, 1023ull, 1024ull, 99999ull, (1ull << 40) + 12345})
    EXPECT_LE(Histogram::lower_edge(Histogram::index_of(v)), v);
  for (size_t i = 0; i < 5000; ++i) EXPECT_EQ(Histogram::index_of(Histogram::lower_edge(i)), i);
}

}  // namespace
}  // namespace upswitch::stats
