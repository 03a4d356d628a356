#include "tl/reduce_alu.h"

#include <cmath>
#include <cstring>
#include <initializer_list>

namespace upswitch::tl {
namespace {

const char* const kTypeNames[kRedTypes] = {"f32", "f16", "bf16", "f64", "s32", "s64", "u32", "u64"};
const char* const kOpNames[kRedOps] = {"sum", "min", "max", "and", "or", "xor"};

template <class T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
void store(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

template <class F>
F float_op(RedOp op, F a, F b) {
  switch (op) {
    case RedOp::kSum: return a + b;
    case RedOp::kMin: return std::fmin(a, b);
    case RedOp::kMax: return std::fmax(a, b);
    default: return a;
  }
}

// Integers in their unsigned type (wrapping sums); S is the signed type for min / max.
template <class U, class S>
U int_op(RedOp op, bool is_signed, U a, U b) {
  switch (op) {
    case RedOp::kSum: return static_cast<U>(a + b);
    case RedOp::kAnd: return a & b;
    case RedOp::kOr: return a | b;
    case RedOp::kXor: return a ^ b;
    case RedOp::kMin:
      if (is_signed) return static_cast<S>(a) < static_cast<S>(b) ? a : b;
      return a < b ? a : b;
    case RedOp::kMax:
      if (is_signed) return static_cast<S>(a) > static_cast<S>(b) ? a : b;
      return a > b ? a : b;
  }
  return a;
}

// acc op= src element by element for a float type: one loop per operation (a sum's loop then
// compiles to vector adds, each element still its own IEEE addition). acc and src never overlap
// (an accumulator and a message's data).
template <class F>
void float_combine(RedOp op, uint8_t* __restrict acc, const uint8_t* __restrict src, int len) {
  constexpr int kSize = static_cast<int>(sizeof(F));
  switch (op) {
    case RedOp::kSum:
      for (int k = 0; k < len; k += kSize) store(acc + k, load<F>(acc + k) + load<F>(src + k));
      return;
    case RedOp::kMin:
    case RedOp::kMax:
      for (int k = 0; k < len; k += kSize) store(acc + k, float_op(op, load<F>(acc + k), load<F>(src + k)));
      return;
    default: return;  // (bitwise operations on floats are refused before they get here)
  }
}

// acc (accumulator format) op= src (data format), element by element.
void combine(RedType t, RedOp op, uint8_t* acc, const uint8_t* src, int len) {
  switch (t) {
    case RedType::kF32:
      float_combine<float>(op, acc, src, len);
      break;
    case RedType::kF64:
      float_combine<double>(op, acc, src, len);
      break;
    case RedType::kF16:
    case RedType::kBF16:
      for (int k = 0; k < len; k += 2) {
        const uint16_t h = load<uint16_t>(src + k);
        const float v = t == RedType::kF16 ? f16_to_f32(h) : bf16_to_f32(h);
        store(acc + 2 * k, float_op(op, load<float>(acc + 2 * k), v));
      }
      break;
    case RedType::kS32:
    case RedType::kU32:
      for (int k = 0; k < len; k += 4)
        store(acc + k, int_op<uint32_t, int32_t>(op, t == RedType::kS32, load<uint32_t>(acc + k), load<uint32_t>(src + k)));
      break;
    case RedType::kS64:
    case RedType::kU64:
      for (int k = 0; k < len; k += 8)
        store(acc + k, int_op<uint64_t, int64_t>(op, t == RedType::kS64, load<uint64_t>(acc + k), load<uint64_t>(src + k)));
      break;
  }
}

}  // namespace

const char* red_type_name(RedType t) { return kTypeNames[static_cast<int>(t)]; }
const char* red_op_name(RedOp op) { return kOpNames[static_cast<int>(op)]; }

bool parse_red_type(const char* text, RedType& out) {
  for (int i = 0; i < kRedTypes; ++i)
    if (std::strcmp(text, kTypeNames[i]) == 0) {
      out = static_cast<RedType>(i);
      return true;
    }
  struct Alias {
    const char* name;
    RedType t;
  };
  for (const Alias& a : {Alias{"int32", RedType::kS32}, Alias{"int64", RedType::kS64}, Alias{"uint32", RedType::kU32},
                         Alias{"uint64", RedType::kU64}})
    if (std::strcmp(text, a.name) == 0) {
      out = a.t;
      return true;
    }
  return false;
}

bool parse_red_op(const char* text, RedOp& out) {
  for (int i = 0; i < kRedOps; ++i)
    if (std::strcmp(text, kOpNames[i]) == 0) {
      out = static_cast<RedOp>(i);
      return true;
    }
  return false;
}

int red_type_bytes(RedType t) {
  switch (t) {
    case RedType::kF16:
    case RedType::kBF16: return 2;
    case RedType::kF64:
    case RedType::kS64:
    case RedType::kU64: return 8;
    default: return 4;
  }
}

bool red_is_float(RedType t) {
  return t == RedType::kF32 || t == RedType::kF16 || t == RedType::kBF16 || t == RedType::kF64;
}

bool red_supported(RedType t, RedOp op) {
  return !(red_is_float(t) && (op == RedOp::kAnd || op == RedOp::kOr || op == RedOp::kXor));
}

int red_acc_scale(RedType t) { return t == RedType::kF16 || t == RedType::kBF16 ? 2 : 1; }

void red_load(RedType t, const uint8_t* src, int len, uint8_t* acc) {
  if (red_acc_scale(t) == 1) {
    std::memcpy(acc, src, static_cast<size_t>(len));
    return;
  }
  for (int k = 0; k < len; k += 2) {
    const uint16_t h = load<uint16_t>(src + k);
    store(acc + 2 * k, t == RedType::kF16 ? f16_to_f32(h) : bf16_to_f32(h));
  }
}

void red_combine(RedType t, RedOp op, uint8_t* acc, const uint8_t* src, int len) { combine(t, op, acc, src, len); }

void red_store(RedType t, const uint8_t* acc, int len, uint8_t* dst) {
  if (red_acc_scale(t) == 1) {
    std::memcpy(dst, acc, static_cast<size_t>(len));
    return;
  }
  for (int k = 0; k < len; k += 2) {
    const float v = load<float>(acc + 2 * k);
    store(dst + k, t == RedType::kF16 ? f32_to_f16(v) : f32_to_bf16(v));
  }
}

void red_apply(RedType t, RedOp op, uint8_t* mem, const uint8_t* operand, int len) {
  uint8_t acc[kRedAccBytes];
  for (int off = 0; off < len; off += kRedAccBytes / 2) {  // 256 B at a time (f16 widens to 512 B)
    const int n = len - off < kRedAccBytes / 2 ? len - off : kRedAccBytes / 2;
    red_load(t, mem + off, n, acc);
    combine(t, op, acc, operand + off, n);
    red_store(t, acc, n, mem + off);
  }
}

float f16_to_f32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000U) << 16;
  const uint32_t exp = (h >> 10) & 0x1fU;
  const uint32_t man = h & 0x3ffU;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000U | (man << 13) | (man ? 0x00400000U : 0);  // inf, or a quiet NaN
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (man << 13);
  } else if (man == 0) {
    bits = sign;
  } else {  // subnormal half: exact in f32
    const float v = std::ldexp(static_cast<float>(man), -24);
    std::memcpy(&bits, &v, 4);
    bits |= sign;
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t f32_to_f16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000U);
  const uint32_t exp = (bits >> 23) & 0xffU;
  const uint32_t man = bits & 0x7fffffU;
  if (exp == 0xff) return static_cast<uint16_t>(sign | 0x7c00U | (man ? 0x200U | (man >> 13) : 0));
  // |f| as a multiple of 2^-24 (the half subnormal step), rounded to nearest even, handles
  // subnormal results; normal results round the 23-bit mantissa to 10 bits.
  const int e = static_cast<int>(exp) - 127;
  if (e >= 16) return static_cast<uint16_t>(sign | 0x7c00U);  // overflow (>= 65536 after rounding anyway)
  if (e < -14) {  // subnormal or zero half
    if (e < -25) return sign;  // below half the smallest subnormal: rounds to zero
    const uint32_t m = man | 0x800000U;  // 24 significant bits, value m * 2^(e-23)
    const int shift = -e - 1;             // to units of 2^-24: m * 2^(e+1) = m >> (-e-1)... (e-23+24)
    const uint32_t q = m >> shift;
    const uint32_t rem = m & ((1U << shift) - 1), half = 1U << (shift - 1);
    const uint32_t r = q + ((rem > half || (rem == half && (q & 1))) ? 1 : 0);
    return static_cast<uint16_t>(sign | r);  // r == 0x400 becomes the smallest normal: still right
  }
  uint32_t h = (static_cast<uint32_t>(e + 15) << 10) | (man >> 13);
  const uint32_t rem = man & 0x1fffU;
  if (rem > 0x1000U || (rem == 0x1000U && (h & 1))) ++h;  // may carry into the exponent (and to inf)
  return static_cast<uint16_t>(sign | h);
}

float bf16_to_f32(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t f32_to_bf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if ((bits & 0x7f800000U) == 0x7f800000U && (bits & 0x7fffffU))
    return static_cast<uint16_t>((bits >> 16) | 0x40U);  // NaN: keep it a quiet NaN
  const uint32_t rounding = 0x7fffU + ((bits >> 16) & 1U);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

}  // namespace upswitch::tl
