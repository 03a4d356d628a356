// Building a switch allocation request (AllocRequest) from per-input request rows: shared by the
// normal and the speculative allocation of SwitchCore.
#pragma once

#include <cstdint>
#include <vector>

#include "core/bits.h"

namespace upswitch::core {

// Row `row` of a matrix written into its transpose `into`: bit `b` set in row j for every j set.
inline void scatter_row(const uint64_t* row, int words, int b, BitMatrix& into) {
  for (int k = 0; k < words; ++k)
    for (uint64_t r = row[k]; r; r &= r - 1) set_bit(into.row((k << 6) + __builtin_ctzll(r)), b);
}

// Adds input i's request row: i joins `inputs`, the row is ORed into `any` (one row over the
// outputs) and, for allocators that read requests by output, transposed into `by_output`.
inline void add_request_row(int i, const uint64_t* row, int words, bool transpose, BitMatrix& by_output,
                            std::vector<int>& inputs, uint64_t* any) {
  inputs.push_back(i);
  for (int k = 0; k < words; ++k) any[k] |= row[k];
  if (transpose) scatter_row(row, words, i, by_output);
}

// The outputs set in `any`, ascending.
inline void list_requested_outputs(const uint64_t* any, int words, std::vector<int>& outputs) {
  for (int k = 0; k < words; ++k)
    for (uint64_t r = any[k]; r; r &= r - 1) outputs.push_back((k << 6) + __builtin_ctzll(r));
}

}  // namespace upswitch::core
