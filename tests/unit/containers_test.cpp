// DelayLine, CreditPool, SlotQueues and Link's due and wake slots: timing, conservation and
// error detection.
#include <gtest/gtest.h>

#include <deque>

#include "core/credit_pool.h"
#include "core/delay_line.h"
#include "core/link.h"
#include "core/link_pacer.h"
#include "core/port_outages.h"
#include "core/slot_queues.h"
#include "traffic/rng.h"

namespace upswitch::core {
namespace {

TEST(DelayLine, ItemAppearsExactlyLatencyCyclesLater) {
  for (uint32_t lat : {0u, 1u, 3u, 17u}) {
    DelayLine<int> d(lat);
    std::deque<std::pair<uint64_t, int>> expect;
    traffic::Rng rng(3, lat);
    for (uint64_t t = 0; t < 500; ++t) {
      if (rng.unit() < 0.6) {
        d.push(t, static_cast<int>(t));
        expect.emplace_back(t + lat, static_cast<int>(t));
      }
      int v = -1;
      const bool got = d.pop(t, v);
      const bool due = !expect.empty() && expect.front().first == t;
      ASSERT_EQ(got, due) << "lat " << lat << " t " << t;
      if (due) {
        EXPECT_EQ(v, expect.front().second);
        expect.pop_front();
      }
      EXPECT_EQ(d.next_due(), expect.empty() ? UINT64_MAX : expect.front().first);
    }
  }
}

// A delay line keeps only the low 32 bits of each item's due cycle: across 2^32 (and at 2^33)
// items still come out at exactly their due cycle, and next_due() and empty_after() stay whole.
TEST(DelayLine, DueCyclesCrossTheThirtyTwoBitBoundary) {
  for (uint32_t lat : {1u, 5u, 40u}) {
    for (uint64_t start : {(uint64_t{1} << 32) - 30, (uint64_t{1} << 33) - 7}) {
      DelayLine<int> d(lat);
      std::deque<std::pair<uint64_t, int>> expect;
      traffic::Rng rng(5, lat);
      for (uint64_t t = start; t < start + 200; ++t) {
        if (rng.unit() < 0.7) {
          d.push(t, static_cast<int>(t - start));
          expect.emplace_back(t + lat, static_cast<int>(t - start));
        }
        int v = -1;
        const bool due = !expect.empty() && expect.front().first == t;
        ASSERT_EQ(d.pop(t, v), due) << "lat " << lat << " t " << t;
        if (due) {
          EXPECT_EQ(v, expect.front().second);
          expect.pop_front();
        }
        EXPECT_EQ(d.next_due(), expect.empty() ? UINT64_MAX : expect.front().first) << "t " << t;
        EXPECT_EQ(d.empty_after(t), expect.empty() || expect.back().first <= t) << "t " << t;
      }
    }
  }
}

TEST(DelayLine, RejectsTwoItemsInOneCycle) {
  DelayLine<int> d(2);
  d.push(5, 1);
  EXPECT_THROW(d.push(5, 2), std::logic_error);
}

// A receiver that misses an item's due cycle fills the pipe: latency 2 holds 3 items (those due
// now, next cycle and the one after); a fourth push is refused instead of overwriting one.
TEST(DelayLine, RefusesAPushWhenAnItemWasNotReceived) {
  DelayLine<int> d(2);
  d.push(0, 1);
  d.push(1, 2);
  d.push(2, 3);  // the item due at 2 is still there: nobody popped it
  EXPECT_THROW(d.push(3, 4), std::logic_error);
  int x = 0;
  EXPECT_FALSE(d.pop(3, x));  // its cycle has passed
}

// A pipe fed by a crossbar with speedup K carries up to K items per cycle, in push order,
// against a reference queue; a (K+1)-th item in one cycle is refused.
TEST(DelayLine, CarriesUpToItsPerCycleCountInPushOrder) {
  for (uint32_t k : {2u, 3u}) {
    for (uint32_t lat : {0u, 1u, 4u}) {
      DelayLine<int> d(lat, k);
      std::deque<std::pair<uint64_t, int>> expect;
      traffic::Rng rng(5, lat * 10 + k);
      int next = 0;
      for (uint64_t t = 0; t < 400; ++t) {
        const auto n = static_cast<uint32_t>(rng.unit() * (k + 1));  // 0..k items this cycle
        for (uint32_t j = 0; j < n; ++j) {
          d.push(t, next);
          expect.emplace_back(t + lat, next++);
        }
        // Before the receiver runs: empty once the cycle is over iff all that is left is due now.
        EXPECT_EQ(d.empty_after(t), expect.empty() || expect.back().first == t);
        int v = -1;
        while (d.pop(t, v)) {
          ASSERT_FALSE(expect.empty());
          EXPECT_EQ(expect.front().first, t);
          EXPECT_EQ(v, expect.front().second);
          expect.pop_front();
        }
        ASSERT_TRUE(expect.empty() || expect.front().first > t) << "k " << k << " lat " << lat << " t " << t;
      }
      for (uint32_t j = 0; j < k; ++j) d.push(1000, j);
      EXPECT_THROW(d.push(1000, 99), std::logic_error);
    }
  }
}

// A held line (parallel runs): the sender writes through its Writer, the receiver pops and sees
// only what was published between windows. Against a reference queue, at K items per cycle and
// random loads (full load included: the ring's 2 x latency + 1 cycles are all needed), with
// windows as long as the latency, items published in windows come out at exactly their due
// cycles and next_due(), last_due() and empty_after() answer as they would for an unheld line.
// Holding starts and ends with items in flight; the writer refuses more than K items in a cycle.
TEST(DelayLine, HeldItemsAppearAtTheirDueCycleOnceEachWindowIsPublished) {
  for (uint32_t k : {1u, 2u}) {
    for (uint32_t lat : {1u, 3u, 8u}) {
      for (double load : {0.5, 1.0}) {
        DelayLine<int> d(lat, k);
        std::deque<std::pair<uint64_t, int>> expect, held;  // visible, and written in this window
        traffic::Rng rng(9, lat * 10 + k);
        int next = 0;
        auto pop_due = [&](uint64_t t) {
          int v = -1;
          while (d.pop(t, v)) {
            ASSERT_FALSE(expect.empty());
            ASSERT_EQ(expect.front(), std::make_pair(t, v)) << "k " << k << " lat " << lat;
            expect.pop_front();
          }
          ASSERT_TRUE(expect.empty() || expect.front().first > t) << "k " << k << " lat " << lat << " t " << t;
        };
        for (uint64_t t = 0; t < 5; ++t) {  // unheld at first: items in flight when holding starts
          d.push(t, next);
          expect.emplace_back(t + lat, next++);
          pop_due(t);
        }
        d.hold(true);
        auto w = d.writer();
        uint64_t newest = 4 + lat;  // the due cycle of the newest item
        const uint64_t end = 400;
        for (uint64_t t = 5; t < end; ++t) {
          if ((t - 5) % lat == 0) {  // between windows [.., t): publish what was written
            const uint64_t first = d.publish(w);
            EXPECT_EQ(first, held.empty() ? UINT64_MAX : held.front().first);
            expect.insert(expect.end(), held.begin(), held.end());
            held.clear();
            EXPECT_EQ(d.next_due(), expect.empty() ? UINT64_MAX : expect.front().first);
            EXPECT_EQ(d.last_due(), newest);
            EXPECT_EQ(d.count(), expect.size());
          }
          const uint32_t n = load == 1.0 ? k : static_cast<uint32_t>(rng.unit() * (k + 1));
          for (uint32_t j = 0; j < n; ++j) {
            DelayLine<int>::push_held(w, t, next);
            held.emplace_back(t + lat, next++);
            newest = t + lat;
          }
          pop_due(t);
          EXPECT_EQ(d.empty_after(t), expect.empty() || expect.back().first == t);
        }
        if (load == 1.0) {
          EXPECT_THROW(DelayLine<int>::push_held(w, end - 1, -1), std::logic_error);
        }
        EXPECT_EQ(d.publish(w), held.empty() ? UINT64_MAX : held.front().first);
        expect.insert(expect.end(), held.begin(), held.end());
        EXPECT_EQ(d.last_due(), newest);
        d.hold(false);  // what is in flight stays, in order
        for (uint64_t t = end; !expect.empty() && t <= end + lat; ++t) pop_due(t);
        EXPECT_TRUE(expect.empty());
        EXPECT_TRUE(d.empty());
      }
    }
  }
  // Never published (a window far longer than the line): with two items in flight when holding
  // starts, the ring's other 2 x 2 + 1 - 2 slots, then a refusal rather than an item written over.
  // The same with the two items published by an earlier window.
  for (bool published : {false, true}) {
    DelayLine<int> d(2);
    if (!published) {
      d.push(0, 0);
      d.push(1, 0);
    }
    d.hold(true);
    auto w = d.writer();
    if (published) {
      DelayLine<int>::push_held(w, 0, 0);
      DelayLine<int>::push_held(w, 1, 0);
      EXPECT_EQ(d.publish(w), 2u);
    }
    for (uint64_t t = 2; t < 5; ++t) DelayLine<int>::push_held(w, t, 0);
    EXPECT_THROW(DelayLine<int>::push_held(w, 5, 0), std::logic_error) << "published " << published;
  }
}

// A deferred link's credit line cannot be rebuilt under its writer (set_credits_per_cycle
// replaces the ring the writer points into): refused while deferred, allowed again after.
TEST(Link, RefusesCreditsPerCycleWhileDeferred) {
  Link l(4, 4);
  l.set_deferred(true);
  EXPECT_THROW(l.set_credits_per_cycle(2), std::logic_error);
  l.set_deferred(false);
  EXPECT_NO_THROW(l.set_credits_per_cycle(2));
}


// A sender's pipeline before the wire (a switch's output stages, Link::set_send_pipeline): a flit
// sent at t arrives at t + pipeline + latency, as through a delay line of the pipeline's length
// and then the wire, also while the link is held between windows; the wire's latency stays what
// latency() reports. Set only before the first flit and not with a data-link layer.
TEST(Link, SendPipelineDelaysEveryFlitByItsCyclesBeforeTheWire) {
  for (bool held : {false, true}) {
    Link l(5, 2);
    if (held) l.set_deferred(true);
    l.set_send_pipeline(3);
    EXPECT_EQ(l.latency(), 5u);
    EXPECT_EQ(l.send_pipeline(), 3u);
    // One flit in each of 12 consecutive cycles, received as each falls due: as many in flight at
    // once as pipeline and wire hold. Held, the sends of each 5-cycle window are published at its end.
    for (uint64_t t = 0; t < 30; ++t) {
      Flit f;
      const bool got = l.receive_flit(t, f);
      EXPECT_EQ(got, t >= 8 && t < 20) << "cycle " << t << (held ? " (held)" : "");
      if (got) {
        EXPECT_EQ(f.payload, t - 8);
      }
      if (t < 12) {
        f.payload = static_cast<uint32_t>(t);
        l.send_flit(t, f);
      }
      if (held && t % 5 == 4) l.flush_deferred_flits();
    }
    EXPECT_THROW(l.set_send_pipeline(1), std::logic_error);  // after a flit was sent
  }
  Link dl(5, 2);
  dl.set_send_pipeline(2);
  EXPECT_THROW(dl.set_data_link(nullptr), std::logic_error);
}
// The pacer against a continuous-time reference: a backlogged sender starts flit k no earlier
// than k / rate cycles after its first (minus the one flit of slack the bucket allows), and
// over a long run sends exactly rate flits per cycle.
TEST(LinkPacer, BackloggedSenderGetsExactlyTheRate) {
  for (double r : {0.25, 0.5, 0.9583, 0.999}) {
    LinkPacer p(r);
    uint64_t sent = 0;
    const uint64_t cycles = 200000;
    for (uint64_t t = 0; t < cycles; ++t) {
      if (p.ready(t)) {
        p.take(t);
        ++sent;
        EXPECT_LE(static_cast<double>(sent), static_cast<double>(t + 1) * r + 1.0 + 1e-9) << "ahead of the rate, r=" << r;
      }
    }
    EXPECT_NEAR(static_cast<double>(sent) / cycles, r, 1e-4) << r;
  }
  LinkPacer unpaced(1.0);
  EXPECT_FALSE(unpaced.paced());
  EXPECT_TRUE(unpaced.ready(5));
}

TEST(LinkPacer, AnIdleLinkSendsAShortPacketBackToBack) {
  LinkPacer p(98.125 / 102.4);
  for (uint64_t t = 1000; t < 1004; ++t) {
    ASSERT_TRUE(p.ready(t)) << t;
    p.take(t);
  }
}

// next_ready against polling ready() cycle by cycle on a copy, after takes at irregular times.
TEST(LinkPacer, NextReadyIsTheFirstCycleReadyWouldSayYes) {
  for (double r : {0.1, 0.25, 0.4790, 0.5, 0.9583}) {
    LinkPacer p(r);
    uint64_t t = 3;
    for (int k = 0; k < 2000; ++k) {
      ASSERT_TRUE(p.ready(t));
      p.take(t);
      const uint64_t next = p.next_ready(t);
      LinkPacer probe = p;
      uint64_t first = t;
      while (!probe.ready(first)) ++first;
      ASSERT_EQ(next, first) << "r=" << r << " take at " << t;
      t = next + static_cast<uint64_t>(k % 7 == 0 ? k % 5 : 0);  // sometimes idle a few cycles
    }
  }
  EXPECT_EQ(LinkPacer(1.0).next_ready(9), 9u);
}

// A receiver that looks at its links only when their shared wake slot has come, and then sets it
// to the earliest due slot, still gets every flit and credit exactly at its due cycle: against a
// list of what was sent, with random sends on three links of different latencies, one of them
// holding what it carries until a flush (parallel runs) that comes no later than its latency.
// With `outer`, links 0-1 and link 2 are two groups with a wake slot each, and an outer wake slot
// over both (an endpoint block's, a switch's): the receiver looks at a group only when the outer
// slot and the group's have come. Returns the cycles in which the receiver looked at any link.
uint64_t run_wake_receiver(bool outer) {
  std::vector<Link> links;
  links.emplace_back(1, 2);
  links.emplace_back(5, 3);
  links.emplace_back(4, 4);
  links[2].set_deferred(true);
  uint64_t wake[2] = {99, 99}, top = 99;
  auto group = [&](size_t k) { return outer && k == 2 ? 1 : 0; };
  std::vector<uint64_t> flit_due(3), credit_due(3);
  for (size_t k = 0; k < 3; ++k) {
    links[k].set_flit_due_slot(&flit_due[k], &wake[group(k)], outer ? &top : nullptr);
    links[k].set_credit_due_slot(&credit_due[k], &wake[group(k)], outer ? &top : nullptr);
  }
  EXPECT_EQ(wake[0], 0u);  // unknown until the receiver first looks
  EXPECT_EQ(top, outer ? 0u : 99u);
  std::deque<std::pair<uint64_t, uint64_t>> flits_expected[3], credits_expected[3];  // (due, id)
  traffic::Rng rng(11, 4);
  uint64_t looks = 0;
  for (uint64_t t = 0; t < 3000; ++t) {
    if (t % 3 == 0) links[2].flush_deferred_flits(), links[2].flush_deferred_credits();  // window 3 <= 4
    if (!outer || top <= t) {
      bool looked = false;
      for (size_t g = 0; g < (outer ? 2 : 1); ++g) {
        if (wake[g] > t) continue;
        looked = true;
        wake[g] = UINT64_MAX;
        for (size_t k = 0; k < 3; ++k) {
          if (group(k) != static_cast<int>(g)) continue;
          Flit f;
          if (links[k].receive_flit(t, f)) {
            EXPECT_FALSE(flits_expected[k].empty());
            if (flits_expected[k].empty()) return 0;
            EXPECT_EQ(flits_expected[k].front(), std::make_pair(t, uint64_t{f.payload})) << "link " << k;
            flits_expected[k].pop_front();
          }
          Credit c;
          if (links[k].receive_credit(t, c)) {
            EXPECT_FALSE(credits_expected[k].empty());
            if (credits_expected[k].empty()) return 0;
            EXPECT_EQ(credits_expected[k].front(), std::make_pair(t, uint64_t{c.out})) << "link " << k;
            credits_expected[k].pop_front();
          }
          links[k].refresh_flit_due();
          links[k].refresh_credit_due();
          wake[g] = std::min({wake[g], flit_due[k], credit_due[k]});
        }
      }
      if (outer) top = std::min(wake[0], wake[1]);
      looks += looked;
    }
    for (size_t k = 0; k < 3; ++k) {
      const bool missed_flit = !flits_expected[k].empty() && flits_expected[k].front().first <= t;
      const bool missed_credit = !credits_expected[k].empty() && credits_expected[k].front().first <= t;
      EXPECT_FALSE(missed_flit) << "missed a flit on " << k << " at " << t;
      EXPECT_FALSE(missed_credit) << "missed a credit on " << k << " at " << t;
      if (missed_flit || missed_credit) return 0;
    }
    // The sender's part of the cycle: after the receiver, as a switch's tick precedes the endpoints'.
    for (size_t k = 0; k < 3; ++k) {
      if (rng.unit() < 0.05) {
        Flit f;
        f.payload = static_cast<uint32_t>(t * 8 + k);
        links[k].send_flit(t, f);
        flits_expected[k].emplace_back(t + links[k].latency(), uint64_t{f.payload});
      }
      if (rng.unit() < 0.05) {
        Credit c;
        c.out = static_cast<uint16_t>(t % 60000);
        links[k].send_credit(t, c);
        credits_expected[k].emplace_back(t + links[k].credit_delay(), c.out);
      }
    }
  }
  return looks;
}

TEST(Link, WakeSlotIsNeverLaterThanAnythingDue) {
  const uint64_t looks = run_wake_receiver(false);
  EXPECT_LT(looks, 1500u);  // the receiver slept through most cycles
  EXPECT_GT(looks, 100u);
}

TEST(Link, OuterWakeSlotIsNeverLaterThanItsGroups) {
  const uint64_t looks = run_wake_receiver(true);
  EXPECT_LT(looks, 1500u);
  EXPECT_GT(looks, 100u);
}

TEST(CreditPool, ReservedFirstThenSharedAndReturnsSameKind) {
  CreditPool p(2, 2, 3);
  EXPECT_EQ(p.capacity(), 7u);
  EXPECT_FALSE(p.take(0));
  EXPECT_FALSE(p.take(0));
  EXPECT_TRUE(p.take(0));  // vc0 reserved exhausted: shared
  EXPECT_TRUE(p.take(0));
  EXPECT_TRUE(p.take(0));
  EXPECT_FALSE(p.can_take(0));
  EXPECT_TRUE(p.can_take(1));  // vc1 still has reserved credits
  EXPECT_FALSE(p.take(1));
  p.give(0, true);
  EXPECT_TRUE(p.can_take(0));
  p.give(1, false);                                   // back to its full reserve of 2
  EXPECT_THROW(p.give(1, false), std::logic_error);  // a third would exceed it
}

TEST(CreditPool, DetectsOverflowAndUnderflow) {
  CreditPool p(1, 1, 0);
  EXPECT_THROW(p.give(0, false), std::logic_error);
  EXPECT_THROW(p.give(0, true), std::logic_error);
  p.take(0);
  EXPECT_THROW(p.take(0), std::logic_error);
}

TEST(SlotQueues, QueuesShareSlotsAndKeepFifoOrder) {
  SlotQueues q(3, 5);
  std::deque<Flit> ref[3];
  traffic::Rng rng(11, 0);
  uint32_t id = 0;
  // The command credits the front flit needs, from the reference queue: a head flit's messages.
  auto need = [&](int k) { return ref[k].empty() || !ref[k].front().head() ? 0 : ref[k].front().msgs; };
  for (int step = 0; step < 5000; ++step) {
    const int k = static_cast<int>(rng.below(3));
    if (q.used() < 5 && rng.unit() < 0.55) {
      Flit f;
      f.payload = id++;
      f.flags = rng.unit() < 0.5 ? Flit::kHead : 0;
      f.msgs = static_cast<uint8_t>(1 + rng.below(8));
      q.push(k, f);
      ref[k].push_back(f);
    } else if (!q.empty(k)) {
      EXPECT_EQ(q.pop(k).payload, ref[k].front().payload);
      ref[k].pop_front();
    }
    EXPECT_EQ(q.used(), static_cast<int>(ref[0].size() + ref[1].size() + ref[2].size()));
    for (int j = 0; j < 3; ++j) ASSERT_EQ(q.front_need(j), need(j)) << "queue " << j << " step " << step;
  }
  while (q.used() < 5) q.push(0, Flit{});
  EXPECT_THROW(q.push(1, Flit{}), std::logic_error);
}

TEST(PortOutages, DueEntriesComeInCycleOrderAndTheLastPortIsNeverLost) {
  PortOutages plan;
  EXPECT_EQ(plan.next(), UINT64_MAX);
  plan.add(50, 3);
  plan.add(20, 7);
  plan.add(50, -1);  // same cycle: after the port added first
  plan.add(20, 5);
  EXPECT_EQ(plan.next(), 20u);
  std::vector<int> got;
  plan.take_due(19, [&](int p) { got.push_back(p); });
  EXPECT_TRUE(got.empty());
  plan.take_due(30, [&](int p) { got.push_back(p); });
  EXPECT_EQ(got, (std::vector<int>{7, 5}));
  EXPECT_EQ(plan.next(), 50u);
  plan.take_due(50, [&](int p) { got.push_back(p); });
  EXPECT_EQ(got, (std::vector<int>{7, 5, 3, -1}));
  EXPECT_EQ(plan.next(), UINT64_MAX);

  std::vector<int> live;  // empty: all of ports 4..6 in service
  PortOutages::remove_live(live, 4, 7, 5);
  EXPECT_EQ(live, (std::vector<int>{4, 6}));
  PortOutages::remove_live(live, 4, 7, 4);
  EXPECT_EQ(live, (std::vector<int>{6}));
  EXPECT_THROW(PortOutages::remove_live(live, 4, 7, 6), std::logic_error);
}

}  // namespace
}  // namespace upswitch::core
