#include "traffic/endpoints.h"

#include <algorithm>
#include <exception>
#include <string>


namespace upswitch::traffic {

TrafficEndpoints::TrafficEndpoints(const TrafficParams& traffic, const MeasureParams& measure,
                                   int ports, int vcs, const UpstreamCredits& credits, std::vector<int> route,
                                   uint64_t watchdog_cycles)
    : tp_(traffic),
      route_(std::move(route)),
      watchdog_(watchdog_cycles),
      mp_(measure),
      n_(ports),
      e_(ports),
      v_(vcs),
      fifo_credits_(credits.classes == 1 && vcs > 1),
      dests_(tp_, ports, measure.seed),
      sizes_(tp_),
      window_begin_(measure.warmup_cycles),
      window_end_(measure.warmup_cycles + measure.measure_cycles),
      saturation_(window_begin_, window_end_, measure.saturation_windows) {
  for (int p = 0; p < n_; ++p) owner_.push_back(p);
  init(credits);
}

TrafficEndpoints::TrafficEndpoints(const TrafficParams& traffic, const MeasureParams& measure,
                                   const EndpointPorts& layout, int vcs, const UpstreamCredits& credits,
                                   uint64_t watchdog_cycles)
    : tp_(traffic),
      owner_(layout.owner),
      select_(layout.select),
      interleave_flits_(std::max(1, layout.interleave_flits)),
      watchdog_(watchdog_cycles),
      mp_(measure),
      n_(static_cast<int>(layout.owner.size())),
      e_(layout.endpoints),
      v_(vcs),
      fifo_credits_(credits.classes == 1 && vcs > 1),
      dests_(tp_, layout.endpoints, measure.seed),
      sizes_(tp_),
      window_begin_(measure.warmup_cycles),
      window_end_(measure.warmup_cycles + measure.measure_cycles),
      saturation_(window_begin_, window_end_, measure.saturation_windows) {
  inject_vcs_ = layout.inject_vcs;
  init(credits);
}

void TrafficEndpoints::init(const UpstreamCredits& credits) {
  if (inject_vcs_ <= 0 || inject_vcs_ > v_) inject_vcs_ = v_;
  src_.resize(static_cast<size_t>(n_));
  sink_.resize(static_cast<size_t>(n_) * static_cast<size_t>(v_));
  to_switch_.assign(static_cast<size_t>(n_), nullptr);
  from_switch_.assign(static_cast<size_t>(n_), nullptr);
  credit_due_.assign(static_cast<size_t>(n_), UINT64_MAX);
  next_arrival_.assign(static_cast<size_t>(n_), UINT64_MAX);
  has_backlog_.assign(static_cast<size_t>(n_), 0);
  send_at_.assign(static_cast<size_t>(n_), 0);
  flit_due_.assign(static_cast<size_t>(n_), UINT64_MAX);
  first_.assign(static_cast<size_t>(e_) + 1, 0);
  for (int p = 0; p < n_; ++p) {
    const int e = owner_[static_cast<size_t>(p)];
    if (e < 0 || e >= e_ || (p > 0 && e < owner_[static_cast<size_t>(p - 1)]))
      throw std::invalid_argument("TrafficEndpoints: ports must be grouped by endpoint, in endpoint order");
    first_[static_cast<size_t>(e) + 1] = p + 1;
  }
  for (int e = 0; e < e_; ++e)
    if (first_[static_cast<size_t>(e) + 1] == 0) first_[static_cast<size_t>(e) + 1] = first_[static_cast<size_t>(e)];
  ep_.assign(static_cast<size_t>(e_), EndpointState{});
  per_destination_ = tp_.injection_queues == InjectionQueues::kPerDestination;
  cap_ = credits.output_cap;
  if (cap_ > 0 && route_.empty())
    throw std::invalid_argument("TrafficEndpoints: the shared-buffer output cap needs the switch's routes (one switch)");
  const int shared_usable = cap_ > 0 ? std::min(cap_, credits.shared) : credits.shared;
  full_credits_ = static_cast<uint32_t>(credits.reserved + shared_usable);
  hot_.assign(static_cast<size_t>(e_), 0);
  if (tp_.pattern == Pattern::kHotspot)
    for (int h : tp_.hotspot_ports) hot_[static_cast<size_t>(h)] = 1;
  result_.source_accepted.assign(static_cast<size_t>(e_), 0);
  result_.destination_accepted.assign(static_cast<size_t>(e_), 0);
  int outputs = 0;
  for (int r : route_) outputs = std::max(outputs, r + 1);
  const double mean = tp_.mean_packet_flits();
  for (int p = 0; p < n_; ++p) {
    Source& s = src_[p];
    s.rng = Rng(mp_.seed, static_cast<uint64_t>(p) + 1);
    s.injection = InjectionProcess(tp_, mean);
    s.credits.reset(credits.classes, static_cast<uint32_t>(credits.reserved),
                    static_cast<uint32_t>(credits.shared));
    if (per_destination_) {
      s.dq.assign(static_cast<size_t>(e_), PacketRing(4));
      s.dq_nonempty.assign(static_cast<size_t>((e_ + 63) / 64), 0);
    }
    if (cap_ > 0) s.shared_used.assign(static_cast<size_t>(outputs), 0);
    if (dests_.sends(owner_[static_cast<size_t>(p)])) next_arrival_[static_cast<size_t>(p)] = s.injection.first(0, s.rng);
  }
  result_.ports.resize(static_cast<size_t>(n_));
  if (window_begin_ == 0) advance_phase(0);
}

void TrafficEndpoints::connect(int port, core::Link* to_switch, core::Link* from_switch) {
  to_switch_[port] = to_switch;
  from_switch_[port] = from_switch;
  to_switch->set_credit_due_slot(&credit_due_[static_cast<size_t>(port)]);
  from_switch->set_flit_due_slot(&flit_due_[static_cast<size_t>(port)]);
}

// Whether every link is empty once cycle t is over (see DelayLine::empty_after: the switch may
// run before or after the endpoints within a cycle, and the answer must not depend on it).
bool TrafficEndpoints::links_empty(uint64_t t) const {
  for (int p = 0; p < n_; ++p) {
    if (!to_switch_[p]->flits_empty_after(t) || !to_switch_[p]->credits().empty_after(t)) return false;
    if (!from_switch_[p]->flits_empty_after(t) || !from_switch_[p]->credits().empty_after(t)) return false;
  }
  return true;
}

void TrafficEndpoints::end_generation() {
  generating_ = false;
  std::fill(next_arrival_.begin(), next_arrival_.end(), UINT64_MAX);
}

// Phase changes happen at the start of a cycle, before any work of that cycle.
void TrafficEndpoints::advance_phase(uint64_t t) {
  if (stop_requested_ && phase_ != Phase::kDone) {
    result_.interrupted = true;
    result_.end_cycle = t;
    if (phase_ == Phase::kMeasure) {  // close the partial window so its throughput stays meaningful
      result_.window_cycles = t - window_begin_;
      result_.backlog_flits_end = backlog_total_;
      for (int p = 0; p < n_; ++p) result_.ports[p].backlog_flits_end = src_[p].backlog;
    }
    phase_ = Phase::kDone;
    return;
  }
  if (phase_ == Phase::kWarmup && t >= window_begin_) {
    result_.backlog_flits_start = backlog_total_;
    phase_ = Phase::kMeasure;
  }
  if (phase_ == Phase::kMeasure)
    while (t >= saturation_.next_sample()) saturation_.sample(static_cast<double>(backlog_total_));
  if (phase_ == Phase::kMeasure && t >= window_end_) {
    result_.window_cycles = window_end_ - window_begin_;
    result_.backlog_flits_end = backlog_total_;
    uint64_t offered = 0;
    for (int p = 0; p < n_; ++p) {
      result_.ports[p].backlog_flits_end = src_[p].backlog;
      offered += result_.ports[p].offered_flits;
    }
    // Saturated: the sources' backlog grew over the window's sample windows (traffic/saturation.h;
    // by more than a few packets per port), i.e. the switch did not keep up.
    result_.saturation = saturation_.evidence();
    result_.saturated = SaturationDetector::saturated(result_.saturation, static_cast<double>(offered),
                                                      4.0 * n_ * tp_.mean_packet_flits(), "flits",
                                                      &result_.saturation_reason);
    phase_ = result_.saturated ? Phase::kFlush : Phase::kDrain;
  }
  if (phase_ == Phase::kDrain) {
    if (measured_outstanding_ == 0) {
      phase_ = Phase::kFlush;
    } else if (t >= window_end_ + mp_.max_drain_cycles) {
      result_.saturated = true;
      result_.saturation_reason = std::to_string(measured_outstanding_) +
                                  " measured packets still undelivered after the drain limit";
      phase_ = Phase::kFlush;
    }
  }
  if (phase_ == Phase::kFlush) {
    if (generating_) end_generation();
    const bool all_in = backlog_total_ == 0 && result_.packets_delivered == result_.packets_created;
    if (defer_flush_end_ && mp_.flush) {
      if (all_in && flush_ready_at_ == UINT64_MAX) flush_ready_at_ = t;  // the driver ends it (finish_at)
    } else if (!mp_.flush || (all_in && links_empty(t))) {
      result_.end_cycle = t;
      phase_ = Phase::kDone;
    }
  }
}

// After flush_ready_at nothing more is sent on any link (every packet is in, and its credits were
// sent as its flits moved), so links_empty(t) holds from the newest due cycle on.
uint64_t TrafficEndpoints::links_last_due() const { return core::last_due_on(to_switch_, from_switch_); }

void TrafficEndpoints::finish_at(uint64_t t) {
  result_.end_cycle = t;
  phase_ = Phase::kDone;
}

// The port of endpoint `e` that carries packet `d` (endpoint.port_select), among its ports in
// service.
int TrafficEndpoints::select_port(int e, const PacketDesc& d) {
  const int first = first_[static_cast<size_t>(e)];
  EndpointState& st = ep_[static_cast<size_t>(e)];
  const bool some = !st.live.empty();  // a switch taken out: choose among the ports left
  const int k = some ? static_cast<int>(st.live.size()) : first_[static_cast<size_t>(e) + 1] - first;
  auto port = [&](int j) { return some ? st.live[static_cast<size_t>(j)] : first + j; };
  if (k == 1) return port(0);
  switch (select_) {
    case PortSelect::kAddress: {  // the endpoint's stream interleaved over its ports
      const auto q = static_cast<int>((st.flits / static_cast<uint64_t>(interleave_flits_)) % static_cast<uint64_t>(k));
      st.flits += d.size;
      return port(q);
    }
    case PortSelect::kRoundRobin: return port(static_cast<int>(st.rr++ % static_cast<uint32_t>(k)));
    case PortSelect::kHash: return port(hash_port(0, k, e, d.dst));
    case PortSelect::kLeastLoaded: break;
  }
  // The port with the fewest flits waiting, then the most credits; ties rotate.
  return port(least_loaded_port(0, k, st.rr++ % static_cast<uint32_t>(k), [&](int j) {
    const Source& s = src_[port(j)];
    return static_cast<int64_t>(s.backlog) * 1024 - static_cast<int64_t>(s.credits.total());
  }));
}

void TrafficEndpoints::take_out_port(int port, uint64_t at) {
  if (port < 0 || port >= n_) throw std::invalid_argument("TrafficEndpoints::take_out_port: no such port");
  outages_.add(at, port);
  next_outage_ = outages_.next();
}

// The outages due by cycle t, at the start of its tick (an endpoint asleep at the due cycle
// created no packet meanwhile, so applying them now is the same).
void TrafficEndpoints::take_out_ports(uint64_t t) {
  outages_.take_due(t, [&](int p) {
    const auto e = static_cast<size_t>(owner_[static_cast<size_t>(p)]);
    core::PortOutages::remove_live(ep_[e].live, first_[e], first_[e + 1], p);
  });
  next_outage_ = outages_.next();
}

// Port p's arrival process creates a packet for its endpoint, which queues it on the port that
// endpoint.port_select picks (p itself when the endpoint has one port).
void TrafficEndpoints::generate(int p, uint64_t t) {
  Source& g = src_[p];
  const int e = owner_[static_cast<size_t>(p)];
  PacketDesc d;
  d.id = (static_cast<uint64_t>(p) << 40) | g.sequence++;
  d.created = t;
  d.dst = dests_.pick(e, g.rng);
  d.size = static_cast<uint16_t>(sizes_.draw(g.rng));
  d.measured = phase_ == Phase::kMeasure;
  next_arrival_[static_cast<size_t>(p)] = g.injection.next(t, d.size, g.rng);
  const int q = select_port(e, d);
  Source& s = src_[q];
  if (per_destination_) {
    s.dq[d.dst].push(d);
    s.dq_nonempty[d.dst >> 6] |= uint64_t{1} << (d.dst & 63);
  } else {
    s.queue.push(d);
  }
  if (s.backlog == 0) {
    ++sources_with_backlog_;
    has_backlog_[static_cast<size_t>(q)] = 1;
  }
  s.backlog += d.size;
  backlog_total_ += d.size;
  ++result_.packets_created;
  result_.flits_created += d.size;
  if (d.measured) {
    ++result_.measured_packets;
    ++measured_outstanding_;
    result_.ports[q].offered_flits += d.size;
    (hot_[d.dst] ? result_.hot : result_.cold).offered_flits += d.size;
  }
}

void TrafficEndpoints::send(int p, uint64_t t) {
  Source& s = src_[p];
  core::Link& link = *to_switch_[p];
  if (!link.tx_ready(t)) return;
  if (!s.cur_active) {
    int vc = -1;
    const int vcs = inject_vcs_;
    if (per_destination_) {
      if (!start_per_destination(s, vc)) return;
    } else {
      if (s.queue.empty()) return;
      const int out = cap_ ? output_of(s.queue.front().dst) : 0;
      if (fifo_credits_ || vcs == 1) {
        if (can_send(s, 0, out)) vc = s.vc_ptr;
      } else {
        for (int k = 0, c = s.vc_ptr; k < vcs && vc < 0; ++k, c = c + 1 == vcs ? 0 : c + 1)
          if (can_send(s, c, out)) vc = c;
      }
      if (vc < 0) return;
      s.cur = s.queue.pop();
    }
    s.vc_ptr = vc + 1 == vcs ? 0 : vc + 1;
    s.cur_active = true;
    s.cur_vc = vc;
    s.cur_sent = 0;
    if (free_records_.empty()) {
      s.cur_record = static_cast<uint32_t>(records_.size());
      records_.emplace_back();
    } else {
      s.cur_record = free_records_.back();
      free_records_.pop_back();
    }
    records_[s.cur_record] = PacketRecord{s.cur.id, s.cur.created, t};
    s.cur_out = cap_ ? output_of(s.cur.dst) : 0;
  }
  const int cls = fifo_credits_ ? 0 : s.cur_vc;
  if (!can_send(s, cls, s.cur_out)) return;
  core::Flit f;
  f.payload = s.cur_record;
  f.dst = s.cur.dst;
  f.src = static_cast<uint16_t>(owner_[static_cast<size_t>(p)]);
  f.size = s.cur.size;
  f.vc = static_cast<uint8_t>(s.cur_vc);
  f.flags = static_cast<uint8_t>((s.cur_sent == 0 ? core::Flit::kHead : 0) |
                                 (s.cur_sent + 1 == s.cur.size ? core::Flit::kTail : 0) |
                                 (s.cur.measured ? core::Flit::kMeasured : 0));
  // Under the cap a flit takes a pool credit while its output is below the cap, and a reserved
  // one otherwise, so the reserved credits stay for the outputs at their cap; without it, reserved
  // first (the CreditPool's rule).
  bool shared = false;
  if (cap_ && s.credits.shared_for(cls) > 0 &&
      s.shared_used[static_cast<size_t>(s.cur_out)] < static_cast<uint32_t>(cap_)) {
    s.credits.take_shared(cls);
    shared = true;
    ++s.shared_used[static_cast<size_t>(s.cur_out)];
  } else {
    shared = s.credits.take(cls);
    if (shared && cap_) throw std::logic_error("TrafficEndpoints: a pool credit taken beyond the output cap");
  }
  f.set_shared_credit(shared);
  link.tx_take(t);
  // A paced link without a data-link layer cannot start another flit before this cycle, so until
  // then tick_ports does not call send() for it (it would only find the link not ready).
  if (link.tx_paced() && !link.data_link()) send_at_[static_cast<size_t>(p)] = link.tx_next_ready(t);
  to_switch_[p]->send_flit(t, f);
  if (t >= window_begin_ && t < window_end_) ++result_.ports[p].injected_flits;
  --s.backlog;
  --backlog_total_;
  if (s.backlog == 0) {
    --sources_with_backlog_;
    has_backlog_[static_cast<size_t>(p)] = 0;
  }
  if (++s.cur_sent == s.cur.size) s.cur_active = false;
}

// Credits of class `cls` a packet to switch output `out` may use: the reserved ones and the pool's,
// the latter at most up to the output's cap.
uint32_t TrafficEndpoints::credits_for(const Source& s, int cls, int out) const {
  uint32_t shared = s.credits.shared_for(cls);
  if (cap_) {
    const uint32_t used = s.shared_used[static_cast<size_t>(out)];
    const uint32_t room = used < static_cast<uint32_t>(cap_) ? static_cast<uint32_t>(cap_) - used : 0;
    shared = std::min(shared, room);
  }
  return s.credits.reserved(cls) + shared;
}

int TrafficEndpoints::admit_vc(const Source& s, int out, uint32_t need) const {
  const int vcs = inject_vcs_;
  if (fifo_credits_ || vcs == 1) return credits_for(s, 0, out) >= need ? s.vc_ptr : -1;
  for (int k = 0, c = s.vc_ptr; k < vcs; ++k, c = c + 1 == vcs ? 0 : c + 1)
    if (credits_for(s, c, out) >= need) return c;
  return -1;
}

// Round-robin over the non-empty destination queues from the source's pointer: the first whose
// front packet a VC admits starts (the pointer then moves past it). A packet needs credits for all
// its flits (or for a whole buffer when it is larger), so it never stalls half sent and holds the
// link back from the other destinations.
bool TrafficEndpoints::start_per_destination(Source& s, int& vc) {
  const auto words = static_cast<uint32_t>(s.dq_nonempty.size());
  const uint32_t start = s.dq_ptr;
  for (uint32_t k = 0; k <= words; ++k) {
    const uint32_t w = (start / 64 + k) % words;
    uint64_t bits = s.dq_nonempty[w];
    if (k == 0) bits &= ~uint64_t{0} << (start % 64);  // the first word from the pointer on
    if (k == words) bits &= (start % 64) ? ~(~uint64_t{0} << (start % 64)) : 0;  // ...and the rest of it last
    for (; bits; bits &= bits - 1) {
      const uint32_t d = w * 64 + static_cast<uint32_t>(__builtin_ctzll(bits));
      PacketRing& q = s.dq[d];
      const PacketDesc& head = q.front();
      const uint32_t need = std::min<uint32_t>(head.size, full_credits_);
      vc = admit_vc(s, cap_ ? output_of(head.dst) : 0, need);
      if (vc < 0) continue;
      s.cur = q.pop();
      if (q.empty()) s.dq_nonempty[w] &= ~(uint64_t{1} << (d & 63));
      s.dq_ptr = d + 1 == static_cast<uint32_t>(e_) ? 0 : d + 1;
      return true;
    }
  }
  return false;
}

void TrafficEndpoints::broken(const char* what, int p, const core::Flit& f, uint64_t t) const {
  const std::string id = f.payload < records_.size() ? std::to_string(records_[f.payload].id) : "?";
  throw IntegrityError(std::string("packet integrity: ") + what + " (packet " + id + " from " + std::to_string(f.src) +
                       " at sink " + std::to_string(p) + " vc " + std::to_string(f.vc) + ", cycle " + std::to_string(t) +
                       ")");
}

void TrafficEndpoints::receive(int p, const core::Flit& f, uint64_t t) {
  SinkVc& in = sink_[static_cast<size_t>(p) * v_ + f.vc];
  const bool mine = route_.empty() ? owner_[static_cast<size_t>(p)] == static_cast<int>(f.dst)
                                   : route_[f.dst] == p;
  if (!mine) broken("flit delivered to the wrong port", p, f, t);
  if (f.head()) {
    if (in.packet != UINT32_MAX) broken("head flit while another packet is in progress", p, f, t);
    in.packet = f.payload;
    in.flits = 0;
    // The tail reads the packet's record, last written when its source sent the head: ask for it
    // now, while the body flits cross (a hint, as the delay lines' prefetch).
    if (!f.tail() && f.payload < records_.size()) __builtin_prefetch(&records_[f.payload]);
  } else if (in.packet != f.payload) {
    broken("body flit of a packet that is not in progress", p, f, t);
  }
  if (++in.flits > f.size) broken("more flits than the packet has", p, f, t);
  if (t >= window_begin_ && t < window_end_) {
    ++result_.ports[p].accepted_flits;
    ++result_.source_accepted[f.src];
    ++result_.destination_accepted[f.dst];
    ++(hot_[f.dst] ? result_.hot : result_.cold).accepted_flits;
  }
  ++result_.flits_delivered;
  last_delivery_ = t;
  if (!f.tail()) return;
  if (in.flits != f.size) broken("tail flit before all body flits", p, f, t);
  in.packet = UINT32_MAX;
  if (++result_.packets_delivered > result_.packets_created) broken("more packets delivered than created", p, f, t);
  if (f.payload >= records_.size()) broken("no such packet at its source", p, f, t);
  const PacketRecord rec = records_[f.payload];
  free_records_.push_back(f.payload);
  if (f.flags & core::Flit::kMeasured) {
    result_.packet_latency.add(t - rec.created);
    saturation_.delivered(t, t - rec.created);
    result_.network_latency.add(t - rec.injected);
    ++result_.measured_delivered;
    --measured_outstanding_;
  }
}

// Packets are waiting or in flight, yet nothing has been delivered for watchdog_ cycles: a
// deadlock (or a lost credit) that the switch's own watchdog cannot see, e.g. a starved source.
void TrafficEndpoints::check_progress(uint64_t t) {
  if (result_.packets_delivered == result_.packets_created) {
    last_delivery_ = t;
    return;
  }
  if (t - last_delivery_ <= watchdog_) return;
  std::string state;
  int shown = 0;
  for (int p = 0; p < n_ && shown < 16; ++p) {
    const Source& s = src_[p];
    if (!s.backlog) continue;
    ++shown;
    state += "  source " + std::to_string(p) + ": " + std::to_string(s.backlog) + " flits waiting, credits";
    for (int c = 0; c < s.credits.classes(); ++c) state += " vc" + std::to_string(c) + "=" + std::to_string(s.credits.reserved(c));
    state += " shared=" + std::to_string(s.credits.shared()) + "\n";
  }
  throw core::DeadlockError("deadlock: " + std::to_string(result_.packets_created - result_.packets_delivered) +
                                " packets undelivered and none delivered for " + std::to_string(t - last_delivery_) +
                                " cycles (cycle " + std::to_string(t) + ")",
                            state);
}

void TrafficEndpoints::tick(uint64_t t) {
  advance_phase(t);
  if (phase_ == Phase::kDone) return;
  if (t >= next_outage_) take_out_ports(t);  // faults.switch_down
  if (watchdog_) check_progress(t);
  tick_ports(0, n_, t);
}

void TrafficEndpoints::tick_ports(int p0, int p1, uint64_t t) {
  core::Credit c;  // outside the loop: a Flit is 40 bytes to zero, and most ports receive nothing
  core::Flit f;
  for (int p = p0; p < p1; ++p) {
    const auto pi = static_cast<size_t>(p);
    if (credit_due_[pi] <= t) {
      core::Link* up = to_switch_[pi];
      while (up->receive_credit(t, c)) {  // several with crossbar speedup
        src_[pi].credits.give(fifo_credits_ ? 0 : c.vc, c.shared);
        if (cap_ && c.shared) {
          uint32_t& used = src_[pi].shared_used.at(c.out);
          if (used == 0) throw std::logic_error("TrafficEndpoints: a shared credit returned for an output with none outstanding");
          --used;
        }
      }
      up->refresh_credit_due();
    }
    if (flit_due_[pi] <= t) {
      core::Link* down = from_switch_[pi];
      const bool got = down->receive_flit(t, f);
      down->refresh_flit_due();
      if (got) {
        receive(p, f, t);
        down->send_credit(t, core::Credit{f.vc, f.shared_credit()});
      }
    }
    if (next_arrival_[pi] == t) generate(p, t);
  }
  // Sending after every port generated, so a packet queued on another port of its endpoint
  // this cycle is treated the same whichever port's process created it.
  for (int p = p0; p < p1; ++p)
    if (has_backlog_[static_cast<size_t>(p)] && send_at_[static_cast<size_t>(p)] <= t) send(p, t);
}

// Within a span nothing an endpoint sends reaches anyone (its links are held until the span's
// window ends), so the endpoints are independent of each other: each runs its own cycles in turn,
// while its ports' state is in the caches, with what the cycle-by-cycle order gives. What they
// share is either summed (counters, histograms, the saturation detector's integer sums), acted
// on at cycles the span stops before (phases, saturation samples, port outages, the watchdog's
// limit), or replayed cycle by cycle at its end (the watchdog's last progress).
uint64_t TrafficEndpoints::tick_span(uint64_t t, uint64_t until) {
  tick(t);
  if ((phase_ != Phase::kWarmup && phase_ != Phase::kMeasure) || stop_requested_) return next_activity(t);
  uint64_t shared = phase_ == Phase::kWarmup ? window_begin_ : std::min(window_end_, saturation_.next_sample());
  shared = std::min(shared, next_outage_);
  // Until then no ticked cycle can find the watchdog's limit passed (its last progress only moves on).
  if (watchdog_) shared = std::min(shared, last_delivery_ + watchdog_ + 1);
  until = std::min(until, shared);
  if (until <= t + 1) return next_activity(t);
  // Per cycle of the span: whether the cycle-by-cycle order ticks it (it does exactly when some
  // endpoint has something to do then), and the packets created, packets delivered and flits
  // delivered in it, for the watchdog's replay.
  const size_t len = static_cast<size_t>(until - t);
  span_.assign(len, SpanCycle{});
  const uint64_t created0 = result_.packets_created, delivered0 = result_.packets_delivered;
  const uint64_t last0 = last_delivery_;
  // A model defect (an integrity or credit error) ends the run: reported at its cycle, as
  // cycle by cycle (the endpoints after it run only the cycles before it).
  std::exception_ptr error;
  uint64_t stop = until;
  for (int e = 0; e < e_ && t + 1 < stop; ++e) {
    const int p0 = first_[static_cast<size_t>(e)], p1 = first_[static_cast<size_t>(e) + 1];
    for (uint64_t c = next_of(p0, p1, t); c < stop; c = next_of(p0, p1, c)) {
      SpanCycle& k = span_[static_cast<size_t>(c - t)];
      const uint64_t created = result_.packets_created, packets = result_.packets_delivered,
                     flits = result_.flits_delivered;
      try {
        tick_ports(p0, p1, c);
      } catch (...) {
        error = std::current_exception();
        stop = c;
        break;
      }
      k.ticked = true;
      k.created += static_cast<uint32_t>(result_.packets_created - created);
      k.delivered += static_cast<uint32_t>(result_.packets_delivered - packets);
      k.flits += static_cast<uint32_t>(result_.flits_delivered - flits);
    }
  }
  if (error) std::rethrow_exception(error);
  // The watchdog's last progress as check_progress and receive would have left it.
  uint64_t created = created0, delivered = delivered0, last = last0;
  for (size_t i = 1; i < len; ++i) {
    const SpanCycle& k = span_[i];
    if (!k.ticked) continue;
    if (created == delivered) last = t + i;  // check_progress at the start of the cycle
    created += k.created;
    delivered += k.delivered;
    if (k.flits) last = t + i;  // receive
  }
  last_delivery_ = last;
  return next_activity(until - 1);
}

uint64_t TrafficEndpoints::next_of(int p0, int p1, uint64_t t) const {
  uint64_t next = UINT64_MAX;
  for (int p = p0; p < p1; ++p) {
    const auto pi = static_cast<size_t>(p);
    if (has_backlog_[pi]) return t + 1;
    next = std::min({next, next_arrival_[pi], credit_due_[pi], flit_due_[pi]});
  }
  return std::max(next, t + 1);
}

uint64_t TrafficEndpoints::next_activity(uint64_t t) const {
  if (phase_ == Phase::kDone) return UINT64_MAX;
  if (sources_with_backlog_ || stop_requested_ || phase_ == Phase::kFlush || phase_ == Phase::kDrain)
    return t + 1;
  uint64_t next = UINT64_MAX;
  // The links' due slots hold what the links would answer, but for a flit slot of 0 (a
  // data-link layer holding something), where the link answers.
  for (int p = 0; p < n_ && next > t + 1; ++p) {  // nothing is earlier than the next cycle
    const auto pi = static_cast<size_t>(p);
    const uint64_t in = flit_due_[pi];
    next = std::min({next, next_arrival_[pi], credit_due_[pi], in != 0 ? in : from_switch_[p]->next_flit_due()});
  }
  if (phase_ == Phase::kWarmup) next = std::min(next, window_begin_);
  if (phase_ == Phase::kMeasure) next = std::min({next, window_end_, saturation_.next_sample()});
  return std::max(next, t + 1);
}

}  // namespace upswitch::traffic
