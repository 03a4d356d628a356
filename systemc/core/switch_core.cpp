// SwitchCore construction and the per-cycle sequence (see doc/architecture.md).
#include "core/switch_core.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace upswitch::core {

SwitchCore::SwitchCore(const SwitchParams& params, const DownstreamBuffer& downstream)
    : p_(params), n_(params.ports), v_(params.lanes()), words_(words_for(params.ports)) {
  unready_.assign(static_cast<size_t>(words_), 0);
  route_ = p_.routing_table;
  if (!p_.route_begin.empty()) {
    route_begin_ = p_.route_begin;
    route_ports_ = p_.route_ports;
    const size_t dests = route_begin_.size() - 1;
    route_.assign(dests, -1);
    for (size_t d = 0; d < dests; ++d) {
      const uint32_t k = route_begin_[d + 1] - route_begin_[d];
      if (k == 0) continue;  // unreachable from here (another plane's engine unit): route_in() refuses it
      for (uint32_t j = route_begin_[d]; j < route_begin_[d + 1]; ++j)
        if (route_ports_[j] >= n_) throw std::invalid_argument("SwitchCore: route to a port beyond the switch");
      route_[d] = route_ports_[route_begin_[d]];
      multipath_ = multipath_ || k > 1;
    }
    if (multipath_) {
      lane_out_.assign(static_cast<size_t>(n_ * v_), 0);
      rr_.assign(static_cast<size_t>(n_), 0);
    }
  }
  if (route_.empty())
    for (int d = 0; d < n_; ++d) route_.push_back(d);
  if (std::all_of(route_.begin(), route_.end(), [](int r) { return r < 0; }))
    throw std::invalid_argument("SwitchCore: no route to any endpoint");
  if (p_.vc_classes == 2 && p_.queueing != Queueing::kVc)
    throw std::invalid_argument("SwitchCore: VC classes (datelines) need vc queueing");
  if (p_.vc_classes == 2 && p_.dateline_ports.size() != static_cast<size_t>(n_))
    throw std::invalid_argument("SwitchCore: one dateline flag per port expected");
  allocator_ = make_allocator(p_.allocator, n_, p_.allocator_iterations);
  if (p_.speculative && p_.queueing != Queueing::kVc)
    throw std::invalid_argument("SwitchCore: speculative allocation needs vc queueing");
  in_links_.assign(n_, nullptr);
  out_links_.assign(n_, nullptr);
  in_flit_due_.assign(static_cast<size_t>(n_), UINT64_MAX);
  out_credit_due_.assign(static_cast<size_t>(n_), UINT64_MAX);
  in_wake_.assign((static_cast<size_t>(n_) + kPortBlock - 1) / kPortBlock, 0);
  credit_wake_.assign(in_wake_.size(), 0);
  egress_wake_.assign(in_wake_.size(), UINT64_MAX);  // the egress stages start empty

  const int queues = p_.queueing == Queueing::kFifo ? 1 : p_.queueing == Queueing::kVc ? v_ : n_ * v_;
  routing_.assign(n_, DelayLine<Flit>(static_cast<uint32_t>(p_.routing_cycles)));
  routing_due_.assign(static_cast<size_t>(n_), UINT64_MAX);
  queues_.assign(n_, SlotQueues(queues, p_.buffer_flits()));
  occupancy_.assign(n_, 0);
  queued_.assign(n_, 0);
  active_.resize(1, n_);
  if (p_.queueing == Queueing::kVoq) {
    nonempty_.assign(v_, BitMatrix(n_, n_));
    voq_lanes_.assign(n_, 0);
    voq_lane_queues_.assign(static_cast<size_t>(n_ * v_), 0);
  }
  vc_ptr_.assign(n_, 0);
  drop_credit_.assign(n_, 0);
  if (p_.queueing == Queueing::kVc) {
    ivc_out_port_.assign(n_ * v_, -1);
    ivc_out_vc_.assign(n_ * v_, -1);
    ivc_ready_.assign(n_ * v_, 0);
    ivc_nonempty_.assign(n_, 0);
    ivc_eligible_.assign(n_, 0);
    va_ptr_.assign(n_, 0);
    va_bucket_.assign(n_, {});
    for (auto& b : va_bucket_) b.reserve(static_cast<size_t>(n_) * v_);
    va_waiting_.resize(1, n_);
    va_free_.resize(1, n_);
    for (int o = 0; o < n_; ++o) set_bit(va_free_.row(0), o);
    vc_free_mask_.assign(n_, v_ == 32 ? ~0U : (1U << v_) - 1);
    const uint32_t one_class = p_.vcs == 32 ? ~0U : (1U << p_.vcs) - 1;
    for (int vc = 0; vc < v_; ++vc) {
      class_vc_mask_.push_back(one_class << (vc / p_.vcs * p_.vcs));
      upper_vc_.push_back(vc % p_.vcs >= p_.vcs / 2 ? 1 : 0);
    }
    if (n_ > UINT16_MAX + 1) throw std::invalid_argument("SwitchCore: more than 65,536 ports");
    for (int idx = 0; idx < n_ * v_; ++idx)
      lane_of_.push_back(LaneOf{static_cast<uint16_t>(idx / v_), static_cast<uint8_t>(idx % v_)});
    if (p_.vc_classes == 2) {
      if (p_.vcs < 2 || p_.vcs % 2) throw std::invalid_argument("SwitchCore: two VC classes need an even number of VCs");
      const uint32_t lower = (1U << (p_.vcs / 2)) - 1;
      dclass_mask_[0] = dclass_mask_[1] = 0;
      for (int c = 0; c < p_.classes; ++c) {
        dclass_mask_[0] |= lower << (c * p_.vcs);
        dclass_mask_[1] |= (lower << (p_.vcs / 2)) << (c * p_.vcs);
      }
    }
  }

  out_credit_.assign(n_, CreditPool(v_, static_cast<uint32_t>(downstream.vc_flits),
                                    static_cast<uint32_t>(downstream.shared_flits), p_.classes));
  cmd_ = p_.classes > 1;
  if (cmd_) {
    out_cmd_.assign(n_, CreditPool(v_, static_cast<uint32_t>(downstream.cmd_vc), static_cast<uint32_t>(downstream.cmd_shared),
                                   p_.classes));
    out_cmd_shared_.assign(static_cast<size_t>(n_ * v_), 0);
    cmd_low_.resize(1, n_);
    fits_.assign(static_cast<size_t>(words_), 0);
    check_.assign(static_cast<size_t>(words_), 0);
    for (int o = 0; o < n_; ++o) update_cmd_low(o);
  } else {
    out_cmd_.assign(n_, CreditPool());
  }
  credit_bits_.assign(v_, BitMatrix(1, n_));
  holder_.assign(n_ * v_, -1);
  if (p_.queueing != Queueing::kVc) {
    held_.assign(v_, BitMatrix(1, n_));
    held_by_.assign(v_, BitMatrix(n_, n_));
  }
  egress_.assign(n_, DelayLine<Flit>(static_cast<uint32_t>(p_.output_pipeline_cycles())));
  egress_due_.assign(static_cast<size_t>(n_), UINT64_MAX);
  egress_in_link_.assign(static_cast<size_t>(n_), 0);
  speedup_ = p_.speedup;
  if (speedup_ < 1) throw std::invalid_argument("SwitchCore: crossbar speedup below 1");
  if (speedup_ > 1) {
    if (p_.output_buffer_flits < 1) throw std::invalid_argument("SwitchCore: crossbar speedup needs an output buffer");
    if (p_.packet_mode || p_.speculative)
      throw std::invalid_argument("SwitchCore: crossbar speedup with packet mode or speculation is not modelled");
    obuf_cap_ = static_cast<uint32_t>(p_.output_buffer_flits);
    obuf_.assign(static_cast<size_t>(n_) * obuf_cap_, Buffered{0, Flit{}});
    obuf_head_.assign(static_cast<size_t>(n_), 0);
    obuf_count_.assign(static_cast<size_t>(n_), 0);
  }
  for (int o = 0; o < n_; ++o) update_credit_bits(o);

  req_.resize(n_, n_);
  req_t_.resize(n_, n_);
  stall_.resize(1, n_);
  any_.resize(1, n_);
  req_inputs_.reserve(n_);
  req_outputs_.reserve(n_);
  match_.assign(n_, -1);
  stats_.resize(n_);
  spec_ = p_.speculative;
  if (spec_) {
    spec_allocator_ = make_allocator(p_.allocator, n_, p_.allocator_iterations);
    granted_in_.resize(1, n_);
    granted_out_.resize(1, n_);
    spec_vcs_.assign(n_, 0);
  }
  pm_ = p_.packet_mode;
  if (pm_) {
    pm_out_.assign(n_, -1);
    pm_lane_.assign(n_, 0);
    pm_in_.resize(1, n_);
    pm_outs_.resize(1, n_);
    pm_serving_.reserve(n_);
    pm_classes_ = p_.classes > 1;
    if (pm_classes_) {
      pm_rsp_in_.assign(n_, 0);
      pm_rsp_out_.assign(n_, 0);
    }
  }
}

