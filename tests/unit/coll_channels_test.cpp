// coll::channel_shares (coll/channels.h) against a hand-made split: shares are contiguous, in
// 256 B units, cover the buffer (an all-to-all's every pair) exactly once, each on one SM, and
// empty shares are left out.
#include <gtest/gtest.h>

#include <numeric>

#include "coll/channels.h"

namespace upswitch::testing {
namespace {

coll::CollectiveSpec ring_spec(uint64_t bytes) {
  coll::CollectiveSpec s;
  s.coll = coll::Collective::kAllReduce;
  s.algo = coll::Algorithm::kRing;
  s.ranks = {0, 1, 2, 3};
  s.bytes = bytes;
  return s;
}

TEST(ChannelShares, SplitTheBufferInTwoHundredFiftySixByteUnits) {
  // 1 MiB + 512 B over 3 channels: ceil(349696 / 256) x 256 = 349696 each, the rest last.
  const std::vector<coll::CollectiveSpec> s = coll::channel_shares(ring_spec(1048576 + 512), 3);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].bytes, 349696u);
  EXPECT_EQ(s[1].bytes, 349696u);
  EXPECT_EQ(s[2].bytes, 1048576u + 512 - 2 * 349696);
  for (const coll::CollectiveSpec& x : s) {
    EXPECT_EQ(x.sms, 1);
    EXPECT_EQ(x.ranks, ring_spec(0).ranks);
  }
  // 512 B over 4 channels: 128 B units of 4 B (below 256 B a share), none empty; 260 B over 4:
  // 68 B shares, the last 56 B; 8 B over 4: two 4 B shares, the empty ones left out.
  EXPECT_EQ(coll::channel_shares(ring_spec(512), 4).size(), 4u);
  const std::vector<coll::CollectiveSpec> odd = coll::channel_shares(ring_spec(260), 4);
  ASSERT_EQ(odd.size(), 4u);
  EXPECT_EQ(odd[0].bytes, 68u);
  EXPECT_EQ(odd[3].bytes, 56u);
  EXPECT_EQ(coll::channel_shares(ring_spec(8), 4).size(), 2u);
  // One channel is the collective itself on one SM.
  const std::vector<coll::CollectiveSpec> one = coll::channel_shares(ring_spec(4096), 1);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].bytes, 4096u);
}

TEST(ChannelShares, SplitEveryPairOfAnAllToAllAndKeepItsLargestRow) {
  coll::CollectiveSpec a;
  a.coll = coll::Collective::kAllToAll;
  a.algo = coll::Algorithm::kOneShot;
  a.ranks = {0, 1};
  a.pair_bytes = {0, 1024, 40, 0};  // rank 0 sends 1 KiB to 1; rank 1 sends 40 B to 0
  a.bytes = 1024;
  const std::vector<coll::CollectiveSpec> s = coll::channel_shares(a, 4);
  ASSERT_EQ(s.size(), 4u);
  uint64_t to1 = 0, to0 = 0;
  for (const coll::CollectiveSpec& x : s) {
    to1 += x.pair_bytes[1];
    to0 += x.pair_bytes[2];
    EXPECT_EQ(x.bytes, std::max(x.pair_bytes[1], x.pair_bytes[2]));
    EXPECT_EQ(x.pair_bytes[1], 256u);
  }
  EXPECT_EQ(to1, 1024u);
  EXPECT_EQ(to0, 40u);
  EXPECT_EQ(s[0].pair_bytes[2], 12u);  // 40 B in 4 B units: 12, 12, 12, 4
  EXPECT_EQ(s[3].pair_bytes[2], 4u);
  // Nothing to move: one share, as the collective.
  a.pair_bytes = {0, 0, 0, 0};
  a.bytes = 0;
  EXPECT_EQ(coll::channel_shares(a, 4).size(), 1u);
}

}  // namespace
}  // namespace upswitch::testing
