#include "sc/switch_module.h"

#include <string>

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

SwitchModules::SwitchModules(network::Network& net, sc_core::sc_time period) {
  for (int s = 0; s < net.switches(); ++s) {
    const std::string name = net.switches() == 1 ? "switch" : "switch" + std::to_string(s);
    switches_.push_back(std::make_unique<SwitchModule>(name.c_str(), period, net.sw(s)));
    for (int q = 0; q < net.sw(s).ports(); ++q) switches_.back()->bind(q, net.switch_input(s, q), net.switch_output(s, q));
  }
}

std::exception_ptr SwitchModules::failure() const {
  for (const auto& sw : switches_)
    if (sw->failure()) return sw->failure();
  return nullptr;
}

}  // namespace upswitch::sc
