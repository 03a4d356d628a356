// A random mix of every transaction from every endpoint to every other, checked by the reference
// memory and scoreboard of txn_support.h: shared by the scoreboard tests and the link-fault tests.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "traffic/rng.h"
#include "txn_support.h"

namespace upswitch::testing {

// Keeps `depth` random transfers in flight per endpoint until each has issued `per_port`.
class RandomMix : public endpoint::TransferClient {
 public:
  RandomMix(top::TxnFabric& f, int depth, int per_port, uint64_t footprint)
      : f_(f), n_(f.config().endpoints()), depth_(depth), per_port_(per_port), footprint_(footprint),
        slots_(static_cast<size_t>(n_ * depth)), issued_(static_cast<size_t>(n_), 0), rng_(12345, 7) {}

  void start() {
    for (int s = 0; s < n_ * depth_; ++s) next(s, f_.now());
  }
  void transfer_done(uint64_t cookie, tl::Status status, uint64_t cycle) override {
    Slot& s = slots_[cookie];
    if (!s.busy) ++double_completions;
    s.busy = false;
    ++completed;
    if (status != tl::Status::kOkay) ++not_okay;
    next(static_cast<int>(cookie), cycle);
  }

  uint64_t completed = 0, submitted = 0, not_okay = 0, double_completions = 0;

 private:
  struct Slot {
    std::array<uint8_t, 1024> data{}, result{}, compare{};
    std::array<uint8_t, 16> enables{};
    bool busy = false;
  };

  void next(int slot, uint64_t t) {
    const int p = slot / depth_;
    if (issued_[p] == per_port_) return;
    ++issued_[p];
    Slot& s = slots_[slot];
    endpoint::TransferRequest r;
    const int dst = static_cast<int>(rng_.below(static_cast<uint32_t>(n_)));
    const uint64_t base = f_.endpoints().address_map().window_base(dst);
    for (auto& b : s.data) b = static_cast<uint8_t>(rng_.next());
    switch (rng_.below(5)) {
      case 0:
        r.op = tl::Opcode::kRead;
        r.bytes = 4 * (1 + rng_.below(256));
        r.addr = base + 4 * rng_.below(static_cast<uint32_t>((footprint_ - r.bytes) / 4));
        break;
      case 1:
        r.op = tl::Opcode::kWrite;
        r.bytes = 4 * (1 + rng_.below(256));
        r.addr = base + 4 * rng_.below(static_cast<uint32_t>((footprint_ - r.bytes) / 4));
        for (auto& e : s.enables) e = rng_.below(4) ? 0xff : 0;
        r.byte_enable = s.enables.data();
        r.byte_enable_len = static_cast<uint32_t>(s.enables.size());
        break;
      case 2:
        r.op = tl::Opcode::kWriteFull;
        r.bytes = 64 * (1 + rng_.below(8));
        r.addr = base + 64 * rng_.below(static_cast<uint32_t>((footprint_ - r.bytes) / 64));
        break;
      default: {
        r.op = rng_.below(2) ? tl::Opcode::kAtomicR : tl::Opcode::kAtomicNR;
        r.aop = static_cast<tl::AtomicOp>(rng_.below(tl::kAtomicOps));
        r.elem_bytes = rng_.below(2) ? 8 : 4;
        const uint32_t region = r.aop == tl::AtomicOp::kCas ? 32 : 64;
        const uint32_t elems = region / r.elem_bytes;
        const uint32_t first = rng_.below(elems);
        const uint32_t count = 1 + rng_.below(elems - first);
        r.bytes = uint64_t{count} * r.elem_bytes;
        r.addr = base + region * rng_.below(static_cast<uint32_t>(footprint_ / region)) + uint64_t{first} * r.elem_bytes;
        if (r.aop == tl::AtomicOp::kCas) {  // compare with zero (a likely hit) or random values
          for (auto& b : s.compare) b = rng_.below(2) ? 0 : static_cast<uint8_t>(rng_.next());
          r.compare = s.compare.data();
        }
        if (rng_.below(2)) {  // sparse whole elements
          for (size_t k = 0; k < s.enables.size(); k += r.elem_bytes) {
            const uint8_t on = rng_.below(3) ? 0xff : 0;
            for (int b = 0; b < r.elem_bytes; ++b) s.enables[k + static_cast<size_t>(b)] = on;
          }
          r.byte_enable = s.enables.data();
          r.byte_enable_len = static_cast<uint32_t>(s.enables.size());
        }
        break;
      }
    }
    r.data = s.data.data();
    r.result = s.result.data();
    r.client = this;
    r.cookie = static_cast<uint64_t>(slot);
    s.busy = true;
    ++submitted;
    f_.endpoints().submit(p, r, t);
  }

  top::TxnFabric& f_;
  int n_, depth_, per_port_;
  uint64_t footprint_;
  std::vector<Slot> slots_;
  std::vector<int> issued_;
  traffic::Rng rng_;
};

inline void expect_clean(const Scoreboard& sb) {
  for (const std::string& s : sb.failures()) ADD_FAILURE() << s;
  EXPECT_EQ(sb.unanswered(), 0u);
}

// Runs a RandomMix on a fabric of `sets` under the scoreboard and checks that every request was
// answered once, correctly, and that the fabric drained; returns the fabric for further checks.
inline std::unique_ptr<top::TxnFabric> run_mix(const std::vector<std::pair<std::string, std::string>>& sets, int depth,
                                               int per_port, bool strict) {
  auto f = std::make_unique<top::TxnFabric>(make_txn_config(sets), false);
  Scoreboard sb(f->endpoints().address_map(), strict);
  f->endpoints().set_observer(&sb);
  RandomMix mix(*f, depth, per_port, 4096);
  mix.start();
  const bool idle = f->run_until_idle(50'000'000);
  EXPECT_TRUE(idle);
  if (!idle) return f;
  expect_clean(sb);
  EXPECT_EQ(mix.double_completions, 0u);
  EXPECT_EQ(mix.completed, mix.submitted);
  EXPECT_EQ(mix.not_okay, 0u);
  const auto& r = f->endpoints().result();
  EXPECT_EQ(r.requests_issued, r.requests_answered);
  EXPECT_EQ(sb.answered(), r.requests_answered);
  EXPECT_EQ(sb.executed(), r.requests_answered);  // every request was valid: all executed, once
  EXPECT_GT(sb.executed(), static_cast<uint64_t>(per_port) * f->config().sw.ports);
  for (const std::string& s : top::check_txn_drained(*f)) ADD_FAILURE() << s;
  f->endpoints().set_observer(nullptr);
  return f;
}

}  // namespace upswitch::testing
