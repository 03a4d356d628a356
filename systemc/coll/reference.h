// Inputs and the host reference for collectives (doc/reduction.md "Numerical correctness"):
// deterministic input values per rank, and a check of every result element against a reference
// computed on the host from the same inputs, bit-exact for integers, min, max and data movement,
// and within the reduction-order bound for float sums.
#pragma once

#include <cstdint>
#include <string>

#include "coll/runner.h"

namespace upswitch::coll {

// Gives every rank its input (layout.in, in_bytes): values from `seed`, floats in [-1, 1) on a
// 1/1024 grid, integers over their whole range (coll/input_pages.h). The bytes read as if written
// there; they are computed when read and take memory only where written over.
void fill_inputs(top::TxnFabric& f, const CollectiveRun& r, uint64_t seed);

struct CheckResult {
  uint64_t elements = 0, wrong = 0;
  double max_error_ratio = 0;  // float sums: the largest |error| / bound seen
  std::string first;           // the first wrong element, described
};

// Checks every result element of a completed collective against the host reference.
CheckResult check_results(const top::TxnFabric& f, const CollectiveRun& r);

// The float-sum error bound's unit roundoffs (per reduction step, and the final rounding).
double step_roundoff(tl::RedType t, Algorithm a);
double final_roundoff(tl::RedType t, Algorithm a);

}  // namespace upswitch::coll
