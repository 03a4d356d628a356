// Virtual pods across a network (issue 19): UALink keeps vPods apart by routing entries in every
// switch (facts 1.11). On two tiers with pods that span every leaf, every cross-pod request is
// rejected at its ingress leaf with protection_violation (no flit of it reaches a spine or the
// target, 0 bytes delivered across), while in-pod traffic across the spines completes at exactly
// the cycles of a run without a partition table; multicast and collectives stay inside one pod.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "coll/runner.h"
#include "partition_support.h"

namespace upswitch::testing {
namespace {

// 4 leaves of 2 accelerators, 2 spines; accelerator e on leaf e / 2, in pod e % 2, so each pod
// has a member on every leaf and in-pod traffic crosses the spines.
config::Config two_tier_config(const Sets& extra) {
  Sets s = {{"topology.kind", "two_tier"},        {"topology.leaves", "4"},
            {"topology.endpoints_per_leaf", "2"}, {"topology.spines", "2"},
            {"topology.uplinks_per_leaf", "2"},   {"accel.memory_bytes", "1048576"}};
  return fault_config(kFaultPipe, with(s, extra));
}
const Sets kPods = {{"partition.pods", "0,1,0,1,0,1,0,1"}};

// Round 0: accelerators on leaves 0 and 2 (0, 1, 4, 5) try the other pod, while 2 <-> 6 and
// 3 <-> 7 stay inside theirs across the spines; round 1 the other way round.
PodTraffic spread_pod_traffic() {
  return PodTraffic({0, 1, 0, 1, 0, 1, 0, 1}, [](int round, int e) { return ((e / 2) % 2 == 0) == (round == 0); });
}

TEST(NetworkPartition, CrossPodRequestsAreRejectedAtTheIngressLeafAndInPodTrafficIsUntouched) {
  top::TxnFabric f(two_tier_config(kPods), false);
  top::TxnFabric g(two_tier_config({}), false);
  PodTraffic tr = spread_pod_traffic();
  const PodCounts c = run_and_check_pods(f, g, tr);
  EXPECT_EQ(c.cross, 8u * 4u * 3u);  // every accelerator to the 4 of the other pod, once, three operations
  EXPECT_EQ(c.in_pod, 8u * 3u);      // (2,6), (6,2), (3,7), (7,3), then (0,4), (4,0), (1,5), (5,1)
  // Rejected at the ingress leaf, at the accelerator's input; no spine saw a cross-pod request.
  const network::Network& net = f.network();
  const network::Topology& topo = net.topology();
  std::vector<uint64_t> rejected_at(static_cast<size_t>(net.switches()), 0);
  for (int s = 0; s < net.switches(); ++s) rejected_at[static_cast<size_t>(s)] = sum(net.sw(s).stats().protection_violations);
  uint64_t at_ingress = 0;
  for (int e = 0; e < 8; ++e) {
    const network::PortRef leaf = topo.peer(network::PortRef{false, e, 0});
    const uint64_t got = net.sw(leaf.id).stats().protection_violations[static_cast<size_t>(leaf.port)];
    EXPECT_EQ(got, c.cross_from[static_cast<size_t>(e)]) << "accelerator " << e;
    EXPECT_EQ(got, 4u * 3u) << "accelerator " << e;
    at_ingress += got;
  }
  EXPECT_EQ(sum(rejected_at), at_ingress);
  // 0 bytes delivered across: no request of a crossing accelerator left its leaf, so the spines
  // carried only the in-pod traffic, the same flits as the run without a table.
  for (int s = 0; s < net.switches(); ++s) {
    if (topo.switches[static_cast<size_t>(s)].level != 1) continue;
    EXPECT_EQ(net.sw(s).stats().grants, g.network().sw(s).stats().grants) << "spine " << s;
  }
}

TEST(NetworkPartition, PlanesRejectAtEveryPlane) {
  const Sets planes = {{"topology.kind", "planes"}, {"topology.endpoints", "8"}, {"topology.planes", "4"}};
  top::TxnFabric f(fault_config(kFaultPipe, with(planes, {{"partition.pods", "0,0,0,0,1,1,1,1"}})), false);
  top::TxnFabric g(fault_config(kFaultPipe, planes), false);
  PodTraffic tr({0, 0, 0, 0, 1, 1, 1, 1}, [](int round, int e) { return (e % 4 < 2) == (round == 0); });
  const PodCounts c = run_and_check_pods(f, g, tr);
  EXPECT_EQ(c.cross, 32u * 3u);
  EXPECT_EQ(c.in_pod, 8u * 3u);
  uint64_t rejected = 0;
  for (int s = 0; s < f.network().switches(); ++s) rejected += sum(f.network().sw(s).stats().protection_violations);
  EXPECT_EQ(rejected, c.cross);
}

TEST(NetworkPartition, MulticastStaysInsideOnePod) {
  top::TxnFabric f(two_tier_config(kPods), false);
  const int inside = f.endpoints().define_group({0, 2, 4, 6});  // pod 0, one member per leaf
  const int across = f.endpoints().define_group({2, 3});        // one leaf, two pods
  std::vector<uint8_t> data(256, 0x5a), zeros(256, 0);
  Schedule s(f);
  endpoint::TransferRequest w;
  w.op = tl::Opcode::kWrite;
  w.bytes = 256;
  w.data = data.data();
  w.addr = f.endpoints().address_map().group_base(inside) + 4096;
  const int ok = s.add(0, 6, w);        // requester and members in pod 0
  const int outsider = s.add(0, 1, w);  // requester in pod 1
  w.addr = f.endpoints().address_map().group_base(across) + 8192;
  const int spanning = s.add(0, 2, w);
  ASSERT_TRUE(s.run());
  EXPECT_EQ(s.done(ok).status, tl::Status::kOkay);
  EXPECT_EQ(s.done(outsider).status, tl::Status::kProtectionViolation);
  EXPECT_EQ(s.done(spanning).status, tl::Status::kProtectionViolation);
  for (int e = 0; e < 8; ++e) {
    std::vector<uint8_t> got(256);
    f.endpoints().memory(e).read(4096, got.data(), 256);
    EXPECT_EQ(got, e % 2 == 0 ? data : zeros) << "accelerator " << e;
    f.endpoints().memory(e).read(8192, got.data(), 256);
    EXPECT_EQ(got, zeros) << "accelerator " << e;
  }
  EXPECT_EQ(top::check_txn_drained(f), std::vector<std::string>{});
}

TEST(NetworkPartition, CollectivesStayInsideOnePod) {
  top::TxnFabric f(two_tier_config(kPods), false);
  coll::CollectiveRunner runner(f);
  coll::CollectiveSpec spec;
  spec.coll = coll::Collective::kAllReduce;
  spec.algo = coll::Algorithm::kRing;
  spec.bytes = 4096;
  spec.ranks = {1, 2};
  EXPECT_THROW(runner.add(spec, 0), std::invalid_argument);
  spec.ranks = {1, 3, 5, 7};  // pod 1, across every leaf: runs
  spec.algo = coll::Algorithm::kSwitch;
  runner.add(spec, 0);
  ASSERT_TRUE(runner.run(10'000'000));
  EXPECT_EQ(runner.get(0).status, tl::Status::kOkay);
}

}  // namespace
}  // namespace upswitch::testing