void SwitchCore::connect(int port, Link* input, Link* output) {
  in_links_[port] = input;
  out_links_[port] = output;
  const size_t b = static_cast<size_t>(port) / kPortBlock;
  input->set_flit_due_slot(&in_flit_due_[static_cast<size_t>(port)], &in_wake_[b], &wake_);
  output->set_credit_due_slot(&out_credit_due_[static_cast<size_t>(port)], &credit_wake_[b], &wake_);
  paced_ = paced_ || output->tx_paced();
  // The output pipeline (allocation + crossbar + egress stages) moves into the output link, which
  // then delivers a granted flit at the cycle the stages and the wire did: one delay line fewer per
  // flit. Not with a data-link layer (it frames a flit as it leaves the stages; it is attached
  // before the switch is connected) or crossbar speedup (the output buffers hold the flits there).
  const bool fold = p_.output_pipeline_cycles() > 0 && speedup_ == 1 && !output->data_link();
  egress_in_link_[static_cast<size_t>(port)] = fold ? 1 : 0;
  if (fold) {
    output->set_send_pipeline(static_cast<uint32_t>(p_.output_pipeline_cycles()));
    egress_[static_cast<size_t>(port)].reset(0);  // unused: its smallest ring
  }
  // This input frees up to `speedup` buffer slots per cycle, so it may return that many credits.
  if (speedup_ > 1) input->set_credits_per_cycle(static_cast<uint32_t>(speedup_));
}

