// A synthetic transaction run under run_systemc() gives the plain C++ driver's TxnResult, field
// for field (the plain run happens first, in the same process, before the kernel starts).
#include "txn_sc_support.h"

namespace upswitch::testing {
namespace {

// =================================================================================================
// 1. run_systemc() and the plain driver.

void expect_same_histogram(const stats::Histogram& a, const stats::Histogram& b, const std::string& what) {
  EXPECT_EQ(a.count(), b.count()) << what;
  EXPECT_EQ(a.min(), b.min()) << what;
  EXPECT_EQ(a.max(), b.max()) << what;
  EXPECT_EQ(a.mean(), b.mean()) << what;  // exact: the same sum over the same count
  EXPECT_EQ(a.buckets(), b.buckets()) << what;
}

void expect_same_result(const endpoint::TxnResult& a, const endpoint::TxnResult& b) {
  EXPECT_EQ(a.end_cycle, b.end_cycle);
  EXPECT_EQ(a.window_cycles, b.window_cycles);
  EXPECT_EQ(a.transfers_created, b.transfers_created);
  EXPECT_EQ(a.transfers_completed, b.transfers_completed);
  EXPECT_EQ(a.requests_issued, b.requests_issued);
  EXPECT_EQ(a.requests_answered, b.requests_answered);
  EXPECT_EQ(a.requests_rejected, b.requests_rejected);
  EXPECT_EQ(a.measured_transfers, b.measured_transfers);
  EXPECT_EQ(a.measured_completed, b.measured_completed);
  EXPECT_EQ(a.statuses, b.statuses);
  EXPECT_EQ(a.window_flits, b.window_flits);
  EXPECT_EQ(a.window_messages, b.window_messages);
  EXPECT_EQ(a.window_packets, b.window_packets);
  EXPECT_EQ(a.window_payload, b.window_payload);
  EXPECT_EQ(a.flits_sent, b.flits_sent);
  EXPECT_EQ(a.flits_received, b.flits_received);
  EXPECT_EQ(a.backlog_bytes_start, b.backlog_bytes_start);
  EXPECT_EQ(a.backlog_bytes_end, b.backlog_bytes_end);
  EXPECT_EQ(a.saturated, b.saturated);
  EXPECT_EQ(a.interrupted, b.interrupted);
  EXPECT_EQ(a.saturation_reason, b.saturation_reason);
  for (int o = 0; o < tl::kOpcodes; ++o) {
    const std::string op = tl::opcode_name(static_cast<tl::Opcode>(o));
    EXPECT_EQ(a.ops[o].completed, b.ops[o].completed) << op;
    EXPECT_EQ(a.ops[o].bytes, b.ops[o].bytes) << op;
    expect_same_histogram(a.ops[o].latency, b.ops[o].latency, op + " latency");
    expect_same_histogram(a.ops[o].network_latency, b.ops[o].network_latency, op + " network latency");
  }
  ASSERT_EQ(a.ports.size(), b.ports.size());
  for (size_t p = 0; p < a.ports.size(); ++p) {
    EXPECT_EQ(a.ports[p].offered_bytes, b.ports[p].offered_bytes) << "port " << p;
    EXPECT_EQ(a.ports[p].completed_bytes, b.ports[p].completed_bytes) << "port " << p;
    EXPECT_EQ(a.ports[p].served_bytes, b.ports[p].served_bytes) << "port " << p;
    EXPECT_EQ(a.ports[p].backlog_bytes_end, b.ports[p].backlog_bytes_end) << "port " << p;
  }
}

TEST(TxnScRun, SyntheticRunGivesThePlainDriversResult) {
  ASSERT_TRUE(kernel_unused());
  // 16 ports, reads, writes (of 64 B, 256 B and multi-request 1 KiB transfers) and fetch-adds at
  // 40% load (the atomics count their 8 B: this is the transfer rate 60% gave when they counted
  // as a 400 B transfer), with the periodic conservation check on in the SystemC run.
  const auto cfg = txn_config({{"switch.ports", "16"},
                               {"txn.mix", "read:1,write:1,atomic_r:1"},
                               {"txn.sizes", "64:1,256:2,1024:1"},
                               {"txn.load", "0.4"},
                               {"sim.check_interval_cycles", "500"}});
  // The plain driver first: it needs no kernel.
  top::TxnFabric plain(cfg, /*synthetic=*/true);
  plain.run_plain();
  ASSERT_EQ(sc_core::sc_get_status(), sc_core::SC_ELABORATION);

  top::TxnFabric sys(cfg, /*synthetic=*/true);
  uint64_t callbacks = 0;
  sc::run_systemc(sys, nullptr, [&](uint64_t) { ++callbacks; });
  EXPECT_GT(callbacks, 0u);
  EXPECT_GT(sc_time_stamp(), SC_ZERO_TIME);  // it did run under the kernel

  const auto& a = plain.endpoints().result();
  const auto& b = sys.endpoints().result();
  expect_same_result(a, b);
  const auto& sa = plain.sw().stats();
  const auto& sb = sys.sw().stats();
  EXPECT_EQ(sa.xbar_flits, sb.xbar_flits);
  EXPECT_EQ(sa.occupancy_flit_cycles, sb.occupancy_flit_cycles);
  EXPECT_EQ(sa.peak_occupancy, sb.peak_occupancy);
  EXPECT_EQ(sa.credit_stall_cycles, sb.credit_stall_cycles);
  EXPECT_EQ(sa.grants, sb.grants);
  EXPECT_EQ(sa.window_cycles, sb.window_cycles);

  // A run worth comparing: every operation measured in numbers, nothing lost, all home.
  for (tl::Opcode op : {tl::Opcode::kRead, tl::Opcode::kWrite, tl::Opcode::kAtomicR})
    EXPECT_GT(b.ops[static_cast<size_t>(op)].completed, 1000u) << tl::opcode_name(op);
  EXPECT_FALSE(b.saturated) << b.saturation_reason;
  EXPECT_EQ(b.measured_completed, b.measured_transfers);
  EXPECT_EQ(b.requests_answered, b.requests_issued);
  for (const std::string& s : top::check_txn_drained(sys)) ADD_FAILURE() << "SystemC run: " << s;
  for (const std::string& s : top::check_txn_drained(plain)) ADD_FAILURE() << "plain run: " << s;
}

TEST(TxnScRun, PlanesGiveThePlainDriversResult) {
  ASSERT_TRUE(kernel_unused());
  // Transactions on 3 planes (issue 18): one SwitchModule per switch, accelerators with a port on
  // each plane; the kernel run and the plain driver agree to the counter.
  const auto cfg = txn_config({{"topology.kind", "planes"},
                               {"topology.endpoints", "6"},
                               {"topology.planes", "3"},
                               {"txn.mix", "read:1,write:1"},
                               {"txn.sizes", "256:1,1024:1"},
                               {"txn.load", "0.5"},
                               {"sim.check_interval_cycles", "500"}});
  top::TxnFabric plain(cfg, /*synthetic=*/true);
  plain.run_plain();
  top::TxnFabric sys(cfg, /*synthetic=*/true);
  sc::run_systemc(sys, nullptr, {});
  expect_same_result(plain.endpoints().result(), sys.endpoints().result());
  for (int s = 0; s < 3; ++s) {
    EXPECT_EQ(plain.network().sw(s).stats().xbar_flits, sys.network().sw(s).stats().xbar_flits) << "plane " << s;
    EXPECT_GT(sys.network().sw(s).stats().grants, 1000u) << "plane " << s;
  }
  EXPECT_EQ(plain.endpoints().result().port_window_flits, sys.endpoints().result().port_window_flits);
  for (const std::string& s : top::check_txn_drained(sys)) ADD_FAILURE() << "SystemC run: " << s;
}

TEST(TxnScRun, APlaneTakenOutGivesThePlainDriversResult) {
  ASSERT_TRUE(kernel_unused());
  // faults.switch_down (issue 19): the accelerators and the switches apply the loss at their
  // first cycle at or after it, whichever kernel runs them; both agree to the counter.
  const auto cfg = txn_config({{"topology.kind", "planes"},
                               {"topology.endpoints", "6"},
                               {"topology.planes", "3"},
                               {"txn.mix", "read:1,write:1"},
                               {"txn.load", "0.5"},
                               {"faults.switch_down", "1@1500"},
                               {"sim.check_interval_cycles", "500"}});
  top::TxnFabric plain(cfg, /*synthetic=*/true);
  plain.run_plain();
  top::TxnFabric sys(cfg, /*synthetic=*/true);
  sc::run_systemc(sys, nullptr, {});
  expect_same_result(plain.endpoints().result(), sys.endpoints().result());
  for (int s = 0; s < 3; ++s)
    EXPECT_EQ(plain.network().sw(s).stats().grants, sys.network().sw(s).stats().grants) << "plane " << s;
  EXPECT_LT(sys.network().sw(1).stats().grants, sys.network().sw(0).stats().grants / 2);
  for (const std::string& s : top::check_txn_drained(sys)) ADD_FAILURE() << "SystemC run: " << s;
}

}  // namespace
}  // namespace upswitch::testing
