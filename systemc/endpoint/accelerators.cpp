// AcceleratorEndpoints: construction and the per-cycle sequence (doc/transactions.md).
#include "endpoint/accelerators.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace upswitch::endpoint {

AcceleratorEndpoints::AcceleratorEndpoints(const AccelParams& ap, const LaneLayout& lanes, const AccelPorts& layout,
                                           const TxnWorkload* workload, const traffic::TrafficParams& pattern,
                                           const traffic::MeasureParams& measure, double link_bytes_per_cycle,
                                           uint64_t watchdog_cycles)
    : ap_(ap),
      n_(layout.owner.empty() ? 0 : layout.owner.back() + 1),
      v_(lanes.vcs),
      nacc_(layout.accelerators),
      select_(ap.strict_order ? traffic::PortSelect::kHash : layout.select),
      interleave_bytes_(std::max(1, layout.interleave_bytes)),
      inject_vcs_(layout.inject_vcs > 0 ? layout.inject_vcs : lanes.vcs),
      engine_unit_(layout.engine_unit),
      engine_units_(layout.engine_units),
      engine_slot_(layout.engine_slot),
      tree_(layout.engine_tree),
      synthetic_(workload != nullptr),
      wl_(workload ? *workload : TxnWorkload{}),
      dests_(pattern, layout.accelerators, measure.seed),
      mp_(measure),
      watchdog_(watchdog_cycles),
      ports_(layout.owner.size()),
      nodes_(static_cast<size_t>(n_)),
      to_switch_(layout.owner.size(), nullptr),
      from_switch_(layout.owner.size(), nullptr),
      credit_due_(layout.owner.size(), UINT64_MAX),
      flit_due_(layout.owner.size(), UINT64_MAX),
      port_due_(layout.owner.size(), UINT64_MAX),
      node_due_(static_cast<size_t>(n_), UINT64_MAX),
      node_wake_(static_cast<size_t>(n_), 0),
      phase_(workload ? Phase::kWarmup : Phase::kExternal) {
  parts_.resize(1);
  part_of_.assign(static_cast<size_t>(n_), 0);
  make_blocks();
  map_.base = ap.window_base;
  map_.window = ap.window_bytes;
  map_.memory = ap.memory_bytes;
  map_.endpoints = nacc_;
  map_.groups = ap.reduce.groups;
  groups_.assign(static_cast<size_t>(std::max(0, ap.reduce.groups)), {});
  units_.resize(static_cast<size_t>(n_ - nacc_));
  for (size_t k = 0; k < units_.size(); ++k) {
    EngineUnit& u = units_[k];
    const int own = k < layout.unit_contexts.size() ? layout.unit_contexts[k] : 0;
    const int contexts = own > 0 ? own : ap.reduce.contexts;
    u.ctx.resize(static_cast<size_t>(contexts));
    for (int c = contexts - 1; c >= 0; --c) u.free_ctx.push_back(static_cast<uint16_t>(c));
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
  for (size_t p = 0; p < ports_.size(); ++p) {
    Port& port = ports_[p];
    const int e = layout.owner[p];
    if (e < 0 || e >= n_ || (p > 0 && e != layout.owner[p - 1] && e != layout.owner[p - 1] + 1))
      throw std::logic_error("AcceleratorEndpoints: ports must be grouped by endpoint, endpoints numbered in order");
    port.owner = e;
    Node& node = nodes_[static_cast<size_t>(e)];
    if (p == 0 || e != layout.owner[p - 1]) {
      node.first_port = static_cast<int>(p);
      node.nports = 0;
    }
    ++node.nports;
    port.rng = traffic::Rng(measure.seed, p + 1);
    port.cache = tl::AddressCache(ap.compression ? ap.address_cache_entries : 0);
    port.credits.reset(2 * v_, static_cast<uint32_t>(lanes.reserved), static_cast<uint32_t>(lanes.shared), 2);
    port.cmd.reset(2 * v_, static_cast<uint32_t>(lanes.cmd_reserved), static_cast<uint32_t>(lanes.cmd_shared), 2);
    port.tx.resize(static_cast<size_t>(2 * v_));
    port.rx_packet.assign(static_cast<size_t>(2 * v_), tl::kNoMessage);
    if (synthetic_ && arrival_prob_ > 0 && e < nacc_ && dests_.sends(e)) port.next_arrival = 0;
    refresh_port_due(static_cast<int>(p));
  }
  // One page store for every endpoint's memory: pages freed by one are reused by another, and
  // pages with the same bytes (every rank's copy of a collective's result) are kept once.
  const auto store = std::make_shared<tl::PageStore>();
  for (int e = 0; e < n_; ++e) {
    Node& node = nodes_[static_cast<size_t>(e)];
    node.memory = tl::SparseMemory(store);
    if (e >= nacc_ && node.nports != 1) throw std::logic_error("AcceleratorEndpoints: an engine unit has one port");
    const int tags = ap.max_outstanding * node.nports;
    if (tags > UINT16_MAX + 1)
      throw std::logic_error("AcceleratorEndpoints: accel.max_outstanding x ports exceeds the 16-bit tag space");
    node.free_tags.reserve(static_cast<size_t>(tags));
    for (int tag = tags - 1; tag >= 0; --tag) node.free_tags.push_back(static_cast<uint16_t>(tag));
    node.tag_msg.assign(static_cast<size_t>(tags), tl::kNoMessage);
    node.tag_flags.assign(static_cast<size_t>(tags), 0);
    node.timer.reset(tags);
    node.completer_room = ap.completer_queue * node.nports;
  }
  if (!engine_unit_.empty() &&
      (engine_unit_.size() != ports_.size() || engine_units_.size() != ports_.size() || engine_slot_.size() != ports_.size()))
    throw std::logic_error("AcceleratorEndpoints: AccelPorts::engine_unit, engine_units and engine_slot need one entry per port");
  for (size_t q = 0; q < engine_unit_.size(); ++q)
    if (engine_unit_[q] != -1 && (engine_units_[q] < 1 || engine_unit_[q] < nacc_ || engine_unit_[q] + engine_units_[q] > n_))
      throw std::logic_error("AcceleratorEndpoints: engine_unit names no engine unit");
  result_.ports.resize(static_cast<size_t>(n_));
  result_.port_window_flits.assign(ports_.size(), 0);
  if (synthetic_ && window_begin_ == 0) advance_phase(0);
}

void AcceleratorEndpoints::connect(int port, core::Link* to_switch, core::Link* from_switch) {
  to_switch_[port] = to_switch;
  from_switch_[port] = from_switch;
  register_slots(port);
}

void AcceleratorEndpoints::register_slots(int port) {
  const auto e = static_cast<size_t>(ports_[static_cast<size_t>(port)].owner);
  uint64_t* wake = &node_wake_[e];
  uint64_t* block = &block_wake_[block_of_[e]];
  to_switch_[port]->set_credit_due_slot(&credit_due_[static_cast<size_t>(port)], wake, block);
  from_switch_[port]->set_flit_due_slot(&flit_due_[static_cast<size_t>(port)], wake, block);
}

// Runs of at most kWakeBlock endpoints, each within one part and on one side of the accelerators'
// end, each listed with its part; every block is looked at on the next tick.
void AcceleratorEndpoints::make_blocks() {
  blocks_.clear();
  block_of_.assign(static_cast<size_t>(n_), 0);
  for (Part& part : parts_) part.blocks.clear();
  for (int e = 0; e < n_; ++e) {
    const bool split = blocks_.empty() || e - blocks_.back().first == kWakeBlock || e == nacc_ ||
                       part_of(e) != part_of(blocks_.back().first);
    if (split) {
      blocks_.push_back({e, e});
      parts_[static_cast<size_t>(part_of(e))].blocks.push_back(static_cast<uint32_t>(blocks_.size() - 1));
    }
    ++blocks_.back().end;
    block_of_[static_cast<size_t>(e)] = static_cast<uint32_t>(blocks_.size() - 1);
  }
  block_wake_.assign(blocks_.size(), 0);
}

bool AcceleratorEndpoints::set_parts(const std::vector<int>& part_of_endpoint) {
  if (part_of_endpoint.size() != static_cast<size_t>(n_))
    throw std::logic_error("AcceleratorEndpoints::set_parts: one part per endpoint expected");
  int parts = 1;
  for (int e = 0; e < n_; ++e) {
    const int g = part_of_endpoint[static_cast<size_t>(e)];
    if (g < 0 || g >= PartMessages::kMaxParts || (e < nacc_ && g != 0))
      throw std::logic_error("AcceleratorEndpoints::set_parts: accelerators are part 0's, units 0 .. 63");
    parts = std::max(parts, g + 1);
  }
  bool same = parts <= this->parts();
  for (int e = 0; e < n_ && same; ++e) same = part_of_endpoint[static_cast<size_t>(e)] == part_of(e);
  if (same) return true;
  if (faults_on_) return false;
  if (parts < this->parts() || member_requests_in_flight() != 0)
    throw std::logic_error("AcceleratorEndpoints::set_parts: parts change only by adding, between collectives");
  parts_.resize(static_cast<size_t>(parts));
  msgs_.set_parts(parts);
  for (int e = 0; e < n_; ++e) part_of_[static_cast<size_t>(e)] = static_cast<uint8_t>(part_of_endpoint[static_cast<size_t>(e)]);
  make_blocks();
  for (size_t p = 0; p < ports_.size(); ++p)
    if (to_switch_[p]) register_slots(static_cast<int>(p));
  return true;
}

void AcceleratorEndpoints::fold_counts() {
  for (Part& part : parts_) {
    Counts& c = part.counts;
    result_.flits_sent += c.flits_sent;
    result_.flits_received += c.flits_received;
    for (size_t k = 0; k < 2; ++k) {
      result_.window_flits[k] += c.window_flits[k];
      result_.window_messages[k] += c.window_messages[k];
      result_.window_packets[k] += c.window_packets[k];
      result_.window_payload[k] += c.window_payload[k];
    }
    ReduceResult& r = result_.reduce;
    r.stores += c.reduce.stores;
    r.load_reduces += c.reduce.load_reduces;
    r.reduces += c.reduce.reduces;
    r.rejected += c.reduce.rejected;
    r.member_requests += c.reduce.member_requests;
    r.tree_requests += c.reduce.tree_requests;
    r.context_cycles += c.reduce.context_cycles;
    r.alu_busy_cycles += c.reduce.alu_busy_cycles;
    r.peak_contexts = std::max(r.peak_contexts, c.reduce.peak_contexts);
    c = Counts{};
  }
}

uint64_t AcceleratorEndpoints::last_progress() const {
  uint64_t l = 0;
  for (const Part& part : parts_) l = std::max(l, part.last_progress);
  return l;
}

void AcceleratorEndpoints::gather_parts(uint64_t last) {
  fold_counts();
  if (watchdog_) check_progress(last);
}

uint64_t AcceleratorEndpoints::node_next(int e) const {
  const Node& node = nodes_[static_cast<size_t>(e)];
  uint64_t next = node_due_[static_cast<size_t>(e)];
  for (int p = node.first_port; p < node.first_port + node.nports; ++p) {
    const auto pi = static_cast<size_t>(p);
    const uint64_t in = flit_due_[pi];
    next = std::min({next, port_due_[pi], credit_due_[pi], in != 0 ? in : from_switch_[pi]->next_flit_due()});
  }
  return next;
}

void AcceleratorEndpoints::submit(int p, const TransferRequest& r, uint64_t t) {  // p: the endpoint
  uint32_t h;
  if (free_transfers_.empty()) {
    transfers_.emplace_back();
    h = static_cast<uint32_t>(transfers_.size() - 1);
  } else {
    h = free_transfers_.back();
    free_transfers_.pop_back();
    transfers_[h] = Transfer{};
  }
  if (transfers_in_flight_ == 0) parts_[0].last_progress = t;  // the watchdog counts from the first one
  Transfer& tr = transfers_[h];
  tr.req = r;
  tr.created = t;
  tr.port = p;
  tr.measured = phase_ == Phase::kExternal || in_window(t);
  Node& node = nodes_[static_cast<size_t>(p)];
  if (r.urgent)
    node.transfers.insert(node.urgent++, h);
  else
    node.transfers.push(h);
  node_has_work(p);
  node.backlog_bytes += r.bytes;
  backlog_total_ += r.bytes;
  ++transfers_in_flight_;
  ++result_.transfers_created;
  if (tr.measured) {
    ++result_.measured_transfers;
    ++measured_outstanding_;
    if (in_window(t)) result_.ports[p].offered_bytes += r.bytes;
  }
}

// Per endpoint, in id order: its ports take their credit and flit from the switch; then the
// faults, the completer, the initiator; then its ports transmit and return credits. (One port
// per endpoint: the port-by-port sequence of a single switch.) Endpoints meet only through links,
// so the order in which endpoints, or parts, are ticked within a cycle changes nothing.
void AcceleratorEndpoints::tick(uint64_t t) {
  if (phase_ != Phase::kExternal) {
    advance_phase(t);
    if (phase_ == Phase::kDone) return;
  }
  if (watchdog_) check_progress(t);
  if (t >= next_outage_) take_out_ports(t);  // faults.switch_down
  for (size_t b = 0; b < blocks_.size(); ++b) tick_block(b, t);
  fold_counts();
}

// Part g's share of tick(t), on its thread: part 0 runs the phase machine and records when
// nothing is in flight (the watchdog itself runs between windows, gather_parts).
void AcceleratorEndpoints::tick_part(int g, uint64_t t) {
  Part& part = parts_[static_cast<size_t>(g)];
  if (g == 0) {
    if (phase_ != Phase::kExternal) {
      advance_phase(t);
      if (phase_ == Phase::kDone) return;
    }
    if (transfers_in_flight_ == 0) part.last_progress = t;
    if (t >= next_outage_) take_out_ports(t);
  }
  for (uint32_t b : part.blocks) tick_block(b, t);
}

// A block of endpoints, and an endpoint, with nothing due this cycle are skipped: every step
// below would do nothing. The block's wake cycle is set again from its endpoints' as they are
// passed (what they do meanwhile may lower it further).
void AcceleratorEndpoints::tick_block(size_t b, uint64_t t) {
  if (!faults_on_ && block_wake_[b] > t) return;
  block_wake_[b] = UINT64_MAX;
  core::Credit c;  // outside the loops: most ports receive nothing
  core::Flit f;
  for (int e = blocks_[b].first; e < blocks_[b].end; ++e) {
    if (!faults_on_ && node_wake_[static_cast<size_t>(e)] > t) {
      block_wake_[b] = std::min(block_wake_[b], node_wake_[static_cast<size_t>(e)]);
      continue;
    }
    Node& node = nodes_[static_cast<size_t>(e)];
    const int p0 = node.first_port, p1 = node.first_port + node.nports;
    for (int p = p0; p < p1; ++p) {
      Port& port = ports_[p];
      const auto pi = static_cast<size_t>(p);
      if (credit_due_[pi] <= t) {
        while (!to_switch_[pi]->credits().empty() && to_switch_[pi]->receive_credit(t, c)) {
          port.credits.give(c.vc, c.shared);
          if (c.cmds) port.cmd.give_n(c.vc, static_cast<uint32_t>(c.cmds - c.cmd_shared), c.cmd_shared);
        }
        to_switch_[pi]->refresh_credit_due();
      }
      if (flit_due_[pi] <= t) {
        const bool got = !from_switch_[pi]->flits_empty() && from_switch_[pi]->receive_flit(t, f);
        from_switch_[pi]->refresh_flit_due();
        if (got) {
          receive(p, f, t);
          // The next packet's bundle was last written by its sender: ask for it before it is due.
          const core::Flit* next = from_switch_[pi]->next_flit();
          if (next && next->head() && is_bundle(next->payload)) __builtin_prefetch(&bundle(next->payload));
        }
      }
    }
    if (faults_on_) faults_tick(e, t);
    if (!node.admit.empty()) admit(e, t);
    while (!node.pipeline.empty() && node.pipeline.front().at <= t) {
      const Ready r = node.pipeline.pop();
      --node.completer_busy;
      enqueue(p0 + r.port, lane_of(1, r.q.vc), r.q);
    }
    for (int p = p0; p < p1; ++p)
      if (ports_[p].next_arrival == t) generate(p, t);
    if (!node.transfers.empty()) issue(e, t);
    for (int p = p0; p < p1; ++p) {
      Port& port = ports_[p];
      transmit(p, t);
      if (!port.credit_out.empty()) {
        from_switch_[p]->send_credit(t, port.credit_out.pop());
        --port.rx_held;
      }
      set_port_due(p);
    }
    uint64_t wake = set_node_due(e);
    for (int p = p0; p < p1; ++p) {
      const auto pi = static_cast<size_t>(p);
      wake = std::min({wake, port_due_[pi], credit_due_[pi], flit_due_[pi]});
    }
    node_wake_[static_cast<size_t>(e)] = wake;
    block_wake_[b] = std::min(block_wake_[b], wake);
  }
}

// The first cycle after t block b has anything due, or t + 1 if it may have something at t + 1.
// A block's wake cycle, when later than t, is its endpoints' earliest; an endpoint's, when later
// than t, is its first work or item due (it was that when tick() set it, and only what became due
// since has lowered it).
uint64_t AcceleratorEndpoints::block_next(size_t b, uint64_t t) const {
  const uint64_t bw = block_wake_[b];
  if (bw > t) return bw;
  uint64_t next = UINT64_MAX;
  for (int e = blocks_[b].first; e < blocks_[b].end && next > t + 1; ++e) {
    const uint64_t w = node_wake_[static_cast<size_t>(e)];
    next = std::min(next, w > t ? w : node_next(e));
  }
  return next;
}

// Whether anything at the endpoints still has work for the next cycle.
uint64_t AcceleratorEndpoints::next_activity(uint64_t t) const {
  if (phase_ == Phase::kDone) return UINT64_MAX;
  if (stop_requested_ || phase_ == Phase::kDrain || phase_ == Phase::kFlush) return t + 1;
  const uint64_t soon = t + 1;
  uint64_t next = UINT64_MAX;
  for (size_t b = 0; b < blocks_.size() && next > soon; ++b) next = std::min(next, block_next(b, t));
  if (faults_on_)
    for (int e = 0; e < n_; ++e) next = std::min(next, faults_next(e));
  if (phase_ == Phase::kWarmup) next = std::min(next, window_begin_);
  if (phase_ == Phase::kMeasure) next = std::min({next, window_end_, saturation_.next_sample()});
  return std::max(next, t + 1);
}

uint64_t AcceleratorEndpoints::next_activity_part(int g, uint64_t t) const {
  if (g == 0) {
    if (phase_ == Phase::kDone) return UINT64_MAX;
    if (stop_requested_ || phase_ == Phase::kDrain || phase_ == Phase::kFlush) return t + 1;
  }
  uint64_t next = UINT64_MAX;
  for (uint32_t b : parts_[static_cast<size_t>(g)].blocks) {
    next = std::min(next, block_next(b, t));
    if (next <= t + 1) break;
  }
  if (g == 0 && phase_ == Phase::kWarmup) next = std::min(next, window_begin_);
  if (g == 0 && phase_ == Phase::kMeasure) next = std::min({next, window_end_, saturation_.next_sample()});
  return std::max(next, t + 1);
}

uint64_t AcceleratorEndpoints::tags_in_use() const {
  uint64_t n = 0;
  for (const Node& node : nodes_) n += node.tag_msg.size() - node.free_tags.size();
  return n - timed_out_total_;  // timed-out requests are answered (their tags wait for a late response)
}

uint64_t AcceleratorEndpoints::flits_waiting() const {
  uint64_t w = 0;
  for (const Port& port : ports_)
    for (const TxLane& l : port.tx)
      if (l.bundle != tl::kNoMessage) w += static_cast<uint64_t>(bundle(l.bundle).flits - l.sent);
  return w;
}

}  // namespace upswitch::endpoint
