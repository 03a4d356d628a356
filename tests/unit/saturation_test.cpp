// The saturation detector on hand-made sample streams: the least-squares trend and its standard
// error against values computed by hand, and the verdict's two criteria.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "traffic/saturation.h"

namespace upswitch::traffic {
namespace {

SaturationEvidence feed(const std::vector<double>& backlog) {
  SaturationDetector d(1000, 1000 + 100 * (backlog.size() - 1), static_cast<int>(backlog.size()) - 1);
  for (size_t k = 0; k < backlog.size(); ++k) {
    EXPECT_EQ(d.next_sample(), 1000 + 100 * k);
    d.sample(backlog[k]);
  }
  EXPECT_EQ(d.next_sample(), UINT64_MAX);
  return d.evidence();
}

TEST(Saturation, TrendAndStandardErrorByHand) {
  // y = 0, 2, 1, 3, 4 over x = 0..4: x mean 2, y mean 2, Sxx = 10, Sxy = 9, slope 0.9; the line
  // 0.2 + 0.9 x leaves residuals -0.2, 0.9, -1.0, 0.1, 0.2, RSS 1.9, se = sqrt(1.9 / 3 / 10).
  const SaturationEvidence e = feed({0, 2, 1, 3, 4});
  EXPECT_EQ(e.windows, 4);
  EXPECT_NEAR(e.queue_growth, 0.9 * 4, 1e-12);
  EXPECT_NEAR(e.queue_growth_t, 0.9 / std::sqrt(1.9 / 30.0), 1e-9);
}

TEST(Saturation, VerdictNeedsASignificantAndLargeTrend) {
  std::string why;
  // Steady linear growth of 1% of the offered load: saturated (the old 2% rule missed it).
  std::vector<double> up;
  for (int k = 0; k <= 10; ++k) up.push_back(1000 + 100.0 * k + (k % 2 ? 30 : -30));
  EXPECT_TRUE(SaturationDetector::saturated(feed(up), 100000, 50, "flits", &why));
  EXPECT_NE(why.find("backlog grew by"), std::string::npos) << why;
  // The same growth below 0.5% of the offered load: not saturated.
  EXPECT_FALSE(SaturationDetector::saturated(feed(up), 400000, 50, "flits", nullptr));
  // Large but not significant: one burst in the middle, back to where it started.
  EXPECT_FALSE(SaturationDetector::saturated(feed({500, 520, 480, 3000, 5000, 2500, 510, 490, 505, 500, 495}), 100000,
                                             50, "flits", nullptr));
  // A jump of more than 2% of the offered load between the first and the last sample counts on
  // its own (a queue that only grows at the very end).
  EXPECT_TRUE(SaturationDetector::saturated(feed({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2500}), 100000, 50, "flits", nullptr));
  // Below the per-port floor: never.
  EXPECT_FALSE(SaturationDetector::saturated(feed(up), 100000, 5000, "flits", nullptr));
}

// A queue that grows behind the sources: the backlog stays flat, the latency of what is delivered
// climbs part after part. Saturated when the climb is significant and over a quarter of the mean.
TEST(Saturation, ClimbingLatencyAloneIsSaturation) {
  auto run = [](double step) {
    SaturationDetector d(0, 1000, 10);
    for (int k = 0; k <= 10; ++k) d.sample(100);
    for (uint64_t t = 0; t < 1000; t += 5) d.delivered(t, 300 + static_cast<uint64_t>(step * (t / 100)) + t % 7);
    return d.evidence();
  };
  std::string why;
  EXPECT_TRUE(SaturationDetector::saturated(run(40), 1e6, 50, "bytes", &why));  // 300 -> 660 cycles
  EXPECT_NE(why.find("latency climbed"), std::string::npos) << why;
  EXPECT_FALSE(SaturationDetector::saturated(run(2), 1e6, 50, "bytes", nullptr));  // +18 cycles: too small
}

TEST(Saturation, LatencyTrendPerWindow) {
  SaturationDetector d(0, 1000, 4);
  for (uint64_t t = 0; t < 1000; t += 10) d.delivered(t, 100 + t / 250 * 20);  // 100, 120, 140, 160 per part
  d.delivered(1000, 5000);  // after the window: not counted
  for (int k = 0; k <= 4; ++k) d.sample(0);
  const SaturationEvidence e = d.evidence();
  ASSERT_EQ(e.mean_latency.size(), 4u);
  EXPECT_DOUBLE_EQ(e.mean_latency[3], 160);
  EXPECT_NEAR(e.latency_slope, 20, 1e-9);
}

}  // namespace
}  // namespace upswitch::traffic
