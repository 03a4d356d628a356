// The message sizes of a collective table (top::coll_sizes), against lists worked out by hand;
// and the threads each point gets (top::threads_per_point).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "top/coll_table.h"

namespace upswitch::testing {
namespace {

// Sizes below one element round up to one element: each size appears once (nccl-tests' -b 1 on
// f64 gave four identical 8 B rows).
TEST(CollSizes, EachSizeOnce) {
  top::CollTableOptions o;
  o.type = tl::RedType::kF64;
  o.min_bytes = 1;
  o.max_bytes = 64;
  EXPECT_EQ(top::coll_sizes(o), (std::vector<uint64_t>{8, 16, 32, 64}));
  o.type = tl::RedType::kF16;  // whole doublewords: at least 4 B
  o.min_bytes = 2;
  o.max_bytes = 8;
  EXPECT_EQ(top::coll_sizes(o), (std::vector<uint64_t>{4, 8}));
  o.step_factor = 3;
  o.min_bytes = 5;
  o.max_bytes = 100;  // 5, 15, 45 -> 4, 12, 44 (whole 4 B words)
  EXPECT_EQ(top::coll_sizes(o), (std::vector<uint64_t>{4, 12, 44}));
}

// --threads given: that many. Not given: the --jobs cores the points measured at once leave idle.
TEST(CollSizes, PointsTakeTheCoresTheJobsLeaveIdle) {
  top::CollTableOptions o;
  o.threads = 0;
  o.jobs = 2;
  EXPECT_EQ(top::threads_per_point(o, 1), 2);
  EXPECT_EQ(top::threads_per_point(o, 2), 1);
  EXPECT_EQ(top::threads_per_point(o, 40), 1);
  o.jobs = 8;
  EXPECT_EQ(top::threads_per_point(o, 3), 2);
  EXPECT_EQ(top::threads_per_point(o, 0), 8);
  o.threads = 3;
  EXPECT_EQ(top::threads_per_point(o, 1), 3);
  EXPECT_EQ(top::threads_per_point(o, 40), 3);
}

}  // namespace
}  // namespace upswitch::testing
