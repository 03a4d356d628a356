// How many threads `upswitch run` uses (top/parallel_run.h), for packets and transactions alike:
// as asked with --threads, or, when neither --threads nor --kernel was given, every core when the
// configuration can be split over threads (more than one switch, nothing refused). One thread
// with the plain driver on a network of switches still runs window by window
// (top::on_one_thread), which keeps each switch's state in the caches for a window.
#pragma once

#include <functional>

#include "app/run_command.h"
#include "config/config.h"
#include "top/parallel_run.h"

namespace upswitch::app {

// The plan to run with (groups 1: the sequential driver). `make_plan` builds the plan for a number
// of threads (top::plan_parallel on the fabric). Returns 0, or 2 after printing one error line
// when --threads asked for a split the fabric cannot take.
int choose_parallel_plan(const RunOptions& opt, const config::Config& cfg,
                         const std::function<top::ParallelPlan(int)>& make_plan, top::ParallelPlan& plan);

}  // namespace upswitch::app
