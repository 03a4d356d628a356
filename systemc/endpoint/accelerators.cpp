// AcceleratorEndpoints: construction and the per-cycle sequence (doc/transactions.md).
#include "endpoint/accelerators.h"

#include <algorithm>
#include <cmath>

namespace upswitch::endpoint {

AcceleratorEndpoints::AcceleratorEndpoints(const AccelParams& ap, const LaneLayout& lanes, int ports, int units,
                                           std::vector<int> route, const TxnWorkload* workload,
                                           const traffic::TrafficParams& pattern, const traffic::MeasureParams& measure,
                                           double link_bytes_per_cycle, uint64_t watchdog_cycles)
    : ap_(ap),
      n_(ports + units),
      v_(lanes.vcs),
      nacc_(ports),
      route_(std::move(route)),
      synthetic_(workload != nullptr),
      wl_(workload ? *workload : TxnWorkload{}),
      dests_(pattern, ports, measure.seed),
      mp_(measure),
      watchdog_(watchdog_cycles),
      ports_(ports + units),
      to_switch_(ports + units, nullptr),
      from_switch_(ports + units, nullptr),
      phase_(workload ? Phase::kWarmup : Phase::kExternal) {
  map_.base = ap.window_base;
  map_.window = ap.window_bytes;
  map_.memory = ap.memory_bytes;
  map_.endpoints = ports;
  map_.groups = ap.reduce.groups;
  groups_.assign(static_cast<size_t>(std::max(0, ap.reduce.groups)), {});
  units_.resize(static_cast<size_t>(units));
  for (EngineUnit& u : units_) {
    u.ctx.resize(static_cast<size_t>(ap.reduce.contexts));
    for (int c = ap.reduce.contexts - 1; c >= 0; --c) u.free_ctx.push_back(static_cast<uint16_t>(c));
  }
  window_begin_ = synthetic_ ? measure.warmup_cycles : 0;
  window_end_ = synthetic_ ? measure.warmup_cycles + measure.measure_cycles : UINT64_MAX;
  if (synthetic_) saturation_ = traffic::SaturationDetector(window_begin_, window_end_, measure.saturation_windows);
  if (synthetic_ && wl_.mean_bytes() > 0) {
    arrival_prob_ = std::min(1.0, wl_.load * link_bytes_per_cycle / wl_.mean_bytes());
    log_q_ = traffic::Rng::log_q(arrival_prob_);
  }
  lane_capacity_[0] = lanes.reserved + lanes.shared / 2 + lanes.shared % 2;
  lane_capacity_[1] = lanes.reserved + lanes.shared / 2;
  rx_lane_flits_ = lanes.rx_lane_flits;
  faults_on_ = ap.completion_timeout_cycles > 0;  // (connect_rejects() turns it on too)
  for (int cls = 0; cls < 2; ++cls) {
    // A packet's messages must fit the command credits of one lane at the switch input (reserved
    // + its class's shared pool) and, for requests, the receiver's reserved ones (held there).
    const int switch_side = lanes.cmd_reserved + lanes.cmd_shared / 2 + (cls == 0 ? lanes.cmd_shared % 2 : 0);
    const int rx_side = lanes.rx_cmd_lane + (cls == 0 ? 0 : lanes.rx_cmd_shared / 2);
    const int m = std::min({ap.max_messages_per_packet, tl::kMaxMessagesPerPacket, switch_side, rx_side});
    max_packet_msgs_[cls] = std::max(1, m);
  }
  for (int p = 0; p < n_; ++p) {
    Port& port = ports_[p];
    port.rng = traffic::Rng(measure.seed, static_cast<uint64_t>(p) + 1);
    port.free_tags.reserve(static_cast<size_t>(ap.max_outstanding));
    for (int tag = ap.max_outstanding - 1; tag >= 0; --tag) port.free_tags.push_back(static_cast<uint16_t>(tag));
    port.tag_msg.assign(static_cast<size_t>(ap.max_outstanding), tl::kNoMessage);
    port.tag_flags.assign(static_cast<size_t>(ap.max_outstanding), 0);
    port.timer.reset(ap.max_outstanding);
    port.cache = tl::AddressCache(ap.compression ? ap.address_cache_entries : 0);
    port.credits.reset(2 * v_, static_cast<uint32_t>(lanes.reserved), static_cast<uint32_t>(lanes.shared), 2);
    port.cmd.reset(2 * v_, static_cast<uint32_t>(lanes.cmd_reserved), static_cast<uint32_t>(lanes.cmd_shared), 2);
    port.tx.resize(static_cast<size_t>(2 * v_));
    port.rx_packet.assign(static_cast<size_t>(2 * v_), UINT64_MAX);
    if (synthetic_ && arrival_prob_ > 0 && p < nacc_ && dests_.sends(p)) port.next_arrival = 0;
  }
  result_.ports.resize(static_cast<size_t>(n_));
  if (synthetic_ && window_begin_ == 0) advance_phase(0);
}

void AcceleratorEndpoints::connect(int port, core::Link* to_switch, core::Link* from_switch) {
  to_switch_[port] = to_switch;
  from_switch_[port] = from_switch;
}

void AcceleratorEndpoints::submit(int p, const TransferRequest& r, uint64_t t) {
  uint32_t h;
  if (free_transfers_.empty()) {
    transfers_.emplace_back();
    h = static_cast<uint32_t>(transfers_.size() - 1);
  } else {
    h = free_transfers_.back();
    free_transfers_.pop_back();
    transfers_[h] = Transfer{};
  }
  if (transfers_in_flight_ == 0) last_progress_ = t;  // the watchdog counts from the first one
  Transfer& tr = transfers_[h];
  tr.req = r;
  tr.created = t;
  tr.port = p;
  tr.measured = phase_ == Phase::kExternal || in_window(t);
  ports_[p].transfers.push(h);
  ports_[p].backlog_bytes += r.bytes;
  backlog_total_ += r.bytes;
  ++transfers_in_flight_;
  ++result_.transfers_created;
  if (tr.measured) {
    ++result_.measured_transfers;
    ++measured_outstanding_;
    if (in_window(t)) result_.ports[p].offered_bytes += r.bytes;
  }
}

void AcceleratorEndpoints::tick(uint64_t t) {
  if (phase_ != Phase::kExternal) {
    advance_phase(t);
    if (phase_ == Phase::kDone) return;
  }
  if (watchdog_) check_progress(t);
  for (int p = 0; p < n_; ++p) {
    Port& port = ports_[p];
    core::Credit c;
    if (!to_switch_[p]->credits().empty() && to_switch_[p]->receive_credit(t, c)) {
      port.credits.give(c.vc, c.shared);
      if (c.cmds) port.cmd.give_n(c.vc, static_cast<uint32_t>(c.cmds - c.cmd_shared), c.cmd_shared);
    }
    core::Flit f;
    if (!from_switch_[p]->flits_empty() && from_switch_[p]->receive_flit(t, f)) receive(p, f, t);
    if (faults_on_) faults_tick(p, t);
    if (!port.admit.empty()) admit(p, t);
    while (!port.pipeline.empty() && port.pipeline.front().first <= t) {
      const uint32_t h = port.pipeline.pop().second;
      --port.completer_busy;
      enqueue(p, lane_of(1, msgs_[h].vc), h);
    }
    if (port.next_arrival == t) generate(p, t);
    if (!port.transfers.empty()) issue(p, t);
    transmit(p, t);
    if (!port.credit_out.empty()) {
      from_switch_[p]->send_credit(t, port.credit_out.pop());
      --port.rx_held;
    }
  }
}

// Whether anything at the endpoints still has work for the next cycle.
uint64_t AcceleratorEndpoints::next_activity(uint64_t t) const {
  if (phase_ == Phase::kDone) return UINT64_MAX;
  if (stop_requested_ || phase_ == Phase::kDrain || phase_ == Phase::kFlush) return t + 1;
  uint64_t next = UINT64_MAX;
  for (int p = 0; p < n_ && next > t + 1; ++p) {
    const Port& port = ports_[p];
    if (!port.transfers.empty() || !port.credit_out.empty() || !port.admit.empty() || port.tx_work) return t + 1;
    if (!port.pipeline.empty()) next = std::min(next, port.pipeline.front().first);
    next = std::min(next, port.next_arrival);
    next = std::min(next, to_switch_[p]->credits().next_due());
    next = std::min(next, from_switch_[p]->next_flit_due());
    if (faults_on_) next = std::min(next, faults_next(p));
  }
  if (phase_ == Phase::kWarmup) next = std::min(next, window_begin_);
  if (phase_ == Phase::kMeasure) next = std::min({next, window_end_, saturation_.next_sample()});
  return std::max(next, t + 1);
}

uint64_t AcceleratorEndpoints::tags_in_use() const {
  uint64_t n = 0;
  for (const Port& port : ports_) n += static_cast<uint64_t>(ap_.max_outstanding) - port.free_tags.size();
  return n - timed_out_total_;  // timed-out requests are answered (their tags wait for a late response)
}

uint64_t AcceleratorEndpoints::flits_waiting() const {
  uint64_t w = 0;
  for (const Port& port : ports_)
    for (const TxLane& l : port.tx)
      if (l.bundle != tl::kNoMessage) w += static_cast<uint64_t>(bundles_[l.bundle].flits - l.sent);
  return w;
}

}  // namespace upswitch::endpoint
