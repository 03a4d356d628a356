// A process-wide request to stop simulating (Ctrl-C or SIGTERM). The command line's signal
// handlers (app/stop_signals.h) set it; the plain run loops that drive transactions (collectives,
// replay, the planners' tables) poll it once per simulated cycle and end by throwing Interrupted,
// which each command turns into "write what is complete, marked interrupted, exit 130 or 143"
// (README, doc/reliability.md). A library user may set it too, from any thread, to stop such a run.
#pragma once

#include <atomic>
#include <stdexcept>

namespace upswitch::core {

class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("interrupted") {}
};

inline std::atomic<bool>& interrupt_flag() {
  static std::atomic<bool> flag{false};
  return flag;
}

inline bool interrupt_requested() { return interrupt_flag().load(std::memory_order_relaxed); }

// Throws Interrupted when a stop has been requested.
inline void poll_interrupt() {
  if (interrupt_requested()) throw Interrupted();
}

}  // namespace upswitch::core
