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
  const uint64_t now = current_cycle();
  scheduled_ = cycle;
  wake_.notify(cycles(cycle - now));
}

sc_core::sc_time CycleProcess::cycles(uint64_t k) const {
  return sc_core::sc_time::from_value(period_.value() * k);
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
    next_trigger(cycles(next - t), wake_);
}

}  // namespace upswitch::sc