void SwitchCore::choose_paths() {
  paths_chosen_ = true;
  pace_rows_ = paced_ && speedup_ == 1 &&
               std::none_of(out_links_.begin(), out_links_.end(), [](const Link* l) { return l->data_link(); });
  if (pace_rows_) {
    pace_wait_.resize(1, n_);
    pace_ready_at_.assign(static_cast<size_t>(n_), 0);
  }
  by_output_ = !force_by_input_ && p_.queueing == Queueing::kVoq && !pm_ && speedup_ == 1 &&
               (!paced_ || pace_rows_);
  if (by_output_) {
    nonempty_t_.assign(v_, BitMatrix(n_, n_));
    out_lanes_.assign(static_cast<size_t>(n_), 0);
    out_lane_inputs_.assign(static_cast<size_t>(n_ * v_), 0);
    out_queued_.resize(1, n_);
    if (cmd_) need_t_.assign(v_, BitMatrix(n_ * kNeedRows, n_));
    out_dirty_.resize(1, n_);
    for (int o = 0; o < n_; ++o) set_bit(out_dirty_.row(0), o);
    out_stall_.assign(static_cast<size_t>(n_), 0);
  }
}

int SwitchCore::queue_of(const Flit& f) const {
  switch (p_.queueing) {
    case Queueing::kFifo: return 0;
    case Queueing::kVc: return f.vc;
    case Queueing::kVoq: break;
  }
  return f.out * v_ + f.vc;
}

