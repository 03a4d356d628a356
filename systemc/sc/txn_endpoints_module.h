// SystemC wrapper of all accelerator endpoints: one SC_METHOD around
// endpoint::AcceleratorEndpoints, as EndpointsModule wraps the packet endpoints. Synthetic runs
// stop the simulation when the measurement protocol is done. With external transfers (TLM
// sockets, tests) the run never ends by itself: the method sleeps whenever the endpoints are idle,
// so sc_start() returns once the user's own processes have nothing left to do.
//
// Transfers from SystemC processes go through submit(), which holds each one until its entry
// cycle and wakes the method for it; the endpoints therefore only ever see a transfer at the
// cycle they tick it, whatever the process order within a time step.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include "endpoint/accelerators.h"
#include "sc/cycle_process.h"

namespace upswitch::sc {

class TxnEndpointsModule : public CycleProcess {
 public:
  TxnEndpointsModule(const sc_core::sc_module_name& name, sc_core::sc_time period, endpoint::AcceleratorEndpoints& eps,
                     bool synthetic, const std::atomic<bool>* stop_flag = nullptr,
                     std::function<void(uint64_t)> on_cycle = {});
  void bind(int port, core::Link& to_switch, core::Link& from_switch);

  // Queues transfer `r` at initiator `port`, to enter it at cycle `cycle` (a cycle not ticked
  // yet; an earlier one is moved to the next unticked cycle). Returns the entry cycle.
  uint64_t submit(int port, const endpoint::TransferRequest& r, uint64_t cycle);
  // The first cycle a transfer submitted now can enter: after the current cycle, whose tick may
  // already have run in this time step.
  uint64_t earliest_entry() const { return current_cycle() + 1; }

  endpoint::AcceleratorEndpoints& endpoints() { return eps_; }

 protected:
  uint64_t run_cycle(uint64_t t) override;

 private:
  struct Pending {
    uint64_t cycle = 0, seq = 0;
    int port = 0;
    endpoint::TransferRequest req;
  };
  // Min-heap order on (cycle, seq): equal cycles enter in submission order.
  static bool later(const Pending& a, const Pending& b) {
    return a.cycle != b.cycle ? a.cycle > b.cycle : a.seq > b.seq;
  }

  endpoint::AcceleratorEndpoints& eps_;
  bool synthetic_;
  const std::atomic<bool>* stop_;
  std::function<void(uint64_t)> on_cycle_;
  std::vector<Pending> pending_;  // a heap; keeps its capacity, so no allocation after warm-up
  uint64_t seq_ = 0;
  uint64_t next_unticked_ = 0;
};

}  // namespace upswitch::sc
