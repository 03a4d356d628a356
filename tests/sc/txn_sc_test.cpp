// The transaction fabric under the SystemC kernel (systemc/sc/), each against an expectation of
// its own:
//  * a synthetic run under run_systemc() gives the plain C++ driver's TxnResult, field for field;
//  * the TLM-2.0 accelerator sockets, loosely timed (b_transport) and approximately timed
//    (nb_transport, 4 phases): data against memory read directly, response statuses against the
//    mapping documented in doc/tlm.md, DMI refusal, and a 256 B read's latency against the plain
//    fabric's zero-load latency plus the documented entry rounding (no hidden time at the boundary);
//  * many initiators with many transactions in flight, against the reference memory and
//    scoreboard of tests/txn_support.h, ending drained.
//
// The kernel can be started once per process, so ctest runs each TEST in its own process
// (gtest_discover_tests) and each TEST runs one simulation.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "sc/atomic_extension.h"
#include "sc/txn_sc_run.h"
#include "sc/txn_system.h"
#include "test_support.h"
#include "txn_support.h"

namespace upswitch::testing {
namespace {

using sc::AtomicExtension;
using sc_core::sc_time;
using sc_core::sc_time_stamp;
using sc_core::SC_ZERO_TIME;
using tl::AtomicOp;

// The `tiny` preset (8 ports, 1.6 GHz, short pipeline and links) carrying transactions.
config::Config txn_config(std::vector<std::pair<std::string, std::string>> sets) {
  sets.insert(sets.begin(), {"traffic.kind", "transactions"});
  return make_config("tiny", sets);
}

// Each TEST must be the first simulation of its process.
::testing::AssertionResult kernel_unused() {
  if (sc_core::sc_get_status() == sc_core::SC_ELABORATION) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "the SystemC kernel already ran in this process: run one TEST per "
                                          "process (--gtest_filter=...), as ctest does";
}

void set_payload(tlm::tlm_generic_payload& gp, tlm::tlm_command cmd, uint64_t addr, void* data, unsigned len) {
  gp.set_command(cmd);
  gp.set_address(addr);
  gp.set_data_ptr(static_cast<unsigned char*>(data));
  gp.set_data_length(len);
  gp.set_streaming_width(len);
  gp.set_byte_enable_ptr(nullptr);
  gp.set_byte_enable_length(0);
  gp.set_dmi_allowed(false);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
}

// The completers' memory, read and written directly (not through any socket): set-up and checks.
std::vector<uint8_t> memory_at(top::TxnFabric& f, uint64_t addr, size_t n) {
  const tl::AddressMap& map = f.endpoints().address_map();
  const tl::SparseMemory& mem = f.endpoints().memory(map.owner(addr));
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = *mem.peek(map.offset(addr) + i);
  return v;
}
void store_at(top::TxnFabric& f, uint64_t addr, const void* data, size_t n) {
  const tl::AddressMap& map = f.endpoints().address_map();
  tl::SparseMemory& mem = f.endpoints().memory(map.owner(addr));
  for (size_t i = 0; i < n; ++i) *mem.bytes(map.offset(addr) + i) = static_cast<const uint8_t*>(data)[i];
}
template <class T>
T load_at(top::TxnFabric& f, uint64_t addr) {
  T v;
  std::memcpy(&v, memory_at(f, addr, sizeof v).data(), sizeof v);
  return v;
}
template <class T, size_t N>
std::vector<uint8_t> bytes_of(const std::array<T, N>& a) {
  std::vector<uint8_t> v(sizeof a);
  std::memcpy(v.data(), a.data(), sizeof a);
  return v;
}

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
  // 60% load, with the periodic conservation check on in the SystemC run.
  const auto cfg = txn_config({{"switch.ports", "16"},
                               {"txn.mix", "read:1,write:1,atomic_r:1"},
                               {"txn.sizes", "64:1,256:2,1024:1"},
                               {"txn.load", "0.6"},
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

// =================================================================================================
// 2a. Loosely timed: b_transport.

// What a response costs in time, as doc/tlm.md documents it.
enum class When {
  kAtOnce,     // refused by the socket before entering the model: no simulated time
  kEntry,      // answered by the initiator in its entry cycle: one cycle when called on a boundary
  kRoundTrip,  // answered by the completer, across the switch and its memory latency
};

class LtUser : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<LtUser> socket;
  bool finished = false;

  LtUser(const sc_core::sc_module_name& name, top::TxnFabric& f, sc_time period, int target)
      : sc_core::sc_module(name), socket("socket"), f_(f), period_(period), target_(target) {
    SC_HAS_PROCESS(LtUser);
    SC_THREAD(run);
  }

 private:
  // One b_transport at the current time (a cycle boundary: every call follows a completion);
  // checks the status and what it cost.
  void lt(tlm::tlm_generic_payload& gp, tlm::tlm_response_status want, When when, const std::string& what) {
    const sc_time start = sc_time_stamp();
    ASSERT_EQ(start.value() % period_.value(), 0u) << what;
    sc_time delay = SC_ZERO_TIME;
    socket->b_transport(gp, delay);
    EXPECT_EQ(delay, SC_ZERO_TIME) << what << ": the completion time is the caller's time";
    const sc_time took = sc_time_stamp() - start;
    EXPECT_EQ(gp.get_response_status(), want) << what << ": got " << gp.get_response_string();
    EXPECT_EQ(took.value() % period_.value(), 0u) << what << ": completes on a cycle boundary";
    const uint64_t cycles = took.value() / period_.value();
    switch (when) {
      case When::kAtOnce: EXPECT_EQ(cycles, 0u) << what; break;
      case When::kEntry: EXPECT_EQ(cycles, 1u) << what; break;
      case When::kRoundTrip:
        EXPECT_GT(cycles, static_cast<uint64_t>(f_.config().accel.mem_latency_cycles)) << what;
        break;
    }
  }
  void lt_atomic(tlm::tlm_generic_payload& gp, AtomicExtension& ext, tlm::tlm_response_status want, When when,
                 const std::string& what) {
    gp.set_extension(&ext);
    lt(gp, want, when, what);
    gp.clear_extension(&ext);  // the payload would free it
  }

  void run() {
    const tl::AddressMap& map = f_.endpoints().address_map();
    const uint64_t base = map.window_base(target_);
    tlm::tlm_generic_payload gp;

    // put 256 B (a WriteFull) and get it back.
    std::array<uint8_t, 256> out{}, in{};
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<uint8_t>(i * 7 + 1);
    set_payload(gp, tlm::TLM_WRITE_COMMAND, base + 0x1000, out.data(), 256);
    lt(gp, tlm::TLM_OK_RESPONSE, When::kRoundTrip, "put 256 B");
    EXPECT_EQ(memory_at(f_, base + 0x1000, 256), bytes_of(out));
    set_payload(gp, tlm::TLM_READ_COMMAND, base + 0x1000, in.data(), 256);
    lt(gp, tlm::TLM_OK_RESPONSE, When::kRoundTrip, "get 256 B");
    EXPECT_EQ(in, out);

    // A write with byte enables (ff 00 ff ff, repeated): only enabled bytes change.
    std::array<uint8_t, 64> w{};
    for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<uint8_t>(0xa0 + i);
    unsigned char be4[4] = {0xff, 0x00, 0xff, 0xff};
    set_payload(gp, tlm::TLM_WRITE_COMMAND, base + 0x1040, w.data(), 64);
    gp.set_byte_enable_ptr(be4);
    gp.set_byte_enable_length(4);
    lt(gp, tlm::TLM_OK_RESPONSE, When::kRoundTrip, "write with byte enables");
    const std::vector<uint8_t> merged = memory_at(f_, base + 0x1040, 64);
    for (size_t i = 0; i < 64; ++i) EXPECT_EQ(merged[i], i % 4 == 1 ? out[0x40 + i] : w[i]) << "byte " << i;

    // A read with byte enables (00 ff): the disabled bytes of the array are left alone.
    std::array<uint8_t, 64> r{};
    r.fill(0xee);
    unsigned char be2[2] = {0x00, 0xff};
    set_payload(gp, tlm::TLM_READ_COMMAND, base + 0x1040, r.data(), 64);
    gp.set_byte_enable_ptr(be2);
    gp.set_byte_enable_length(2);
    lt(gp, tlm::TLM_OK_RESPONSE, When::kRoundTrip, "read with byte enables");
    for (size_t i = 0; i < 64; ++i) EXPECT_EQ(r[i], i % 2 ? merged[i] : 0xee) << "byte " << i;

    // 1 KiB from an offset 16 B past a 256 B boundary: five requests, one transfer.
    std::vector<uint8_t> big(1024), back(1024, 0);
    for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<uint8_t>(i * 13 + 5);
    set_payload(gp, tlm::TLM_WRITE_COMMAND, base + 0x2010, big.data(), 1024);
    lt(gp, tlm::TLM_OK_RESPONSE, When::kRoundTrip, "put 1 KiB");
    EXPECT_EQ(memory_at(f_, base + 0x2010, 1024), big);
    set_payload(gp, tlm::TLM_READ_COMMAND, base + 0x2010, back.data(), 1024);
    lt(gp, tlm::TLM_OK_RESPONSE, When::kRoundTrip, "get 1 KiB");
    EXPECT_EQ(back, big);

    // Fetch-add (AtomicR): the array gets the old value, memory old + operand.
    const uint64_t counter = base + 0x3000;
    const uint64_t initial = 1000;
    store_at(f_, counter, &initial, 8);
    uint64_t operand = 42;
    AtomicExtension add(AtomicOp::kAdd, 8, /*returns_old=*/true);
    set_payload(gp, tlm::TLM_WRITE_COMMAND, counter, &operand, 8);
    lt_atomic(gp, add, tlm::TLM_OK_RESPONSE, When::kRoundTrip, "fetch-add");
    EXPECT_EQ(operand, 1000u);
    EXPECT_EQ(load_at<uint64_t>(f_, counter), 1042u);
    // AtomicNR: memory updated, the array untouched.
    operand = 8;
    AtomicExtension add_nr(AtomicOp::kAdd, 8, /*returns_old=*/false);
    set_payload(gp, tlm::TLM_WRITE_COMMAND, counter, &operand, 8);
    lt_atomic(gp, add_nr, tlm::TLM_OK_RESPONSE, When::kRoundTrip, "add, no return");
    EXPECT_EQ(operand, 8u);
    EXPECT_EQ(load_at<uint64_t>(f_, counter), 1050u);
    // Swap, issued as a TLM_READ_COMMAND (the extension decides).
    operand = 7;
    AtomicExtension swap(AtomicOp::kSwap, 8, true);
    set_payload(gp, tlm::TLM_READ_COMMAND, counter, &operand, 8);
    lt_atomic(gp, swap, tlm::TLM_OK_RESPONSE, When::kRoundTrip, "swap");
    EXPECT_EQ(operand, 1050u);
    EXPECT_EQ(load_at<uint64_t>(f_, counter), 7u);

    // CAS on two 4 B elements: the first compares equal, the second does not.
    const std::array<uint32_t, 2> cas_mem{5, 6};
    store_at(f_, base + 0x3020, cas_mem.data(), 8);
    std::array<uint32_t, 2> cas_data{50, 60};
    const std::array<uint32_t, 2> cas_cmp{5, 9};
    AtomicExtension cas(AtomicOp::kCas, 4, true, reinterpret_cast<const uint8_t*>(cas_cmp.data()));
    set_payload(gp, tlm::TLM_WRITE_COMMAND, base + 0x3020, cas_data.data(), 8);
    lt_atomic(gp, cas, tlm::TLM_OK_RESPONSE, When::kRoundTrip, "compare-and-swap");
    EXPECT_EQ(cas_data, cas_mem);
    EXPECT_EQ(load_at<uint32_t>(f_, base + 0x3020), 50u);
    EXPECT_EQ(load_at<uint32_t>(f_, base + 0x3024), 6u);

    // Unsigned min on four 4 B elements, elements 1 and 3 disabled: they keep their memory and
    // their operand in the array.
    const std::array<uint32_t, 4> min_mem{10, 20, 30, 40};
    store_at(f_, base + 0x3040, min_mem.data(), 16);
    std::array<uint32_t, 4> min_data{5, 5, 50, 5};
    unsigned char min_be[16] = {};
    for (int b = 0; b < 16; ++b) min_be[b] = (b / 4) % 2 ? 0x00 : 0xff;
    AtomicExtension min_u(AtomicOp::kMinU, 4, true);
    set_payload(gp, tlm::TLM_WRITE_COMMAND, base + 0x3040, min_data.data(), 16);
    gp.set_byte_enable_ptr(min_be);
    gp.set_byte_enable_length(16);
    lt_atomic(gp, min_u, tlm::TLM_OK_RESPONSE, When::kRoundTrip, "min_u with byte enables");
    EXPECT_EQ(min_data, (std::array<uint32_t, 4>{10, 5, 30, 5}));
    EXPECT_EQ(bytes_of(std::array<uint32_t, 4>{5, 20, 30, 40}), memory_at(f_, base + 0x3040, 16));

    errors(base);
    dmi_and_debug(base);

    // After all of that, the socket still carries a plain get.
    in.fill(0);
    set_payload(gp, tlm::TLM_READ_COMMAND, base + 0x1000, in.data(), 256);
    lt(gp, tlm::TLM_OK_RESPONSE, When::kRoundTrip, "get after the errors");
    EXPECT_EQ(std::vector<uint8_t>(in.begin(), in.begin() + 64), memory_at(f_, base + 0x1000, 64));
    finished = true;
  }

  // Every error status of doc/tlm.md "Response status", and when it comes back.
  void errors(uint64_t base) {
    const tl::AddressMap& map = f_.endpoints().address_map();
    const uint64_t memory_end = base + map.memory;  // accel.memory_bytes into the window
    const uint64_t counter = base + 0x3000;
    const uint64_t counter_before = load_at<uint64_t>(f_, counter);
    tlm::tlm_generic_payload gp;
    std::array<uint64_t, 64> buf{};

    // Addresses.
    set_payload(gp, tlm::TLM_READ_COMMAND, map.window_base(map.endpoints), buf.data(), 8);
    lt(gp, tlm::TLM_ADDRESS_ERROR_RESPONSE, When::kEntry, "read outside every window");
    set_payload(gp, tlm::TLM_READ_COMMAND, memory_end, buf.data(), 8);
    lt(gp, tlm::TLM_ADDRESS_ERROR_RESPONSE, When::kRoundTrip, "read beyond accel.memory_bytes");
    // accel.memory_bytes is 1 MiB + 128: the end of memory is in the middle of a 256 B region.
    // A write across it within one request: refused whole by the completer.
    const std::vector<uint8_t> edge = memory_at(f_, memory_end - 4, 4);
    buf.fill(~uint64_t{0});
    set_payload(gp, tlm::TLM_WRITE_COMMAND, memory_end - 4, buf.data(), 8);
    lt(gp, tlm::TLM_ADDRESS_ERROR_RESPONSE, When::kRoundTrip, "write across the end of memory, one request");
    EXPECT_EQ(memory_at(f_, memory_end - 4, 4), edge) << "a refused request changed memory";
    // A write split at a 256 B boundary into a backed request and one across the end of memory:
    // the first takes effect, the second's decode error is the transfer's status.
    const uint64_t split = memory_end - 128 - 4;
    set_payload(gp, tlm::TLM_WRITE_COMMAND, split, buf.data(), 136);
    lt(gp, tlm::TLM_ADDRESS_ERROR_RESPONSE, When::kRoundTrip, "write of two requests, the second refused");
    EXPECT_EQ(memory_at(f_, split, 4), std::vector<uint8_t>(4, 0xff)) << "the backed request took effect";
    EXPECT_EQ(memory_at(f_, split + 4, 124), std::vector<uint8_t>(124, 0)) << "the refused one did not";
    set_payload(gp, tlm::TLM_READ_COMMAND, memory_end - 256, buf.data(), 512);
    lt(gp, tlm::TLM_ADDRESS_ERROR_RESPONSE, When::kRoundTrip, "two requests, the second beyond memory");

    // Atomics the completers do not implement (accel.atomic_ops = add,swap,cas,min_u): command
    // error from the completer; neither memory nor the array changes.
    uint64_t operand = 3;
    AtomicExtension fadd(AtomicOp::kFAdd, 8, true);
    set_payload(gp, tlm::TLM_WRITE_COMMAND, counter, &operand, 8);
    gp.set_extension(&fadd);
    lt(gp, tlm::TLM_COMMAND_ERROR_RESPONSE, When::kRoundTrip, "fadd, not implemented");
    gp.clear_extension(&fadd);
    EXPECT_EQ(operand, 3u);
    uint32_t operand4 = 0xff;
    AtomicExtension xor_nr(AtomicOp::kXor, 4, false);
    set_payload(gp, tlm::TLM_WRITE_COMMAND, counter, &operand4, 4);
    gp.set_extension(&xor_nr);
    lt(gp, tlm::TLM_COMMAND_ERROR_RESPONSE, When::kRoundTrip, "xor (no return), not implemented");
    gp.clear_extension(&xor_nr);
    EXPECT_EQ(load_at<uint64_t>(f_, counter), counter_before);

    // Format rules, answered by the initiator in its entry cycle.
    AtomicExtension add2(AtomicOp::kAdd, 2, true);
    set_payload(gp, tlm::TLM_WRITE_COMMAND, counter, buf.data(), 8);
    gp.set_extension(&add2);
    lt(gp, tlm::TLM_COMMAND_ERROR_RESPONSE, When::kEntry, "2-byte atomic elements");
    gp.clear_extension(&add2);
    set_payload(gp, tlm::TLM_READ_COMMAND, base, buf.data(), 6);
    lt(gp, tlm::TLM_BURST_ERROR_RESPONSE, When::kEntry, "length not a multiple of 4");
    AtomicExtension add8(AtomicOp::kAdd, 8, true);
    set_payload(gp, tlm::TLM_WRITE_COMMAND, base + 0x3038, buf.data(), 16);
    gp.set_extension(&add8);
    lt(gp, tlm::TLM_BURST_ERROR_RESPONSE, When::kEntry, "atomic crossing its 64 B beat");
    gp.clear_extension(&add8);
    const std::array<uint32_t, 4> cmp{};
    AtomicExtension cas4(AtomicOp::kCas, 4, true, reinterpret_cast<const uint8_t*>(cmp.data()));
    set_payload(gp, tlm::TLM_WRITE_COMMAND, base + 0x3018, buf.data(), 16);
    gp.set_extension(&cas4);
    lt(gp, tlm::TLM_BURST_ERROR_RESPONSE, When::kEntry, "CAS crossing its 32 B region");
    gp.clear_extension(&cas4);
    set_payload(gp, tlm::TLM_READ_COMMAND, base + 2, buf.data(), 8);
    lt(gp, tlm::TLM_GENERIC_ERROR_RESPONSE, When::kEntry, "address not 4 B aligned");
    set_payload(gp, tlm::TLM_WRITE_COMMAND, counter + 4, buf.data(), 8);
    gp.set_extension(&add8);
    lt(gp, tlm::TLM_GENERIC_ERROR_RESPONSE, When::kEntry, "8 B atomic element not 8 B aligned");
    gp.clear_extension(&add8);
    unsigned char half[8] = {0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0};
    set_payload(gp, tlm::TLM_WRITE_COMMAND, counter, buf.data(), 8);
    gp.set_byte_enable_ptr(half);
    gp.set_byte_enable_length(8);
    gp.set_extension(&add8);
    lt(gp, tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE, When::kEntry, "atomic with half an element enabled");
    gp.clear_extension(&add8);
    EXPECT_EQ(load_at<uint64_t>(f_, counter), counter_before);

    // Payloads the switch cannot carry: refused with no time passing.
    set_payload(gp, tlm::TLM_READ_COMMAND, base, buf.data(), 8);
    gp.set_streaming_width(4);
    lt(gp, tlm::TLM_BURST_ERROR_RESPONSE, When::kAtOnce, "streaming width below the length");
    set_payload(gp, tlm::TLM_READ_COMMAND, base, buf.data(), 0);
    lt(gp, tlm::TLM_GENERIC_ERROR_RESPONSE, When::kAtOnce, "zero length");
    set_payload(gp, tlm::TLM_READ_COMMAND, base, nullptr, 8);
    lt(gp, tlm::TLM_GENERIC_ERROR_RESPONSE, When::kAtOnce, "no data array");
    AtomicExtension cas_nocmp(AtomicOp::kCas, 8, true);
    set_payload(gp, tlm::TLM_WRITE_COMMAND, counter, buf.data(), 8);
    gp.set_extension(&cas_nocmp);
    lt(gp, tlm::TLM_GENERIC_ERROR_RESPONSE, When::kAtOnce, "CAS without compare values");
    gp.clear_extension(&cas_nocmp);
    set_payload(gp, tlm::TLM_IGNORE_COMMAND, base + 0x40, buf.data(), 8);
    lt(gp, tlm::TLM_OK_RESPONSE, When::kAtOnce, "ignore command in a window");
    set_payload(gp, tlm::TLM_IGNORE_COMMAND, map.window_base(map.endpoints), buf.data(), 8);
    lt(gp, tlm::TLM_ADDRESS_ERROR_RESPONSE, When::kAtOnce, "ignore command outside every window");
  }

  void dmi_and_debug(uint64_t base) {
    const tl::AddressMap& map = f_.endpoints().address_map();
    const sc_time start = sc_time_stamp();
    tlm::tlm_generic_payload gp;
    std::array<uint8_t, 16> buf{};
    // DMI: refused, for the whole address space, for any address.
    for (uint64_t addr : {base, map.window_base(map.endpoints)}) {
      set_payload(gp, tlm::TLM_READ_COMMAND, addr, buf.data(), 8);
      tlm::tlm_dmi dmi;
      EXPECT_FALSE(socket->get_direct_mem_ptr(gp, dmi));
      EXPECT_TRUE(dmi.is_none_allowed());
      EXPECT_EQ(dmi.get_dmi_ptr(), nullptr);
      EXPECT_EQ(dmi.get_start_address(), 0u);
      EXPECT_EQ(dmi.get_end_address(), ~sc_dt::uint64{0});
    }
    // Debug transport: the owner's memory directly, no time.
    for (size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<uint8_t>(0x30 + i);
    set_payload(gp, tlm::TLM_WRITE_COMMAND, base + 0x4000, buf.data(), 16);
    EXPECT_EQ(socket->transport_dbg(gp), 16u);
    EXPECT_EQ(gp.get_response_status(), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(memory_at(f_, base + 0x4000, 16), bytes_of(buf));
    std::array<uint8_t, 16> got{};
    set_payload(gp, tlm::TLM_READ_COMMAND, base + 0x4000, got.data(), 16);
    EXPECT_EQ(socket->transport_dbg(gp), 16u);
    EXPECT_EQ(got, buf);
    set_payload(gp, tlm::TLM_READ_COMMAND, base + map.memory - 8, got.data(), 16);
    EXPECT_EQ(socket->transport_dbg(gp), 8u) << "only the backed part";
    set_payload(gp, tlm::TLM_READ_COMMAND, map.window_base(map.endpoints), got.data(), 16);
    EXPECT_EQ(socket->transport_dbg(gp), 0u);
    EXPECT_EQ(gp.get_response_status(), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(sc_time_stamp(), start) << "DMI and debug transport take no simulated time";
  }

  top::TxnFabric& f_;
  sc_time period_;
  int target_;
};

TEST(TxnScTlm, LooselyTimedPutGetAtomicsAndErrorStatuses) {
  ASSERT_TRUE(kernel_unused());
  const auto cfg = txn_config({{"accel.atomic_ops", "add,swap,cas,min_u"}, {"accel.memory_bytes", "1048704"}});
  top::TxnFabric fabric(cfg, /*synthetic=*/false);
  sc::TxnSystem sys("upswitch", fabric);
  LtUser user("user", fabric, sys.period(), /*target=*/6);
  user.socket.bind(sys.socket(1));
  sc_core::sc_start();
  sys.rethrow_failure();
  EXPECT_TRUE(user.finished);
  EXPECT_EQ(sys.sockets().in_flight(), 0u);
  for (const std::string& s : top::check_txn_drained(fabric)) ADD_FAILURE() << s;
}

// =================================================================================================
// 2b. Approximately timed: nb_transport, the base protocol's four phases.

// How the initiator ends a transaction once BEGIN_RESP came.
enum class End {
  kFwLater,        // TLM_ACCEPTED on the backward path; END_RESP on the forward path 3 cycles later, delayed 2 cycles
  kFwAtOnce,       // TLM_ACCEPTED; END_RESP at once
  kCompletedOnBw,  // TLM_COMPLETED on the backward path
  kUpdatedOnBw,    // TLM_UPDATED with END_RESP (delayed 1 cycle) on the backward path
};

// A memory manager for pipelined payloads: counts the ones in use.
class Pool : public tlm::tlm_mm_interface {
 public:
  tlm::tlm_generic_payload* get() {
    ++live;
    if (free_.empty()) {
      all_.push_back(std::make_unique<tlm::tlm_generic_payload>(this));
      return all_.back().get();
    }
    tlm::tlm_generic_payload* gp = free_.back();
    free_.pop_back();
    return gp;
  }
  void free(tlm::tlm_generic_payload* gp) override {
    gp->reset();
    free_.push_back(gp);
    --live;
  }
  int live = 0;

 private:
  std::vector<std::unique_ptr<tlm::tlm_generic_payload>> all_;
  std::vector<tlm::tlm_generic_payload*> free_;
};

class AtUser : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<AtUser> socket;
  bool finished = false;
  int held_back = 0;  // BEGIN_RESPs that went out exactly when an END_RESP's delay ran out

  AtUser(const sc_core::sc_module_name& name, top::TxnFabric& f, sc_time period, int target)
      : sc_core::sc_module(name), socket("socket"), f_(f), period_(period), target_(target) {
    socket.register_nb_transport_bw(this, &AtUser::nb_transport_bw);
    SC_HAS_PROCESS(AtUser);
    SC_THREAD(run);
  }

 private:
  // One transaction through the four phases; returns the time from BEGIN_REQ to BEGIN_RESP.
  sc_time at(tlm::tlm_generic_payload& gp, End end, const std::string& what) {
    const sc_time start = sc_time_stamp();
    const int responses_before = responses_;
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    sc_time delay = SC_ZERO_TIME;
    end_ = end;
    const tlm::tlm_sync_enum sync = socket->nb_transport_fw(gp, phase, delay);
    if (sync == tlm::TLM_COMPLETED) {  // refused at once
      EXPECT_EQ(responses_, responses_before) << what << ": no BEGIN_RESP for a refused payload";
      return SC_ZERO_TIME;
    }
    EXPECT_EQ(sync, tlm::TLM_UPDATED) << what;
    EXPECT_EQ(phase, tlm::END_REQ) << what;
    EXPECT_EQ(delay, SC_ZERO_TIME) << what;
    while (responses_ == responses_before) sc_core::wait(response_event_);
    EXPECT_EQ(last_response_, &gp) << what;
    const sc_time took = last_response_time_ - start;
    if (end == End::kFwLater || end == End::kFwAtOnce) {
      if (end == End::kFwLater) sc_core::wait(3 * period_);
      phase = tlm::END_RESP;
      delay = end == End::kFwLater ? 2 * period_ : SC_ZERO_TIME;
      free_at_ = sc_time_stamp() + delay;
      awaiting_end_ = nullptr;
      EXPECT_EQ(socket->nb_transport_fw(gp, phase, delay), tlm::TLM_COMPLETED) << what;
    }
    EXPECT_EQ(responses_, responses_before + 1) << what;
    return took;
  }

  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase, sc_time& delay) {
    const sc_time now = sc_time_stamp();
    EXPECT_EQ(phase, tlm::BEGIN_RESP);
    EXPECT_EQ(delay, SC_ZERO_TIME);
    EXPECT_EQ(awaiting_end_, nullptr) << "BEGIN_RESP while another response awaits END_RESP (response exclusion)";
    EXPECT_GE(now, free_at_) << "BEGIN_RESP before the last END_RESP's delay ran out";
    if (now == free_at_ && free_at_ > last_end_call_) ++held_back;
    ++responses_;
    last_response_ = &gp;
    last_response_time_ = now;
    if (burst_) {  // pipelined: the thread ends it, unless this one completes here
      EXPECT_TRUE(gp.is_response_ok()) << gp.get_response_string();
      burst_responses_.push_back(&gp);
      response_event_.notify(SC_ZERO_TIME);
      if (burst_responses_.size() % 2 == 0) {
        finish_burst_response(gp);
        return tlm::TLM_COMPLETED;
      }
      awaiting_end_ = &gp;
      return tlm::TLM_ACCEPTED;
    }
    response_event_.notify(SC_ZERO_TIME);
    switch (end_) {
      case End::kCompletedOnBw:
        free_at_ = last_end_call_ = now;
        return tlm::TLM_COMPLETED;
      case End::kUpdatedOnBw:
        phase = tlm::END_RESP;
        delay = period_;
        last_end_call_ = now;
        free_at_ = now + delay;
        return tlm::TLM_UPDATED;
      default:
        awaiting_end_ = &gp;
        return tlm::TLM_ACCEPTED;
    }
  }

  void finish_burst_response(tlm::tlm_generic_payload& gp) {
    ++burst_done_;
    last_end_call_ = free_at_ = sc_time_stamp();
    gp.release();  // the initiator's reference (the socket holds its own until the end)
  }

  void run() {
    const tl::AddressMap& map = f_.endpoints().address_map();
    const uint64_t base = map.window_base(target_);
    tlm::tlm_generic_payload gp;

    // put (END_RESP 3 cycles after BEGIN_RESP, delayed 2 more), get (TLM_COMPLETED on the backward
    // path), fetch-add (TLM_UPDATED + END_RESP), CAS (END_RESP at once).
    std::array<uint8_t, 256> out{}, in{};
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<uint8_t>(i * 3 + 11);
    set_payload(gp, tlm::TLM_WRITE_COMMAND, base + 0x1000, out.data(), 256);
    sc_time took = at(gp, End::kFwLater, "put 256 B");
    EXPECT_TRUE(gp.is_response_ok()) << gp.get_response_string();
    EXPECT_EQ(memory_at(f_, base + 0x1000, 256), bytes_of(out));
    EXPECT_EQ(took.value() % period_.value(), 0u) << "BEGIN_RESP on a cycle boundary";
    set_payload(gp, tlm::TLM_READ_COMMAND, base + 0x1000, in.data(), 256);
    // The last END_RESP's 2-cycle delay runs out before this response: it must not be held.
    took = at(gp, End::kCompletedOnBw, "get 256 B");
    EXPECT_TRUE(gp.is_response_ok()) << gp.get_response_string();
    EXPECT_EQ(in, out);
    EXPECT_EQ(took.value() % period_.value(), 0u);

    const uint64_t counter = base + 0x2000;
    const uint64_t initial = 500;
    store_at(f_, counter, &initial, 8);
    uint64_t operand = 25;
    AtomicExtension add(AtomicOp::kAdd, 8, true);
    set_payload(gp, tlm::TLM_WRITE_COMMAND, counter, &operand, 8);
    gp.set_extension(&add);
    at(gp, End::kUpdatedOnBw, "fetch-add");
    gp.clear_extension(&add);
    EXPECT_TRUE(gp.is_response_ok()) << gp.get_response_string();
    EXPECT_EQ(operand, 500u);
    EXPECT_EQ(load_at<uint64_t>(f_, counter), 525u);

    uint64_t swap_value = 9;
    const uint64_t compare = 525;
    AtomicExtension cas(AtomicOp::kCas, 8, true, reinterpret_cast<const uint8_t*>(&compare));
    set_payload(gp, tlm::TLM_WRITE_COMMAND, counter, &swap_value, 8);
    gp.set_extension(&cas);
    at(gp, End::kFwAtOnce, "compare-and-swap");
    gp.clear_extension(&cas);
    EXPECT_TRUE(gp.is_response_ok()) << gp.get_response_string();
    EXPECT_EQ(swap_value, 525u);
    EXPECT_EQ(load_at<uint64_t>(f_, counter), 9u);

    burst(base);

    // Errors: statuses through BEGIN_RESP, or TLM_COMPLETED at once for what the switch cannot carry.
    uint64_t junk = 0;
    set_payload(gp, tlm::TLM_READ_COMMAND, map.window_base(map.endpoints), &junk, 8);
    const uint64_t call = sc_time_stamp().value(), p = period_.value();
    took = at(gp, End::kFwAtOnce, "read outside every window");
    EXPECT_EQ(gp.get_response_status(), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(took.value(), (call / p + 1) * p - call) << "answered in the entry cycle: the next boundary";
    operand = 1;
    AtomicExtension swap(AtomicOp::kSwap, 8, true);  // not in accel.atomic_ops
    set_payload(gp, tlm::TLM_WRITE_COMMAND, counter, &operand, 8);
    gp.set_extension(&swap);
    took = at(gp, End::kCompletedOnBw, "swap, not implemented");
    gp.clear_extension(&swap);
    EXPECT_EQ(gp.get_response_status(), tlm::TLM_COMMAND_ERROR_RESPONSE);
    EXPECT_GT(took, f_.config().accel.mem_latency_cycles * period_) << "answered by the completer";
    EXPECT_EQ(operand, 1u);
    EXPECT_EQ(load_at<uint64_t>(f_, counter), 9u);
    set_payload(gp, tlm::TLM_READ_COMMAND, base, &junk, 6);
    at(gp, End::kUpdatedOnBw, "length 6");
    EXPECT_EQ(gp.get_response_status(), tlm::TLM_BURST_ERROR_RESPONSE);
    const sc_time before = sc_time_stamp();
    set_payload(gp, tlm::TLM_READ_COMMAND, base, &junk, 8);
    gp.set_streaming_width(4);
    at(gp, End::kFwAtOnce, "streaming width 4");
    EXPECT_EQ(gp.get_response_status(), tlm::TLM_BURST_ERROR_RESPONSE);
    set_payload(gp, tlm::TLM_IGNORE_COMMAND, base, &junk, 8);
    at(gp, End::kFwAtOnce, "ignore command");
    EXPECT_EQ(gp.get_response_status(), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(sc_time_stamp(), before);

    tlm::tlm_dmi dmi;
    set_payload(gp, tlm::TLM_READ_COMMAND, base, &junk, 8);
    EXPECT_FALSE(socket->get_direct_mem_ptr(gp, dmi));
    EXPECT_TRUE(dmi.is_none_allowed());
    finished = true;
  }

  // 12 reads in flight at once, with memory-managed payloads; every other response is ended on the
  // backward path, the others by END_RESP 2 cycles later with a 1-cycle delay, during which the
  // next response must wait.
  void burst(uint64_t base) {
    constexpr int kReads = 12;
    std::array<std::array<uint8_t, 64>, kReads> lines{}, got{};
    for (int k = 0; k < kReads; ++k) {
      for (size_t i = 0; i < 64; ++i) lines[k][i] = static_cast<uint8_t>(k * 17 + i);
      store_at(f_, base + 0x4000 + 64 * static_cast<uint64_t>(k), lines[k].data(), 64);
    }
    burst_ = true;
    std::map<tlm::tlm_generic_payload*, int> which;
    for (int k = 0; k < kReads; ++k) {
      tlm::tlm_generic_payload* gp = pool_.get();
      gp->acquire();
      set_payload(*gp, tlm::TLM_READ_COMMAND, base + 0x4000 + 64 * static_cast<uint64_t>(k), got[k].data(), 64);
      which[gp] = k;
      tlm::tlm_phase phase = tlm::BEGIN_REQ;
      sc_time delay = sc_time(k, sc_core::SC_NS);
      const sc_time asked = delay;
      EXPECT_EQ(socket->nb_transport_fw(*gp, phase, delay), tlm::TLM_UPDATED);
      EXPECT_EQ(phase, tlm::END_REQ);
      EXPECT_EQ(delay, asked) << "BEGIN_REQ keeps its annotated delay";
    }
    EXPECT_EQ(pool_.live, kReads);
    size_t handled = 0;
    while (burst_done_ < kReads) {
      while (handled == burst_responses_.size()) sc_core::wait(response_event_);
      tlm::tlm_generic_payload* gp = burst_responses_[handled++];
      if (handled % 2 == 0) continue;  // already ended on the backward path
      sc_core::wait(2 * period_);
      tlm::tlm_phase phase = tlm::END_RESP;
      sc_time delay = period_;
      last_end_call_ = sc_time_stamp();
      free_at_ = last_end_call_ + delay;
      awaiting_end_ = nullptr;
      EXPECT_EQ(socket->nb_transport_fw(*gp, phase, delay), tlm::TLM_COMPLETED);
      ++burst_done_;
      gp->release();
    }
    burst_ = false;
    EXPECT_EQ(burst_responses_.size(), static_cast<size_t>(kReads));
    for (int k = 0; k < kReads; ++k) EXPECT_EQ(got[k], lines[k]) << "read " << k;
    EXPECT_EQ(pool_.live, 0) << "every payload released to its memory manager";
    EXPECT_GT(held_back, 0) << "no response had to wait for an END_RESP's delay: the burst did not exercise it";
  }

  top::TxnFabric& f_;
  sc_time period_;
  int target_;
  Pool pool_;
  End end_ = End::kFwAtOnce;
  int responses_ = 0;
  tlm::tlm_generic_payload* last_response_ = nullptr;
  tlm::tlm_generic_payload* awaiting_end_ = nullptr;
  sc_time last_response_time_, free_at_, last_end_call_;
  sc_core::sc_event response_event_;
  bool burst_ = false;
  std::vector<tlm::tlm_generic_payload*> burst_responses_;
  int burst_done_ = 0;
};

TEST(TxnScTlm, ApproximatelyTimedFourPhasesAndErrorStatuses) {
  ASSERT_TRUE(kernel_unused());
  const auto cfg = txn_config({{"accel.atomic_ops", "add,cas"}});
  top::TxnFabric fabric(cfg, /*synthetic=*/false);
  sc::TxnSystem sys("upswitch", fabric);
  AtUser user("user", fabric, sys.period(), /*target=*/4);
  user.socket.bind(sys.socket(2));
  sc_core::sc_start();
  sys.rethrow_failure();
  EXPECT_TRUE(user.finished);
  EXPECT_EQ(sys.sockets().in_flight(), 0u);
  for (const std::string& s : top::check_txn_drained(fabric)) ADD_FAILURE() << s;
}

// =================================================================================================
// 2c. The TLM boundary adds no hidden time.

constexpr int kLatencyInitiator = 0, kLatencyTarget = 5;
constexpr uint64_t kLatencyLine = 0x1000;

// The tiny preset's pipeline, stated here so the zero-load latency can be worked out by hand as in
// model/txn_timing_test.cpp: the head flit crosses link + switch pipeline + link, each packet's
// tail follows its head by flits - 1 cycles, and the memory adds its serialisation and latency.
config::Config latency_config() {
  return txn_config({{"link.latency_cycles", "4"},
                     {"switch.routing_cycles", "2"},
                     {"switch.sw_alloc_cycles", "1"},
                     {"switch.xbar_cycles", "1"},
                     {"switch.egress_cycles", "1"},
                     {"accel.mem_latency_cycles", "192"},
                     {"accel.mem_bytes_per_cycle", "2048"}});
}

struct DoneAt : endpoint::TransferClient {
  void transfer_done(uint64_t, tl::Status s, uint64_t c) override {
    cycle = c;
    status = s;
  }
  uint64_t cycle = UINT64_MAX;
  tl::Status status = tl::Status::kOkay;
};

// The plain fabric's latency of a 256 B read from accelerator 0 to accelerator 5, submission to
// completion, three times in a row on an idle fabric (the first on a fresh one): all the same.
uint64_t plain_read_latency(const config::Config& cfg) {
  top::TxnFabric f(cfg, /*synthetic=*/false);
  static uint8_t buf[256];
  std::vector<uint64_t> latencies;
  for (int k = 0; k < 3; ++k) {
    DoneAt done;
    endpoint::TransferRequest r;
    r.op = tl::Opcode::kRead;
    r.addr = f.endpoints().address_map().window_base(kLatencyTarget) + kLatencyLine;
    r.bytes = 256;
    r.result = buf;
    r.client = &done;
    const uint64_t t0 = f.now();
    f.endpoints().submit(kLatencyInitiator, r, t0);
    EXPECT_TRUE(f.run_until_idle(100000));
    EXPECT_EQ(done.status, tl::Status::kOkay);
    latencies.push_back(done.cycle - t0);
  }
  EXPECT_EQ(latencies[1], latencies[0]);
  EXPECT_EQ(latencies[2], latencies[0]);
  return latencies[0];
}

class LatencyUser : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<LatencyUser> socket;
  struct Case {
    const char* what;
    uint64_t offset_fs;  // call time past a cycle boundary
    uint64_t delay_fs;   // the annotated delay
    bool back_to_back;   // called right at the previous completion, without a gap
  };
  struct Measured {
    std::string what;
    bool at;
    uint64_t call_fs, delay_fs, done_fs;
  };
  std::vector<Case> cases;
  std::vector<Measured> measured;
  std::array<uint8_t, 256> expect{};
  int data_mismatches = 0;

  LatencyUser(const sc_core::sc_module_name& name, const tl::AddressMap& map)
      : sc_core::sc_module(name), socket("socket"), map_(map) {
    socket.register_nb_transport_bw(this, &LatencyUser::nb_transport_bw);
    SC_HAS_PROCESS(LatencyUser);
    SC_THREAD(run);
  }
  void set_period(sc_time p) { period_ = p; }

 private:
  void run() {
    for (bool at : {false, true}) {
      for (const Case& c : cases) {
        if (!c.back_to_back) {  // an idle gap, then the offset into the cycle
          const uint64_t now = sc_time_stamp().value();
          const uint64_t p = period_.value();
          const uint64_t boundary = (now / p + 40) * p;
          sc_core::wait(sc_time::from_value(boundary + c.offset_fs - now));
        }
        std::array<uint8_t, 256> data{};
        tlm::tlm_generic_payload gp;
        set_payload(gp, tlm::TLM_READ_COMMAND, map_.window_base(kLatencyTarget) + kLatencyLine, data.data(), 256);
        const sc_time delay = sc_time::from_value(c.delay_fs);
        Measured m{c.what, at, sc_time_stamp().value(), c.delay_fs, 0};
        if (!at) {
          sc_time d = delay;
          socket->b_transport(gp, d);
          EXPECT_EQ(d, SC_ZERO_TIME);
          m.done_fs = sc_time_stamp().value();
        } else {
          tlm::tlm_phase phase = tlm::BEGIN_REQ;
          sc_time d = delay;
          EXPECT_EQ(socket->nb_transport_fw(gp, phase, d), tlm::TLM_UPDATED);
          response_ = nullptr;
          while (response_ != &gp) sc_core::wait(response_event_);
          m.done_fs = response_time_.value();
        }
        EXPECT_TRUE(gp.is_response_ok()) << c.what << ": " << gp.get_response_string();
        if (data != expect) ++data_mismatches;
        measured.push_back(m);
      }
    }
  }

  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase, sc_time& delay) {
    EXPECT_EQ(phase, tlm::BEGIN_RESP);
    EXPECT_EQ(delay, SC_ZERO_TIME);
    response_ = &gp;
    response_time_ = sc_time_stamp();
    response_event_.notify(SC_ZERO_TIME);
    return tlm::TLM_COMPLETED;
  }

  const tl::AddressMap& map_;
  sc_time period_;
  tlm::tlm_generic_payload* response_ = nullptr;
  sc_time response_time_;
  sc_core::sc_event response_event_;
};

TEST(TxnScTlm, SocketLatencyIsThePlainZeroLoadLatencyPlusEntryRounding) {
  ASSERT_TRUE(kernel_unused());
  const auto cfg = latency_config();
  // The plain fabric, in this process before the kernel starts; and by hand: head latency 2 x 4
  // (links) + 2 + 1 + 1 + 1 (switch) = 13 each way, a 1-flit request, ceil(256 / 2048) = 1 cycle
  // of memory serialisation plus 192 of latency, and a 5-flit response (4 data beats + header).
  const uint64_t plain = plain_read_latency(cfg);
  EXPECT_EQ(plain, 13u + 0u + 1u + 192u + 13u + 4u);
  ASSERT_EQ(sc_core::sc_get_status(), sc_core::SC_ELABORATION);

  top::TxnFabric fabric(cfg, /*synthetic=*/false);
  sc::TxnSystem sys("upswitch", fabric);
  LatencyUser user("user", fabric.endpoints().address_map());
  user.socket.bind(sys.socket(kLatencyInitiator));
  const uint64_t p = sys.period().value();  // 625000 fs at 1.6 GHz
  user.set_period(sys.period());
  for (size_t i = 0; i < user.expect.size(); ++i) user.expect[i] = static_cast<uint8_t>(i ^ 0x5a);
  store_at(fabric, fabric.endpoints().address_map().window_base(kLatencyTarget) + kLatencyLine, user.expect.data(),
           256);
  user.cases = {
      {"at a completion (LT: time 0), no delay", 0, 0, true},
      {"on a boundary, no delay", 0, 0, false},
      {"on a boundary, delay 2.5 cycles", 0, 5 * p / 2, false},
      {"0.3 cycle past a boundary, no delay", 3 * p / 10, 0, false},
      {"0.3 cycle past, delay to the next boundary", 3 * p / 10, 7 * p / 10, false},
      {"0.3 cycle past, delay 1 fs past the next boundary", 3 * p / 10, 7 * p / 10 + 1, false},
      {"on a boundary, delay 10 cycles", 0, 10 * p, false},
  };
  sc_core::sc_start();
  sys.rethrow_failure();

  ASSERT_EQ(user.measured.size(), 2 * user.cases.size());
  for (const auto& m : user.measured) {
    // doc/tlm.md: the transfer enters at the first cycle boundary at or after now + delay, and
    // after the current cycle; from there it takes the plain fabric's cycles.
    const uint64_t entry = std::max((m.call_fs + m.delay_fs + p - 1) / p, m.call_fs / p + 1);
    EXPECT_EQ(m.done_fs, (entry + plain) * p)
        << (m.at ? "AT: " : "LT: ") << m.what << ": called at " << m.call_fs << " fs + " << m.delay_fs
        << " fs, completed " << (static_cast<double>(m.done_fs) - static_cast<double>(m.call_fs + m.delay_fs)) / p
        << " cycles later (plain: " << plain << ")";
  }
  // The first call, at time 0 with no delay, costs exactly one cycle more than the plain fabric.
  EXPECT_EQ(user.measured.front().done_fs, (plain + 1) * p);
  EXPECT_EQ(user.data_mismatches, 0);
  for (const std::string& s : top::check_txn_drained(fabric)) ADD_FAILURE() << s;
}

// =================================================================================================
// 3. Many initiators, many transactions in flight, against the reference memory.

constexpr uint64_t kShared = 0x0, kSharedBytes = 0x1000;  // every initiator's, in every window
constexpr uint64_t kPrivate = 0x10000;                    // + 0x400 per initiator: 4 lines of 256 B
constexpr int kCounterOwner = 7;
constexpr uint64_t kCounterOffset = 0x8000;

class Worker;

enum class Kind { kPrivateWrite, kPrivateRead, kShared, kCounter };

// One transaction and its buffers; its payload's memory manager returns it to its worker.
struct Txn : tlm::tlm_mm_interface {
  explicit Txn(Worker* w) : owner(w), gp(this) {}
  void free(tlm::tlm_generic_payload*) override;

  Worker* owner;
  tlm::tlm_generic_payload gp;
  Kind kind = Kind::kShared;
  unsigned len = 0;
  std::array<uint8_t, 1024> data{}, want{};
  std::array<uint8_t, 16> be{};
  std::array<uint8_t, 64> compare{};
  AtomicExtension ext;
};

// One initiator: `count` transactions, at most `depth` in flight (approximately timed) or one at
// a time (loosely timed, `depth` 0), over three kinds of address:
//  * its private lines in every window, which only it writes, always with no annotated delay (so
//    they enter in call order): a read must return what it last wrote there, disabled bytes
//    untouched (checked here);
//  * a shared area every initiator reads, writes and updates with every atomic, with random
//    delays (checked by the Scoreboard, at every execution and every response);
//  * one counter every initiator fetch-adds 1 to: over all initiators, the old values must be
//    0 .. K-1, each once.
class Worker : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Worker> socket;
  int completed = 0, max_in_flight = 0, mismatches = 0, end_resp_held = 0;
  bool finished = false;

  Worker(const sc_core::sc_module_name& name, const tl::AddressMap& map, sc_time period, int id, int count, int depth,
         std::vector<uint64_t>& counter_olds)
      : sc_core::sc_module(name), socket("socket"), map_(map), period_(period),
        id_(id), count_(count), depth_(depth), olds_(counter_olds),
        rng_(0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(id + 1)) {
    socket.register_nb_transport_bw(this, &Worker::nb_transport_bw);
    SC_HAS_PROCESS(Worker);
    SC_THREAD(run);
    if (depth_ > 0) SC_THREAD(ender);
  }

  void recycle(Txn* x) {
    x->gp.clear_extension(&x->ext);
    x->gp.reset();
    free_.push_back(x);
  }
  size_t pool_size() const { return pool_.size(); }
  size_t pool_free() const { return free_.size(); }

 private:
  uint64_t below(uint64_t n) { return rng_() % n; }

  Txn& take() {
    if (free_.empty()) {
      pool_.emplace_back(this);
      of_[&pool_.back().gp] = &pool_.back();
      return pool_.back();
    }
    Txn* x = free_.back();
    free_.pop_back();
    return *x;
  }

  std::array<uint8_t, 256>& shadow(int target, int line) { return shadow_[{target, line}]; }

  // A random transaction into `x`; returns its annotated delay.
  sc_time build(Txn& x) {
    const int target = static_cast<int>(below(static_cast<uint64_t>(map_.endpoints)));
    const uint64_t window = map_.window_base(target);
    const uint64_t pick = below(10);
    for (auto& b : x.data) b = static_cast<uint8_t>(rng_());
    if (pick < 4) {  // a private line: offset and length within it
      const int line = static_cast<int>(below(4));
      const unsigned off = 4 * static_cast<unsigned>(below(64));
      x.len = 4 * static_cast<unsigned>(1 + below((256 - off) / 4));
      const uint64_t addr =
          window + kPrivate + 0x400 * static_cast<uint64_t>(id_) + 256 * static_cast<uint64_t>(line) + off;
      const bool enables = below(3) == 0;
      for (auto& b : x.be) b = below(3) ? 0xff : 0x00;
      std::array<uint8_t, 256>& mem = shadow(target, line);
      auto on = [&](unsigned b) { return !enables || x.be[b % x.be.size()] == 0xff; };
      if (pick < 2) {
        x.kind = Kind::kPrivateWrite;
        set_payload(x.gp, tlm::TLM_WRITE_COMMAND, addr, x.data.data(), x.len);
        for (unsigned b = 0; b < x.len; ++b)
          if (on(b)) mem[off + b] = x.data[b];
      } else {
        x.kind = Kind::kPrivateRead;
        set_payload(x.gp, tlm::TLM_READ_COMMAND, addr, x.data.data(), x.len);
        for (unsigned b = 0; b < x.len; ++b) x.want[b] = on(b) ? mem[off + b] : x.data[b];
      }
      if (enables) {
        x.gp.set_byte_enable_ptr(x.be.data());
        x.gp.set_byte_enable_length(static_cast<unsigned>(x.be.size()));
      }
      return SC_ZERO_TIME;
    }
    const sc_time delay = sc_time::from_value(below(8 * period_.value()));
    if (pick == 4) {
      x.kind = Kind::kCounter;
      uint64_t one = 1;
      std::memcpy(x.data.data(), &one, 8);
      x.len = 8;
      x.ext = AtomicExtension(AtomicOp::kAdd, 8, true);
      set_payload(x.gp, tlm::TLM_WRITE_COMMAND, map_.window_base(kCounterOwner) + kCounterOffset, x.data.data(), 8);
      x.gp.set_extension(&x.ext);
      return delay;
    }
    x.kind = Kind::kShared;
    const uint64_t area = window + kShared;
    switch (below(4)) {
      case 0:  // read, up to 512 B, possibly across 256 B boundaries
        x.len = 4 * static_cast<unsigned>(1 + below(128));
        set_payload(x.gp, tlm::TLM_READ_COMMAND, area + 4 * below((kSharedBytes - x.len) / 4 + 1), x.data.data(),
                    x.len);
        break;
      case 1:  // write, possibly with byte enables
        x.len = 4 * static_cast<unsigned>(1 + below(128));
        set_payload(x.gp, tlm::TLM_WRITE_COMMAND, area + 4 * below((kSharedBytes - x.len) / 4 + 1), x.data.data(),
                    x.len);
        if (below(2)) {
          for (auto& b : x.be) b = below(4) ? 0xff : 0x00;
          x.gp.set_byte_enable_ptr(x.be.data());
          x.gp.set_byte_enable_length(static_cast<unsigned>(x.be.size()));
        }
        break;
      default: {  // any atomic, either size, within its region, sometimes with whole elements off
        const auto aop = static_cast<AtomicOp>(below(tl::kAtomicOps));
        const uint8_t elem = below(2) ? 8 : 4;
        const uint64_t region = aop == AtomicOp::kCas ? 32 : 64;
        const uint64_t elems = region / elem;
        const uint64_t first = below(elems);
        const uint64_t n = 1 + below(elems - first);
        x.len = static_cast<unsigned>(n * elem);
        const uint64_t addr = area + region * below(kSharedBytes / region) + first * elem;
        for (auto& b : x.compare) b = below(2) ? 0 : static_cast<uint8_t>(rng_());
        x.ext = AtomicExtension(aop, elem, below(2) == 0, aop == AtomicOp::kCas ? x.compare.data() : nullptr);
        set_payload(x.gp, below(2) ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, addr, x.data.data(), x.len);
        x.gp.set_extension(&x.ext);
        if (below(2)) {
          for (size_t k = 0; k < x.be.size(); k += elem) {
            const uint8_t on = below(3) ? 0xff : 0x00;
            for (size_t b = 0; b < elem; ++b) x.be[k + b] = on;
          }
          x.gp.set_byte_enable_ptr(x.be.data());
          x.gp.set_byte_enable_length(static_cast<unsigned>(x.be.size()));
        }
        break;
      }
    }
    return delay;
  }

  // At the response: every transaction here is valid, so OK; private reads against the shadow.
  void check(Txn& x) {
    if (!x.gp.is_response_ok()) {
      ++mismatches;
      ADD_FAILURE() << name() << ": " << x.gp.get_response_string() << " at " << std::hex << x.gp.get_address();
      return;
    }
    if (x.kind == Kind::kPrivateRead && std::memcmp(x.data.data(), x.want.data(), x.len) != 0) {
      ++mismatches;
      ADD_FAILURE() << name() << ": private read at " << std::hex << x.gp.get_address()
                    << " differs from what this initiator last wrote";
    }
    if (x.kind == Kind::kCounter) {
      uint64_t old = 0;
      std::memcpy(&old, x.data.data(), 8);
      olds_.push_back(old);
    }
  }

  void run() {
    for (int i = 0; i < count_; ++i) {
      Txn& x = take();
      const sc_time delay = build(x);
      x.gp.acquire();  // the initiator's reference, released when the transaction ends
      if (depth_ == 0) {  // loosely timed
        sc_time d = delay;
        socket->b_transport(x.gp, d);
        EXPECT_EQ(d, SC_ZERO_TIME);
        check(x);
        ++completed;
        x.gp.release();
        continue;
      }
      while (in_flight_ >= depth_) sc_core::wait(slot_event_);
      tlm::tlm_phase phase = tlm::BEGIN_REQ;
      sc_time d = delay;
      const tlm::tlm_sync_enum sync = socket->nb_transport_fw(x.gp, phase, d);
      if (sync != tlm::TLM_UPDATED || phase != tlm::END_REQ || d != delay) {
        ++mismatches;
        ADD_FAILURE() << name() << ": BEGIN_REQ not accepted at once with END_REQ";
      }
      max_in_flight = std::max(max_in_flight, ++in_flight_);
      if (below(8) == 0) sc_core::wait(static_cast<double>(below(4)) * period_);  // issue in bursts
    }
    while (in_flight_ > 0) sc_core::wait(slot_event_);
    finished = true;
  }

  void done(Txn& x) {
    --in_flight_;
    ++completed;
    slot_event_.notify(SC_ZERO_TIME);
    x.gp.release();
  }

  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase, sc_time& delay) {
    const sc_time now = sc_time_stamp();
    if (phase != tlm::BEGIN_RESP || delay != SC_ZERO_TIME) {
      ++mismatches;
      ADD_FAILURE() << name() << ": expected BEGIN_RESP with no delay, got " << phase;
    }
    if (awaiting_end_) {
      ++mismatches;
      ADD_FAILURE() << name() << ": BEGIN_RESP while another response awaits END_RESP (response exclusion)";
    }
    if (now < free_at_) {
      ++mismatches;
      ADD_FAILURE() << name() << ": BEGIN_RESP before the last END_RESP's delay ran out";
    }
    if (now == free_at_ && free_at_ > last_end_call_) ++end_resp_held;
    Txn& x = *of_.at(&gp);
    check(x);
    switch (below(3)) {
      case 0:  // END_RESP later, from the ender thread
        awaiting_end_ = &x;
        end_event_.notify(SC_ZERO_TIME);
        return tlm::TLM_ACCEPTED;
      case 1:
        last_end_call_ = free_at_ = now;
        done(x);
        return tlm::TLM_COMPLETED;
      default:
        phase = tlm::END_RESP;
        delay = sc_time::from_value(below(2 * period_.value()));
        last_end_call_ = now;
        free_at_ = now + delay;
        done(x);
        return tlm::TLM_UPDATED;
    }
  }

  // Ends accepted responses: END_RESP after a random wait, with a random delay.
  void ender() {
    for (;;) {
      sc_core::wait(end_event_);
      while (awaiting_end_) {
        sc_core::wait(static_cast<double>(below(3)) * period_);
        Txn& x = *awaiting_end_;
        tlm::tlm_phase phase = tlm::END_RESP;
        sc_time delay = sc_time::from_value(below(3 * period_.value()));
        last_end_call_ = sc_time_stamp();
        free_at_ = last_end_call_ + delay;
        awaiting_end_ = nullptr;
        if (socket->nb_transport_fw(x.gp, phase, delay) != tlm::TLM_COMPLETED) {
          ++mismatches;
          ADD_FAILURE() << name() << ": END_RESP not answered with TLM_COMPLETED";
        }
        done(x);
      }
    }
  }

  const tl::AddressMap& map_;
  sc_time period_;
  int id_, count_, depth_;
  std::vector<uint64_t>& olds_;
  std::mt19937_64 rng_;
  std::deque<Txn> pool_;  // a deque: a Txn never moves
  std::vector<Txn*> free_;
  std::map<const tlm::tlm_generic_payload*, Txn*> of_;
  std::map<std::pair<int, int>, std::array<uint8_t, 256>> shadow_;
  int in_flight_ = 0;
  sc_core::sc_event slot_event_, end_event_;
  Txn* awaiting_end_ = nullptr;
  sc_time free_at_, last_end_call_;
};

void Txn::free(tlm::tlm_generic_payload*) { owner->recycle(this); }

TEST(TxnScTlm, ConcurrentInitiatorsAgainstTheScoreboard) {
  ASSERT_TRUE(kernel_unused());
  // Few tags and a short completer queue, so transfers wait for tags and request packets for the
  // completers: the sockets' queues and the model's backpressure both come into play.
  const auto cfg = txn_config({{"accel.max_outstanding", "8"},
                               {"accel.completer_queue", "8"},
                               {"accel.mem_latency_cycles", "60"},
                               {"accel.mem_bytes_per_cycle", "64"}});
  top::TxnFabric fabric(cfg, /*synthetic=*/false);
  Scoreboard sb(fabric.endpoints().address_map(), /*strict=*/false);
  fabric.endpoints().set_observer(&sb);
  sc::TxnSystem sys("upswitch", fabric);

  constexpr int kAt = 6, kAtCount = 1000, kDepth = 24, kLtCount = 300;
  std::vector<uint64_t> olds;
  std::vector<std::unique_ptr<Worker>> workers;
  for (int e = 0; e < cfg.sw.ports; ++e) {
    const bool at = e < kAt;
    const std::string name = "worker_" + std::to_string(e);
    workers.push_back(std::make_unique<Worker>(name.c_str(), fabric.endpoints().address_map(), sys.period(), e,
                                               at ? kAtCount : kLtCount, at ? kDepth : 0, olds));
    workers.back()->socket.bind(sys.socket(e));
  }
  sc_core::sc_start();
  sys.rethrow_failure();

  int transactions = 0, held = 0;
  for (const auto& w : workers) {
    SCOPED_TRACE(w->name());
    EXPECT_TRUE(w->finished);
    EXPECT_EQ(w->mismatches, 0);
    EXPECT_EQ(w->pool_free(), w->pool_size()) << "a payload was not released to its memory manager";
    transactions += w->completed;
    held += w->end_resp_held;
  }
  EXPECT_GT(held, 0) << "no response ever waited for an END_RESP's delay";
  for (int e = 0; e < kAt; ++e) {
    EXPECT_EQ(workers[e]->completed, kAtCount);
    EXPECT_EQ(workers[e]->max_in_flight, kDepth) << "never had " << kDepth << " transactions in flight";
  }
  EXPECT_EQ(transactions, kAt * kAtCount + (cfg.sw.ports - kAt) * kLtCount);
  EXPECT_EQ(sys.sockets().in_flight(), 0u);

  for (const std::string& s : sb.failures()) ADD_FAILURE() << s;
  EXPECT_EQ(sb.unanswered(), 0u);
  const auto& r = fabric.endpoints().result();
  EXPECT_EQ(r.requests_rejected, 0u);
  EXPECT_EQ(r.requests_issued, r.requests_answered);
  EXPECT_EQ(sb.answered(), r.requests_answered);
  EXPECT_EQ(sb.executed(), r.requests_answered);  // every request valid: each executed once
  EXPECT_EQ(sb.with_status(tl::Status::kOkay), r.requests_answered);
  EXPECT_GT(r.requests_answered, static_cast<uint64_t>(transactions));  // multi-request transfers

  // The counter: every fetch-add saw a distinct old value, and memory holds their number.
  std::sort(olds.begin(), olds.end());
  ASSERT_GT(olds.size(), 500u);
  for (size_t i = 0; i < olds.size(); ++i)
    if (olds[i] != i) {
      ADD_FAILURE() << "fetch-add old values are not 0.." << olds.size() - 1 << ": position " << i << " holds "
                    << olds[i];
      break;
    }
  EXPECT_EQ(load_at<uint64_t>(fabric, fabric.endpoints().address_map().window_base(kCounterOwner) + kCounterOffset),
            olds.size());
  // And the whole shared area agrees with the scoreboard's reference memory.
  for (int e = 0; e < cfg.sw.ports; ++e) {
    const std::vector<uint8_t> mem =
        memory_at(fabric, fabric.endpoints().address_map().window_base(e) + kShared, kSharedBytes);
    for (uint64_t off = 0; off < kSharedBytes; ++off)
      if (mem[off] != sb.byte(e, off)) {
        ADD_FAILURE() << "endpoint " << e << " shared byte " << off << " differs from the reference";
        break;
      }
  }
  for (const std::string& s : top::check_txn_drained(fabric)) ADD_FAILURE() << s;
}

}  // namespace
}  // namespace upswitch::testing

int sc_main(int argc, char* argv[]) {
  ::testing::InitGoogleTest(&argc, argv);
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  return RUN_ALL_TESTS();
}
