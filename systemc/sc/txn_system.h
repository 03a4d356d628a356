// Elaboration of a transaction fabric for a user's sc_main: a SwitchModule per switch, the
// TxnEndpointsModule (external transfers) and the AcceleratorSockets around a TxnFabric built with
// synthetic = false. Construct it in sc_main, bind initiators to socket(e), then sc_start():
//
//   top::TxnFabric fabric(cfg, /*synthetic=*/false);
//   sc::TxnSystem sys("upswitch", fabric);
//   my_gpu.socket.bind(sys.socket(0));
//   sc_core::sc_start();  // returns when every process has finished and the fabric is idle
//   sys.rethrow_failure();
//
// The kernel can be started only once per process, and one TxnSystem per kernel.
#pragma once

#include <atomic>
#include <exception>

#include <systemc>

#include "sc/accelerator_sockets.h"
#include "sc/switch_module.h"
#include "sc/txn_endpoints_module.h"
#include "top/txn_fabric.h"

namespace upswitch::sc {

// The period of one core cycle at `clock_ghz`, a whole number of femtoseconds so that cycle k is
// exactly k * period. Sets the kernel's time resolution to 1 fs when it can still be set (before
// any non-zero sc_time exists); otherwise the period is rounded to the resolution already fixed
// (throws std::invalid_argument when that leaves less than one unit).
sc_core::sc_time cycle_period(double clock_ghz);

class TxnSystem : public sc_core::sc_module {
 public:
  // `stop_flag` (optional) ends the run when set, as the Ctrl-C handler of the CLI does.
  TxnSystem(const sc_core::sc_module_name& name, top::TxnFabric& fabric, const std::atomic<bool>* stop_flag = nullptr);

  AcceleratorSockets::Socket& socket(int endpoint) { return sockets_.socket(endpoint); }
  AcceleratorSockets& sockets() { return sockets_; }
  TxnEndpointsModule& endpoints_module() { return eps_; }
  top::TxnFabric& fabric() { return fabric_; }
  sc_core::sc_time period() const { return period_; }
  // The cycle a time stamp falls in (the endpoints' clock).
  uint64_t cycle_of(const sc_core::sc_time& t) const { return t.value() / period_.value(); }

  // After sc_start() returns: rethrows an exception raised inside a cycle (an integrity error, a
  // deadlock report), if any.
  void rethrow_failure() const;

 private:
  top::TxnFabric& fabric_;
  sc_core::sc_time period_;
  SwitchModules sw_;
  TxnEndpointsModule eps_;
  AcceleratorSockets sockets_;
};

}  // namespace upswitch::sc