// A head flit's output among its destination's equal-cost ports (routing.multipath). Reads only
// state that no input changes during the routing step (the output credits after step 1), so the
// choice does not depend on the order the inputs are visited in.
int SwitchCore::choose_output(int input, const Flit& head) {
  const uint32_t b = route_begin_[head.dst], k = route_begin_[head.dst + 1] - b;
  if (k == 1) return route_ports_[b];
  switch (p_.path_choice) {
    case PathChoice::kHash: {
      const uint64_t x = mix64((static_cast<uint64_t>(head.src) << 16 | head.dst) ^ p_.hash_salt);
      return route_ports_[b + static_cast<uint32_t>(x % k)];
    }
    case PathChoice::kRoundRobin: {
      uint32_t& r = rr_[static_cast<size_t>(input)];
      const int o = route_ports_[b + r % k];
      ++r;
      return o;
    }
    case PathChoice::kInput: return route_ports_[b + static_cast<uint32_t>(input) % k];
    case PathChoice::kAdaptive: break;
  }
  // Adaptive: the port with the most credits of the downstream buffer, ties broken by a
  // rotating start so equal ports share the load.
  uint32_t& r = rr_[static_cast<size_t>(input)];
  const uint32_t start = r++ % k;
  int best = -1;
  uint64_t best_credits = 0;
  for (uint32_t j = 0; j < k; ++j) {
    const int o = route_ports_[b + (start + j) % k];
    const uint64_t c = out_credit_[static_cast<size_t>(o)].total();
    if (best < 0 || c > best_credits) {
      best = o;
      best_credits = c;
    }
  }
  return best;
}

void SwitchCore::enqueue(int input, const Flit& f) {
  // Every queue's front need is at most kMaxPacketMessages (need_t_'s rows, front_fits).
  if (cmd_ && f.head() && f.msgs > kMaxPacketMessages)
    throw std::logic_error("SwitchCore: a head flit of more than kMaxPacketMessages messages");
  const int q = queue_of(f);
  const bool was_empty = queues_[input].empty(q);
  queues_[input].push(q, f);
  if (pm_classes_ && f.vc >= p_.vcs) {  // a response waits: no request's match may hold it back
    ++pm_rsp_in_[input];
    ++pm_rsp_out_[f.out];
  }
  if (queued_[input]++ == 0) set_bit(active_.row(0), input);
  ++total_queued_;
  if (was_empty) on_front_changed(input, q, f.out, f.vc, 0);
}

void SwitchCore::on_front_changed(int input, int q, int o, int vc, uint8_t was_need) {
  const bool empty = queues_[input].empty(q);
  if (p_.queueing == Queueing::kVoq) {
    if (!need_t_.empty()) {
      const uint8_t need = queues_[input].front_need(q);
      if (need != was_need) {
        BitMatrix& rows = need_t_[static_cast<size_t>(vc)];
        if (was_need) clear_bit(rows.row(o * kNeedRows + was_need), input);
        if (need) set_bit(rows.row(o * kNeedRows + need), input);
        if (!was_need)
          set_bit(rows.row(o * kNeedRows), input);
        else if (!need)
          clear_bit(rows.row(o * kNeedRows), input);
        dirty_output(o);
      }
    }
    uint64_t* row = nonempty_[vc].row(input);
    if (empty == test_bit(row, o)) {  // the queue changed between empty and non-empty
      int& lanes = voq_lane_queues_[static_cast<size_t>(input * v_ + vc)];
      if (empty) {
        clear_bit(row, o);
        if (--lanes == 0) voq_lanes_[input] &= ~(1U << vc);
      } else {
        set_bit(row, o);
        if (lanes++ == 0) voq_lanes_[input] |= 1U << vc;
      }
      if (by_output_) note_voq_by_output(input, o, vc, empty);
    }
  } else if (p_.queueing == Queueing::kVc) {
    if (empty) {
      ivc_nonempty_[input] &= ~(1U << q);
      return;
    }
    ivc_nonempty_[input] |= 1U << q;
    const Flit& f = queues_[input].front(q);
    const int idx = input * v_ + q;
    if (f.head()) {
      const int o = f.out;
      ivc_out_port_[idx] = o;
      ivc_out_vc_[idx] = -1;
      va_bucket_[o].push_back(idx);
      set_bit(va_waiting_.row(0), o);
      ++va_requests_;
    }
  }
}

