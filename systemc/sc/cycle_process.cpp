#include "sc/cycle_process.h"

namespace upswitch::sc {

CycleProcess::CycleProcess(const sc_core::sc_module_name& name, sc_core::sc_time period)
    : sc_core::sc_module(name), period_(period) {
  SC_HAS_PROCESS(CycleProcess);
  SC_METHOD(step);
}

uint64_t CycleProcess::current_cycle() const {
  return sc_core::sc_time_stamp().value() / period_.value();
}

void CycleProcess::wake_at(uint64_t cycle) {
  if (cycle >= scheduled_) return;
  scheduled_ = cycle;
  wake_.notify(until(cycle));
}

// From now to the start of `cycle` (zero once it has started). Measured from the current time,
// not from the current cycle's start: a wake-up asked for by a process that runs between two
// boundaries (a TLM initiator's thread submitting a transfer) still lands on a boundary, and so
// does every cycle the method then schedules for itself.
sc_core::sc_time CycleProcess::until(uint64_t cycle) const {
  const uint64_t at = period_.value() * cycle;
  const uint64_t now = sc_core::sc_time_stamp().value();
  return sc_core::sc_time::from_value(at > now ? at - now : 0);
}

void CycleProcess::fail(std::exception_ptr e) {
  if (!failure_) failure_ = e;
  sc_core::sc_stop();
}

void CycleProcess::step() {
  const uint64_t t = current_cycle();
  uint64_t next = t + 1;
  if (t != last_) {  // a timeout and a wake-up can both fire in one cycle: tick once
    last_ = t;
    try {
      next = run_cycle(t);
    } catch (...) {
      fail(std::current_exception());
      return;
    }
  } else if (scheduled_ > t) {
    next = scheduled_;
  }
  scheduled_ = next;
  if (next == UINT64_MAX)
    next_trigger(wake_);
  else
    next_trigger(until(next), wake_);
}

}  // namespace upswitch::sc
