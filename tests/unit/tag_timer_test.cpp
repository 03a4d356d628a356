// The completion-timeout list (endpoint/tag_timer.h) against a plain reference: the earliest
// deadline of the armed tags, whatever order they are answered in.
#include <gtest/gtest.h>

#include <map>

#include "endpoint/tag_timer.h"
#include "traffic/rng.h"

namespace upswitch::endpoint {
namespace {

TEST(TagTimer, HeadIsTheEarliestArmedDeadline) {
  TagTimer timer;
  timer.reset(16);
  EXPECT_TRUE(timer.empty());
  EXPECT_EQ(timer.next_deadline(), UINT64_MAX);
  std::map<uint16_t, uint64_t> armed;  // reference: tag -> deadline
  traffic::Rng rng(7, 1);
  uint64_t now = 0;
  for (int step = 0; step < 20000; ++step) {
    now += rng.below(3);
    const auto tag = static_cast<uint16_t>(rng.below(16));
    if (armed.count(tag)) {
      timer.disarm(tag);
      armed.erase(tag);
    } else {
      timer.arm(tag, now + 100);
      armed[tag] = now + 100;
    }
    uint64_t want = UINT64_MAX;
    for (const auto& [t, d] : armed) want = std::min(want, d);
    ASSERT_EQ(timer.next_deadline(), want) << "step " << step;
    if (!armed.empty()) {
      ASSERT_EQ(armed.at(timer.front()), want);
    }
    for (uint16_t t = 0; t < 16; ++t) ASSERT_EQ(timer.armed(t), armed.count(t) == 1);
  }
  timer.disarm(3);  // disarming an unarmed tag does nothing
}

TEST(TagTimer, RejectsMisuse) {
  TagTimer timer;
  timer.reset(4);
  timer.arm(1, 50);
  EXPECT_THROW(timer.arm(1, 60), std::logic_error);
  EXPECT_THROW(timer.arm(2, 40), std::logic_error);  // deadlines come in time order
}

}  // namespace
}  // namespace upswitch::endpoint
