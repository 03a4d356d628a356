// SwitchCore: requests, VC allocation, VC choice and the commit of a grant.
#include <algorithm>

#include "core/request_rows.h"
#include "core/switch_core.h"

namespace upswitch::core {

bool SwitchCore::can_use_output_vc(int input, int output, int vc) const {
  if (!test_bit(credit_bits_[vc].row(0), output)) return false;
  const int h = holder_[output * v_ + vc];
  return h < 0 || h == input;
}

// voq with command credits: an (input, output) request stands only if some VC's front flit there
// can go, its head having a command credit per message at the receiver behind the output. Only
// outputs with a lane short of a full packet's credits (`low`) need the look at the front flits,
// and then only on the VCs that could go otherwise: `check` holds the outputs VC `vc` of input `i`
// could serve that are low and not yet known to fit. Adds to `fits` those its front flit fits.
void SwitchCore::fitting_outputs(int i, int vc, const uint64_t* check, uint64_t* fits) const {
  for (int k = 0; k < words_; ++k)
    for (uint64_t r = check[k] & ~fits[k]; r; r &= r - 1) {
      const int o = (k << 6) + __builtin_ctzll(r);
      if (front_fits(i, o * v_ + vc, o, vc)) fits[k] |= uint64_t{1} << (o & 63);
    }
}

void SwitchCore::build_requests(uint64_t t) {
  const bool transpose = allocator_->needs_by_output();
  for (int i : req_inputs_) req_.clear_row(i);
  if (transpose && !by_output_)  // (output by output the rows are kept: switch_requests_by_output.cpp)
    for (int o : req_outputs_) req_t_.clear_row(o);
  req_inputs_.clear();
  req_outputs_.clear();
  stall_.clear_row(0);
  if (by_output_) {
    build_requests_by_output(t);
    return;
  }
  uint64_t* stall = stall_.row(0);
  any_.clear_row(0);
  uint64_t* any = any_.row(0);  // OR of all request rows (sized from the port count)
  const uint64_t* act = active_.row(0);
  // Packet mode: matched inputs and outputs stay out of allocation while their packet flows.
  const uint64_t* pm_in = pm_ ? pm_in_.row(0) : nullptr;
  const uint64_t* pm_outs = pm_ ? pm_outs_.row(0) : nullptr;
  // Command credits: outputs with a lane short of a full packet's (null when there are none).
  const uint64_t* low = cmd_ && any_bit(cmd_low_.row(0), words_) ? cmd_low_.row(0) : nullptr;
  // Paced outputs whose link cannot start a flit in this cycle's grant slot (see drop_unready_outputs).
  const uint64_t* wait = nullptr;
  if (pace_rows_) {
    refresh_pace_wait(t);
    wait = pace_wait_.row(0);
  }

  for (int w = 0; w < words_; ++w) {
    for (uint64_t bits = pm_in ? act[w] & ~pm_in[w] : act[w]; bits; bits &= bits - 1) {
      const int i = (w << 6) + __builtin_ctzll(bits);
      uint64_t* row = req_.row(i);
      if (p_.queueing == Queueing::kVoq) {
        // With command credits and some output low on them, `fits` collects the outputs some VC's
        // front flit can use; otherwise every eligible output fits.
        uint64_t* fits = low ? fits_.data() : nullptr;
        if (fits) clear_words(fits, words_);
        for (uint32_t lanes = voq_lanes_[i]; lanes; lanes &= lanes - 1) {  // VCs with a queued flit
          const int vc = __builtin_ctz(lanes);
          const uint64_t* ne = nonempty_[vc].row(i);
          const uint64_t* cred = credit_bits_[vc].row(0);
          const uint64_t* held = held_[vc].row(0);
          const uint64_t* mine = held_by_[vc].row(i);
          uint64_t* check = check_.data();
          uint64_t any_check = 0;
          for (int k = 0; k < words_; ++k) {
            const uint64_t e = ne[k] & cred[k] & (~held[k] | mine[k]);
            row[k] |= e;
            stall[k] |= ne[k] & ~cred[k];
            if (fits) {
              fits[k] |= e & ~low[k];
              any_check |= check[k] = e & low[k];
            }
          }
          if (any_check) fitting_outputs(i, vc, check, fits);
        }
        if (pm_outs)
          for (int k = 0; k < words_; ++k) row[k] &= ~pm_outs[k];
        if (fits)
          for (int k = 0; k < words_; ++k) {  // requests no VC's front flit can use stall
            stall[k] |= row[k] & ~fits[k];
            row[k] &= fits[k];
          }
      } else if (p_.queueing == Queueing::kFifo) {
        const Flit& f = queues_[i].front(0);
        const int o = f.out;
        if (pm_outs && test_bit(pm_outs, o)) {
          // matched to another input's packet
        } else if (can_use_output_vc(i, o, f.vc)) {
          set_bit(row, o);
        } else if (!test_bit(credit_bits_[f.vc].row(0), o)) {
          set_bit(stall, o);
        }
      } else {
        uint32_t eligible = 0;
        for (uint32_t ne = ivc_nonempty_[i]; ne; ne &= ne - 1) {
          const int vc = __builtin_ctz(ne);
          const int idx = i * v_ + vc;
          const int ovc = ivc_out_vc_[idx];
          // A body flit's packet passed its head's ready cycle already, so one compare suffices.
          if (ovc < 0 || t < ivc_ready_[idx]) continue;
          const int o = ivc_out_port_[idx];
          if (pm_outs && test_bit(pm_outs, o)) continue;  // matched to another input's packet
          if (test_bit(credit_bits_[ovc].row(0), o) && front_fits(i, vc, o, ovc)) {
            set_bit(row, o);
            eligible |= 1U << vc;
          } else {
            set_bit(stall, o);
          }
        }
        ivc_eligible_[i] = eligible;
      }
      if (wait)  // after the stalls are noted: an output that waits for its link still counts a credit stall
        for (int k = 0; k < words_; ++k) row[k] &= ~wait[k];
      if (any_bit(row, words_)) add_request_row(i, row, words_, transpose, req_t_, req_inputs_, any);
    }
  }
  list_requested_outputs(any, words_, req_outputs_);
  if ((paced_ && !pace_rows_) || speedup_ > 1) drop_unready_outputs(t);
}

// Outputs whose link became ready by cycle `t` leave the wait row.
void SwitchCore::refresh_pace_wait(uint64_t t) {
  uint64_t* wait = pace_wait_.row(0);
  for (int k = 0; k < words_; ++k)
    for (uint64_t bits = wait[k]; bits; bits &= bits - 1) {
      const int b = __builtin_ctzll(bits);
      if (pace_ready_at_[static_cast<size_t>((k << 6) + b)] <= t) wait[k] &= ~(uint64_t{1} << b);
    }
}

// Outputs whose link cannot start a flit in this cycle's grant slot take no requests (the grant
// stands for the flit's link start Sa + X + E cycles later; with a fixed pipeline pacing either
// point is the same). With crossbar speedup the output buffer paces the link instead, and an
// output whose buffer is full takes no requests.
void SwitchCore::drop_unready_outputs(uint64_t t) {
  uint64_t* unready = unready_.data();
  clear_words(unready, words_);
  size_t keep_out = 0;
  for (int o : req_outputs_) {
    if (speedup_ > 1 ? obuf_count_[static_cast<size_t>(o)] < obuf_cap_ : out_links_[o]->tx_ready(t)) {
      req_outputs_[keep_out++] = o;
      continue;
    }
    set_bit(unready, o);
    req_t_.clear_row(o);
  }
  if (keep_out == req_outputs_.size()) return;
  req_outputs_.resize(keep_out);
  // One pass over the requesting inputs' rows, whatever the number of outputs dropped.
  size_t keep_in = 0;
  for (int i : req_inputs_) {
    uint64_t* row = req_.row(i);
    uint64_t left = 0;
    for (int k = 0; k < words_; ++k) left |= row[k] &= ~unready[k];
    if (left) req_inputs_[keep_in++] = i;
  }
  req_inputs_.resize(keep_in);
}

int SwitchCore::pick_vc(int input, int output) const {
  if (p_.queueing == Queueing::kFifo) return queues_[input].front(0).vc;
  uint32_t candidates = 0;  // VCs of this input with an eligible flit for `output`
  if (p_.queueing == Queueing::kVoq) {
    for (uint32_t lanes = voq_lanes_[input]; lanes; lanes &= lanes - 1) {
      const int vc = __builtin_ctz(lanes);
      if (test_bit(nonempty_[vc].row(input), output) && can_use_output_vc(input, output, vc) &&
          front_fits(input, output * v_ + vc, output, vc))
        candidates |= 1U << vc;
    }
  } else {
    // Eligibility was settled when the requests were built this cycle.
    for (uint32_t e = ivc_eligible_[input]; e; e &= e - 1) {
      const int vc = __builtin_ctz(e);
      if (ivc_out_port_[input * v_ + vc] == output) candidates |= 1U << vc;
    }
  }
  if (!candidates) throw std::logic_error("SwitchCore: granted input has no eligible VC");
  // First candidate at or after the VC pointer, cyclically.
  const int ptr = vc_ptr_[input];
  const uint32_t at_or_after = candidates & (~0U << ptr);
  return __builtin_ctz(at_or_after ? at_or_after : candidates);
}

void SwitchCore::commit_lane(int i, int o, int vc, uint64_t t) {
  int q = 0, ovc = vc;
  if (p_.queueing == Queueing::kVc) {
    q = vc;
    ovc = ivc_out_vc_[i * v_ + vc];
  } else if (p_.queueing == Queueing::kVoq) {
    q = o * v_ + vc;
  }
  if (p_.queueing != Queueing::kFifo) vc_ptr_[i] = vc + 1 == v_ ? 0 : vc + 1;

  Flit f = queues_[i].pop(q);
  const uint8_t was_need = SlotQueues::need_of(f);  // the queue's front was this flit
  if (pm_classes_ && vc >= p_.vcs) {
    --pm_rsp_in_[i];
    --pm_rsp_out_[o];
  }
  if (pm_) {  // packet mode: a granted flit other than the tail (re)matches its pair
    const bool matched = test_bit(pm_in_.row(0), i);
    if (!f.tail() && !matched)
      lock_pair(i, o, vc);
    else if (f.tail() && matched)
      unlock_pair(i, o);
  }
  if (--queued_[i] == 0) clear_bit(active_.row(0), i);
  --total_queued_;
  --occupancy_[i];
  --total_occupancy_;
  Credit up{f.vc, f.shared_credit()};
  up.out = f.out;
  if (cmd_ && f.tail()) {  // the packet has left this input: its command slots are free
    up.cmds = f.msgs;
    up.cmd_shared = f.cmd_shared;
  }
  if (drop_credit_[i])
    drop_credit_[i] = 0;
  else
    in_links_[i]->send_credit(t, up);

  const bool shared = out_credit_[o].take(ovc);
  f.set_shared_credit(shared);
  if (cmd_) {
    uint8_t& cs = out_cmd_shared_[static_cast<size_t>(o * v_ + ovc)];
    if (f.head()) {
      // A short output's requests depend on its command credits (one turning short is marked by
      // update_cmd_low).
      if (test_bit(cmd_low_.row(0), o)) dirty_output(o);
      cs = static_cast<uint8_t>(out_cmd_[o].take_n(ovc, f.msgs));
      // Taking reserved credits only changes this lane; a shared take changes the whole class.
      if (cs || out_cmd_[o].available(ovc) < static_cast<uint32_t>(kMaxPacketMessages)) update_cmd_low(o);
    }
    f.cmd_shared = cs;
  }
  f.vc = static_cast<uint8_t>(ovc);
  // Only this VC's bit can change, unless the shared pool ran dry (then every VC's can).
  if (shared && out_credit_[o].shared_for(ovc) == 0) {
    update_credit_bits(o);
  } else if (!out_credit_[o].can_take(ovc)) {
    clear_bit(credit_bits_[ovc].row(0), o);
    dirty_output(o);
  }

  const int h = o * v_ + ovc;
  const bool take = p_.queueing != Queueing::kVc && f.head() && !f.tail();
  const bool release = f.tail() && (p_.queueing == Queueing::kVc || !f.head());
  if (take || release) dirty_output(o);  // its holds changed
  if (take) {
    holder_[h] = i;
    set_bit(held_[ovc].row(0), o);
    set_bit(held_by_[ovc].row(i), o);
  } else if (release) {
    if (p_.queueing != Queueing::kVc) {  // (vc queueing's allocation reads holder_ alone)
      clear_bit(held_[ovc].row(0), o);
      clear_bit(held_by_[ovc].row(holder_[h]), o);
    }
    holder_[h] = -1;
    if (p_.queueing == Queueing::kVc) {
      ivc_out_vc_[i * v_ + vc] = -1;
      vc_free_mask_[o] |= 1U << ovc;
      set_bit(va_free_.row(0), o);
    }
  }
  on_front_changed(i, q, o, vc, was_need);

  if (speedup_ > 1) {
    buffer_output(o, t, f);  // the output buffer paces the link
  } else {
    out_links_[o]->tx_take(t);
    if (pace_rows_) {
      const uint64_t ready = out_links_[o]->tx_next_ready(t);
      pace_ready_at_[static_cast<size_t>(o)] = ready;
      if (ready > t)
        set_bit(pace_wait_.row(0), o);
      else
        clear_bit(pace_wait_.row(0), o);
    }
    if (egress_in_link_[static_cast<size_t>(o)] || p_.output_pipeline_cycles() == 0) {  // the link has the stages
      out_links_[o]->send_flit(t, f);
    } else {
      egress_[o].push(t, f);
      egress_due_[static_cast<size_t>(o)] = egress_[o].next_due();
      uint64_t& w = egress_wake_[static_cast<size_t>(o) / kPortBlock];
      w = std::min(w, egress_due_[static_cast<size_t>(o)]);
      ++egress_flits_;
    }
  }
  last_grant_ = t;
  ++stats_.grants;
  ++stats_.sent_flits[o];
}

// Heads wait in per-output buckets. Each cycle, every output that has waiting heads and a free
// VC serves them in round-robin order of their index (input * V + vc) from its VA pointer,
// giving each the lowest free VC. Outputs without a free VC would serve nobody: they are skipped.
void SwitchCore::allocate_vcs(uint64_t t) {
  const uint64_t* waiting = va_waiting_.row(0);
  const uint64_t* free = va_free_.row(0);
  for (int w = 0; w < words_; ++w)
    for (uint64_t bits = waiting[w] & free[w]; bits; bits &= bits - 1) allocate_vcs_at((w << 6) + __builtin_ctzll(bits), t);
}

void SwitchCore::allocate_vcs_at(int o, uint64_t t) {
  const int span = n_ * v_;
  std::vector<int>& b = va_bucket_[o];
  const int ptr = va_ptr_[o];
  auto dist = [&](int idx) { return idx >= ptr ? idx - ptr : idx - ptr + span; };
  for (size_t k = 1; k < b.size(); ++k)  // insertion sort: buckets hold a few entries
    for (size_t j = k; j > 0 && dist(b[j]) < dist(b[j - 1]); --j) std::swap(b[j], b[j - 1]);
  uint32_t& free = vc_free_mask_[o];
  int last = -1;
  size_t kept = 0;
  for (size_t k = 0; k < b.size(); ++k) {
    const int idx = b[k];
    const LaneOf lane = lane_of_[static_cast<size_t>(idx)];
    // A head gets the lowest free VC of its own message class (all VCs when there is one class).
    uint32_t mine = free & class_vc_mask_[lane.vc];
    if (p_.vc_classes == 2) {  // the upper class once the packet crossed a dateline (or crosses one now)
      const bool upper = upper_vc_[lane.vc] || p_.dateline_ports[static_cast<size_t>(o)];
      mine &= dclass_mask_[upper ? 1 : 0];
    }
    if (!mine) {
      b[kept++] = idx;
      continue;
    }
    const int vc = __builtin_ctz(mine);
    free &= ~(1U << vc);
    const int input = lane.input;
    holder_[o * v_ + vc] = input;
    ivc_out_vc_[idx] = vc;
    ivc_ready_[idx] = t + static_cast<uint64_t>(p_.vc_alloc_cycles);
    last = idx;
  }
  const size_t served = b.size() - kept;
  b.resize(kept);
  if (last < 0) return;
  va_requests_ -= served;
  va_ptr_[o] = last + 1 == span ? 0 : last + 1;
  if (b.empty()) clear_bit(va_waiting_.row(0), o);
  if (!free) clear_bit(va_free_.row(0), o);
}

}  // namespace upswitch::core
