// Virtual pods (partition.pods) against independent expectations: every cross-pod request is
// rejected at the switch with protection_violation, counted exactly, and never touches the
// target's memory; in-pod traffic in the same run completes with the right data at exactly the
// latency it has in a run without a partition table; the reject's latency is the request packet's
// one-way time by hand; multicast operations and collectives stay inside one pod.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>

#include "coll/runner.h"
#include "partition_support.h"

namespace upswitch::testing {
namespace {

using endpoint::TransferRequest;
using tl::Opcode;
using tl::Status;

const std::pair<std::string, std::string> kTwoPods{"partition.pods", "0,0,0,0,1,1,1,1"};

// Round 0: ports 0, 1, 4, 5 try the other pod, while (2,3), (3,2), (6,7), (7,6) stay inside
// theirs; round 1 the other way round.
PodTraffic two_pod_traffic() {
  return PodTraffic({0, 0, 0, 0, 1, 1, 1, 1}, [](int round, int port) { return (port % 4 < 2) == (round == 0); });
}

TEST(Partition, CrossPodRequestsAreRejectedAtTheSwitchAndInPodTrafficIsUntouched) {
  top::TxnFabric f(fault_config(kFaultPipe, {kTwoPods}), false);
  top::TxnFabric g(fault_config(kFaultPipe, {}), false);
  PodTraffic tr = two_pod_traffic();
  const PodCounts c = run_and_check_pods(f, g, tr);
  EXPECT_EQ(c.cross, 32u * 3u);  // every ordered pair across the pods, three operations each
  EXPECT_EQ(c.in_pod, 8u * 3u);  // (2,3), (3,2), (6,7), (7,6), then (0,1), (1,0), (4,5), (5,4)
  // The switch's counters: requests rejected, per input port.
  const core::SwitchStats& st = f.sw().stats();
  for (int p = 0; p < 8; ++p) {
    EXPECT_EQ(st.protection_violations[static_cast<size_t>(p)], c.cross_from[static_cast<size_t>(p)]) << p;
    EXPECT_EQ(c.cross_from[static_cast<size_t>(p)], 4u * 3u) << p;
  }
  EXPECT_EQ(sum(st.target_aborts), 0u);
  EXPECT_EQ(sum(st.dropped_packets), 0u);
}

// The reject travels like the request packet's own head to the target: ingress link, routing,
// then the output pipeline and the requester's downlink, after the tail was consumed.
TEST(Partition, RejectLatencyIsTheRequestPacketsOneWayTime) {
  struct Case {
    Opcode op;
    uint64_t bytes;
    int flits;  // request packet, by hand (doc/transactions.md)
  };
  const Case cases[] = {{Opcode::kRead, 64, 1}, {Opcode::kAtomicR, 8, 2}, {Opcode::kWrite, 256, 5}};
  for (const FaultPipe& p : {FaultPipe{3, 2, 1, 1, 2}, FaultPipe{20, 8, 4, 4, 16}, FaultPipe{5, 0, 1, 1, 1}}) {
    for (const Case& c : cases) {
      top::TxnFabric f(fault_config(p, {kTwoPods}), false);
      static uint8_t buf[256];
      TransferRequest r;
      r.op = c.op;
      r.aop = tl::AtomicOp::kAdd;
      r.elem_bytes = 8;
      r.addr = f.endpoints().address_map().window_base(6) + 512;
      r.bytes = c.bytes;
      r.data = buf;
      r.result = buf;
      Schedule s(f);
      const int id = s.add(10, 1, r);
      ASSERT_TRUE(s.run());
      EXPECT_EQ(s.done(id).status, Status::kProtectionViolation);
      EXPECT_EQ(s.done(id).cycle - 10, p.one_way(c.flits)) << tl::opcode_name(c.op) << " link " << p.link;
      EXPECT_EQ(f.sw().stats().flits_discarded, static_cast<uint64_t>(c.flits));
      EXPECT_EQ(top::check_txn_drained(f), std::vector<std::string>{});
    }
  }
}

config::Config engine_config() { return fault_config(kFaultPipe, {kTwoPods, {"accel.memory_bytes", "1048576"}}); }

TEST(Partition, MulticastStaysInsideOnePod) {
  top::TxnFabric f(engine_config(), false);
  const int inside = f.endpoints().define_group({1, 2, 3});
  const int across = f.endpoints().define_group({2, 5});
  std::vector<uint8_t> data(256, 0x5a), zeros(256, 0);
  Schedule s(f);
  TransferRequest w;
  w.op = Opcode::kWrite;
  w.bytes = 256;
  w.data = data.data();
  w.addr = f.endpoints().address_map().group_base(inside) + 4096;
  const int ok = s.add(0, 0, w);        // requester and members in pod 0
  const int outsider = s.add(0, 5, w);  // requester in pod 1
  w.addr = f.endpoints().address_map().group_base(across) + 8192;
  const int spanning = s.add(0, 2, w);  // members in both pods
  std::vector<uint8_t> sum_out(256, 0xee);
  TransferRequest lr;
  lr.op = Opcode::kRead;
  lr.rtype = tl::RedType::kS32;
  lr.rop = tl::RedOp::kSum;
  lr.bytes = 256;
  lr.result = sum_out.data();
  lr.addr = f.endpoints().address_map().group_base(across) + 8192;
  const int load_reduce = s.add(0, 5, lr);
  ASSERT_TRUE(s.run());
  EXPECT_EQ(s.done(ok).status, Status::kOkay);
  EXPECT_EQ(s.done(outsider).status, Status::kProtectionViolation);
  EXPECT_EQ(s.done(spanning).status, Status::kProtectionViolation);
  EXPECT_EQ(s.done(load_reduce).status, Status::kProtectionViolation);
  EXPECT_EQ(sum_out, std::vector<uint8_t>(256, 0xee));
  for (int e = 0; e < 8; ++e) {
    std::vector<uint8_t> got(256);
    f.endpoints().memory(e).read(4096, got.data(), 256);
    EXPECT_EQ(got, e >= 1 && e <= 3 ? data : zeros) << "endpoint " << e;
    f.endpoints().memory(e).read(8192, got.data(), 256);
    EXPECT_EQ(got, zeros) << "endpoint " << e;
  }
  const endpoint::ReduceResult& rr = f.endpoints().result().reduce;
  EXPECT_EQ(rr.stores, 1u);
  EXPECT_EQ(rr.member_requests, 3u);  // only the in-pod store reached members
  EXPECT_EQ(rr.rejected, 3u);
  EXPECT_EQ(top::check_txn_drained(f), std::vector<std::string>{});
}

TEST(Partition, CollectiveAcrossPodsFailsBeforeItStarts) {
  top::TxnFabric f(engine_config(), false);
  coll::CollectiveRunner runner(f);
  coll::CollectiveSpec spec;
  spec.coll = coll::Collective::kAllReduce;
  spec.algo = coll::Algorithm::kRing;
  spec.bytes = 4096;
  spec.ranks = {2, 3, 4};
  try {
    runner.add(spec, 0);
    FAIL() << "a collective across pods was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("ranks 2 (pod 0) and 4 (pod 1) are in different virtual pods"),
              std::string::npos)
        << e.what();
  }
  spec.ranks = {4, 5, 6, 7};  // one pod: runs
  spec.algo = coll::Algorithm::kSwitch;
  runner.add(spec, 0);
  ASSERT_TRUE(runner.run(10'000'000));
  EXPECT_EQ(runner.get(0).status, Status::kOkay);
}

}  // namespace
}  // namespace upswitch::testing
