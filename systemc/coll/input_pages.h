// A rank's collective input as a tl::PageSource (doc/reduction.md "Numerical correctness",
// doc/performance.md "Collectives"): the values fill_inputs defines, element k of rank r being
// the k-th draw of the generator seeded with (seed, r + 1), computed again whenever they are read
// from the generator's state saved every kStride bytes, instead of being stored in every rank's
// memory. Floats are in [-1, 1) on a 1/1024 grid, integers cover their whole range.
//
// A read that starts where an earlier one ended, or later in the same saved stretch, goes on
// from the generator as that read left it, so it does not draw again the elements before it:
// the check reads a rank's input in order, and the switch's reductions read it in as many
// streams as there are ranks (each rank's shard in order), so the generator is kept where a read
// ended in one of kCursors slots chosen by saved stretch. Those cursors make fill() not safe to
// call from two threads at once, like SparseMemory's reads, which share one scratch page.
#pragma once

#include <cstdint>
#include <vector>

#include "tl/page_source.h"
#include "tl/reduce_alu.h"
#include "traffic/rng.h"

namespace upswitch::coll {

// `v` as an element of float type `t` (rounded to nearest even); other types: nothing.
void store_float(tl::RedType t, double v, uint8_t* p);

class InputPages : public tl::PageSource {
 public:
  static constexpr uint64_t kStride = 1024;  // bytes between saved generator states (whole elements)
  static constexpr uint64_t kCursors = 256;  // generators kept where reads ended (up to 10 KiB)

  // Rank `rank`'s (an endpoint id) input of `bytes` at memory offset `base`.
  InputPages(tl::RedType type, uint64_t seed, int rank, uint64_t base, uint64_t bytes);
  void fill(uint64_t addr, uint8_t* out, uint64_t len) const override;

 private:
  // The element bytes draw `x` gives (integers: its low bytes, read from `x` itself).
  const uint8_t* element(const uint64_t& x) const {
    return table_.empty() ? reinterpret_cast<const uint8_t*>(&x) : &table_[(x % 2048) * elem_];
  }
  // Whole elements of E bytes from `off` while they fit before `stop`, advancing out and off.
  template <int E>
  void whole(traffic::Rng& rng, uint8_t*& out, uint64_t& off, uint64_t stop) const;

  tl::RedType type_;
  uint64_t elem_;
  uint64_t base_, bytes_;
  std::vector<traffic::Rng> states_;  // the generator before the element at base + k * kStride
  // Float types: the bytes of the element each draw's value (draw mod 2048) gives.
  std::vector<uint8_t> table_;
  struct Cursor {
    uint64_t at = ~uint64_t{0};  // offset from the input's start (none yet)
    traffic::Rng rng;            // the generator before the element at `at`
  };
  // Slot: the saved stretch of `at`, modulo their number (kCursors, or fewer stretches).
  mutable std::vector<Cursor> cursors_;
};

}  // namespace upswitch::coll
