// The C++ model's switch behind the CycleSwitch port interface: the reference side of a
// co-simulation, built by the one network assembly (network/network.h) as a `single` topology
// whose links have zero latency, so the port words go in and out within the cycle and the core
// sees exactly what it would see on its real links.
#pragma once

#include "core/switch_params.h"
#include "cosim/cycle_switch.h"
#include "network/network.h"

namespace upswitch::cosim {

class ModelSwitch : public CycleSwitch {
 public:
  // `params.routing_table` must be empty: a flit word's dst is already the output port.
  ModelSwitch(const core::SwitchParams& params, const core::DownstreamBuffer& downstream);
  int ports() const override { return net_.sw(0).ports(); }
  void cycle(uint64_t t, const PortWords* in, PortWords* out) override;

 private:
  network::Network net_;
};

}  // namespace upswitch::cosim
