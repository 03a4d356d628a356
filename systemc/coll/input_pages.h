// A rank's collective input as a tl::PageSource (doc/reduction.md "Numerical correctness",
// doc/performance.md "Collectives"): the values fill_inputs defines, element k of rank r being
// the k-th draw of the generator seeded with (seed, r + 1), computed again whenever they are read
// from the generator's state saved every kStride bytes, instead of being stored in every rank's
// memory. Floats are in [-1, 1) on a 1/1024 grid, integers cover their whole range.
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

  // Rank `rank`'s (an endpoint id) input of `bytes` at memory offset `base`.
  InputPages(tl::RedType type, uint64_t seed, int rank, uint64_t base, uint64_t bytes);
  void fill(uint64_t addr, uint8_t* out, uint64_t len) const override;

 private:
  tl::RedType type_;
  uint64_t elem_;
  uint64_t base_, bytes_;
  std::vector<traffic::Rng> states_;  // the generator before the element at base + k * kStride
};

}  // namespace upswitch::coll
