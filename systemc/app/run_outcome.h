// What the two kinds of `upswitch run` (packets, transactions) share around the simulation
// itself: turning a deadlock or a broken invariant into its exit status and report, and the
// final status from the conservation check and an interruption.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "app/progress.h"
#include "app/run_command.h"

namespace upswitch::app {

// Runs `simulate`. A deadlock prints its blocking state on stderr (and into DIR/deadlock.txt
// with --out) and gives 3; a violated invariant (std::logic_error) gives 4; otherwise 0.
int run_guarded(const RunOptions& opt, Progress& progress, const std::function<void()>& simulate);

// The exit status once the outputs are written: 4 when conservation was violated, 130 or 143 when
// the run was interrupted (app/stop_signals.h), else 0; both print their line on stderr.
int final_status(const RunOptions& opt, const std::vector<std::string>& violations, bool interrupted,
                 uint64_t end_cycle);

}  // namespace upswitch::app
