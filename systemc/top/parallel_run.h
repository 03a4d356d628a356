// Runs a packet Fabric on several threads (`upswitch run --threads N`, doc/performance.md
// "Parallel execution"): conservative synchronous simulation. The switches are split into N
// groups, the endpoints joining the first; every link between two groups holds what it carries
// until the end of a window of L cycles, L the least latency (flits) or credit delay of those
// links, so no group needs what another sends inside the same window. Within a window each group
// ticks its own members at their own cycles, as the sequential driver would; the group with the
// endpoints leads, and the others never tick a cycle before it has finished the one before (so
// a run that ends at cycle t ends there for every group). Between windows one thread delivers
// what the links held and decides the flush's end. The results are those of Fabric::run_plain,
// byte for byte, whatever N.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "top/fabric.h"

namespace upswitch::top {

// A run that cannot be split as asked: one line.
class ParallelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// How a run is split: per switch its group, and the window.
struct ParallelPlan {
  int groups = 1;
  std::vector<int> group_of;  // per switch
  uint64_t window = 0;        // cycles: the least latency or credit delay of a link between groups
};

// The plan for `threads` groups: switches balanced by ports, the endpoints counted with group 0.
// Throws ParallelError when the run cannot be split that way.
ParallelPlan plan_parallel(const Fabric& f, int threads);

// Why `threads` > 1 cannot run this configuration ("" when it can): one line for the CLI.
std::string parallel_refusal(const config::Config& c, int threads);

// Runs `f` to completion on plan.groups threads (the caller's thread is group 0). `on_window`, if
// given, is called between windows with the last cycle simulated (progress, interruption; the
// endpoints may be told to stop there).
void run_parallel(Fabric& f, const ParallelPlan& plan, const std::function<void(uint64_t)>& on_window = {});

}  // namespace upswitch::top
