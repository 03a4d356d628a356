// Transactions under stress and misuse: no deadlock when every endpoint saturates every other
// with reads and writes through the smallest buffers (responses have their own credit class),
// and every malformed or unserviceable request answered with its error status, never a crash.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "txn_support.h"

namespace upswitch::testing {
namespace {

using endpoint::TransferRequest;
using tl::Opcode;
using tl::Status;

void saturate(const std::vector<std::pair<std::string, std::string>>& extra) {
  std::vector<std::pair<std::string, std::string>> sets = {{"txn.load", "1.0"},
                                                           {"switch.vc_buffer_flits", "1"},
                                                           {"switch.shared_buffer_flits", "0"},
                                                           {"endpoint.rx_vc_flits", "5"},
                                                           {"endpoint.rx_shared_flits", "0"},
                                                           {"accel.completer_queue", "1"},
                                                           {"sim.warmup_cycles", "1000"},
                                                           {"sim.measure_cycles", "4000"},
                                                           {"sim.watchdog_cycles", "20000"},
                                                           {"sim.check_interval_cycles", "1000"}};
  sets.insert(sets.end(), extra.begin(), extra.end());
  auto f = std::make_unique<top::TxnFabric>(make_txn_config(sets), true);
  f->run_plain();  // a deadlock throws core::DeadlockError
  const auto& r = f->endpoints().result();
  EXPECT_TRUE(r.saturated);
  EXPECT_GT(r.transfers_completed, 0u);
  EXPECT_EQ(r.transfers_created, r.transfers_completed);
  for (const std::string& s : top::check_txn_drained(*f)) ADD_FAILURE() << s;
}

TEST(TxnDeadlock, AllEndpointsSaturatingEachOtherWithReadsNeverDeadlock) {
  saturate({{"txn.mix", "read:1"}, {"txn.sizes", "256:1"}});
}

TEST(TxnDeadlock, ReadsWritesAndAtomicsFromAll72EndpointsNeverDeadlock) {
  saturate({{"txn.mix", "read:2,write:2,atomic_r:1"}, {"txn.sizes", "64:1,256:2,1024:1"}});
}

TEST(TxnDeadlock, OneVcAndStrictOrderNeverDeadlock) {
  saturate({{"switch.ports", "16"}, {"switch.vcs", "1"}, {"tl.strict_order", "true"}, {"txn.mix", "read:1,writefull:1"}});
}

// Packet mode holds an input and an output for a packet only while it flows, and a request's
// hold yields to responses: through the smallest buffers it deadlocks no more than flit mode.
TEST(TxnDeadlock, PacketModeNeverDeadlocks) {
  saturate({{"switch.packet_mode", "true"}, {"txn.mix", "read:2,write:2,atomic_r:1"}, {"txn.sizes", "64:1,256:2,1024:1"}});
  saturate({{"switch.packet_mode", "true"}, {"switch.ports", "16"}, {"switch.vcs", "1"}, {"tl.strict_order", "true"},
            {"txn.mix", "read:1,writefull:1"}});
}

// Crossbar speedup: a flit takes its downstream (and command) credits when it crosses, so a
// full output buffer waits on nothing but its link.
TEST(TxnDeadlock, CrossbarSpeedupNeverDeadlocks) {
  saturate({{"switch.speedup", "2"}, {"switch.output_buffer_flits", "2"}, {"txn.mix", "read:2,write:2,atomic_r:1"},
            {"txn.sizes", "64:1,256:2,1024:1"}});
}

struct Outcome {
  Status status;
  uint64_t cycle;
};

class Recorder : public endpoint::TransferClient {
 public:
  void transfer_done(uint64_t cookie, Status s, uint64_t cycle) override { got[cookie] = {s, cycle}; }
  std::map<uint64_t, Outcome> got;
};

TEST(TxnErrors, EveryBadRequestGetsItsStatusAndTheRunGoesOn) {
  auto f = std::make_unique<top::TxnFabric>(make_txn_config({{"switch.ports", "8"},
                                                             {"accel.memory_bytes", "65536"},
                                                             {"txn.footprint_bytes", "4096"},
                                                             {"accel.atomic_ops", "add,cas"}}),
                                            false);
  const auto& map = f->endpoints().address_map();
  Recorder rec;
  static uint8_t buf[512];
  static const uint8_t half_enabled[2] = {0xff, 0};
  struct Bad {
    Opcode op;
    uint64_t addr, bytes;
    tl::AtomicOp aop;
    const uint8_t* enables;
    uint32_t enables_len;
    Status want;
  };
  const Bad bad[] = {
      {Opcode::kRead, map.group_base(map.groups), 64, tl::AtomicOp::kAdd, nullptr, 0, Status::kDecodeError},  // no window
      // A multicast window with no group defined: the reduction engine answers (in the fabric).
      {Opcode::kRead, map.group_base(0), 64, tl::AtomicOp::kAdd, nullptr, 0, Status::kDecodeError},
      {Opcode::kRead, map.window_base(3) + 65536, 64, tl::AtomicOp::kAdd, nullptr, 0, Status::kDecodeError},  // no memory
      {Opcode::kAtomicR, map.window_base(3), 8, tl::AtomicOp::kFAdd, nullptr, 0, Status::kUnsupported},
      {Opcode::kRead, map.window_base(3) + 2, 8, tl::AtomicOp::kAdd, nullptr, 0, Status::kMisaligned},
      {Opcode::kAtomicR, map.window_base(3) + 56, 16, tl::AtomicOp::kAdd, nullptr, 0, Status::kBadLength},
      {Opcode::kAtomicR, map.window_base(3) + 4, 8, tl::AtomicOp::kAdd, nullptr, 0, Status::kMisaligned},
      {Opcode::kWriteFull, map.window_base(3), 32, tl::AtomicOp::kAdd, nullptr, 0, Status::kBadByteEnable},
      {Opcode::kWriteFull, map.window_base(3), 64, tl::AtomicOp::kAdd, half_enabled, 2, Status::kBadByteEnable},
      {Opcode::kRead, map.window_base(3), 0, tl::AtomicOp::kAdd, nullptr, 0, Status::kBadLength},
      {Opcode::kRead, map.window_base(3) + 128, 256, tl::AtomicOp::kAdd, nullptr, 0, Status::kOkay},  // split, fine
  };
  uint64_t k = 0;
  for (const Bad& b : bad) {
    TransferRequest r;
    r.op = b.op;
    r.aop = b.aop;
    r.elem_bytes = 8;
    r.addr = b.addr;
    r.bytes = b.bytes;
    r.data = buf;
    r.result = buf;
    r.byte_enable = b.enables;
    r.byte_enable_len = b.enables_len;
    r.client = &rec;
    r.cookie = k++;
    f->endpoints().submit(1, r, f->now());
  }
  ASSERT_TRUE(f->run_until_idle(1'000'000));
  for (uint64_t i = 0; i < k; ++i) {
    ASSERT_TRUE(rec.got.count(i)) << "transfer " << i << " never completed";
    EXPECT_EQ(rec.got[i].status, bad[i].want) << "transfer " << i << ": " << tl::status_name(rec.got[i].status);
  }
  for (const std::string& s : top::check_txn_drained(*f)) ADD_FAILURE() << s;
  // Format errors and the no-window decode error never enter the fabric.
  EXPECT_EQ(f->endpoints().result().requests_rejected, 7u);
}

}  // namespace
}  // namespace upswitch::testing

