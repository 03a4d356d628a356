// Runs a packet Fabric or a transaction fabric on several threads (`upswitch run --threads N`,
// doc/performance.md "Parallel execution"): conservative synchronous simulation. The switches are
// split into N groups, the endpoints (packet sources and sinks, or the accelerators and the
// reduction engine's units, with the memories and everything they touch) joining the first; a
// single switch is the second of two groups, the endpoints alone the first. Every link between
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

// The plan for `threads` groups: switches balanced by ports, the endpoints counted with group 0
// (one switch: two groups, the endpoints and the switch). Throws ParallelError when the run
// cannot be split that way.
ParallelPlan plan_parallel(const Fabric& f, int threads);
ParallelPlan plan_parallel(const TxnFabric& f, int threads);

// Why `threads` > 1 cannot run this configuration ("" when it can): one line for the CLI.
std::string parallel_refusal(const config::Config& c, int threads);

// Runs `f` to completion on plan.groups threads (the caller's thread is group 0). `on_window`, if
// given, is called between windows with the last cycle simulated (progress, interruption; the
// endpoints may be told to stop there).
void run_parallel(Fabric& f, const ParallelPlan& plan, const std::function<void(uint64_t)>& on_window = {});
// A synthetic transaction run (TxnFabric(cfg, true)), as TxnFabric::run_plain.
void run_parallel(TxnFabric& f, const ParallelPlan& plan, const std::function<void(uint64_t)>& on_window = {});

// What TxnFabric::run_until_idle does, on plan.groups threads: from cycle `start`, until nothing
// anywhere has work (returns true, `*next` the cycle after the last one simulated) or the next
// cycle with work is `limit` or later (returns false, `*next` that cycle). `hook`, if given, runs
// on the endpoints' thread before each cycle that thread simulates (the collective layer: it
// touches only the endpoints and their memories).
bool run_parallel_until_idle(TxnFabric& f, const ParallelPlan& plan, uint64_t start, uint64_t limit, CycleHook* hook,
                             uint64_t* next);

}  // namespace upswitch::top
