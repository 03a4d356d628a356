// `upswitch replay TRACE.jsonl` or `upswitch replay --chakra PREFIX`: replays a trace of timed
// transactions, collective calls and compute, or a set of Chakra execution traces (doc/trace.md),
// and prints, per operation, when it started and completed and its status.
// Registered by add_replay_command().
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "app/run_command.h"

namespace upswitch::app {

CLI::App* add_replay_command(CLI::App& app);

// Exit status: 0 ok (whatever the operations' statuses), 2 bad input (one error line, nothing
// written), 3 deadlock, 4 invariant violated.
struct ReplayInput {
  std::string trace;          // a JSON Lines trace, or
  std::string chakra;         // the prefix of Chakra files PREFIX.<rank>.et
  std::string chakra_groups;  // their communicator groups (default PREFIX.groups.json if it exists)
};
int replay_command(const ReplayInput& in, const RunOptions& opt);

}  // namespace upswitch::app
