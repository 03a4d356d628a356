#include "sc/txn_endpoints_module.h"

#include <algorithm>

namespace upswitch::sc {

TxnEndpointsModule::TxnEndpointsModule(const sc_core::sc_module_name& name, sc_core::sc_time period,
                                       endpoint::AcceleratorEndpoints& eps, bool synthetic,
                                       const std::atomic<bool>* stop_flag, std::function<void(uint64_t)> on_cycle)
    : CycleProcess(name, period), eps_(eps), synthetic_(synthetic), stop_(stop_flag), on_cycle_(std::move(on_cycle)) {}

void TxnEndpointsModule::bind(int port, core::Link& to_switch, core::Link& from_switch) {
  eps_.connect(port, &to_switch, &from_switch);
  to_switch.set_credit_listener(this);
  from_switch.set_flit_listener(this);
  if (core::RejectLine* r = eps_.reject_line(port)) r->set_listener(this);  // the switch's error answers
}

uint64_t TxnEndpointsModule::submit(int port, const endpoint::TransferRequest& r, uint64_t cycle) {
  cycle = std::max({cycle, next_unticked_, current_cycle()});
  pending_.push_back(Pending{cycle, seq_++, port, r});
  std::push_heap(pending_.begin(), pending_.end(), later);
  wake_at(cycle);
  return cycle;
}

uint64_t TxnEndpointsModule::run_cycle(uint64_t t) {
  next_unticked_ = t + 1;
  if (stop_ && stop_->load(std::memory_order_relaxed)) {
    if (!synthetic_) {  // nothing to drain into a report: just end the run
      sc_core::sc_stop();
      return UINT64_MAX;
    }
    eps_.request_stop();
  }
  while (!pending_.empty() && pending_.front().cycle <= t) {
    std::pop_heap(pending_.begin(), pending_.end(), later);
    eps_.submit(pending_.back().port, pending_.back().req, t);
    pending_.pop_back();
  }
  eps_.tick(t);
  if (eps_.done()) {
    sc_core::sc_stop();
    return UINT64_MAX;
  }
  if (on_cycle_) on_cycle_(t);
  uint64_t next = eps_.next_activity(t);
  if (!pending_.empty()) next = std::min(next, pending_.front().cycle);
  // Wake up now and then while busy, so a stop request is seen promptly; an idle external run
  // still sleeps, so that sc_start() can return.
  if (stop_ && next > t + 65536 && (synthetic_ || next != UINT64_MAX)) next = t + 65536;
  return next;
}

}  // namespace upswitch::sc
