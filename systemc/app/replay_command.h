// `upswitch replay TRACE.jsonl`: replays a trace of timed transactions and collective calls
// (doc/trace.md) and prints, per operation, when it started and completed and its status.
// Registered by add_replay_command().
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "app/run_command.h"

namespace upswitch::app {

CLI::App* add_replay_command(CLI::App& app);

// Exit status: 0 ok (whatever the operations' statuses), 2 bad input (one error line, nothing
// written), 3 deadlock, 4 invariant violated.
int replay_command(const std::string& trace_path, const RunOptions& opt);

}  // namespace upswitch::app
