// The reduction ALU against independent references: the compiler's _Float16 for the f16
// conversions (every one of the 65536 halves, and random floats), a double-precision nearest-even
// rounding written here for bf16, and std:: arithmetic on typed values for every type and op.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "tl/reduce_alu.h"

namespace upswitch::tl {
namespace {

uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint16_t bits_of(_Float16 h) {
  uint16_t u;
  std::memcpy(&u, &h, 2);
  return u;
}
_Float16 half_of(uint16_t u) {
  _Float16 h;
  std::memcpy(&h, &u, 2);
  return h;
}

// bf16 by the book: of the two bf16 values around f (truncation and the next one up in
// magnitude), the nearer in exact (double) arithmetic; a tie goes to the even mantissa.
uint16_t reference_bf16(float f) {
  if (std::isnan(f)) return 0x7fc0;
  const uint32_t u = bits_of(f);
  const uint16_t lo = static_cast<uint16_t>(u >> 16);
  if ((u & 0xffff) == 0) return lo;
  const auto hi = static_cast<uint16_t>(lo + 1);  // next magnitude (may become infinity)
  const double a = std::fabs(static_cast<double>(float_of(static_cast<uint32_t>(lo) << 16)));
  // Past the largest finite bf16 the next step is 2^128 (IEEE rounds to infinity from its midpoint).
  const double b = (hi & 0x7fff) == 0x7f80 ? std::ldexp(1.0, 128)
                                           : std::fabs(static_cast<double>(float_of(static_cast<uint32_t>(hi) << 16)));
  const double x = std::fabs(static_cast<double>(f));
  if (x - a < b - x) return lo;
  if (x - a > b - x) return hi;
  return (lo & 1) ? hi : lo;
}

TEST(ReduceAlu, EveryHalfWidensAsTheCompilerDoes) {
  for (uint32_t h = 0; h < 65536; ++h) {
    const float want = static_cast<float>(half_of(static_cast<uint16_t>(h)));
    const float got = f16_to_f32(static_cast<uint16_t>(h));
    if (std::isnan(want))
      EXPECT_TRUE(std::isnan(got)) << h;
    else
      EXPECT_EQ(bits_of(got), bits_of(want)) << "half 0x" << std::hex << h;
  }
}

TEST(ReduceAlu, FloatsNarrowToHalfAsTheCompilerDoes) {
  std::mt19937 rng(7);
  std::vector<float> xs = {0.0f, -0.0f, 65504.0f, 65519.99f, 65520.0f, 1e-8f, 5.96e-8f, 2.98e-8f, 2.9802322e-8f,
                           6.1035156e-5f, std::numeric_limits<float>::infinity(), 1.0009765625f, 1.00048828125f};
  for (int i = 0; i < 200000; ++i) xs.push_back(float_of(static_cast<uint32_t>(rng())));
  // Halfway cases between neighbouring halves, both parities.
  for (uint32_t h = 0x0001; h < 0x7bff; h += 97) {
    const double a = static_cast<double>(half_of(static_cast<uint16_t>(h)));
    const double b = static_cast<double>(half_of(static_cast<uint16_t>(h + 1)));
    xs.push_back(static_cast<float>((a + b) / 2));
  }
  for (float x : xs) {
    if (std::isnan(x)) {
      EXPECT_EQ(f32_to_f16(x) & 0x7c00, 0x7c00);
      EXPECT_NE(f32_to_f16(x) & 0x03ff, 0);
      continue;
    }
    EXPECT_EQ(f32_to_f16(x), bits_of(static_cast<_Float16>(x))) << x;
    EXPECT_EQ(f32_to_f16(-x), bits_of(static_cast<_Float16>(-x))) << -x;
  }
}

TEST(ReduceAlu, Bf16RoundsToNearestEven) {
  std::mt19937 rng(11);
  for (int i = 0; i < 200000; ++i) {
    const float x = float_of(static_cast<uint32_t>(rng()));
    if (std::isnan(x)) {  // any quiet NaN
      EXPECT_EQ(f32_to_bf16(x) & 0x7fc0, 0x7fc0);
      continue;
    }
    EXPECT_EQ(f32_to_bf16(x), reference_bf16(x)) << x;
  }
  EXPECT_EQ(f32_to_bf16(float_of(0x3f808000)), 0x3f80);  // tie, even below
  EXPECT_EQ(f32_to_bf16(float_of(0x3f818000)), 0x3f82);  // tie, odd below: up
  for (uint32_t b = 0; b < 65536; ++b) {                  // widening is exact
    const float f = bf16_to_f32(static_cast<uint16_t>(b));
    EXPECT_EQ(bits_of(f), b << 16);
  }
}

template <class T>
std::vector<uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// Reduces `inputs` (each `len` bytes) with the ALU the way a context does.
std::vector<uint8_t> alu_reduce(RedType t, RedOp op, const std::vector<std::vector<uint8_t>>& inputs) {
  const int len = static_cast<int>(inputs[0].size());
  std::vector<uint8_t> acc(static_cast<size_t>(len * red_acc_scale(t)));
  red_load(t, inputs[0].data(), len, acc.data());
  for (size_t k = 1; k < inputs.size(); ++k) red_combine(t, op, acc.data(), inputs[k].data(), len);
  std::vector<uint8_t> out(static_cast<size_t>(len));
  red_store(t, acc.data(), len, out.data());
  return out;
}

template <class T>
T apply_op(RedOp op, T a, T b) {
  switch (op) {
    case RedOp::kSum: return static_cast<T>(a + b);
    case RedOp::kMin: return std::min(a, b);
    case RedOp::kMax: return std::max(a, b);
    case RedOp::kAnd: return a & b;
    case RedOp::kOr: return a | b;
    case RedOp::kXor: return a ^ b;
  }
  return a;
}

template <class T>
void check_integers(RedType t) {
  std::mt19937_64 rng(static_cast<uint64_t>(t) + 3);
  for (int o = 0; o < kRedOps; ++o) {
    const auto op = static_cast<RedOp>(o);
    ASSERT_TRUE(red_supported(t, op));
    std::vector<std::vector<T>> in(5, std::vector<T>(256 / sizeof(T)));
    for (auto& v : in)
      for (T& x : v) x = static_cast<T>(rng());
    std::vector<T> want = in[0];
    for (size_t k = 1; k < in.size(); ++k)
      for (size_t e = 0; e < want.size(); ++e) {
        // Sums wrap: add in the unsigned type of the same width.
        using U = std::make_unsigned_t<T>;
        want[e] = op == RedOp::kSum ? static_cast<T>(static_cast<U>(want[e]) + static_cast<U>(in[k][e]))
                                    : apply_op(op, want[e], in[k][e]);
      }
    std::vector<std::vector<uint8_t>> raw;
    for (auto& v : in) raw.push_back(bytes_of(v));
    EXPECT_EQ(alu_reduce(t, op, raw), bytes_of(want)) << red_type_name(t) << " " << red_op_name(op);

    // red_apply at a destination: mem = op(mem, operand).
    std::vector<uint8_t> mem = raw[0];
    red_apply(t, op, mem.data(), raw[1].data(), static_cast<int>(mem.size()));
    std::vector<T> two(want.size());
    for (size_t e = 0; e < two.size(); ++e) {
      using U = std::make_unsigned_t<T>;
      two[e] = op == RedOp::kSum ? static_cast<T>(static_cast<U>(in[0][e]) + static_cast<U>(in[1][e]))
                                 : apply_op(op, in[0][e], in[1][e]);
    }
    EXPECT_EQ(mem, bytes_of(two)) << red_type_name(t) << " " << red_op_name(op);
  }
}

TEST(ReduceAlu, IntegersExactWithSignedAndUnsignedCompares) {
  check_integers<int32_t>(RedType::kS32);
  check_integers<int64_t>(RedType::kS64);
  check_integers<uint32_t>(RedType::kU32);
  check_integers<uint64_t>(RedType::kU64);
}

TEST(ReduceAlu, BitwiseOpsAreIntegerOnly) {
  for (RedType t : {RedType::kF32, RedType::kF16, RedType::kBF16, RedType::kF64})
    for (RedOp op : {RedOp::kAnd, RedOp::kOr, RedOp::kXor}) EXPECT_FALSE(red_supported(t, op)) << red_type_name(t);
  for (RedType t : {RedType::kF32, RedType::kF16, RedType::kBF16, RedType::kF64})
    for (RedOp op : {RedOp::kSum, RedOp::kMin, RedOp::kMax}) EXPECT_TRUE(red_supported(t, op));
}

TEST(ReduceAlu, FloatSumsAccumulateInOrder) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-100.0f, 100.0f);
  const int n = 64, k = 7;
  // f32 and f64: sequential IEEE additions in the element's own precision.
  std::vector<std::vector<float>> f(k, std::vector<float>(n));
  std::vector<std::vector<double>> d(k, std::vector<double>(n / 2));
  for (auto& v : f)
    for (float& x : v) x = u(rng);
  for (auto& v : d)
    for (double& x : v) x = static_cast<double>(u(rng)) / 3.0;
  std::vector<float> fs = f[0];
  std::vector<double> ds = d[0];
  for (int j = 1; j < k; ++j) {
    for (int e = 0; e < n; ++e) fs[e] += f[j][e];
    for (int e = 0; e < n / 2; ++e) ds[e] += d[j][e];
  }
  std::vector<std::vector<uint8_t>> fr, dr;
  for (auto& v : f) fr.push_back(bytes_of(v));
  for (auto& v : d) dr.push_back(bytes_of(v));
  EXPECT_EQ(alu_reduce(RedType::kF32, RedOp::kSum, fr), bytes_of(fs));
  EXPECT_EQ(alu_reduce(RedType::kF64, RedOp::kSum, dr), bytes_of(ds));

