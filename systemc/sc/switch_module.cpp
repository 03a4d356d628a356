#include "sc/switch_module.h"

namespace upswitch::sc {

SwitchModule::SwitchModule(const sc_core::sc_module_name& name, sc_core::sc_time period, core::SwitchCore& core)
    : CycleProcess(name, period), core_(core) {}

void SwitchModule::bind(int port, core::Link& input, core::Link& output) {
  core_.connect(port, &input, &output);
  input.set_flit_listener(this);
  output.set_credit_listener(this);
}

uint64_t SwitchModule::run_cycle(uint64_t t) {
  core_.tick(t);
  return core_.next_activity(t);
}

}  // namespace upswitch::sc
