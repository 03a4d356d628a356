// SwitchCore: allocation requests built output by output (voq without packet mode or crossbar
// speedup). Input i requests output o when, on some VC v, i has a flit queued for o, o has a
// credit for v, and o's VC v is free or held by i's packet; and o's link can start a flit in this
// cycle's grant slot. The general path (build_requests) ORs this per input over its queued VCs;
// here each output ORs the columns of the inputs queued for it, so a cycle costs a few word
// operations per output with queued flits, however many inputs wait. Credit stalls are counted
// the same way: an output with a flit queued on a VC it has no credit for. An output's requests
// and stall are kept (its req_t_ row) until something they depend on changes (out_dirty_): a
// queue for it turning empty or not, a front flit's command need, a credit bit, a hold, or, when
// it is short of command credits, those credits. A busy output with deep queues (a collective's)
// then keeps its row through most cycles; pacing is applied as the rows are used.
//
// Transactions (command credits): at an output short of them on some lane (`cmd_low_`), an input
// requests it only if one of those VCs' front flits has a command credit per message there, as
// on the general path; an input that would request it otherwise, but whose front flits there all
// lack command credits, is a stall of that output (also while the output waits for its link, as
// the general path notes stalls before it drops waiting outputs).
#include <algorithm>

#include "core/request_rows.h"
#include "core/switch_core.h"

namespace upswitch::core {

// Queue (input, output, vc) changed between empty and non-empty.
void SwitchCore::note_voq_by_output(int input, int output, int vc, bool empty) {
  dirty_output(output);
  uint64_t* col = nonempty_t_[vc].row(output);
  uint32_t& lanes = out_lanes_[static_cast<size_t>(output)];
  int& inputs = out_lane_inputs_[static_cast<size_t>(output * v_ + vc)];
  if (empty) {
    clear_bit(col, input);
    if (--inputs == 0) {
      lanes &= ~(1U << vc);
      if (!lanes) clear_bit(out_queued_.row(0), output);
    }
  } else {
    set_bit(col, input);
    ++inputs;
    if (!lanes) set_bit(out_queued_.row(0), output);
    lanes |= 1U << vc;
  }
}

// An output short of command credits: `r` gets the inputs with a VC whose front flit for it can
// go (a credit, the VC free or held by the input's packet, a command credit per message). True
// when the output stalls: a queued VC without a credit, or an input whose eligible front flits
// all lack command credits.
bool SwitchCore::short_output_requests(int o, uint64_t* r) {
  bool stalled = false;
  uint64_t* eligible = check_.data();  // inputs with some VC that could go but for command credits
  clear_words(eligible, words_);
  for (uint32_t lanes = out_lanes_[static_cast<size_t>(o)]; lanes; lanes &= lanes - 1) {
    const int vc = __builtin_ctz(lanes);
    if (!test_bit(credit_bits_[vc].row(0), o)) {
      stalled = true;
      continue;
    }
    const uint64_t* ne = nonempty_t_[vc].row(o);
    const int q = o * v_ + vc;
    const uint32_t avail = out_cmd_[o].available(vc);
    if (test_bit(held_[vc].row(0), o)) {  // only the holding input's packet may continue
      const int h = holder_[static_cast<size_t>(q)];
      if (!test_bit(ne, h)) continue;
      set_bit(eligible, h);
      if (avail >= queues_[h].front_need(q)) set_bit(r, h);
      continue;
    }
    // The inputs whose front flit needs more than `avail` cannot go: those of need_t_'s rows
    // avail + 1 .. 8 of o, or (fewer rows when avail is small, as on a starved lane) the union row
    // without rows 1 .. avail.
    const int a = static_cast<int>(std::min<uint32_t>(avail, kMaxPacketMessages));
    const uint64_t* need_rows = need_t_[static_cast<size_t>(vc)].row(o * kNeedRows);  // kNeedRows rows of words_
    const bool by_union = 2 * a <= kMaxPacketMessages;
    for (int k = 0; k < words_; ++k) {
      eligible[k] |= ne[k];
      uint64_t blocked = 0;
      if (by_union) {
        uint64_t fit = 0;
        for (int n = 1; n <= a; ++n) fit |= need_rows[n * words_ + k];
        blocked = need_rows[k] & ~fit;
      } else {
        for (int n = a + 1; n <= kMaxPacketMessages; ++n) blocked |= need_rows[n * words_ + k];
      }
      r[k] |= ne[k] & ~blocked;
    }
  }
  for (int k = 0; k < words_ && !stalled; ++k) stalled = (eligible[k] & ~r[k]) != 0;
  return stalled;
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
  // Command credits: outputs with a lane short of a full packet's (null when there are none).
  const uint64_t* low = cmd_ && any_bit(cmd_low_.row(0), words_) ? cmd_low_.row(0) : nullptr;
  const uint64_t* queued = out_queued_.row(0);
  uint64_t* dirty = out_dirty_.row(0);
  for (int w = 0; w < words_; ++w)
    for (uint64_t bits = queued[w]; bits; bits &= bits - 1) {
      const int o = (w << 6) + __builtin_ctzll(bits);
      uint64_t* kept = req_t_.row(o);  // kept from cycle to cycle on this path
      if (test_bit(dirty, o)) {  // built again: something it depends on changed
        clear_bit(dirty, o);
        clear_words(kept, words_);
        bool stalled = false;
        if (low && test_bit(low, o)) {
          stalled = short_output_requests(o, kept);
        } else {
          for (uint32_t lanes = out_lanes_[static_cast<size_t>(o)]; lanes; lanes &= lanes - 1) {
            const int vc = __builtin_ctz(lanes);
            if (!test_bit(credit_bits_[vc].row(0), o)) {
              stalled = true;
              continue;
            }
            const uint64_t* ne = nonempty_t_[vc].row(o);
            if (test_bit(held_[vc].row(0), o)) {  // only the holding input's packet may continue
              const int h = holder_[static_cast<size_t>(o * v_ + vc)];
              if (test_bit(ne, h)) set_bit(kept, h);
            } else {
              for (int k = 0; k < words_; ++k) kept[k] |= ne[k];
            }
          }
        }
        out_stall_[static_cast<size_t>(o)] = stalled ? 1 : 0;
      }
      if (out_stall_[static_cast<size_t>(o)]) set_bit(stall, o);
      // Waiting for its link, it cannot start a flit in this cycle's grant slot (its stall counts).
      if ((wait && test_bit(wait, o)) || !any_bit(kept, words_)) continue;
      req_outputs_.push_back(o);
      for (int k = 0; k < words_; ++k) inputs[k] |= kept[k];
      if (by_input) scatter_row(kept, words_, o, req_);
    }
  list_requested_outputs(inputs, words_, req_inputs_);  // the set bits ascending, here of inputs
}

}  // namespace upswitch::core