  // f16: widened to f32, summed in f32, rounded once at the end (not after every addition).
  std::vector<std::vector<_Float16>> h(k, std::vector<_Float16>(n));
  for (auto& v : h)
    for (_Float16& x : v) x = static_cast<_Float16>(u(rng) / 8);
  std::vector<_Float16> hs(n);
  for (int e = 0; e < n; ++e) {
    float acc = static_cast<float>(h[0][e]);
    for (int j = 1; j < k; ++j) acc += static_cast<float>(h[j][e]);
    hs[e] = static_cast<_Float16>(acc);
  }
  std::vector<std::vector<uint8_t>> hr;
  for (auto& v : h) hr.push_back(bytes_of(v));
  EXPECT_EQ(alu_reduce(RedType::kF16, RedOp::kSum, hr), bytes_of(hs));
}

TEST(ReduceAlu, Bf16SumsAccumulateInF32) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> u(-4.0f, 4.0f);
  const int n = 128, k = 5;
  std::vector<std::vector<uint16_t>> b(k, std::vector<uint16_t>(n));
  for (auto& v : b)
    for (uint16_t& x : v) x = reference_bf16(u(rng));
  std::vector<uint16_t> want(n);
  for (int e = 0; e < n; ++e) {
    float acc = float_of(static_cast<uint32_t>(b[0][e]) << 16);
    for (int j = 1; j < k; ++j) acc += float_of(static_cast<uint32_t>(b[j][e]) << 16);
    want[e] = reference_bf16(acc);
  }
  std::vector<std::vector<uint8_t>> raw;
  for (auto& v : b) raw.push_back(bytes_of(v));
  EXPECT_EQ(alu_reduce(RedType::kBF16, RedOp::kSum, raw), bytes_of(want));
}

