#include "sc/txn_system.h"

#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace upswitch::sc {
namespace {
// As in sc_run.cpp: keep the kernel's banner off stdout in programs built on TxnSystem (this
// object file is linked into them even when sc_run.o is not).
const int kQuietKernelBanner = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
}  // namespace

sc_core::sc_time cycle_period(double clock_ghz) {
  const double period_fs = std::round(1e6 / clock_ghz);
  // (Asking for the resolution would fix it, so just try.)
  try {
    sc_core::sc_set_time_resolution(1, sc_core::SC_FS);
  } catch (const sc_core::sc_report&) {
    // Already fixed by an earlier sc_time: keep it, round the period to it below.
  }
  const sc_core::sc_time period(period_fs, sc_core::SC_FS);
  if (period == sc_core::SC_ZERO_TIME)
    throw std::invalid_argument("the core clock period is below the SystemC time resolution already fixed");
  return period;
}

TxnSystem::TxnSystem(const sc_core::sc_module_name& name, top::TxnFabric& fabric, const std::atomic<bool>* stop_flag)
    : sc_core::sc_module(name),
      fabric_(fabric),
      period_(cycle_period(fabric.config().clock_ghz)),
      sw_(fabric.network(), period_),
      eps_("endpoints", period_, fabric.endpoints(), /*synthetic=*/false, stop_flag),
      sockets_("accelerators", period_, eps_) {
  for (int p = 0; p < fabric.network().endpoint_ports(); ++p)  // accelerators' ports, then the engine's units
    eps_.bind(p, fabric.uplink(p), fabric.downlink(p));
}

void TxnSystem::rethrow_failure() const {
  if (sw_.failure()) std::rethrow_exception(sw_.failure());
  if (eps_.failure()) std::rethrow_exception(eps_.failure());
}

}  // namespace upswitch::sc
