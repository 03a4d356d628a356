// The TLM-2.0 accelerator sockets, approximately timed (nb_transport, the base protocol's four
// phases, every way an initiator may end a transaction), and the error statuses through BEGIN_RESP.
#include "txn_sc_support.h"

namespace upswitch::testing {
namespace {

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
    set_payload(gp, tlm::TLM_READ_COMMAND, map.group_base(map.groups), &junk, 8);
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

}  // namespace
}  // namespace upswitch::testing