void SwitchCore::update_cmd_low(int output) {
  bool low = false;
  for (int vc = 0; vc < v_ && !low; ++vc) low = out_cmd_[output].available(vc) < static_cast<uint32_t>(kMaxPacketMessages);
  if (low != test_bit(cmd_low_.row(0), output)) dirty_output(output);
  if (low)
    set_bit(cmd_low_.row(0), output);
  else
    clear_bit(cmd_low_.row(0), output);
}

void SwitchCore::update_credit_bits(int output) {
  dirty_output(output);
  for (int vc = 0; vc < v_; ++vc) {
    if (out_credit_[output].can_take(vc))
      set_bit(credit_bits_[vc].row(0), output);
    else
      clear_bit(credit_bits_[vc].row(0), output);
  }
}

void SwitchCore::set_output_buffer(int output, int vc_flits, int shared_flits) {
  out_credit_.at(static_cast<size_t>(output)) =
      CreditPool(v_, static_cast<uint32_t>(vc_flits), static_cast<uint32_t>(shared_flits), p_.classes);
  update_credit_bits(output);
}

void SwitchCore::set_output_receiver(int output, const DownstreamBuffer& rx) {
  set_output_buffer(output, rx.vc_flits, rx.shared_flits);
  if (!cmd_) return;
  out_cmd_.at(static_cast<size_t>(output)) =
      CreditPool(v_, static_cast<uint32_t>(rx.cmd_vc), static_cast<uint32_t>(rx.cmd_shared), p_.classes);
  update_cmd_low(output);
}

void SwitchCore::account_window(uint64_t from, uint64_t to) {
  const uint64_t a = std::max(from, p_.window_begin), b = std::min(to, p_.window_end);
  if (a >= b) return;
  const uint64_t cycles = b - a;
  stats_.window_cycles += cycles;
  if (total_occupancy_ == 0) return;
  for (int i = 0; i < n_; ++i)
    stats_.occupancy_flit_cycles[i] += static_cast<uint64_t>(occupancy_[i]) * cycles;
}

namespace {

// The earliest of slots [from, to).
uint64_t earliest(const std::vector<uint64_t>& slots, int from, int to) {
  uint64_t m = UINT64_MAX;
  for (int k = from; k < to; ++k) m = std::min(m, slots[static_cast<size_t>(k)]);
  return m;
}

}  // namespace

