// Link faults on a network, named by link id (issue 19): `epE.pK` an accelerator's port, `swS.pQ`
// a switch port (the switch end of an accelerator link, or one end of a link between switches), or
// a class (`accelerators`, `switches`). Against independent expectations: the reference memory
// and ordering scoreboard (every request answered once with the right bytes), errors only on the
// links named and in the directions named (as many as the rate gives), a link that goes down and
// up retrains once and loses nothing, the replay counters account for every failed DL flit, and
// packets on a network with errors between switches are all delivered with credits conserved.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "test_support.h"
#include "txn_random_mix.h"
#include "txn_support.h"

namespace upswitch::testing {
namespace {

const Sets kPlanes = {{"topology.kind", "planes"}, {"topology.endpoints", "8"}, {"topology.planes", "4"}};
const Sets kTwoTier = {{"topology.kind", "two_tier"}, {"topology.leaves", "4"}, {"topology.endpoints_per_leaf", "3"},
                       {"topology.spines", "2"},      {"topology.uplinks_per_leaf", "2"}, {"switch.ports", "8"}};

// A random mix from every accelerator under the scoreboard; the fabric, drained and checked.
std::unique_ptr<top::TxnFabric> mix_on(const Sets& sets) {
  auto f = std::make_unique<top::TxnFabric>(
      make_txn_config(with(sets, {{"link.dl.enable", "true"}, {"sim.check_interval_cycles", "1000"}})), false);
  Scoreboard sb(f->endpoints().address_map(), false, /*single_issue=*/false);
  f->endpoints().set_observer(&sb);
  RandomMix mix(*f, 4, 300, 4096);
  mix.start();
  EXPECT_TRUE(f->run_until_idle(50'000'000));
  EXPECT_EQ(mix.double_completions, 0u);
  EXPECT_EQ(mix.not_okay, 0u);
  EXPECT_EQ(mix.completed, mix.submitted);
  EXPECT_EQ(sb.unanswered(), 0u);
  for (const std::string& s : sb.failures()) ADD_FAILURE() << s;
  const endpoint::TxnResult& r = f->endpoints().result();
  EXPECT_EQ(sb.executed(), r.requests_answered);  // nothing lost, nothing executed twice
  for (const std::string& s : top::check_txn_drained(*f)) ADD_FAILURE() << s;
  f->endpoints().set_observer(nullptr);
  return f;
}

const core::DlStats& dl(const core::Link& l) {
  EXPECT_NE(l.data_link(), nullptr);
  return l.data_link()->stats();
}

// Endpoint port of accelerator e's port k (Topology order).
int port_of(const top::TxnFabric& f, int e, int k) { return f.network().topology().endpoint_first_port(e) + k; }

// The accelerators' links (the engine units' follow them).
int accelerator_ports(const top::TxnFabric& f) { return f.config().network().endpoint_ports(); }

// ep3.p2 both ways and the switch end sw1.p5 (accelerator 5's plane-1 port) downwards only, at a
// 3% DL flit error rate: errors on exactly those link directions, as many as the rate gives, and
// every failed DL flit replayed.
TEST(NetworkLinkFaults, ErrorsOnlyOnTheLinksAndDirectionsNamed) {
  const auto f = mix_on(with(kPlanes, {{"faults.link_errors", "ep3.p2=0.03,sw1.p5:down=0.03"}}));
  const int a = port_of(*f, 3, 2), b = port_of(*f, 5, 1);
  std::printf("ep3.p2: %llu DL flits up, %llu CRC errors; sw1.p5 down: %llu DL flits, %llu CRC errors\n",
              static_cast<unsigned long long>(dl(f->uplink(a)).frames_sent),
              static_cast<unsigned long long>(dl(f->uplink(a)).crc_errors),
              static_cast<unsigned long long>(dl(f->downlink(b)).frames_sent),
              static_cast<unsigned long long>(dl(f->downlink(b)).crc_errors));
  for (const core::Link* l : {&f->uplink(a), &f->downlink(a), &f->downlink(b)}) {
    // The injected errors: a binomial count over the DL flits sent, within 5 sigma.
    const core::DlStats& s = dl(*l);
    const double n = static_cast<double>(s.frames_sent + s.frames_replayed);
    EXPECT_GT(s.crc_errors, 0u);
    EXPECT_NEAR(static_cast<double>(s.crc_errors), 0.03 * n, 5 * std::sqrt(0.03 * n) + 1) << "of " << n;
  }
  EXPECT_EQ(dl(f->uplink(b)).crc_errors, 0u);
  for (int p = 0; p < accelerator_ports(*f); ++p) {
    for (const core::Link* l : {&f->uplink(p), &f->downlink(p)}) {
      const core::DlStats& s = dl(*l);
      EXPECT_EQ(s.frames_replayed, s.crc_errors + s.frames_discarded + s.frames_duplicate + s.frames_lost_down);
      if (p != a && p != b) {
        EXPECT_EQ(s.crc_errors, 0u) << "port " << p;
      }
    }
  }
}

// On two tiers accelerator 4's only link (ep4.p0, to leaf 1) goes down from 2 to 6 us: it retrains
// once in each direction, what was in flight is replayed, and the mix completes after it.
TEST(NetworkLinkFaults, ALinkDownAndUpOnTwoTiersLosesNothing) {
  const auto f = mix_on(with(kTwoTier, {{"faults.link_down", "ep4.p0@2000-6000"}}));
  const int p = port_of(*f, 4, 0);
  EXPECT_EQ(dl(f->uplink(p)).link_ups, 1u);
  EXPECT_EQ(dl(f->downlink(p)).link_ups, 1u);
  EXPECT_GT(f->now(), static_cast<uint64_t>(6000 * f->config().clock_ghz));
  for (int q = 0; q < accelerator_ports(*f); ++q)
    if (q != p) {
      EXPECT_EQ(dl(f->uplink(q)).link_ups, 0u);
    }
}

// The wire leaving switch s's port q, and the one arriving there (a link between switches).
const core::Link& out_of(const top::TxnFabric& f, int s, int q) {
  return const_cast<top::TxnFabric&>(f).network().switch_output(s, q);
}
const core::Link& into(const top::TxnFabric& f, int s, int q) {
  return const_cast<top::TxnFabric&>(f).network().switch_input(s, q);
}

// Every wire between two switches, with its name.
std::vector<std::pair<std::string, const core::Link*>> switch_wires(const top::TxnFabric& f) {
  std::vector<std::pair<std::string, const core::Link*>> out;
  for (const network::Network::Channel& c : f.network().channels())
    if (c.from.is_switch && c.to.is_switch) out.emplace_back(c.from.name() + "->" + c.to.name(), c.wire);
  return out;
}

void expect_binomial(const core::DlStats& s, double rate, const std::string& what) {
  const double n = static_cast<double>(s.frames_sent + s.frames_replayed);
  EXPECT_GT(s.crc_errors, 0u) << what;
  EXPECT_NEAR(static_cast<double>(s.crc_errors), rate * n, 5 * std::sqrt(rate * n) + 1) << what << ": of " << n;
  EXPECT_EQ(s.frames_replayed, s.crc_errors + s.frames_discarded + s.frames_duplicate + s.frames_lost_down) << what;
}

// Leaf 0's first uplink (sw0.p3) at 3% outwards only: errors on that wire alone, as many as the
// rate gives, all replayed; the way back and every other link between switches stay clean, and the
// DL layer runs on them all at their own rate.
TEST(NetworkLinkFaults, ErrorsOnALinkBetweenSwitchesOnlyInTheDirectionNamed) {
  const auto f = mix_on(with(kTwoTier, {{"faults.link_errors", "sw0.p3:out=0.03"}}));
  const core::Link& hit = out_of(*f, 0, 3);
  std::printf("sw0.p3 out: %llu DL flits, %llu CRC errors, %llu replayed\n",
              static_cast<unsigned long long>(dl(hit).frames_sent), static_cast<unsigned long long>(dl(hit).crc_errors),
              static_cast<unsigned long long>(dl(hit).frames_replayed));
  expect_binomial(dl(hit), 0.03, "sw0.p3 out");
  EXPECT_EQ(dl(into(*f, 0, 3)).crc_errors, 0u);
  const auto wires = switch_wires(*f);
  EXPECT_EQ(wires.size(), 2u * 4 * 2);  // 4 leaves x 2 uplinks, both ways
  for (const auto& [name, w] : wires) {
    EXPECT_GT(dl(*w).frames_sent, 0u) << name;
    if (w != &hit) {
      EXPECT_EQ(dl(*w).crc_errors, 0u) << name;
    }
  }
  for (int p = 0; p < accelerator_ports(*f); ++p) EXPECT_EQ(dl(f->uplink(p)).crc_errors, 0u);
}

// The same link named from the spine's end, inwards: the same wire.
TEST(NetworkLinkFaults, ALinkBetweenSwitchesIsTheSameFromEitherEnd) {
  const config::Config c = make_txn_config(with(kTwoTier, {{"link.dl.enable", "true"}}));
  const network::PortRef spine_end = c.network().peer(network::PortRef{true, 0, 3});
  ASSERT_TRUE(spine_end.is_switch);
  const auto f = mix_on(with(kTwoTier, {{"faults.link_errors", spine_end.name() + ":in=0.03"}}));
  expect_binomial(dl(out_of(*f, 0, 3)), 0.03, spine_end.name() + " in");
  EXPECT_EQ(dl(into(*f, 0, 3)).crc_errors, 0u);
}

// Every link between switches at 1%, none of the accelerators' links; then every link between
// switches down from 2 to 5 us: each wire retrains once and the mix completes after it.
TEST(NetworkLinkFaults, TheClassOfLinksBetweenSwitches) {
  {
    const auto f = mix_on(with(kTwoTier, {{"faults.link_errors", "switches=0.01"}}));
    for (const auto& [name, w] : switch_wires(*f)) EXPECT_EQ(dl(*w).frames_replayed, dl(*w).crc_errors + dl(*w).frames_discarded) << name;
    uint64_t errors = 0;
    for (const auto& [name, w] : switch_wires(*f)) errors += dl(*w).crc_errors;
    EXPECT_GT(errors, 0u);
    for (int p = 0; p < accelerator_ports(*f); ++p) {
      EXPECT_EQ(dl(f->uplink(p)).crc_errors, 0u);
      EXPECT_EQ(dl(f->downlink(p)).crc_errors, 0u);
    }
  }
  const auto f = mix_on(with(kTwoTier, {{"faults.link_down", "switches@2000-5000"}}));
  for (const auto& [name, w] : switch_wires(*f)) EXPECT_EQ(dl(*w).link_ups, 1u) << name;
  for (int p = 0; p < accelerator_ports(*f); ++p) EXPECT_EQ(dl(f->uplink(p)).link_ups, 0u);
  EXPECT_GT(f->now(), static_cast<uint64_t>(5000 * f->config().clock_ghz));
}

// Packets (not transactions) across two tiers with 2% errors on every link between switches:
// every flit created is delivered, credits are conserved, and the spine links replayed.
TEST(NetworkLinkFaults, PacketsCrossLinksBetweenSwitchesWithErrors) {
  const auto f = run_plain(make_config("", with(kTwoTier, {{"link.dl.enable", "true"}, {"faults.link_errors", "switches=0.02"},
                                                           {"traffic.rate", "0.5"}, {"sim.check_interval_cycles", "1000"}})));
  for (const std::string& s : top::check_drained(*f)) ADD_FAILURE() << s;
  const traffic::RunResult& r = f->endpoints().result();
  EXPECT_GT(r.flits_delivered, 0u);
  EXPECT_EQ(r.flits_delivered, r.flits_created);
  uint64_t replayed = 0;
  for (const network::Network::Channel& ch : f->network().channels())
    if (ch.from.is_switch && ch.to.is_switch) replayed += ch.wire->data_link()->stats().frames_replayed;
  EXPECT_GT(replayed, 0u);
}

// Accepted flits per endpoint port and cycle over the window.
double accepted_per_port(const traffic::RunResult& r) {
  uint64_t flits = 0;
  for (const traffic::PortResult& p : r.ports) flits += p.accepted_flits;
  return static_cast<double>(flits) / static_cast<double>(r.ports.size() * r.window_cycles);
}

// Two leaves of four endpoints, two spines, one uplink from each leaf to each spine, every link at
// the same rate R flits per cycle; every endpoint of each leaf sends to one on the other leaf at
// full load (shift by 4). Both uplinks carry a leaf's 4 sources: R / 2 each. With leaf 0's link
// to spine 2 down for the whole window, leaf 0 sends on its other uplink only and leaf 1 reaches
// leaf 0 only through spine 3: R / 4 for every endpoint, as the links left allow. Without the
// routes around it the total is the same (the uplink left is busy either way), but the sources
// whose flows hash onto the dead link get nothing: Jain's index over sources 0.60, not 1.
TEST(NetworkLinkFaults, PacketsAreRoutedAroundALinkDownBetweenSwitches) {
  const Sets two_leaves = {{"topology.kind", "two_tier"},  {"topology.leaves", "2"},
                           {"topology.endpoints_per_leaf", "4"}, {"topology.spines", "2"},
                           {"topology.uplinks_per_leaf", "2"},   {"switch.ports", "8"},
                           {"traffic.pattern", "shift"},        {"traffic.shift", "4"},
                           {"traffic.rate", "1.0"},             {"link.dl.enable", "true"},
                           {"sim.warmup_cycles", "2000"},       {"sim.measure_cycles", "20000"}};
  const auto up = run_plain(make_config("", two_leaves));
  const auto down = run_plain(make_config("", with(two_leaves, {{"faults.link_down", "sw0.p4@100-20000"}})));
  const double r = up->config().link_flits_per_cycle();
  const double a_up = accepted_per_port(up->endpoints().result());
  const double a_down = accepted_per_port(down->endpoints().result());
  std::printf("accepted per port: %.4f with every link, %.4f with sw0.p4 down (link rate %.4f)\n", a_up, a_down, r);
  EXPECT_NEAR(a_up, r / 2, 0.03 * r / 2);
  EXPECT_NEAR(a_down, r / 4, 0.03 * r / 4);
  const traffic::RunResult& rd = down->endpoints().result();
  for (size_t e = 0; e < rd.source_accepted.size(); ++e)
    EXPECT_NEAR(static_cast<double>(rd.source_accepted[e]) / static_cast<double>(rd.window_cycles), r / 4, 0.03 * r / 4)
        << "endpoint " << e;
  for (const std::string& s : top::check_drained(*down)) ADD_FAILURE() << s;
  const traffic::RunResult& res = down->endpoints().result();
  EXPECT_EQ(res.flits_delivered, res.flits_created);
  // The spine kept its own port to leaf 0 (it has no other), and it came back once.
  EXPECT_EQ(down->network().switch_output(0, 4).data_link()->stats().link_ups, 1u);
}

// Transactions under the reference-memory and ordering scoreboard while leaf 0's first uplink is
// down from 2 to 6 us: the routes change twice (down, back up), every accelerator fences at
// each, and every request is answered once with the right bytes, in order.
TEST(NetworkLinkFaults, TransactionsStayExactAndInOrderWhileRoutedAroundALinkDown) {
  const auto f = mix_on(with(kTwoTier, {{"faults.link_down", "sw0.p3@2000-6000"}}));
  EXPECT_EQ(dl(out_of(*f, 0, 3)).link_ups, 1u);
  EXPECT_GT(f->now(), static_cast<uint64_t>(6000 * f->config().clock_ghz));
}

}  // namespace
}  // namespace upswitch::testing
