// Runs a packet Fabric or a transaction fabric on several threads (`upswitch run --threads N`,
// doc/performance.md "Parallel execution"): conservative synchronous simulation. The switches are
// split into groups over N threads (ParallelPlan), the endpoints (packet sources and sinks, or the
// accelerators and the reduction engine's units, with the memories and everything they touch)
// in the first; a single switch is the second of two groups, the endpoints alone the first. A
// thread done with its own groups in a window takes those another has not started. Every link between
// two groups holds what it carries until the end of a window of L cycles, L the least latency
// (flits) or credit delay of those links, so no group needs what another sends inside the same
// window. Within a window each group ticks its own members at their own cycles, as the
// sequential driver would; the group with the endpoints leads, and the others never tick a cycle
// before it has finished the one before (so a run that ends at cycle t ends there for every
// group). Between windows one thread delivers what the links held and decides the flush's end.
// The results are those of Fabric::run_plain (TxnFabric::run_plain), byte for byte, whatever N.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "top/fabric.h"
#include "top/parallel_plan.h"
#include "top/txn_fabric.h"

namespace upswitch::top {

// The plan for `threads` threads: switches balanced by ports over the threads, the endpoints
// counted with thread 0 (one switch: two groups, the endpoints and the switch); then, where the
// window stays as long, the endpoints alone in group 0 and each thread's switches in several
// groups, which a thread done with its own may take (ParallelPlan). Throws ParallelError when the
// run cannot be split that way.
ParallelPlan plan_parallel(const Fabric& f, int threads);
ParallelPlan plan_parallel(const TxnFabric& f, int threads);

// Why `threads` > 1 cannot run this configuration ("" when it can): one line for the CLI.
std::string parallel_refusal(const config::Config& c, int threads);

// Runs `f` to completion on plan.threads threads (the caller's runs group 0). `on_window`, if
// given, is called between windows with the last cycle simulated (progress, interruption; the
// endpoints may be told to stop there).
void run_parallel(Fabric& f, const ParallelPlan& plan, const std::function<void(uint64_t)>& on_window = {});
// A synthetic transaction run (TxnFabric(cfg, true)), as TxnFabric::run_plain.
void run_parallel(TxnFabric& f, const ParallelPlan& plan, const std::function<void(uint64_t)>& on_window = {});

// Two threads' plan (`make_plan(2)`, plan_parallel on the fabric) on one thread (on_one_thread)
// for a network of switches that can be split, else the sequential driver's (groups 1).
ParallelPlan plan_one_thread(const config::Config& c, const std::function<ParallelPlan(int)>& make_plan);
ParallelPlan plan_one_thread(const TxnFabric& f);
// A synthetic transaction run (TxnFabric(cfg, true)) on one thread: window by window where
// plan_one_thread allows, else TxnFabric::run_plain. `on_progress` is called between windows, or
// after each cycle simulated. The same results either way.
void run_on_one_thread(TxnFabric& f, const std::function<void(uint64_t)>& on_progress = {});

// What TxnFabric::run_until_idle does, on plan.threads threads: from cycle `start`, until nothing
// anywhere has work (returns true, `*next` the cycle after the last one simulated) or the next
// cycle with work is `limit` or later (returns false, `*next` that cycle). `hook`, if given, runs
// on the endpoints' thread before each cycle that thread simulates (the collective layer: it
// touches only the endpoints and their memories).
bool run_parallel_until_idle(TxnFabric& f, const ParallelPlan& plan, uint64_t start, uint64_t limit, CycleHook* hook,
                             uint64_t* next);

}  // namespace upswitch::top
