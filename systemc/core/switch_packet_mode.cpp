// SwitchCore: packet mode (switch.packet_mode, doc/architecture.md "Packet mode"). A granted flit
// other than its packet's tail matches its input and output: while matched, the allocator skips
// both and the pair moves the packet's next flit every cycle, so the packet crosses whole
// (packet-mode scheduling, Marsan et al., IEEE/ACM ToN 2002). A match holds only while the packet
// flows: a cycle in which its next flit is not there or has no credit ends it (collect_matched).
// So a matched pair never waits on a resource, and adds no dependency between VCs or classes.
#include "core/switch_core.h"

namespace upswitch::core {

void SwitchCore::lock_pair(int input, int output, int lane) {
  pm_out_[input] = output;
  pm_lane_[input] = lane;
  set_bit(pm_in_.row(0), input);
  set_bit(pm_outs_.row(0), output);
  ++pm_matches_;
}

void SwitchCore::unlock_pair(int input, int output) {
  pm_out_[input] = -1;
  clear_bit(pm_in_.row(0), input);
  clear_bit(pm_outs_.row(0), output);
  --pm_matches_;
}

// Before allocation: a matched pair whose packet's next flit has not arrived (its sender
// interleaves packets on the link, or is short of credits) or has no credit downstream ends its
// match, so that neither its input nor its output idles this cycle; its packet goes on
// flit by flit and is matched again when one of its flits other than the tail is granted. The
// pairs that stay are served after allocation. A request's match also ends while a response waits
// for its input or its output, so packet mode never makes a response wait behind a request. A
// switch that slept through the cycles before `t` had nothing queued, so every match ended in
// the first of them.
void SwitchCore::collect_matched(bool slept) {
  pm_serving_.clear();
  if (!pm_matches_) return;
  const uint64_t* m = pm_in_.row(0);
  for (int w = 0; w < words_; ++w) {
    for (uint64_t bits = m[w]; bits; bits &= bits - 1) {
      const int i = (w << 6) + __builtin_ctzll(bits);
      const int o = pm_out_[i], lane = pm_lane_[i];
      const int q = p_.queueing == Queueing::kVoq ? o * v_ + lane : p_.queueing == Queueing::kVc ? lane : 0;
      const int ovc = p_.queueing == Queueing::kVc ? ivc_out_vc_[i * v_ + lane] : lane;
      const bool yield = pm_classes_ && lane < p_.vcs && (pm_rsp_in_[i] || pm_rsp_out_[o]);
      if (slept || yield || queues_[i].empty(q) || !out_credit_[o].can_take(ovc))
        unlock_pair(i, o);
      else
        pm_serving_.push_back(i);
    }
  }
}

// After allocation: each pair still matched moves its packet's next flit when the output link
// can take it. Their inputs and outputs took no part in the allocation, so the order they are
// served in changes nothing.
void SwitchCore::serve_locked(uint64_t t, bool in_window) {
  for (int i : pm_serving_) {
    const int o = pm_out_[i];
    if (paced_ && !out_links_[o]->tx_ready(t)) continue;
    grant(i, o, pm_lane_[i], t, in_window);
  }
}

}  // namespace upswitch::core
