#include "sc/sc_run.h"

#include <cmath>
#include <cstdlib>

#include <memory>
#include <string>
#include <vector>

#include "sc/conservation_checker.h"
#include "sc/endpoints_module.h"
#include "sc/switch_module.h"

namespace upswitch::sc {
namespace {
// The kernel prints its banner on stdout before sc_main runs; this static initializer runs
// earlier still, in every program that links the SystemC wrappers, so stdout keeps only results.
const int kQuietKernelBanner = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
}  // namespace

void run_systemc(top::Fabric& fabric, const std::atomic<bool>* stop_flag, std::function<void(uint64_t)> on_cycle) {
  // The period is a whole number of femtoseconds, so cycle k is exactly k * period and every
  // process derives the same cycle number from the simulated time.
  sc_core::sc_set_time_resolution(1, sc_core::SC_FS);
  const double period_fs = std::round(1e6 / fabric.config().clock_ghz);
  const sc_core::sc_time period(period_fs, sc_core::SC_FS);

  // One process per switch chip and one for all endpoints, never one per port or flit.
  network::Network& net = fabric.network();
  SwitchModules switches(net, period);
  EndpointsModule eps("endpoints", period, fabric.endpoints(), stop_flag, std::move(on_cycle));
  for (int p = 0; p < fabric.endpoint_ports(); ++p) eps.bind(p, fabric.uplink(p), fabric.downlink(p));
  std::unique_ptr<ConservationChecker> checker;
  if (fabric.config().check_interval_cycles)
    checker = std::make_unique<ConservationChecker>("checker", period, fabric.config().check_interval_cycles, fabric);
  sc_core::sc_start();
  if (switches.failure()) std::rethrow_exception(switches.failure());
  if (eps.failure()) std::rethrow_exception(eps.failure());
  if (checker && checker->failure()) std::rethrow_exception(checker->failure());
}

}  // namespace upswitch::sc
