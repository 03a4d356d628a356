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

// The switches and endpoints are split into groups, which `threads` threads run window by window:
// each thread first the groups it was given (group_thread), then any another thread has not
// started yet, so a thread on a slower or busier core does less. Group 0 (the endpoints) is
// always thread 0's. Which thread runs a group never changes a result.
struct ParallelPlan {
  int groups = 1;
  int threads = 1;
  std::vector<int> group_of;  // per switch
  // Per endpoint, its group (empty: every endpoint is group 0's). Accelerators are group 0's;
  // the reduction engine's units go with their switch (AcceleratorEndpoints::set_parts).
  std::vector<int> endpoint_group;
  // Per group, the thread it is given to (balanced by weight); empty: a thread per group.
  std::vector<int> group_thread;
  uint64_t window = 0;        // cycles: the least latency or credit delay of a link between groups
};

// Windows shorter than this many cycles do not pay on one thread: each costs a step between
// windows, and a group keeps little in the caches over so few cycles (doc/performance.md, issue
// 21's fifteenth pass: one-cycle links on two tiers ran 10% slower).
constexpr uint64_t kMinOneThreadWindow = 8;

// The same groups and window, every group run by one thread (group 0 first, then the others in
// order): a run on one thread that still goes window by window, each group through a whole
// window at a time while its state is in the caches, instead of every switch every cycle. The
// sequential driver's plan (groups 1) where the window is shorter than kMinOneThreadWindow.
inline ParallelPlan on_one_thread(ParallelPlan plan) {
  if (plan.groups <= 1 || plan.window < kMinOneThreadWindow) return ParallelPlan{};
  plan.threads = 1;
  plan.group_thread.assign(static_cast<size_t>(plan.groups), 0);
  return plan;
}

}  // namespace upswitch::top
