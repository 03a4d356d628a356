// Wavefront allocator (Tamir & Chi 1993): cells on one diagonal share no row or column, so a
// sweep of N diagonals from a rotating priority diagonal yields a maximal matching.
#include "core/allocator_impls.h"

namespace upswitch::core {

Wavefront::Wavefront(int n) : n_(n), out_taken_(1, n) { pending_.reserve(n); }

void Wavefront::allocate(const AllocRequest& req, std::vector<int>& match) {
  uint64_t* out_taken = out_taken_.row(0);
  for (int w = 0; w < out_taken_.words(); ++w) out_taken[w] = 0;
  pending_.assign(req.inputs->begin(), req.inputs->end());
  for (int k = 0; k < n_ && !pending_.empty(); ++k) {
    const int d = (priority_ + k) % n_;
    size_t keep = 0;
    for (int i : pending_) {
      const int o = ((d - i) % n_ + n_) % n_;
      if (test_bit(req.by_input->row(i), o) && !test_bit(out_taken, o)) {
        match[i] = o;
        set_bit(out_taken, o);
      } else {
        pending_[keep++] = i;
      }
    }
    pending_.resize(keep);
  }
  priority_ = (priority_ + 1) % n_;
}

}  // namespace upswitch::core
