// SwitchCore: speculative switch allocation (switch.speculative, vc queueing only; doc/
// architecture.md "Speculation"). A head in VC allocation asks for the crossbar in the same
// cycle instead of waiting for its VC (Peh and Dally, HPCA 2001; BookSim's speculative = 1):
// heads that got their output VC in this cycle's VC allocation and would otherwise become
// eligible next cycle, and heads whose VC allocation failed. Their requests go to a second
// allocator over the inputs and outputs the non-speculative allocation left unmatched, so a
// non-speculative request always wins. A grant to a head that has its VC and a credit moves it;
// a grant to a head without a VC is lost, as in hardware.
#include "core/request_rows.h"
#include "core/switch_core.h"

namespace upswitch::core {

void SwitchCore::build_spec_requests(uint64_t t) {
  const bool transpose = spec_allocator_->needs_by_output();
  for (int i : req_inputs_) req_.clear_row(i);
  if (transpose)
    for (int o : req_outputs_) req_t_.clear_row(o);
  req_inputs_.clear();
  req_outputs_.clear();
  any_.clear_row(0);
  uint64_t* any = any_.row(0);
  const uint64_t* act = active_.row(0);
  const uint64_t* gin = granted_in_.row(0);
  const uint64_t* gout = granted_out_.row(0);
  const uint64_t* pm_in = pm_ ? pm_in_.row(0) : nullptr;
  const uint64_t* pm_outs = pm_ ? pm_outs_.row(0) : nullptr;
  for (int w = 0; w < words_; ++w) {
    uint64_t bits = act[w] & ~gin[w];
    if (pm_in) bits &= ~pm_in[w];
    for (; bits; bits &= bits - 1) {
      const int i = (w << 6) + __builtin_ctzll(bits);
      uint64_t* row = req_.row(i);
      uint32_t asked = 0;
      for (uint32_t ne = ivc_nonempty_[i]; ne; ne &= ne - 1) {
        const int vc = __builtin_ctz(ne);
        const int idx = i * v_ + vc;
        const Flit& f = queues_[i].front(vc);
        if (!f.head()) continue;
        const int o = ivc_out_port_[idx], ovc = ivc_out_vc_[idx];
        if (test_bit(gout, o) || (pm_outs && test_bit(pm_outs, o))) continue;
        // A head with its VC asks only in the last cycle of its VC allocation (earlier it waits,
        // later it asked without speculation), and only with a credit to use.
        if (ovc >= 0 && (t + 1 != ivc_ready_[idx] || !test_bit(credit_bits_[ovc].row(0), o) || !head_fits(f, o, ovc)))
          continue;
        set_bit(row, o);
        asked |= 1U << vc;
      }
      spec_vcs_[static_cast<size_t>(i)] = asked;
      if (asked) add_request_row(i, row, words_, transpose, req_t_, req_inputs_, any);
    }
  }
  list_requested_outputs(any, words_, req_outputs_);
  if (paced_) drop_unready_outputs(t);
}

// After the non-speculative grants are committed: the speculative requests, the allocation among
// them, and their grants. The input picks among its heads that asked for the granted output the
// first at or after its VC pointer; a head without an output VC loses the grant.
void SwitchCore::speculate(uint64_t t, bool in_window) {
  build_spec_requests(t);
  if (req_inputs_.empty()) return;
  spec_allocator_->allocate(AllocRequest{&req_, &req_t_, &req_inputs_, &req_outputs_}, match_);
  for (int i : req_inputs_) {
    const int o = match_[i];
    if (o < 0) continue;
    match_[i] = -1;
    uint32_t candidates = 0;
    for (uint32_t a = spec_vcs_[static_cast<size_t>(i)]; a; a &= a - 1) {
      const int vc = __builtin_ctz(a);
      if (ivc_out_port_[i * v_ + vc] == o) candidates |= 1U << vc;
    }
    const uint32_t at_or_after = candidates & (~0U << vc_ptr_[i]);
    const int vc = __builtin_ctz(at_or_after ? at_or_after : candidates);
    if (ivc_out_vc_[i * v_ + vc] < 0) {
      ++stats_.speculative_wasted;
      continue;
    }
    ++stats_.speculative_grants;
    grant(i, o, vc, t, in_window);
  }
}

}  // namespace upswitch::core
