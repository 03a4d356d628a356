// Transactions against a reference memory: long random mixes of every operation from all
// endpoints to all others, concurrent fetch-adds to one counter, and a CAS spin lock.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <memory>

#include "traffic/rng.h"
#include "txn_random_mix.h"
#include "txn_support.h"

namespace upswitch::testing {
namespace {

using endpoint::TransferRequest;
using tl::AtomicOp;
using tl::Opcode;

TEST(TxnScoreboard, RandomMixFromAll72EndpointsMatchesTheReferenceMemory) {
  run_mix({{"sim.check_interval_cycles", "5000"}}, 8, 250, false);
}

TEST(TxnScoreboard, RandomMixWithSmallBuffersAndSlowMemory) {
  run_mix({{"switch.ports", "16"},
           {"switch.vc_buffer_flits", "4"},
           {"switch.shared_buffer_flits", "0"},
           {"endpoint.rx_vc_flits", "8"},
           {"endpoint.rx_shared_flits", "0"},
           {"accel.completer_queue", "2"},
           {"accel.mem_bytes_per_cycle", "8"},
           {"accel.max_outstanding", "16"},
           {"sim.check_interval_cycles", "1000"}},
          16, 200, false);
}

TEST(TxnScoreboard, StrictOrderKeepsEverySourceDestinationPairInOrder) {
  run_mix({{"switch.ports", "16"}, {"tl.strict_order", "true"}, {"switch.vcs", "2"}}, 8, 200, true);
}

// Completes `per_port` fetch-adds per endpoint, `depth` at a time, on one 8-byte counter.
class FetchAdds : public endpoint::TransferClient {
 public:
  FetchAdds(top::TxnFabric& f, uint64_t counter, int depth, int per_port)
      : f_(f), counter_(counter), depth_(depth), per_port_(per_port), left_(static_cast<size_t>(f.config().sw.ports), per_port),
        old_(static_cast<size_t>(f.config().sw.ports * depth)), add_(old_.size()) {}
  void start() {
    for (size_t s = 0; s < old_.size(); ++s) next(s, f_.now());
  }
  void transfer_done(uint64_t cookie, tl::Status status, uint64_t cycle) override {
    if (status != tl::Status::kOkay) ++errors;
    olds.push_back(old_[cookie]);
    next(cookie, cycle);
  }
  std::vector<uint64_t> olds;
  uint64_t errors = 0, total = 0;

 private:
  void next(size_t slot, uint64_t t) {
    const int p = static_cast<int>(slot) / depth_;
    if (left_[p] == 0) return;
    --left_[p];
    add_[slot] = static_cast<uint64_t>(p) + 1;
    total += add_[slot];
    TransferRequest r;
    r.op = Opcode::kAtomicR;
    r.aop = AtomicOp::kAdd;
    r.elem_bytes = 8;
    r.addr = counter_;
    r.bytes = 8;
    r.data = reinterpret_cast<const uint8_t*>(&add_[slot]);
    r.result = reinterpret_cast<uint8_t*>(&old_[slot]);
    r.client = this;
    r.cookie = slot;
    f_.endpoints().submit(p, r, t);
  }
  top::TxnFabric& f_;
  uint64_t counter_;
  int depth_, per_port_;
  std::vector<int> left_;
  std::vector<uint64_t> old_, add_;
};

TEST(TxnAtomics, ConcurrentFetchAddsFromAllEndpointsEndAtTheExactSum) {
  auto f = std::make_unique<top::TxnFabric>(make_txn_config({}), false);
  const uint64_t counter = f->endpoints().address_map().window_base(7) + 4096;
  FetchAdds fa(*f, counter, 4, 25);
  fa.start();
  ASSERT_TRUE(f->run_until_idle(50'000'000));
  EXPECT_EQ(fa.errors, 0u);
  ASSERT_EQ(fa.olds.size(), 72u * 25u);
  uint64_t final_value;
  std::memcpy(&final_value, f->endpoints().memory(7).peek(4096), 8);
  EXPECT_EQ(final_value, fa.total);
  // Every add saw a different old value (they were applied one at a time), all below the end.
  std::sort(fa.olds.begin(), fa.olds.end());
  EXPECT_EQ(std::adjacent_find(fa.olds.begin(), fa.olds.end()), fa.olds.end());
  EXPECT_EQ(fa.olds.front(), 0u);
  EXPECT_LT(fa.olds.back(), fa.total);
}

// A spin lock by compare-and-swap protecting a read-modify-write of a counter in another region:
// acquire (CAS 0 -> id+1, AtomicR), read the counter, write it + 1, release (AtomicNR swap 0).
class LockClient : public endpoint::TransferClient {
 public:
  LockClient(top::TxnFabric& f, uint64_t lock, uint64_t counter, int rounds)
      : f_(f), lock_(lock), counter_(counter), n_(f.config().sw.ports), st_(static_cast<size_t>(n_)) {
    for (auto& s : st_) s.left = rounds;
  }
  void start() {
    for (int p = 0; p < n_; ++p) acquire(p, f_.now());
  }
  void transfer_done(uint64_t cookie, tl::Status status, uint64_t t) override {
    const int p = static_cast<int>(cookie);
    State& s = st_[static_cast<size_t>(p)];
    if (status != tl::Status::kOkay) ++errors;
    switch (s.step) {
      case 0:  // CAS answered
        if (s.old != 0) return acquire(p, t);
        if (holder != -1) ++exclusion_violations;
        holder = p;
        ++acquisitions;
        s.step = 1;
        return submit(p, Opcode::kRead, AtomicOp::kAdd, counter_, &s.value, nullptr, t);
      case 1:  // counter read
        s.value += 1;
        s.step = 2;
        return submit(p, Opcode::kWrite, AtomicOp::kAdd, counter_, nullptr, &s.value, t);
      case 2:  // counter written: release
        s.step = 3;
        holder = -1;
        s.zero = 0;
        return submit(p, Opcode::kAtomicNR, AtomicOp::kSwap, lock_, nullptr, &s.zero, t);
      default:  // released
        if (--s.left > 0) acquire(p, t);
    }
  }
  int holder = -1;
  uint64_t errors = 0, exclusion_violations = 0, acquisitions = 0;

