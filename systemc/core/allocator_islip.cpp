// iSLIP (McKeown, IEEE/ACM ToN 1999): iterative request-grant-accept with round-robin grant and
// accept pointers that move only on first-iteration accepts, which desynchronises them.
#include "core/allocator_impls.h"

namespace upswitch::core {

ISlip::ISlip(int n, int iterations)
    : n_(n),
      iterations_(iterations),
      grant_ptr_(n, 0),
      accept_ptr_(n, 0),
      grants_(n, n),
      in_free_(1, n),
      out_free_(1, n),
      in_granted_(1, n) {
  granted_.reserve(n);
  outputs_.reserve(n);
}

void ISlip::allocate(const AllocRequest& req, std::vector<int>& match) {
  const int words = in_free_.words();
  uint64_t* in_free = in_free_.row(0);
  uint64_t* out_free = out_free_.row(0);
  uint64_t* in_granted = in_granted_.row(0);  // empty between iterations
  for (int w = 0; w < words; ++w) in_free[w] = out_free[w] = 0;
  for (int i : *req.inputs) set_bit(in_free, i);
  for (int o : *req.outputs) set_bit(out_free, o);

  // Outputs still in play: unmatched, with an unmatched requester. Inputs only ever leave the
  // free set, so an output that drops out stays out for the rest of this allocation.
  outputs_.assign(req.outputs->begin(), req.outputs->end());
  for (int it = 0; it < iterations_ && !outputs_.empty(); ++it) {
    granted_.clear();
    size_t keep = 0;
    for (int o : outputs_) {
      if (!test_bit(out_free, o)) continue;
      const int i = rr_find(req.by_output->row(o), in_free, words, n_, grant_ptr_[o]);
      if (i < 0) continue;
      outputs_[keep++] = o;
      if (!test_bit(in_granted, i)) {  // its first grant in this iteration
        set_bit(in_granted, i);
        granted_.push_back(i);
      }
      set_bit(grants_.row(i), o);
    }
    outputs_.resize(keep);
    if (granted_.empty()) break;
    for (int i : granted_) {
      const int o = rr_find(grants_.row(i), nullptr, words, n_, accept_ptr_[i]);
      grants_.clear_row(i);
      clear_bit(in_granted, i);
      match[i] = o;
      clear_bit(in_free, i);
      clear_bit(out_free, o);
      if (it == 0) {
        accept_ptr_[i] = o + 1 == n_ ? 0 : o + 1;
        grant_ptr_[o] = i + 1 == n_ ? 0 : i + 1;
      }
    }
  }
}

}  // namespace upswitch::core
