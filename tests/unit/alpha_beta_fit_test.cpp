// The α-β fit (top/alpha_beta_fit.h) against points generated from a known α and β: exact points
// give them back, noisy points give them back within the noise and fit no worse than the truth,
// and the two constrained cases (no growth with size, a negative intercept) give the constrained
// optimum worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "top/alpha_beta_fit.h"

namespace upswitch::testing {
namespace {

using top::SizeTime;

// sum(((fit - time) / time)^2): the objective the fit minimises.
double rel_sq(const std::vector<SizeTime>& pts, double alpha, double per_byte) {
  double s = 0;
  for (const SizeTime& p : pts) {
    const double e = (alpha + per_byte * p.bytes - p.time) / p.time;
    s += e * e;
  }
  return s;
}

TEST(AlphaBetaFit, RecoversAKnownAlphaAndBetaFromExactPoints) {
  const double alpha = 2.5, beta = 50'000.0;  // us and bytes per us: 2.5 us, 50 GB/s
  std::vector<SizeTime> pts;
  for (double b = 65536; b <= 64.0 * 1048576; b *= 4) pts.push_back({b, alpha + b / beta});
  const auto f = top::fit_alpha_beta(pts);
  ASSERT_TRUE(f && f->beta && f->r2);
  EXPECT_NEAR(f->alpha, alpha, 1e-9 * alpha);
  EXPECT_NEAR(*f->beta, beta, 1e-9 * beta);
  EXPECT_NEAR(*f->r2, 1.0, 1e-12);
  EXPECT_LT(f->max_rel_error, 1e-12);
  EXPECT_EQ(f->points, pts.size());
  EXPECT_EQ(f->min_bytes, 65536.0);
  EXPECT_EQ(f->max_bytes, 64.0 * 1048576);
  EXPECT_NEAR(top::alpha_beta_time(*f, 1e6), alpha + 1e6 / beta, 1e-9);
}

TEST(AlphaBetaFit, NoisyPointsGiveAlphaAndBetaWithinTheNoise) {
  const double alpha = 0.48, beta = 95'000.0;
  std::vector<SizeTime> pts;
  int k = 0;
  for (double b = 4; b <= 1048576; b *= 2, ++k) {
    const double noise = (k % 2 ? 1.0 : -1.0) * 0.01 * ((k % 3) + 1) / 3.0;  // up to +-1%
    pts.push_back({b, (alpha + b / beta) * (1 + noise)});
  }
  const auto f = top::fit_alpha_beta(pts);
  ASSERT_TRUE(f && f->beta);
  EXPECT_NEAR(f->alpha, alpha, 0.01 * alpha);
  EXPECT_NEAR(*f->beta, beta, 0.02 * beta);
  // Least squares: no worse than the model the points came from, and every point within the
  // error the fit reports.
  EXPECT_LE(rel_sq(pts, f->alpha, f->time_per_byte), rel_sq(pts, alpha, 1 / beta) + 1e-15);
  for (const SizeTime& p : pts)
    EXPECT_LE(std::abs(top::alpha_beta_time(*f, p.bytes) - p.time) / p.time, f->max_rel_error + 1e-15);
  EXPECT_LT(f->max_rel_error, 0.03);
}

TEST(AlphaBetaFit, TimesThatDoNotGrowHaveNoBandwidthTerm) {
  // Flat: α is the time, no β, R² undefined (every time equal).
  const auto flat = top::fit_alpha_beta({{4, 0.48}, {8, 0.48}, {64, 0.48}});
  ASSERT_TRUE(flat);
  EXPECT_FALSE(flat->beta);
  EXPECT_FALSE(flat->r2);
  EXPECT_DOUBLE_EQ(flat->alpha, 0.48);
  EXPECT_EQ(flat->max_rel_error, 0.0);
  // Falling: 1/β held at 0 and α the weighted mean, sum(y / y^2) / sum(1 / y^2) = (1 + 2) / (1 + 4).
  const auto fall = top::fit_alpha_beta({{1000, 1.0}, {2000, 0.5}});
  ASSERT_TRUE(fall);
  EXPECT_FALSE(fall->beta);
  EXPECT_DOUBLE_EQ(fall->time_per_byte, 0.0);
  EXPECT_NEAR(fall->alpha, 0.6, 1e-12);
  EXPECT_NEAR(fall->max_rel_error, 0.4, 1e-12);  // 1.0 -> 0.6 is 40% off
}

TEST(AlphaBetaFit, ANegativeInterceptIsHeldAtZero) {
  // Through (2000, 1) and (4000, 3) the unconstrained line has α = -1; held at 0 the best slope is
  // sum(w x y) / sum(w x^2) with w = 1/y^2: (2000 + 4000 / 3) / (4e6 + 16e6 / 9) = 0.000576923.
  const std::vector<SizeTime> pts = {{2000, 1.0}, {4000, 3.0}};
  const auto f = top::fit_alpha_beta(pts);
  ASSERT_TRUE(f && f->beta);
  EXPECT_EQ(f->alpha, 0.0);
  EXPECT_NEAR(f->time_per_byte, (2000.0 + 4000.0 / 3.0) / (4e6 + 16e6 / 9.0), 1e-15);
  EXPECT_NEAR(f->time_per_byte, 0.000576923, 1e-9);
  // The constrained optimum: moving the slope either way makes the objective worse.
  for (double d : {-1e-6, 1e-6}) EXPECT_GT(rel_sq(pts, 0, f->time_per_byte + d), rel_sq(pts, 0, f->time_per_byte));
}

// Points from two lines that meet at 256 KiB (a latency-bound regime, then a bandwidth-bound one):
// no single line is within 5%, so two pieces, each giving back its line, sharing 256 KiB.
TEST(AlphaBetaFit, TwoRegimesGiveTwoPiecesThatRecoverTheirLines) {
  const double a1 = 9.0, b1 = 1e6, kink = 262144;
  const double b2 = 50'000.0, a2 = a1 + kink / b1 - kink / b2;
  std::vector<SizeTime> pts;
  for (double x = 8.0 * 1048576; x >= 16384; x /= 2) pts.push_back({x, x <= kink ? a1 + x / b1 : a2 + x / b2});
  const auto whole = top::fit_alpha_beta(pts);
  ASSERT_TRUE(whole);
  ASSERT_GT(whole->max_rel_error, 0.05);
  const auto pieces = top::fit_alpha_beta_pieces(pts, 0.05);
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_EQ(pieces[0].min_bytes, 16384.0);
  EXPECT_EQ(pieces[0].max_bytes, kink);
  EXPECT_EQ(pieces[1].min_bytes, kink);
  EXPECT_EQ(pieces[1].max_bytes, 8.0 * 1048576);
  EXPECT_EQ(pieces[0].points + pieces[1].points, pts.size() + 1);  // the boundary point in both
  EXPECT_NEAR(pieces[0].alpha, a1, 1e-9);
  EXPECT_NEAR(*pieces[0].beta, b1, 1e-6 * b1);
  EXPECT_NEAR(pieces[1].alpha, a2, 1e-9);
  EXPECT_NEAR(*pieces[1].beta, b2, 1e-6 * b2);
  // One line within the target: one piece, the plain fit.
  const auto one = top::fit_alpha_beta_pieces(pts, 1.0);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_NEAR(one[0].alpha, whole->alpha, 1e-12);
  // Three sizes that no line fits within 0.1%: pieces of two points each, through both.
  const auto tight = top::fit_alpha_beta_pieces({{10, 1.0}, {20, 1.5}, {30, 1.6}}, 0.001);
  ASSERT_EQ(tight.size(), 2u);
  for (const auto& f : tight) EXPECT_LT(f.max_rel_error, 1e-12);
  EXPECT_TRUE(top::fit_alpha_beta_pieces({{1, 1.0}}, 0.05).empty());
}

TEST(AlphaBetaFit, NeedsTwoSizesAndPositiveTimes) {
  EXPECT_FALSE(top::fit_alpha_beta({}));
  EXPECT_FALSE(top::fit_alpha_beta({{64, 1.0}}));
  EXPECT_FALSE(top::fit_alpha_beta({{64, 1.0}, {64, 2.0}}));  // one size twice
  EXPECT_FALSE(top::fit_alpha_beta({{64, 1.0}, {128, 0.0}}));
  EXPECT_FALSE(top::fit_alpha_beta({{64, 1.0}, {128, std::nan("")}}));
}

}  // namespace
}  // namespace upswitch::testing
