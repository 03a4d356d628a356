// partition.pods, faults.port_down and endpoint.completion_timeout_ns (doc/reliability.md):
// checked against the switch and the traffic kind, and resolved into core::FaultParams (cycles)
// and AccelParams::completion_timeout_cycles. Declared in fault_params.cpp.
#pragma once

#include "config/config.h"

namespace upswitch::config {

// Called by validate(); throws ConfigError naming the key, the value and what is allowed.
void resolve_faults(Config& c);

}  // namespace upswitch::config
