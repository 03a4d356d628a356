// `upswitch run` for traffic.kind = transactions: the accelerator endpoints' synthetic workload
// over a TxnFabric, under the SystemC kernel or the plain driver; summary and outputs.
#pragma once

#include <atomic>

#include "app/run_command.h"
#include "config/config.h"

namespace upswitch::app {

// Same exit statuses as run_command(). `cfg` is resolved and validated; --out exists.
int run_transactions(const RunOptions& opt, const config::Config& cfg, const std::atomic<bool>& stop);

}  // namespace upswitch::app
