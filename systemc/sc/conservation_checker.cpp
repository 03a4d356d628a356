#include "sc/conservation_checker.h"

#include "top/conservation.h"

namespace upswitch::sc {

ConservationChecker::ConservationChecker(const sc_core::sc_module_name& name, sc_core::sc_time period,
                                         uint64_t interval, const top::Fabric& fabric)
    : sc_core::sc_module(name),
      period_(period),
      interval_(sc_core::sc_time::from_value(period.value() * interval)),
      fabric_(fabric) {
  SC_HAS_PROCESS(ConservationChecker);
  SC_METHOD(check);
  dont_initialize();
  sensitive << first_;
}

// The first check falls half a period into cycle `interval`.
void ConservationChecker::start_of_simulation() {
  first_.notify(interval_ + sc_core::sc_time::from_value(period_.value() / 2));
}

void ConservationChecker::check() {
  try {
    top::require_conservation(fabric_);
  } catch (...) {
    failure_ = std::current_exception();
    sc_core::sc_stop();
    return;
  }
  next_trigger(interval_);
}

}  // namespace upswitch::sc
