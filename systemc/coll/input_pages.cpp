#include "coll/input_pages.h"

#include <algorithm>
#include <cstring>

namespace upswitch::coll {

void store_float(tl::RedType t, double v, uint8_t* p) {
  switch (t) {
    case tl::RedType::kF32: { const float f = static_cast<float>(v); std::memcpy(p, &f, 4); break; }
    case tl::RedType::kF64: std::memcpy(p, &v, 8); break;
    case tl::RedType::kF16: { const uint16_t h = tl::f32_to_f16(static_cast<float>(v)); std::memcpy(p, &h, 2); break; }
    case tl::RedType::kBF16: { const uint16_t h = tl::f32_to_bf16(static_cast<float>(v)); std::memcpy(p, &h, 2); break; }
    default: break;
  }
}

InputPages::InputPages(tl::RedType type, uint64_t seed, int rank, uint64_t base, uint64_t bytes)
    : type_(type), elem_(static_cast<uint64_t>(tl::red_type_bytes(type))), base_(base), bytes_(bytes / elem_ * elem_) {
  traffic::Rng rng(seed, static_cast<uint64_t>(rank) + 1);
  const uint64_t per = kStride / elem_;
  states_.reserve(static_cast<size_t>((bytes_ + kStride - 1) / kStride));
  for (uint64_t k = 0; k < bytes_; k += kStride) {
    states_.push_back(rng);
    for (uint64_t i = 0; i < per; ++i) rng.next();
  }
  cursors_.resize(std::max<size_t>(1, std::min<size_t>(kCursors, states_.size())));  // no more than stretches
  if (tl::red_is_float(type_)) {  // a draw x gives (x mod 2048 - 1024) / 1024
    table_.resize(2048 * elem_);
    for (uint64_t x = 0; x < 2048; ++x) store_float(type_, (static_cast<double>(x) - 1024.0) / 1024.0, &table_[x * elem_]);
  }
}

template <int E>
void InputPages::whole(traffic::Rng& rng, uint8_t*& out, uint64_t& off, uint64_t stop) const {
  for (; off + E <= stop; off += E, out += E) {
    const uint64_t x = rng.next();
    std::memcpy(out, element(x), E);
  }
}

void InputPages::fill(uint64_t addr, uint8_t* out, uint64_t len) const {
  uint64_t off = addr - base_;  // into the input
  const uint64_t stop = std::min(off + len, bytes_);
  if (off >= stop) {
    std::memset(out, 0, len);
    return;
  }
  uint64_t at = off / elem_ * elem_;  // the element the range starts in
  const uint64_t saved = at / kStride * kStride;
  const Cursor& c = cursors_[static_cast<size_t>(at / kStride) % cursors_.size()];
  const bool go_on = c.at >= saved && c.at <= at;  // from where an earlier read ended
  traffic::Rng rng = go_on ? c.rng : states_[static_cast<size_t>(at / kStride)];
  for (uint64_t a = go_on ? c.at : saved; a < at; a += elem_) rng.next();  // elements before it
  if (off > at) {  // the start cuts an element
    const uint64_t x = rng.next();
    const uint64_t n = std::min(at + elem_, stop) - off;
    std::memcpy(out, element(x) + (off - at), static_cast<size_t>(n));
    out += n;
    off += n;
    at += elem_;
  }
  if (off == at) {  // (else the range ended inside the element it started in)
    switch (elem_) {  // whole elements, with the element size known to the compiler
      case 2: whole<2>(rng, out, off, stop); break;
      case 4: whole<4>(rng, out, off, stop); break;
      default: whole<8>(rng, out, off, stop); break;
    }
    at = off;
    if (off < stop) {  // the end cuts an element
      const uint64_t x = rng.next();
      std::memcpy(out, element(x), static_cast<size_t>(stop - off));
      out += stop - off;
      off = stop;
      at += elem_;
    }
  }
  Cursor& end = cursors_[static_cast<size_t>(at / kStride) % cursors_.size()];
  end.rng = rng;
  end.at = at;
  if (off < (addr - base_) + len) std::memset(out, 0, static_cast<size_t>((addr - base_) + len - off));
}

}  // namespace upswitch::coll
