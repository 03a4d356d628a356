// How a run is split over threads (top/parallel_run.h): per switch its group, and the window.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace upswitch::top {

// A run that cannot be split as asked: one line.
class ParallelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ParallelPlan {
  int groups = 1;
  std::vector<int> group_of;  // per switch
  uint64_t window = 0;        // cycles: the least latency or credit delay of a link between groups
};

}  // namespace upswitch::top