TEST(ReduceAlu, FloatMinMaxIgnoreANaNOperand) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> a = {1.0f, nan, -2.0f, 3.0f}, b = {2.0f, 5.0f, nan, -0.5f};
  std::vector<std::vector<uint8_t>> raw = {bytes_of(a), bytes_of(b)};
  std::vector<float> mn = {1.0f, 5.0f, -2.0f, -0.5f}, mx = {2.0f, 5.0f, -2.0f, 3.0f};
  EXPECT_EQ(alu_reduce(RedType::kF32, RedOp::kMin, raw), bytes_of(mn));
  EXPECT_EQ(alu_reduce(RedType::kF32, RedOp::kMax, raw), bytes_of(mx));
}

TEST(ReduceAlu, NamesRoundTrip) {
  for (int t = 0; t < kRedTypes; ++t) {
    RedType got;
    ASSERT_TRUE(parse_red_type(red_type_name(static_cast<RedType>(t)), got));
    EXPECT_EQ(static_cast<int>(got), t);
  }
  for (int o = 0; o < kRedOps; ++o) {
    RedOp got;
    ASSERT_TRUE(parse_red_op(red_op_name(static_cast<RedOp>(o)), got));
    EXPECT_EQ(static_cast<int>(got), o);
  }
  RedType t;
  EXPECT_TRUE(parse_red_type("int32", t));
  EXPECT_EQ(t, RedType::kS32);
  EXPECT_FALSE(parse_red_type("f8", t));
  EXPECT_EQ(red_type_bytes(RedType::kBF16), 2);
  EXPECT_EQ(red_acc_scale(RedType::kF16), 2);
  EXPECT_EQ(red_acc_scale(RedType::kF64), 1);
}

}  // namespace
}  // namespace upswitch::tl
