#include "coll/input_pages.h"

#include <algorithm>
#include <cstring>

namespace upswitch::coll {
namespace {

// Element value of one generator draw.
void store_draw(tl::RedType t, uint64_t x, int e, uint8_t* p) {
  if (tl::red_is_float(t))
    store_float(t, (static_cast<double>(x % 2048) - 1024.0) / 1024.0, p);
  else
    std::memcpy(p, &x, static_cast<size_t>(e));
}

}  // namespace

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
}

void InputPages::fill(uint64_t addr, uint8_t* out, uint64_t len) const {
  const int e = static_cast<int>(elem_);
  uint64_t off = addr - base_;  // into the input
  const uint64_t stop = std::min(off + len, bytes_);
  if (off >= stop) {
    std::memset(out, 0, len);
    return;
  }
  traffic::Rng rng = states_[static_cast<size_t>(off / kStride)];
  uint64_t at = off / kStride * kStride;
  for (; at + elem_ <= off; at += elem_) rng.next();  // elements before the range
  uint8_t v[8];
  while (off < stop) {  // whole elements, and the parts of one the range cuts
    store_draw(type_, rng.next(), e, v);
    const uint64_t from = off - at, n = std::min(elem_ - from, stop - off);
    std::memcpy(out, v + from, static_cast<size_t>(n));
    out += n;
    off += n;
    at += elem_;
  }
  if (off < (addr - base_) + len) std::memset(out, 0, static_cast<size_t>((addr - base_) + len - off));
}

}  // namespace upswitch::coll
