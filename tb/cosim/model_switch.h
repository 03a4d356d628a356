// The C++ model's SwitchCore behind the CycleSwitch port interface: the reference side of a
// co-simulation. Zero-latency tap links carry the port words in and out within the cycle, so
// the core sees exactly what it would see on its real links.
#pragma once

#include <memory>
#include <vector>

#include "core/link.h"
#include "core/switch_core.h"
#include "cosim/cycle_switch.h"

namespace upswitch::cosim {

class ModelSwitch : public CycleSwitch {
 public:
  // `params.routing_table` must be empty: a flit word's dst is already the output port.
  ModelSwitch(const core::SwitchParams& params, const core::DownstreamBuffer& downstream);
  int ports() const override { return core_.ports(); }
  void cycle(uint64_t t, const PortWords* in, PortWords* out) override;

 private:
  core::SwitchCore core_;
  std::vector<std::unique_ptr<core::Link>> in_, out_;
};

}  // namespace upswitch::cosim