void SwitchCore::tick(uint64_t t) {
  wake_ = 0;
  // Cycles slept through since the last tick kept the occupancy they had.
  if (t > accounted_until_) account_window(accounted_until_, t);
  if (!paths_chosen_) choose_paths();
  if (t >= next_avoid_) apply_route_changes(t);  // faults.switch_down, faults.link_down between switches
  const bool in_window = t >= p_.window_begin && t < p_.window_end;
  if (!total_queued_) last_grant_ = t;  // the watchdog only counts time with flits waiting

  // Declared once: a Flit is 40 bytes to zero, and most ports have nothing in a cycle.
  Credit c;
  Flit f;
  // 1. Downstream credits (more than one per cycle from a receiver with crossbar speedup). Ports
  // go by blocks (in_wake_ ... egress_wake_ in switch_core.h): a block with nothing due is passed
  // over. A block looked at gets t + 1 as its wake cycle when something was due in it (every slot
  // is later than t once it was looked at: a busy block is looked at again in the next cycle
  // without scanning it twice), else its ports' earliest slot.
  const size_t blocks = credit_wake_.size();
  for (size_t b = 0; b < blocks; ++b) {
    if (credit_wake_[b] > t) continue;
    const int o0 = block_first(b), o1 = block_end(b);
    bool hit = false;
    for (int o = o0; o < o1; ++o) {
      if (out_credit_due_[static_cast<size_t>(o)] > t) continue;
      hit = true;
      Link* link = out_links_[o];
      while (link->receive_credit(t, c)) {
        out_credit_[o].give(c.vc, c.shared);
        if (c.cmds) {
          out_cmd_[o].give_n(c.vc, static_cast<uint32_t>(c.cmds - c.cmd_shared), c.cmd_shared);
          if (test_bit(cmd_low_.row(0), o)) {  // giving never makes an output short
            dirty_output(o);  // a short output's requests depend on its command credits
            update_cmd_low(o);
          }
        }
        // A reserved credit makes only its VC available; a shared one refilling an empty pool may
        // make every VC available.
        if (c.shared && out_credit_[o].shared_for(c.vc) == 1) {
          update_credit_bits(o);
        } else if (!test_bit(credit_bits_[c.vc].row(0), o)) {
          set_bit(credit_bits_[c.vc].row(0), o);
          dirty_output(o);
        }
      }
      link->refresh_credit_due();
    }
    credit_wake_[b] = hit ? t + 1 : earliest(out_credit_due_, o0, o1);
  }
  // 2-3. Arrivals enter the routing stage; flits leaving it join their queue.
  for (size_t b = 0; b < blocks; ++b) {
    if (in_wake_[b] > t) continue;
    const int i0 = block_first(b), i1 = block_end(b);
    bool hit = false;
    for (int i = i0; i < i1; ++i) {
      const auto ii = static_cast<size_t>(i);
      bool got = false;
      if (in_flit_due_[ii] <= t) {
        hit = true;
        got = in_links_[ii]->receive_flit(t, f);
        in_links_[ii]->refresh_flit_due();
      }
      if (got) {
        ++occupancy_[i];
        ++total_occupancy_;
        ++stats_.received_flits[i];
        stats_.peak_occupancy[i] = std::max<uint64_t>(stats_.peak_occupancy[i], occupancy_[i]);
        if (p_.routing_cycles == 0) {
          route_in(i, f, t);
        } else {
          routing_[ii].push(t, f);
          routing_due_[ii] = routing_[ii].next_due();
          ++routing_flits_;
        }
      }
      if (routing_due_[ii] == t) {
        hit = true;
        routing_[ii].pop(t, f);
        routing_due_[ii] = routing_[ii].next_due();
        --routing_flits_;
        route_in(i, f, t);
      }
    }
    in_wake_[b] = hit ? t + 1 : std::min(earliest(in_flit_due_, i0, i1), earliest(routing_due_, i0, i1));
  }
  // 4-8. Allocation and crossbar. Packet mode: the pairs matched before this cycle whose packet
  // flows (a switch that slept had nothing queued, so every match ended in the first cycle it slept).
  if (pm_) collect_matched(t > accounted_until_);
  if (p_.queueing == Queueing::kVc && va_requests_) allocate_vcs(t);
  if (total_queued_) {
    if (spec_) {
      granted_in_.clear_row(0);
      granted_out_.clear_row(0);
    }
    // With crossbar speedup S, up to S rounds, each on the state the previous one left.
    for (int round = 0; round < speedup_; ++round) {
      build_requests(t);
      if (req_inputs_.empty()) break;
      ++stats_.allocation_rounds;
      allocator_->allocate(AllocRequest{&req_, &req_t_, &req_inputs_, &req_outputs_}, match_);
      bool granted = false;
      for (int i : req_inputs_) {
        const int o = match_[i];
        if (o < 0) continue;
        if (spec_) {
          set_bit(granted_in_.row(0), i);
          set_bit(granted_out_.row(0), o);
        }
        grant(i, o, pick_vc(i, o), t, in_window);
        match_[i] = -1;
        granted = true;
      }
      if (!granted) break;  // nothing changed: another round would find the same requests
    }
    if (spec_) speculate(t, in_window);  // after the non-speculative grants, which win
    if (pm_ && !pm_serving_.empty()) serve_locked(t, in_window);
    if (in_window) {
      const uint64_t* s = stall_.row(0);
      for (int w = 0; w < words_; ++w)
        for (uint64_t bits = s[w]; bits; bits &= bits - 1)
          ++stats_.credit_stall_cycles[(w << 6) + __builtin_ctzll(bits)];
    }
    if (p_.watchdog_cycles && t - last_grant_ > p_.watchdog_cycles)
      throw DeadlockError("deadlock: " + std::to_string(total_queued_) +
                              " flits queued in the switch and no grant for " +
                              std::to_string(t - last_grant_) + " cycles (cycle " +
                              std::to_string(t) + ")",
                          dump_state(t));
  }
  if (discard_pending_) send_discard_credits(t);
  if (obuf_total_) drain_output_buffers(t);
  // Output pipeline: flits whose allocation + crossbar + egress stages end now leave.
  if (egress_flits_) {
    for (size_t b = 0; b < blocks; ++b) {
      if (egress_wake_[b] > t) continue;
      const int o0 = block_first(b), o1 = block_end(b);
      bool hit = false;
      for (int o = o0; o < o1; ++o) {
        const auto oo = static_cast<size_t>(o);
        if (egress_due_[oo] == t) {
          hit = true;
          egress_[oo].pop(t, f);
          egress_due_[oo] = egress_[oo].next_due();
          --egress_flits_;
          out_links_[o]->send_flit(t, f);
        }
      }
      egress_wake_[b] = hit ? t + 1 : earliest(egress_due_, o0, o1);
    }
  }
  if (t + 1 > accounted_until_) {
    account_window(t, t + 1);
    accounted_until_ = t + 1;
  }
}

