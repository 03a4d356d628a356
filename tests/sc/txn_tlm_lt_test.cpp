// The TLM-2.0 accelerator sockets, loosely timed (b_transport): data against memory read
// directly, every response status and its cost in time as doc/tlm.md documents them, DMI refusal.
#include "txn_sc_support.h"

namespace upswitch::testing {
namespace {

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
    set_payload(gp, tlm::TLM_READ_COMMAND, map.group_base(map.groups), buf.data(), 8);
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
    set_payload(gp, tlm::TLM_IGNORE_COMMAND, map.group_base(map.groups), buf.data(), 8);
    lt(gp, tlm::TLM_ADDRESS_ERROR_RESPONSE, When::kAtOnce, "ignore command outside every window");
  }

  void dmi_and_debug(uint64_t base) {
    const tl::AddressMap& map = f_.endpoints().address_map();
    const sc_time start = sc_time_stamp();
    tlm::tlm_generic_payload gp;
    std::array<uint8_t, 16> buf{};
    // DMI: refused, for the whole address space, for any address.
    for (uint64_t addr : {base, map.group_base(map.groups)}) {
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
    set_payload(gp, tlm::TLM_READ_COMMAND, map.group_base(map.groups), got.data(), 16);
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

}  // namespace
}  // namespace upswitch::testing
