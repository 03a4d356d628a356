// SwitchCore: allocation requests built output by output (voq without command credits, packet
// mode or crossbar speedup). Input i requests output o when, on some VC v, i has a flit queued for
// o, o has a credit for v, and o's VC v is free or held by i's packet; and o's link can start a
// flit in this cycle's grant slot. The general path (build_requests) ORs this per input over its
// queued VCs; here each output ORs the columns of the inputs queued for it, so a cycle costs a few
// word operations per output with queued flits, however many inputs wait. Credit stalls are
// counted the same way: an output with a flit queued on a VC it has no credit for.
#include "core/request_rows.h"
#include "core/switch_core.h"

namespace upswitch::core {

// Queue (input, output, vc) changed between empty and non-empty.
void SwitchCore::note_voq_by_output(int input, int output, int vc, bool empty) {
  uint64_t* col = nonempty_t_[vc].row(output);
  uint32_t& lanes = out_lanes_[static_cast<size_t>(output)];
  if (empty) {
    clear_bit(col, input);
    if (!any_bit(col, words_)) {
      lanes &= ~(1U << vc);
      if (!lanes) clear_bit(out_queued_.row(0), output);
    }
  } else {
    set_bit(col, input);
    if (!lanes) set_bit(out_queued_.row(0), output);
    lanes |= 1U << vc;
  }
}

// Called by build_requests after it cleared the previous cycle's requests.
void SwitchCore::build_requests_by_output(uint64_t t) {
  const bool by_input = allocator_->needs_by_input();
  uint64_t* stall = stall_.row(0);
  any_.clear_row(0);
  uint64_t* inputs = any_.row(0);  // the general path's OR of request rows, here of the columns
  const uint64_t* wait = nullptr;
  if (pace_rows_) {
    refresh_pace_wait(t);
    wait = pace_wait_.row(0);
  }
  const uint64_t* queued = out_queued_.row(0);
  for (int w = 0; w < words_; ++w)
    for (uint64_t bits = queued[w]; bits; bits &= bits - 1) {
      const int o = (w << 6) + __builtin_ctzll(bits);
      const bool waiting = wait && test_bit(wait, o);
      uint64_t* r = req_t_.row(o);  // all zero: only requested outputs' rows were written
      for (uint32_t lanes = out_lanes_[static_cast<size_t>(o)]; lanes; lanes &= lanes - 1) {
        const int vc = __builtin_ctz(lanes);
        if (!test_bit(credit_bits_[vc].row(0), o)) {
          set_bit(stall, o);
          continue;
        }
        if (waiting) continue;  // its link cannot start a flit in this cycle's grant slot
        const uint64_t* ne = nonempty_t_[vc].row(o);
        if (test_bit(held_[vc].row(0), o)) {  // only the holding input's packet may continue
          const int h = holder_[static_cast<size_t>(o * v_ + vc)];
          if (test_bit(ne, h)) set_bit(r, h);
        } else {
          for (int k = 0; k < words_; ++k) r[k] |= ne[k];
        }
      }
      if (waiting || !any_bit(r, words_)) continue;
      req_outputs_.push_back(o);
      for (int k = 0; k < words_; ++k) inputs[k] |= r[k];
      if (by_input) scatter_row(r, words_, o, req_);
    }
  list_requested_outputs(inputs, words_, req_inputs_);  // the set bits ascending, here of inputs
}

}  // namespace upswitch::core
