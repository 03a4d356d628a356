// Many initiators with many transactions in flight, against the reference memory and scoreboard
// of tests/txn_support.h, ending drained.
#include "txn_sc_support.h"

namespace upswitch::testing {
namespace {

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
