// A collective's inputs computed when read (coll/input_pages.h) are the values the documented
// definition gives (doc/reduction.md "Numerical correctness"): element k of rank r is the k-th
// draw of the generator seeded with (seed, r + 1); floats (draw mod 2048 - 1024) / 1024 rounded
// to the type, integers the draw's low bytes. The expectation is written here from that
// definition, drawing the whole sequence in order, and compared over ranges that start and end
// anywhere (inside elements, across saved states and pages).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "coll/input_pages.h"
#include "tl/sparse_memory.h"
#include "traffic/rng.h"

namespace upswitch::coll {
namespace {

std::vector<uint8_t> expected_input(tl::RedType t, uint64_t seed, int rank, uint64_t bytes) {
  const auto e = static_cast<uint64_t>(tl::red_type_bytes(t));
  std::vector<uint8_t> out(bytes, 0);
  traffic::Rng rng(seed, static_cast<uint64_t>(rank) + 1);
  for (uint64_t k = 0; k + e <= bytes; k += e) {
    const uint64_t x = rng.next();
    const double v = (static_cast<double>(x % 2048) - 1024.0) / 1024.0;
    switch (t) {
      case tl::RedType::kF32: { const float f = static_cast<float>(v); std::memcpy(&out[k], &f, 4); break; }
      case tl::RedType::kF64: std::memcpy(&out[k], &v, 8); break;
      case tl::RedType::kF16: { const uint16_t h = tl::f32_to_f16(static_cast<float>(v)); std::memcpy(&out[k], &h, 2); break; }
      case tl::RedType::kBF16: { const uint16_t h = tl::f32_to_bf16(static_cast<float>(v)); std::memcpy(&out[k], &h, 2); break; }
      default: std::memcpy(&out[k], &x, e); break;
    }
  }
  return out;
}

TEST(CollInputPages, EveryRangeReadsAsTheGeneratorDrawnInOrder) {
  std::mt19937_64 pick(5);
  for (int t = 0; t < tl::kRedTypes; ++t) {
    const auto type = static_cast<tl::RedType>(t);
    const uint64_t bytes = 3 * 4096 + 8 * 37, base = 3 * 4096;
    const std::vector<uint8_t> want = expected_input(type, 42, 9, bytes);
    const InputPages src(type, 42, 9, base, bytes);
    for (int i = 0; i < 300; ++i) {
      const uint64_t from = pick() % bytes;
      const uint64_t page_end = (base + from) / 4096 * 4096 + 4096 - base;
      const uint64_t len = 1 + pick() % (std::min(page_end, bytes) - from);
      std::vector<uint8_t> got(len);
      src.fill(base + from, got.data(), len);
      for (uint64_t k = 0; k < len; ++k)
        ASSERT_EQ(got[k], want[from + k]) << tl::red_type_name(type) << " byte " << from + k;
    }
    // In a memory: the whole input reads back as drawn, and nothing is stored for it.
    tl::SparseMemory m;
    m.generate(base, base + bytes, std::make_shared<InputPages>(type, 42, 9, base, bytes));
    std::vector<uint8_t> all(bytes);
    m.read(base, all.data(), bytes);
    EXPECT_EQ(all, want) << tl::red_type_name(type);
    EXPECT_EQ(m.pages(), 1u);  // only the last, partial page
  }
}

}  // namespace
}  // namespace upswitch::coll