namespace upswitch::testing {
namespace {

// Synthetic reads and writes whose bytes nobody looks at skip generating and storing them
// (tl::Message::no_data); an observer turns the bytes back on. Timing must not notice: the same
// run with and without an observer gives the same counters and latencies, cycle for cycle.
class NoOpObserver : public endpoint::TxnObserver {
 public:
  void executed(int, const tl::Message&, const uint8_t*) override { ++executed_; }
  void answered(int, const tl::Message&) override {}
  uint64_t executed_ = 0;
};

TEST(TxnSynthetic, BytesNobodyReadsDoNotChangeTiming) {
  const config::Config cfg = make_txn_config({{"switch.ports", "16"},
                                              {"txn.mix", "read:2,write:2,writefull:1,atomic_r:1"},
                                              {"txn.sizes", "64:1,256:2,1024:1"},
                                              {"txn.load", "0.6"},
                                              {"sim.warmup_cycles", "1000"},
                                              {"sim.measure_cycles", "4000"}});
  top::TxnFabric plain(cfg, true), watched(cfg, true);
  NoOpObserver obs;
  watched.endpoints().set_observer(&obs);
  plain.run_plain();
  watched.run_plain();
  EXPECT_GT(obs.executed_, 1000u);
  EXPECT_EQ(plain.now(), watched.now());
  const auto& a = plain.endpoints().result();
  const auto& b = watched.endpoints().result();
  EXPECT_EQ(a.requests_issued, b.requests_issued);
  for (size_t op = 0; op < a.ops.size(); ++op) {
    EXPECT_EQ(a.ops[op].completed, b.ops[op].completed) << "op " << op;
    EXPECT_EQ(a.ops[op].latency.count(), b.ops[op].latency.count());
    EXPECT_DOUBLE_EQ(a.ops[op].latency.mean(), b.ops[op].latency.mean()) << "op " << op;
    EXPECT_EQ(a.ops[op].latency.max(), b.ops[op].latency.max()) << "op " << op;
  }
  for (size_t p = 0; p < a.ports.size(); ++p) {
    EXPECT_EQ(a.ports[p].tx_flits, b.ports[p].tx_flits) << "port " << p;
    EXPECT_EQ(a.ports[p].tx_blocked_cycles, b.ports[p].tx_blocked_cycles) << "port " << p;
    EXPECT_EQ(a.ports[p].served_bytes, b.ports[p].served_bytes) << "port " << p;
  }
  // The unwatched run stored only what atomics need: no memory pages behind plain writes.
  size_t pages = 0;
  for (int p = 0; p < 16; ++p) pages += plain.endpoints().memory(p).pages();
  size_t watched_pages = 0;
  for (int p = 0; p < 16; ++p) watched_pages += watched.endpoints().memory(p).pages();
  EXPECT_LT(pages, watched_pages / 2);  // only the atomics' pages
}

// txn.load is the offered payload as a fraction of the link's byte rate whatever the mix: an
// atomic offers its element (txn.atomic_bytes), not a txn.sizes transfer it does not carry (the
// arrival rate used 256 B for an 8 B atomic, so an atomic mix offered 1/32 of txn.load). The
// expectation is the definition itself: offered bytes = load x link bytes per cycle x cycles.
TEST(TxnSynthetic, OfferedLoadIsTxnLoadForEveryMix) {
  struct Case {
    const char* mix;
    const char* load;
  };
  for (const Case& k : {Case{"atomic_r:1", "0.05"}, Case{"atomic_nr:1", "0.1"}, Case{"read:1,atomic_r:1", "0.4"},
                        Case{"write:3,atomic_nr:1", "0.5"}}) {
    const config::Config cfg = make_txn_config({{"switch.ports", "16"},
                                                {"txn.mix", k.mix},
                                                {"txn.load", k.load},
                                                {"sim.warmup_cycles", "1000"},
                                                {"sim.measure_cycles", "20000"}});
    top::TxnFabric f(cfg, true);
    f.run_plain();
    const auto& r = f.endpoints().result();
    uint64_t offered = 0;
    for (const auto& p : r.ports) offered += p.offered_bytes;
    const double link_bytes = cfg.flit_bytes * cfg.link_flits_per_cycle();
    const double load = static_cast<double>(offered) / (static_cast<double>(r.window_cycles) * 16 * link_bytes);
    EXPECT_NEAR(load, std::stod(k.load), 0.03 * std::stod(k.load)) << k.mix;
  }
}

}  // namespace
}  // namespace upswitch::testing
