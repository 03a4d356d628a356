#include "stats/fairness.h"

namespace upswitch::stats {

double jain_index(const std::vector<double>& x) {
  double sum = 0, squares = 0;
  for (double v : x) {
    sum += v;
    squares += v * v;
  }
  if (x.empty() || squares == 0) return 1.0;
  return sum * sum / (static_cast<double>(x.size()) * squares);
}

double jain_index(const std::vector<uint64_t>& x) { return jain_index(std::vector<double>(x.begin(), x.end())); }

}  // namespace upswitch::stats
