// Runs the fabric's conservation check every `interval` cycles under the SystemC kernel. It
// fires half a period after a cycle boundary, when every module has finished that cycle and
// none has started the next, so the state it reads is consistent whatever the process order.
#pragma once

#include <exception>

#include <systemc>

#include "top/fabric.h"

namespace upswitch::sc {

class ConservationChecker : public sc_core::sc_module {
 public:
  ConservationChecker(const sc_core::sc_module_name& name, sc_core::sc_time period, uint64_t interval,
                      const top::Fabric& fabric);
  std::exception_ptr failure() const { return failure_; }

 private:
  void start_of_simulation() override;
  void check();
  sc_core::sc_time period_, interval_;
  const top::Fabric& fabric_;
  sc_core::sc_event first_;
  std::exception_ptr failure_;
};

}  // namespace upswitch::sc
