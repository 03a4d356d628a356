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

// Reads that go on where the last one ended (as the engine and the check read a rank's input),
// mixed with jumps back and forward inside and across saved stretches, read as drawn.
TEST(CollInputPages, ReadsInOrderAndJumpsReadAsDrawn) {
  std::mt19937_64 pick(11);
  for (int t = 0; t < tl::kRedTypes; ++t) {
    const auto type = static_cast<tl::RedType>(t);
    const uint64_t bytes = 5 * 4096 + 8 * 13, base = 4096;
    const std::vector<uint8_t> want = expected_input(type, 7, 3, bytes);
    const InputPages src(type, 7, 3, base, bytes);
    uint64_t from = 0;
    for (int i = 0; i < 2000; ++i) {
      const uint64_t r = pick() % 10;
      if (r == 0) from = pick() % bytes;                                     // anywhere
      else if (r == 1) from -= std::min<uint64_t>(from, 1 + pick() % 200);  // a little back
      else if (r == 2) from += pick() % 200;                                 // a little ahead
      if (from >= bytes) from = 0;
      const uint64_t page_end = (base + from) / 4096 * 4096 + 4096 - base;
      const uint64_t len = 1 + pick() % std::min<uint64_t>(300, std::min(page_end, bytes) - from);
      std::vector<uint8_t> got(len);
      src.fill(base + from, got.data(), len);
      for (uint64_t k = 0; k < len; ++k)
        ASSERT_EQ(got[k], want[from + k]) << tl::red_type_name(type) << " read " << i << " byte " << from + k;
      from += len;  // the next read goes on from here (unless it jumps)
    }
  }
}

// Two streams reading in order whose saved stretches share a cursor slot (kCursors stretches
// apart), and a third elsewhere, each reading 100 B at a time, interleaved.
TEST(CollInputPages, StreamsSharingACursorSlotReadAsDrawn) {
  const uint64_t apart = InputPages::kCursors * InputPages::kStride, bytes = 2 * apart + 8192;
  for (const auto type : {tl::RedType::kF32, tl::RedType::kS64, tl::RedType::kBF16}) {
    const std::vector<uint8_t> want = expected_input(type, 3, 70, bytes);
    const InputPages src(type, 3, 70, 0, bytes);
    uint64_t at[3] = {10, 10 + apart, 5000};
    for (int i = 0; i < 3 * 200; ++i) {
      uint64_t& from = at[i % 3];
      const uint64_t len = std::min<uint64_t>(100, 4096 - from % 4096);  // within a page
      std::vector<uint8_t> got(len);
      src.fill(from, got.data(), len);
      for (uint64_t k = 0; k < len; ++k)
        ASSERT_EQ(got[k], want[from + k]) << tl::red_type_name(type) << " stream " << i % 3 << " byte " << from + k;
      from += len;
    }
  }
}

}  // namespace
}  // namespace upswitch::coll
