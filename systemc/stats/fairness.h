// Jain's fairness index of a set of allocations x_1 .. x_n: J = (sum x)^2 / (n * sum x^2), from
// 1/n (one gets everything) to 1 (all equal). Jain, Chiu and Hawe, DEC-TR-301 (1984).
#pragma once

#include <cstdint>
#include <vector>

namespace upswitch::stats {

// 1 for an empty set or one where every x is 0 (nobody is favoured).
double jain_index(const std::vector<double>& x);
double jain_index(const std::vector<uint64_t>& x);

}  // namespace upswitch::stats
