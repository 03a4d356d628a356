// The collective result check (coll/reference.h) on results corrupted by hand: one wrong element
// of any type, in a reduction or in moved data, is counted once and named exactly (rank, offset,
// got and expected values, or the rank and offset it should have come from); a right result has
// no wrong element and counts every element of every rank. The expected descriptions are built
// here from the layout and the values read before the corruption, not from the checker.
// Also: what a collective stores (tl/page_store.h) grows with what is in flight, not with ranks
// times size.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "coll_support.h"

namespace upswitch::testing {
namespace {

using coll::Algorithm;
using coll::Collective;

config::Config check_config() {
  return make_txn_config({{"switch.ports", "8"}, {"sim.check_interval_cycles", "2000"}});
}

struct Ran {
  std::unique_ptr<top::TxnFabric> f;
  std::unique_ptr<coll::CollectiveRunner> runner;
  int id = 0;
  const coll::CollectiveRun& run() const { return runner->get(id); }
  tl::SparseMemory& memory(int rank) { return f->endpoints().memory(rank); }
};

Ran run_one(const coll::CollectiveSpec& s) {
  Ran r;
  r.f = std::make_unique<top::TxnFabric>(check_config(), false);
  r.runner = std::make_unique<coll::CollectiveRunner>(*r.f);
  r.id = r.runner->add(s, 0);
  coll::fill_inputs(*r.f, r.run(), 5);
  if (!r.runner->run()) throw std::runtime_error("collective did not finish");
  return r;
}

uint64_t bits_at(tl::SparseMemory& m, uint64_t at, int e) {
  uint64_t v = 0;
  m.read(at, reinterpret_cast<uint8_t*>(&v), static_cast<uint64_t>(e));
  return v;
}

double value_of(tl::RedType t, uint64_t bits) {
  switch (t) {
    case tl::RedType::kF32: { float f; std::memcpy(&f, &bits, 4); return f; }
    case tl::RedType::kF64: { double d; std::memcpy(&d, &bits, 8); return d; }
    case tl::RedType::kF16: return tl::f16_to_f32(static_cast<uint16_t>(bits));
    case tl::RedType::kBF16: return tl::bf16_to_f32(static_cast<uint16_t>(bits));
    default: return 0;
  }
}

// Flips bit 6 of the element's most significant byte (far outside any rounding bound); returns
// the element's bits before.
uint64_t corrupt(tl::SparseMemory& m, uint64_t at, int e) {
  const uint64_t before = bits_at(m, at, e);
  uint8_t top = 0;
  m.read(at + static_cast<uint64_t>(e) - 1, &top, 1);
  top = static_cast<uint8_t>(top ^ 0x40);
  m.write(at + static_cast<uint64_t>(e) - 1, &top, 1);
  return before;
}

TEST(CollCheck, AWrongReducedElementOfEveryTypeIsNamedExactly) {
  const int n = 4;
  for (int t = 0; t < tl::kRedTypes; ++t) {
    const auto type = static_cast<tl::RedType>(t);
    for (tl::RedOp op : {tl::RedOp::kSum, tl::RedOp::kMax}) {
      const int e = tl::red_type_bytes(type);
      const uint64_t bytes = 70000 / 8 * 8;
      Ran r = run_one(spec_of(Collective::kAllReduce, t % 2 ? Algorithm::kSwitch : Algorithm::kRing, first_ranks(n),
                              bytes, type, op));
      const coll::CheckResult good = coll::check_results(*r.f, r.run());
      const std::string what = std::string(tl::red_type_name(type)) + " " + tl::red_op_name(op);
      EXPECT_EQ(good.wrong, 0u) << what << ": " << good.first;
      EXPECT_EQ(good.elements, static_cast<uint64_t>(n) * bytes / static_cast<uint64_t>(e)) << what;
      EXPECT_EQ(good.first, "") << what;
      // Element 65,600 bytes into rank 2's output: past the check's first 64 KiB block.
      const uint64_t at = r.run().layout.out + 65600 / static_cast<uint64_t>(e) * static_cast<uint64_t>(e);
      const uint64_t right = corrupt(r.memory(2), at, e);
      const uint64_t wrong = bits_at(r.memory(2), at, e);
      const coll::CheckResult bad = coll::check_results(*r.f, r.run());
      EXPECT_EQ(bad.wrong, 1u) << what;
      EXPECT_EQ(bad.elements, good.elements) << what;
      const std::string head = "rank 2 element at offset " + std::to_string(at) + ": got ";
      if (!tl::red_is_float(type)) {
        EXPECT_EQ(bad.first, head + std::to_string(wrong) + ", expected " + std::to_string(right)) << what;
      } else if (op != tl::RedOp::kSum) {
        EXPECT_EQ(bad.first, head + std::to_string(value_of(type, wrong)) + ", expected " +
                                 std::to_string(value_of(type, right)))
            << what;
      } else {  // the exact sum of the inputs (multiples of 1/1024: exact in a double), then the bound
        double exact = 0;
        const uint64_t in = r.run().layout.in + (at - r.run().layout.out);
        for (int k = 0; k < n; ++k) exact += value_of(type, bits_at(r.memory(k), in, e));
        const std::string want = head + std::to_string(value_of(type, wrong)) + ", exact " + std::to_string(exact) + ", bound ";
        EXPECT_EQ(bad.first.substr(0, want.size()), want) << what;
      }
      // A second wrong element, earlier in the same rank, is counted and named first.
      corrupt(r.memory(2), at - 64 * static_cast<uint64_t>(e), e);
      const coll::CheckResult two = coll::check_results(*r.f, r.run());
      EXPECT_EQ(two.wrong, 2u) << what;
      EXPECT_EQ(two.first.rfind("rank 2 element at offset " + std::to_string(at - 64 * static_cast<uint64_t>(e)) + ": got ", 0), 0u)
          << two.first;
    }
  }
}

TEST(CollCheck, AWrongMovedElementIsNamedWithWhereItCameFrom) {
  const int n = 4;
  const uint64_t bytes = 4 * 20480;  // 4 chunks or blocks of 20,480 B (80 x 256 B)
  for (Collective c : {Collective::kAllGather, Collective::kBroadcast, Collective::kAllToAll}) {
    coll::CollectiveSpec s = spec_of(c, c == Collective::kAllToAll ? Algorithm::kOneShot : Algorithm::kRing,
                                     first_ranks(n), bytes, tl::RedType::kU32);
    s.root = 1;
    Ran r = run_one(s);
    const coll::Layout& l = r.run().layout;
    const coll::CheckResult good = coll::check_results(*r.f, r.run());
    EXPECT_EQ(good.wrong, 0u) << good.first;
    EXPECT_EQ(good.elements, static_cast<uint64_t>(n) * bytes / 4) << coll::collective_name(c);
    // Rank 2's output byte 3 x 20,480 + 400: block 3 (rank 3's), 400 bytes in.
    const uint64_t at = l.out + 3 * 20480 + 400;
    corrupt(r.memory(2), at, 4);
    std::string from;
    switch (c) {
      case Collective::kAllGather: from = "rank 3's offset " + std::to_string(l.in + 3 * 20480 + 400); break;
      case Collective::kBroadcast: from = "rank 1's offset " + std::to_string(l.in + 3 * 20480 + 400); break;
      default: from = "rank 3's offset " + std::to_string(l.in + 2 * 20480 + 400); break;  // rank 3's block for rank 2
    }
    const coll::CheckResult bad = coll::check_results(*r.f, r.run());
    EXPECT_EQ(bad.wrong, 1u) << coll::collective_name(c);
    EXPECT_EQ(bad.first, "rank 2 offset " + std::to_string(at) + ": differs from " + from) << coll::collective_name(c);
  }
}

// An in-switch all-reduce of 8 ranks x 1 MiB: every rank's output holds the same result, which the
// page store keeps once, and the inputs are computed when read; what the fabric stores stays
// under a quarter of one rank's input and output buffers per rank (it was 2 x 8 x 256 pages).
TEST(CollCheck, AnInSwitchAllReduceStoresItsResultOnce) {
  const uint64_t bytes = uint64_t{1} << 20, pages = bytes / 4096;
  const int n = 8;
  Ran r = run_one(spec_of(Collective::kAllReduce, Algorithm::kSwitch, first_ranks(n), bytes));
  EXPECT_EQ(coll::check_results(*r.f, r.run()).wrong, 0u);
  uint64_t mapped = 0, shared = 0;
  for (int k = 0; k < n; ++k) {
    mapped += r.memory(k).pages();
    shared += r.memory(k).shared_pages();
  }
  EXPECT_EQ(mapped, n * pages);  // every rank's output, nothing for the inputs
  EXPECT_GE(shared, n * pages * 9 / 10);
  const tl::PageStore& store = *r.memory(0).store();
  EXPECT_LE(store.shared_pages(), pages + n);
  EXPECT_LT(store.allocated_pages(), 2 * n * pages / 4);
}

}  // namespace
}  // namespace upswitch::testing
