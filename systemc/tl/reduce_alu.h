// The reduction engine's arithmetic (NVLS multimem.ld_reduce / multimem.red, facts §2.4): element
// types and reductions, the accumulator a context keeps (f16 and bf16 widened to f32, as NVSwitch
// accumulates them), and the half-precision conversions. Little-endian bytes; plain C++.
#pragma once

#include <cstdint>

namespace upswitch::tl {

enum class RedType : uint8_t { kF32, kF16, kBF16, kF64, kS32, kS64, kU32, kU64 };
constexpr int kRedTypes = 8;
enum class RedOp : uint8_t { kSum, kMin, kMax, kAnd, kOr, kXor };
constexpr int kRedOps = 6;

const char* red_type_name(RedType t);  // "f32", "f16", "bf16", "f64", "s32", "s64", "u32", "u64"
const char* red_op_name(RedOp op);     // "sum", "min", "max", "and", "or", "xor"
bool parse_red_type(const char* text, RedType& out);  // also int32, int64, uint32, uint64
bool parse_red_op(const char* text, RedOp& out);
int red_type_bytes(RedType t);
bool red_is_float(RedType t);
// and / or / xor are defined on the integer types only; sum, min, max on every type.
bool red_supported(RedType t, RedOp op);
// Accumulator bytes per data byte: 2 for f16 / bf16 (kept in f32), else 1.
int red_acc_scale(RedType t);
constexpr int kRedAccBytes = 512;  // the accumulator of one 256 B request

// acc = widen(src): the first contribution; `len` data bytes, whole elements.
void red_load(RedType t, const uint8_t* src, int len, uint8_t* acc);
// acc = op(acc, widen(src)) element by element. Integer sums wrap; min / max are signed for s32 /
// s64 and unsigned for u32 / u64; float sums are IEEE additions in the accumulator's precision
// (f32 for f32 / f16 / bf16, f64 for f64), rounded to nearest even; float min / max are fmin /
// fmax (a NaN operand yields the other).
void red_combine(RedType t, RedOp op, uint8_t* acc, const uint8_t* src, int len);
// dst = narrow(acc): f16 / bf16 rounded to nearest even; other types copied.
void red_store(RedType t, const uint8_t* acc, int len, uint8_t* dst);
// Reduce at a destination: mem = narrow(op(widen(mem), widen(operand))) per element.
void red_apply(RedType t, RedOp op, uint8_t* mem, const uint8_t* operand, int len);

float f16_to_f32(uint16_t h);
uint16_t f32_to_f16(float f);  // nearest even; overflow to infinity; NaN stays a (quiet) NaN
float bf16_to_f32(uint16_t b);
uint16_t f32_to_bf16(float f);  // nearest even; NaN stays a (quiet) NaN

}  // namespace upswitch::tl