uint64_t SwitchCore::next_activity(uint64_t t) const {
  if (total_queued_ || va_requests_ || discard_pending_ || obuf_total_) return t + 1;
  // The due slots (in_flit_due_ ... egress_due_) hold exactly what the links and stages would
  // answer, in four arrays of the switch's own, except an input slot of 0 (a data-link layer
  // holding something), where the link answers.
  // A block's wake cycle, when later than t + 1, is its ports' earliest slot (t + 1 may stand
  // for a busy block's "soon": tick() does not scan it twice); otherwise the block is scanned and
  // its wake cycle set to its earliest slot, so the next tick passes over it if it went quiet.
  uint64_t next = UINT64_MAX;
  for (size_t b = 0; b < in_wake_.size(); ++b) {
    const int p0 = block_first(b), p1 = block_end(b);
    if (in_wake_[b] <= t + 1) {
      uint64_t slots = UINT64_MAX;
      for (int i = p0; i < p1; ++i) {
        const uint64_t in = in_flit_due_[static_cast<size_t>(i)], rt = routing_due_[static_cast<size_t>(i)];
        slots = std::min({slots, in, rt});
        next = std::min({next, in != 0 ? in : in_links_[i]->next_flit_due(), rt});
      }
      in_wake_[b] = slots;  // a data-link layer's slot of 0 keeps its block looked at every cycle
    }
    if (credit_wake_[b] <= t + 1) credit_wake_[b] = earliest(out_credit_due_, p0, p1);
    if (egress_wake_[b] <= t + 1) egress_wake_[b] = earliest(egress_due_, p0, p1);
    next = std::min({next, in_wake_[b] != 0 ? in_wake_[b] : next, credit_wake_[b], egress_wake_[b]});
  }
  return std::max(next, t + 1);
}

void SwitchCore::unroutable(const Flit& f) const {
  throw std::logic_error("SwitchCore: a flit for endpoint " + std::to_string(f.dst) +
                         ", which this switch has no route to (a model defect: senders never address it here)");
}

}  // namespace upswitch::core
