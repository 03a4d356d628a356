// Runs a synthetic transaction fabric (TxnFabric built with synthetic = true) under the SystemC
// kernel, as sc_run.h does for the packet Fabric: one SwitchModule and one TxnEndpointsModule,
// sc_start() until the endpoints' measurement protocol is done, failures rethrown. Once per
// process (the kernel starts only once). For external transfers from a user's TLM model, see
// sc/txn_system.h instead.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>

#include "top/txn_fabric.h"

namespace upswitch::sc {

void run_systemc(top::TxnFabric& fabric, const std::atomic<bool>* stop_flag = nullptr,
                 std::function<void(uint64_t)> on_cycle = {});

}  // namespace upswitch::sc
