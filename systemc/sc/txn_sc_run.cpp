#include "sc/txn_sc_run.h"

#include <cstdlib>
#include <exception>
#include <memory>

#include "sc/switch_module.h"
#include "sc/txn_endpoints_module.h"
#include "sc/txn_system.h"

namespace upswitch::sc {
namespace {

// sim.check_interval_cycles for transactions: the credit, flit and request-accounting checks of
// top::require_txn_conservation, half a period after every interval-th cycle boundary (when every
// module has finished that cycle and none has started the next, as ConservationChecker does).
class TxnChecker : public sc_core::sc_module {
 public:
  TxnChecker(const sc_core::sc_module_name& name, sc_core::sc_time period, uint64_t interval,
             const top::TxnFabric& fabric)
      : sc_core::sc_module(name),
        interval_(sc_core::sc_time::from_value(period.value() * interval)),
        first_(interval_ + sc_core::sc_time::from_value(period.value() / 2)),
        fabric_(fabric) {
    SC_HAS_PROCESS(TxnChecker);
    SC_METHOD(check);
    dont_initialize();
    sensitive << start_;
  }
  std::exception_ptr failure() const { return failure_; }

 private:
  void start_of_simulation() override { start_.notify(first_); }
  void check() {
    try {
      top::require_txn_conservation(fabric_);
    } catch (...) {
      failure_ = std::current_exception();
      sc_core::sc_stop();
      return;
    }
    next_trigger(interval_);
  }

  sc_core::sc_time interval_, first_;
  const top::TxnFabric& fabric_;
  sc_core::sc_event start_;
  std::exception_ptr failure_;
};

}  // namespace

void run_systemc(top::TxnFabric& fabric, const std::atomic<bool>* stop_flag, std::function<void(uint64_t)> on_cycle) {
  const sc_core::sc_time period = cycle_period(fabric.config().clock_ghz);
  SwitchModules sw(fabric.network(), period);
  TxnEndpointsModule eps("endpoints", period, fabric.endpoints(), /*synthetic=*/true, stop_flag, std::move(on_cycle));
  for (int p = 0; p < fabric.network().endpoint_ports(); ++p) eps.bind(p, fabric.uplink(p), fabric.downlink(p));
  std::unique_ptr<TxnChecker> checker;
  if (fabric.config().check_interval_cycles)
    checker = std::make_unique<TxnChecker>("checker", period, fabric.config().check_interval_cycles, fabric);
  sc_core::sc_start();
  if (sw.failure()) std::rethrow_exception(sw.failure());
  if (eps.failure()) std::rethrow_exception(eps.failure());
  if (checker && checker->failure()) std::rethrow_exception(checker->failure());
}

}  // namespace upswitch::sc
