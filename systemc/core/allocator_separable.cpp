// Separable input-first allocator with round-robin arbiters (Dally & Towles ch. 19): inputs
// pick first, outputs arbitrate among the inputs that picked them; pointers move on a match.
#include "core/allocator_impls.h"

namespace upswitch::core {

SeparableInputFirst::SeparableInputFirst(int n)
    : n_(n), in_ptr_(n, 0), out_ptr_(n, 0), picked_by_(n, n), touched_() {
  touched_.reserve(n);
}

void SeparableInputFirst::allocate(const AllocRequest& req, std::vector<int>& match) {
  const int words = picked_by_.words();
  touched_.clear();
  for (int i : *req.inputs) {
    const int o = rr_find(req.by_input->row(i), nullptr, words, n_, in_ptr_[i]);
    if (o < 0) continue;
    if (!any_bit(picked_by_.row(o), words)) touched_.push_back(o);
    set_bit(picked_by_.row(o), i);
  }
  for (int o : touched_) {
    const int i = rr_find(picked_by_.row(o), nullptr, words, n_, out_ptr_[o]);
    match[i] = o;
    in_ptr_[i] = o + 1 == n_ ? 0 : o + 1;
    out_ptr_[o] = i + 1 == n_ ? 0 : i + 1;
    picked_by_.clear_row(o);
  }
}

}  // namespace upswitch::core
