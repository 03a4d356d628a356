// The measurement protocol of a synthetic transaction run (warm-up, measurement window, drain,
// flush; as for packets, doc/measurement.md), the progress watchdog, and the state a deadlock
// report shows.
#include <algorithm>

#include "endpoint/accelerators.h"

namespace upswitch::endpoint {

// Phase changes happen at the start of a cycle, before any work of that cycle.
void AcceleratorEndpoints::advance_phase(uint64_t t) {
  if (stop_requested_ && phase_ != Phase::kDone) {
    result_.interrupted = true;
    result_.end_cycle = t;
    if (phase_ == Phase::kMeasure) {  // close the partial window so its throughput stays meaningful
      result_.window_cycles = t - window_begin_;
      result_.backlog_bytes_end = backlog_total_;
      for (int p = 0; p < n_; ++p) result_.ports[p].backlog_bytes_end = nodes_[static_cast<size_t>(p)].backlog_bytes;
    }
    phase_ = Phase::kDone;
    return;
  }
  if (phase_ == Phase::kWarmup && t >= window_begin_) {
    result_.backlog_bytes_start = backlog_total_;
    phase_ = Phase::kMeasure;
  }
  if (phase_ == Phase::kMeasure)
    while (t >= saturation_.next_sample()) saturation_.sample(static_cast<double>(backlog_total_));
  if (phase_ == Phase::kMeasure && t >= window_end_) {
    result_.window_cycles = window_end_ - window_begin_;
    result_.backlog_bytes_end = backlog_total_;
    uint64_t offered = 0;
    for (int p = 0; p < n_; ++p) {
      result_.ports[p].backlog_bytes_end = nodes_[static_cast<size_t>(p)].backlog_bytes;
      offered += result_.ports[p].offered_bytes;
    }
    // Saturated: the initiators' unissued backlog grew over the window's sample windows (as for
    // packets, traffic/saturation.h; by more than a few transfers per port): the fabric did not
    // keep up.
    result_.saturation = saturation_.evidence();
    result_.saturated = traffic::SaturationDetector::saturated(result_.saturation, static_cast<double>(offered),
                                                               4.0 * n_ * wl_.mean_bytes(), "bytes",
                                                               &result_.saturation_reason);
    phase_ = result_.saturated ? Phase::kFlush : Phase::kDrain;
  }
  if (phase_ == Phase::kDrain) {
    if (measured_outstanding_ == 0) {
      phase_ = Phase::kFlush;
    } else if (t >= window_end_ + mp_.max_drain_cycles) {
      result_.saturated = true;
      result_.saturation_reason =
          std::to_string(measured_outstanding_) + " measured transfers still incomplete after the drain limit";
      phase_ = Phase::kFlush;
    }
  }
  if (phase_ == Phase::kFlush) {
    for (Port& port : ports_) port.next_arrival = UINT64_MAX;
    for (size_t p = 0; p < ports_.size(); ++p) refresh_port_due(static_cast<int>(p));
    if (defer_flush_end_ && mp_.flush) {
      if (flush_ready_at_ == UINT64_MAX && settled()) flush_ready_at_ = t;  // the driver ends it (finish_at)
    } else if (!mp_.flush || quiescent(t)) {
      result_.end_cycle = t;
      phase_ = Phase::kDone;
    }
  }
}

// Every transfer complete, no late response due, every received flit's slot returned. Once this
// holds in the flush nothing more is sent on an endpoint's link (no transfer is left to send, and
// every credit for a received flit was sent as it was freed), so it goes on holding.
bool AcceleratorEndpoints::settled() const {
  if (transfers_in_flight_ != 0 || timed_out_total_ != 0) return false;  // (late responses still due)
  for (const Port& port : ports_)
    if (!port.credit_out.empty() || port.rx_held != 0) return false;
  return true;
}

// After flush_ready_at nothing more is sent on an endpoint's link (settled()), so the links are
// empty from the newest due cycle on.
uint64_t AcceleratorEndpoints::links_last_due() const { return core::last_due_on(to_switch_, from_switch_); }

void AcceleratorEndpoints::finish_at(uint64_t t) {
  result_.end_cycle = t;
  phase_ = Phase::kDone;
}

// Nothing left anywhere at the endpoints or on their links once cycle t is over: every transfer
// complete and every credit on its way home has arrived (DelayLine::empty_after, so the answer
// does not depend on whether the switch ticks before or after the endpoints).
bool AcceleratorEndpoints::quiescent(uint64_t t) const {
  if (!settled()) return false;
  for (size_t p = 0; p < ports_.size(); ++p) {
    if (!to_switch_[p]->flits_empty_after(t) || !to_switch_[p]->credits().empty_after(t)) return false;
    if (!from_switch_[p]->flits_empty_after(t) || !from_switch_[p]->credits().empty_after(t)) return false;
  }
  return true;
}

// Transfers are in flight, yet no request has been executed or answered for watchdog_ cycles.
void AcceleratorEndpoints::check_progress(uint64_t t) {
  if (transfers_in_flight_ == 0) {
    parts_[0].last_progress = t;
    return;
  }
  const uint64_t last_progress = this->last_progress();
  if (t - last_progress <= watchdog_) return;
  throw core::DeadlockError("deadlock: " + std::to_string(transfers_in_flight_) +
                                " transfers in flight and no request executed or answered for " +
                                std::to_string(t - last_progress) + " cycles (cycle " + std::to_string(t) + ")",
                            dump_state(t));
}

std::string AcceleratorEndpoints::dump_state(uint64_t t) const {
  std::string s = "endpoints at cycle " + std::to_string(t) + " (endpoints with work, first 16):\n";
  int shown = 0;
  for (int e = 0; e < n_ && shown < 16; ++e) {
    const Node& node = nodes_[static_cast<size_t>(e)];
    const int p0 = node.first_port, p1 = node.first_port + node.nports;
    bool busy = !node.transfers.empty() || !node.admit.empty() || node.completer_busy > 0 ||
                node.free_tags.size() != node.tag_msg.size();
    uint64_t held = 0;
    for (int p = p0; p < p1; ++p) {
      held += ports_[p].rx_held;
      for (const TxLane& l : ports_[p].tx) busy = busy || !l.queue.empty() || l.bundle != tl::kNoMessage;
    }
    if (!busy) continue;
    ++shown;
    s += "  endpoint " + std::to_string(e) + ": transfers waiting " + std::to_string(node.transfers.size()) +
         ", tags in use " + std::to_string(node.tag_msg.size() - node.free_tags.size()) +
         ", packets waiting for the completer " + std::to_string(node.admit.size()) + ", completer busy " +
         std::to_string(node.completer_busy) + ", rx slots held " + std::to_string(held) + "\n";
    for (int p = p0; p < p1; ++p) {
      const Port& port = ports_[p];
      const std::string where = node.nports > 1 ? "    port " + std::to_string(p - p0) + " tx lane " : "    tx lane ";
      for (int l = 0; l < 2 * v_; ++l) {
        const TxLane& L = port.tx[static_cast<size_t>(l)];
        if (L.queue.empty() && L.bundle == tl::kNoMessage) continue;
        s += where + std::to_string(l) + (l < v_ ? " (request)" : " (response)") + ": " +
             std::to_string(L.queue.size()) + " messages queued";
        if (L.bundle != tl::kNoMessage)
          s += ", packet " + std::to_string(L.sent) + "/" + std::to_string(bundle(L.bundle).flits) + " flits sent";
        s += ", credits " + std::to_string(port.credits.reserved(l)) + " + shared " +
             std::to_string(port.credits.shared_for(l)) + "\n";
      }
    }
  }
  return s;
}

}  // namespace upswitch::endpoint