 private:
  struct State {
    int step = 0, left = 0;
    uint64_t old = 0, value = 0, id = 0, zero = 0, compare = 0;
  };
  void acquire(int p, uint64_t t) {
    State& s = st_[static_cast<size_t>(p)];
    s.step = 0;
    s.id = static_cast<uint64_t>(p) + 1;
    s.compare = 0;
    submit(p, Opcode::kAtomicR, AtomicOp::kCas, lock_, &s.old, &s.id, t, &s.compare);
  }
  void submit(int p, Opcode op, AtomicOp aop, uint64_t addr, uint64_t* result, const uint64_t* data, uint64_t t,
              const uint64_t* compare = nullptr) {
    TransferRequest r;
    r.op = op;
    r.aop = aop;
    r.elem_bytes = 8;
    r.addr = addr;
    r.bytes = 8;
    r.result = reinterpret_cast<uint8_t*>(result);
    r.data = reinterpret_cast<const uint8_t*>(data);
    r.compare = reinterpret_cast<const uint8_t*>(compare);
    r.client = this;
    r.cookie = static_cast<uint64_t>(p);
    f_.endpoints().submit(p, r, t);
  }
  top::TxnFabric& f_;
  uint64_t lock_, counter_;
  int n_;
  std::vector<State> st_;
};

void run_lock(const std::vector<std::pair<std::string, std::string>>& sets, int rounds) {
  auto f = std::make_unique<top::TxnFabric>(make_txn_config(sets), false);
  const uint64_t base = f->endpoints().address_map().window_base(3);
  LockClient lc(*f, base + 0x100, base + 0x1000, rounds);
  lc.start();
  ASSERT_TRUE(f->run_until_idle(200'000'000));
  uint64_t counter;
  std::memcpy(&counter, f->endpoints().memory(3).peek(0x1000), 8);
  const uint64_t want = static_cast<uint64_t>(f->config().sw.ports) * static_cast<uint64_t>(rounds);
  EXPECT_EQ(counter, want);
  EXPECT_EQ(lc.acquisitions, want);
  EXPECT_EQ(lc.exclusion_violations, 0u);
  EXPECT_EQ(lc.errors, 0u);
}

TEST(TxnAtomics, CasLockProtectsASharedCounter16Endpoints) {
  run_lock({{"switch.ports", "16"}, {"accel.mem_latency_cycles", "20"}}, 6);
}

TEST(TxnAtomics, CasLockProtectsASharedCounter72Endpoints) { run_lock({{"accel.mem_latency_cycles", "20"}}, 2); }

}  // namespace
}  // namespace upswitch::testing
