// SystemC wrapper of the switch: one SC_METHOD for all ports, around core::SwitchCore. Its
// ports are the links it is connected to; it registers as their wake-up listener for what
// arrives at the switch (flits on input links, credits on output links).
#pragma once

#include <exception>
#include <memory>
#include <vector>

#include "core/switch_core.h"
#include "network/network.h"
#include "sc/cycle_process.h"

namespace upswitch::sc {

class SwitchModule : public CycleProcess {
 public:
  SwitchModule(const sc_core::sc_module_name& name, sc_core::sc_time period, core::SwitchCore& core);
  // Connects port p: flits arrive on `input`, leave on `output` (same links as core.connect()).
  void bind(int port, core::Link& input, core::Link& output);

 protected:
  uint64_t run_cycle(uint64_t t) override;

 private:
  core::SwitchCore& core_;
};

// One SwitchModule per switch of a network, each bound to its ports' links ("switch" on one
// switch, "switch0", "switch1", ... in a network).
class SwitchModules {
 public:
  SwitchModules(network::Network& net, sc_core::sc_time period);
  // The first exception raised inside any switch's cycle, or null.
  std::exception_ptr failure() const;

 private:
  std::vector<std::unique_ptr<SwitchModule>> switches_;
};

}  // namespace upswitch::sc
