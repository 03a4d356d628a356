// SystemC wrapper of all synthetic endpoints: one SC_METHOD around traffic::TrafficEndpoints.
// It stops the simulation when the endpoints' measurement protocol is done, and polls a stop
// flag (set by the Ctrl-C handler) and a progress callback.
#pragma once

#include <atomic>
#include <functional>

#include "sc/cycle_process.h"
#include "traffic/endpoints.h"

namespace upswitch::sc {

class EndpointsModule : public CycleProcess {
 public:
  EndpointsModule(const sc_core::sc_module_name& name, sc_core::sc_time period, traffic::TrafficEndpoints& eps,
                  const std::atomic<bool>* stop_flag, std::function<void(uint64_t)> on_cycle);
  void bind(int port, core::Link& to_switch, core::Link& from_switch);

 protected:
  uint64_t run_cycle(uint64_t t) override;

 private:
  traffic::TrafficEndpoints& eps_;
  const std::atomic<bool>* stop_;
  std::function<void(uint64_t)> on_cycle_;
};

}  // namespace upswitch::sc
