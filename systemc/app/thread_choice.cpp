#include "app/thread_choice.h"

#include <algorithm>
#include <iostream>
#include <thread>

namespace upswitch::app {

int choose_parallel_plan(const RunOptions& opt, const config::Config& cfg,
                         const std::function<top::ParallelPlan(int)>& make_plan, top::ParallelPlan& plan) {
  int threads = opt.threads;
  if (threads == 0)
    threads = !opt.kernel_given && !cfg.single_switch() && top::parallel_refusal(cfg, 2).empty()
                  ? static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))
                  : 1;
  plan = top::ParallelPlan{};
  if (threads <= 1) {
    // One thread on a network of switches with the plain driver (asked, or nothing asked): the
    // windows of two threads' groups, run by one, when the configuration can be split.
    const bool plain = opt.kernel_given ? opt.kernel == "plain" : opt.threads == 0;
    if (plain) plan = top::plan_one_thread(cfg, make_plan);
    return 0;
  }
  try {
    plan = make_plan(threads);
  } catch (const top::ParallelError& e) {
    if (opt.threads > 1) {
      std::cerr << "upswitch: error: --threads " << opt.threads << ": " << e.what() << "\n";
      return 2;
    }
    plan = top::ParallelPlan{};  // chosen, not asked: one thread then
  }
  return 0;
}

}  // namespace upswitch::app
