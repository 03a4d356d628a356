// Runs a Fabric under the SystemC kernel: elaborates one SwitchModule and one EndpointsModule
// around it and calls sc_start() until the endpoints finish. The kernel can be started only
// once per process, so this is called once per process (the CLI; one test per process).
#pragma once

#include <atomic>
#include <functional>

#include "top/fabric.h"

namespace upswitch::sc {

void run_systemc(top::Fabric& fabric, const std::atomic<bool>* stop_flag = nullptr,
                 std::function<void(uint64_t)> on_cycle = {});

}  // namespace upswitch::sc
