#include "sc/endpoints_module.h"

namespace upswitch::sc {

EndpointsModule::EndpointsModule(const sc_core::sc_module_name& name, sc_core::sc_time period,
                                 traffic::TrafficEndpoints& eps, const std::atomic<bool>* stop_flag,
                                 std::function<void(uint64_t)> on_cycle)
    : CycleProcess(name, period), eps_(eps), stop_(stop_flag), on_cycle_(std::move(on_cycle)) {}

void EndpointsModule::bind(int port, core::Link& to_switch, core::Link& from_switch) {
  eps_.connect(port, &to_switch, &from_switch);
  to_switch.set_credit_listener(this);
  from_switch.set_flit_listener(this);
}

uint64_t EndpointsModule::run_cycle(uint64_t t) {
  if (stop_ && stop_->load(std::memory_order_relaxed)) eps_.request_stop();
  eps_.tick(t);
  if (eps_.done()) {
    sc_core::sc_stop();
    return UINT64_MAX;
  }
  if (on_cycle_) on_cycle_(t);
  uint64_t next = eps_.next_activity(t);
  // Wake up now and then while the switch is busy, so a stop request is seen promptly.
  if (stop_ && next > t + 65536) next = t + 65536;
  return next;
}

}  // namespace upswitch::sc
