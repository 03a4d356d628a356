// The one piece of SystemC timing logic: an SC_METHOD that calls a cycle component's tick() on
// its active cycles only. No clock signal toggles: the method re-arms itself with next_trigger()
// for the component's next active cycle, or sleeps on an event that links notify when something
// arrives earlier (core::WakeListener), so idle cycles cost nothing and a link push costs an
// event only when it has to wake a sleeper.
#pragma once

#include <cstdint>
#include <exception>

#include <systemc>

#include "core/link.h"

namespace upswitch::sc {

class CycleProcess : public sc_core::sc_module, public core::WakeListener {
 public:
  CycleProcess(const sc_core::sc_module_name& name, sc_core::sc_time period);

  void wake_at(uint64_t cycle) override;
  uint64_t current_cycle() const;
  // An exception thrown by a tick, rethrown by the run after sc_start() returns.
  std::exception_ptr failure() const { return failure_; }

 protected:
  // One cycle of the component; returns its next active cycle (UINT64_MAX = nothing planned).
  virtual uint64_t run_cycle(uint64_t t) = 0;
  void fail(std::exception_ptr e);

 private:
  void step();
  sc_core::sc_time until(uint64_t cycle) const;

  sc_core::sc_time period_;
  sc_core::sc_event wake_;
  uint64_t scheduled_ = 0;  // the cycle the method is armed for
  uint64_t last_ = UINT64_MAX;
  std::exception_ptr failure_;
};

}  // namespace upswitch::sc
