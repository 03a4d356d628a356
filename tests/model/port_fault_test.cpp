// Port faults and completion timeouts against hand-computed expectations: requests to a down
// port get target_abort after the request packet's one-way time, counted exactly, while the rest
// completes; a down port's own traffic and the responses to it are dropped and counted; a request
// nobody answers completes with completion_timeout exactly `timeout` cycles after it was issued,
// its late response is dropped and counted, and its tag waits for that response; and a loaded
// synthetic run with all of it keeps every conservation invariant.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <memory>

#include "fault_support.h"

namespace upswitch::testing {
namespace {

using endpoint::TransferRequest;
using tl::Opcode;
using tl::Status;


// 1 GHz, so that faults.port_down and endpoint.completion_timeout_ns are in cycles.
config::Config down_config(const std::string& port_down, const std::string& timeout_ns,
                           std::vector<std::pair<std::string, std::string>> extra = {}) {
  extra.push_back({"switch.clock_ghz", "1"});
  extra.push_back({"faults.port_down", port_down});
  extra.push_back({"endpoint.completion_timeout_ns", timeout_ns});
  return fault_config(kFaultPipe, extra);
}

TEST(PortFault, RequestsToADownPortGetTargetAbortAndTheRestCompletes) {
  top::TxnFabric f(down_config("5@300", "5000"), false);
  std::vector<uint8_t> before(4096);
  for (size_t k = 0; k < before.size(); ++k) before[k] = static_cast<uint8_t>(k * 3 + 1);
  std::array<uint8_t, 64> early{};
  early.fill(0x77);
  std::memcpy(before.data() + 2048, early.data(), 64);  // the write that lands before the port goes down
  f.endpoints().memory(5).write(0, before.data(), 2048);
  static std::array<std::array<uint8_t, 64>, 128> bufs{};
  Schedule s(f);
  const int first = s.add(0, 2, window_request(f, Opcode::kWrite, 5, 2048, 64, early.data()));
  std::vector<std::pair<int, int>> ids;  // (id, dst)
  size_t b = 0;
  for (int p = 0; p < 8; ++p)
    for (int q = 0; q < 8; ++q) {
      if (p == 5 || p == q) continue;
      ids.push_back(
          {s.add(400, p, window_request(f, Opcode::kWrite, q, 64 * static_cast<uint64_t>(p), 64, bufs[b++].data())), q});
      ids.push_back({s.add(400, p, window_request(f, Opcode::kRead, q, 1024, 64, bufs[b++].data())), q});
    }
  ASSERT_TRUE(s.run());
  EXPECT_EQ(s.done(first).status, Status::kOkay);
  uint64_t aborts = 0;
  for (const auto& [id, dst] : ids) {
    EXPECT_EQ(s.done(id).count, 1);
    EXPECT_EQ(s.done(id).status, dst == 5 ? Status::kTargetAbort : Status::kOkay) << "to " << dst;
    aborts += dst == 5;
  }
  EXPECT_EQ(aborts, 7u * 2u);
  const core::SwitchStats& st = f.sw().stats();
  for (int p = 0; p < 8; ++p) EXPECT_EQ(st.target_aborts[static_cast<size_t>(p)], p == 5 ? 0u : 2u) << p;
  EXPECT_EQ(sum(st.dropped_packets), 0u);
  EXPECT_EQ(sum(st.protection_violations), 0u);
  EXPECT_EQ(f.endpoints().result().statuses[static_cast<size_t>(Status::kTargetAbort)], aborts);
  std::vector<uint8_t> got(4096);
  f.endpoints().memory(5).read(0, got.data(), got.size());
  before.resize(2048 + 64);
  got.resize(2048 + 64);
  EXPECT_EQ(got, before) << "a write to the down port reached its memory";
  EXPECT_EQ(top::check_txn_drained(f), std::vector<std::string>{});
}

TEST(PortFault, TargetAbortLatencyIsTheRequestPacketsOneWayTime) {
  static uint8_t buf[256];
  for (auto [op, bytes, flits] : {std::tuple{Opcode::kRead, 64, 1}, std::tuple{Opcode::kWrite, 256, 5}}) {
    top::TxnFabric f(down_config("6@0", "100000"), false);
    Schedule s(f);
    const int id = s.add(50, 1, window_request(f, op, 6, 0, static_cast<uint64_t>(bytes), buf));
    ASSERT_TRUE(s.run());
    EXPECT_EQ(s.done(id).status, Status::kTargetAbort);
    EXPECT_EQ(s.done(id).cycle - 50, kFaultPipe.one_way(flits));
    EXPECT_EQ(top::check_txn_drained(f), std::vector<std::string>{});
  }
}

// The reduction engine hears of its member requests the switch rejects: a multicast store to a
// group with a member behind a down port reaches the other members and completes with
// target_abort.
TEST(PortFault, AMulticastWithADownMemberGetsTargetAbort) {
  top::TxnFabric f(down_config("5@0", "100000", {{"accel.memory_bytes", "1048576"}}), false);
  const int g = f.endpoints().define_group({2, 3, 5});
  std::vector<uint8_t> data(256, 0x3c);
  Schedule s(f);
  TransferRequest w;
  w.op = Opcode::kWrite;
  w.bytes = 256;
  w.data = data.data();
  w.addr = f.endpoints().address_map().group_base(g) + 4096;
  const int id = s.add(10, 1, w);
  ASSERT_TRUE(s.run());
  EXPECT_EQ(s.done(id).status, Status::kTargetAbort);
  for (int e : {2, 3, 5}) {
    std::vector<uint8_t> got(256);
    f.endpoints().memory(e).read(4096, got.data(), got.size());
    EXPECT_EQ(got, e == 5 ? std::vector<uint8_t>(256, 0) : data) << "endpoint " << e;
  }
  const core::SwitchStats& st = f.sw().stats();
  EXPECT_EQ(sum(st.target_aborts), 1u);  // the member request to port 5, at the engine unit's input
  EXPECT_EQ(st.target_aborts[static_cast<size_t>(f.endpoints().unit_for(1, w.addr))], 1u);
  EXPECT_EQ(f.endpoints().result().reduce.stores, 1u);
  EXPECT_EQ(top::check_txn_drained(f), std::vector<std::string>{});
}

// Port 5 is down in cycles [30, 2000). Its read from port 2, issued at 0, reaches port 2 before
// the port goes down; the response comes back after and is dropped at the switch. Its write at
// 100 is dropped on arrival. Both time out exactly 1000 cycles after issue; nothing comes back
// late. Port 1's traffic meanwhile completes, and port 5 works again once the port is back.
TEST(PortFault, ADownPortsTrafficAndResponsesToItAreDroppedAndTimeOut) {
  top::TxnFabric f(down_config("5@30-2000", "1000"), false);
  std::array<uint8_t, 64> rd{}, wr{}, other{}, again{};
  rd.fill(0xee);
  wr.fill(0x11);
  Schedule s(f);
  const int read = s.add(0, 5, window_request(f, Opcode::kRead, 2, 0, 64, rd.data()));
  const int write = s.add(100, 5, window_request(f, Opcode::kWrite, 3, 0, 64, wr.data()));
  const int fine = s.add(100, 1, window_request(f, Opcode::kRead, 3, 0, 64, other.data()));
  const int later = s.add(2500, 5, window_request(f, Opcode::kRead, 2, 0, 64, again.data()));
  ASSERT_TRUE(s.run());
  EXPECT_EQ(s.done(read).status, Status::kCompletionTimeout);
  EXPECT_EQ(s.done(read).cycle, 0u + 1000u);
  EXPECT_EQ(s.done(write).status, Status::kCompletionTimeout);
  EXPECT_EQ(s.done(write).cycle, 100u + 1000u);
  EXPECT_EQ(s.done(fine).status, Status::kOkay);
  EXPECT_EQ(s.done(later).status, Status::kOkay);
  for (uint8_t x : rd) EXPECT_EQ(x, 0xee) << "a timed-out read delivered data";
  std::array<uint8_t, 64> mem3{};
  f.endpoints().memory(3).read(0, mem3.data(), 64);
  EXPECT_EQ(mem3, (std::array<uint8_t, 64>{})) << "a dropped write reached its target";
  const core::SwitchStats& st = f.sw().stats();
  EXPECT_EQ(st.dropped_packets[2], 1u);  // the response to the down port
  EXPECT_EQ(st.dropped_packets[5], 1u);  // the write from it
  EXPECT_EQ(sum(st.dropped_packets), 2u);
  EXPECT_EQ(sum(st.target_aborts), 0u);
  const endpoint::TxnResult& r = f.endpoints().result();
  EXPECT_EQ(r.statuses[static_cast<size_t>(Status::kCompletionTimeout)], 2u);
  EXPECT_EQ(r.late_responses, 0u);
  EXPECT_EQ(top::check_txn_drained(f), std::vector<std::string>{});
}

// A slow completer: every read takes longer than the timeout. With one tag, the second read can
// only issue once the first one's late response is back (its tag is not reused before), so it
// times out `timeout` cycles after that, not after the first timeout.
TEST(PortFault, ATimedOutTagWaitsForItsLateResponse) {
  const int mem = 3000;
  top::TxnFabric f(
      down_config("", "1000", {{"accel.mem_latency_cycles", std::to_string(mem)}, {"accel.max_outstanding", "1"}}),
      false);
  std::array<uint8_t, 64> a{}, b{};
  a.fill(0xee);
  b.fill(0xee);
  Schedule s(f);
  const int first = s.add(0, 1, window_request(f, Opcode::kRead, 6, 0, 64, a.data()));
  const int second = s.add(0, 1, window_request(f, Opcode::kRead, 6, 256, 64, b.data()));
  ASSERT_TRUE(s.run());
  // Round trip of a 64 B read by hand: request 1 flit, 2 cycles of memory, response 2 flits.
  const uint64_t round_trip = kFaultPipe.one_way(1) + 2 + static_cast<uint64_t>(mem) + kFaultPipe.one_way(2);
  EXPECT_EQ(s.done(first).status, Status::kCompletionTimeout);
  EXPECT_EQ(s.done(first).cycle, 1000u);
  EXPECT_EQ(s.done(second).status, Status::kCompletionTimeout);
  EXPECT_EQ(s.done(second).cycle, round_trip + 1000u);
  EXPECT_EQ(s.done(first).count + s.done(second).count, 2);
  EXPECT_EQ(f.endpoints().result().late_responses, 2u);
  EXPECT_EQ(f.endpoints().result().requests_answered, 2u);
  for (uint8_t x : a) EXPECT_EQ(x, 0xee);
  for (uint8_t x : b) EXPECT_EQ(x, 0xee);
  EXPECT_EQ(top::check_txn_drained(f), std::vector<std::string>{});
}

// Answers and timeouts mixed at one slow target: each request is answered exactly once (by its
// response or by its timeout, at issue + timeout exactly), every timed-out one comes back late,
// and the invariants hold every 7 cycles.
class Recorder : public endpoint::TxnObserver {
 public:
  void executed(int, const tl::Message&, const uint8_t*) override {}
  void answered(int initiator, const tl::Message& m) override {
    ++answers[{initiator, m.addr}];
    if (m.status == Status::kCompletionTimeout) timed_out_issue[{initiator, m.addr}] = m.issued;
  }
  std::map<std::pair<int, uint64_t>, int> answers;
  std::map<std::pair<int, uint64_t>, uint64_t> timed_out_issue;
};

TEST(PortFault, AnswersAndTimeoutsMixedAtASlowTarget) {
  const uint64_t timeout = 900;
  top::TxnFabric f(
      down_config("", std::to_string(timeout), {{"accel.mem_bytes_per_cycle", "4"}, {"accel.max_outstanding", "4"}}),
      false);
  Recorder rec;
  f.endpoints().set_observer(&rec);
  static std::array<std::array<uint8_t, 256>, 64> bufs{};
  Schedule s(f);
  std::vector<std::tuple<int, int, uint64_t>> ids;  // (id, src, addr)
  for (int k = 0; k < 12; ++k)
    for (int src : {0, 1, 2, 4}) {
      const Opcode op = k % 3 == 0 ? Opcode::kWrite : Opcode::kRead;
      TransferRequest r = window_request(f, op, 7, static_cast<uint64_t>(src * 16 + k) * 256, 256,
                                  bufs[static_cast<size_t>(src * 12 + k) % 64].data());
      ids.push_back({s.add(static_cast<uint64_t>(k) * 40, src, r), src, r.addr});
    }
  const int unrelated = s.add(200, 3, window_request(f, Opcode::kRead, 6, 0, 64, bufs[63].data()));
  ASSERT_TRUE(s.run());
  uint64_t okay = 0, timed_out = 0;
  for (const auto& [id, src, addr] : ids) {
    const Schedule::Done& d = s.done(id);
    EXPECT_EQ(d.count, 1);
    EXPECT_EQ((rec.answers[{src, addr}]), 1);
    if (d.status == Status::kOkay) {
      ++okay;
      continue;
    }
    ASSERT_EQ(d.status, Status::kCompletionTimeout);
    ++timed_out;
    EXPECT_EQ(d.cycle, (rec.timed_out_issue[{src, addr}]) + timeout);
  }
  EXPECT_GT(okay, 0u);
  EXPECT_GT(timed_out, 0u);
  EXPECT_EQ(s.done(unrelated).status, Status::kOkay);
  const endpoint::TxnResult& r = f.endpoints().result();
  EXPECT_EQ(r.late_responses, timed_out);  // nothing was dropped: every one came back
  EXPECT_EQ(r.statuses[static_cast<size_t>(Status::kCompletionTimeout)], timed_out);
  EXPECT_EQ(r.requests_answered, r.requests_issued);
  EXPECT_EQ(top::check_txn_drained(f), std::vector<std::string>{});
}

// The synthetic workload with pods, a port going down and coming back, and timeouts, on the
// plain driver: it ends by itself, every status is counted where it arose, and it drains.
TEST(PortFault, SyntheticRunWithPodsAndAPortDownDrains) {
  config::Config c = fault_config(kFaultPipe, {{"switch.clock_ghz", "1"},
                                          {"partition.pods", "0,0,1,1,0,0,1,1"},
                                          {"faults.port_down", "5@3000-6000"},
                                          {"endpoint.completion_timeout_ns", "2000"},
                                          {"txn.load", "0.3"},
                                          {"txn.mix", "read:2,write:1,atomic_r:1"},
                                          {"txn.sizes", "64:1,256:1"},
                                          {"sim.warmup_cycles", "1000"},
                                          {"sim.measure_cycles", "8000"}});
  top::TxnFabric f(c, true);
  f.run_plain();
  const endpoint::TxnResult& r = f.endpoints().result();
  const core::SwitchStats& st = f.sw().stats();
  EXPECT_GT(sum(st.protection_violations), 0u);
  EXPECT_GT(sum(st.target_aborts), 0u);
  EXPECT_GT(sum(st.dropped_packets), 0u);
  EXPECT_EQ(r.statuses[static_cast<size_t>(Status::kProtectionViolation)], sum(st.protection_violations));
  EXPECT_EQ(r.statuses[static_cast<size_t>(Status::kTargetAbort)], sum(st.target_aborts));
  EXPECT_GT(r.statuses[static_cast<size_t>(Status::kOkay)], 0u);
  EXPECT_EQ(r.requests_answered, r.requests_issued);
  EXPECT_EQ(top::check_txn_drained(f), std::vector<std::string>{});
}

}  // namespace
}  // namespace upswitch::testing
