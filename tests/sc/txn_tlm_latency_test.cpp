// The TLM boundary adds no hidden time: a 256 B read through a socket completes exactly at the
// plain fabric's zero-load latency after the documented entry cycle, in LT and AT styles.
#include "txn_sc_support.h"

namespace upswitch::testing {
namespace {

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

}  // namespace
}  // namespace upswitch::testing
