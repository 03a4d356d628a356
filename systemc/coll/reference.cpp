#include "coll/reference.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "coll/input_pages.h"

namespace upswitch::coll {
namespace {

// `count` float elements from `p` as Real (the type's switch outside the loop). Each float type
// converts exactly to long double, and the types narrower than f64 exactly to double.
template <class Real>
void to_real_row(tl::RedType t, const uint8_t* p, size_t count, Real* out) {
  auto each = [&](auto decode, size_t e) {
    for (size_t c = 0; c < count; ++c) out[c] = static_cast<Real>(decode(p + c * e));
  };
  switch (t) {
    case tl::RedType::kF32: each([](const uint8_t* q) { float v; std::memcpy(&v, q, 4); return v; }, 4); break;
    case tl::RedType::kF64: each([](const uint8_t* q) { double v; std::memcpy(&v, q, 8); return v; }, 8); break;
    case tl::RedType::kF16: each([](const uint8_t* q) { uint16_t v; std::memcpy(&v, q, 2); return tl::f16_to_f32(v); }, 2); break;
    case tl::RedType::kBF16: each([](const uint8_t* q) { uint16_t v; std::memcpy(&v, q, 2); return tl::bf16_to_f32(v); }, 2); break;
    default: std::fill(out, out + count, Real{0}); break;
  }
}
void to_ld_row(tl::RedType t, const uint8_t* p, size_t count, long double* out) { to_real_row(t, p, count, out); }

// One float element as a long double (other types: 0).
long double to_ld(tl::RedType t, const uint8_t* p) {
  long double v;
  to_ld_row(t, p, 1, &v);
  return v;
}

uint64_t to_bits(int e, const uint8_t* p) {
  uint64_t v = 0;
  std::memcpy(&v, p, static_cast<size_t>(e));
  return v;
}

int64_t to_signed(tl::RedType t, uint64_t v) {
  return t == tl::RedType::kS32 ? static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(v)))
                                : static_cast<int64_t>(v);
}

// The exact integer reduction of raw values (wrapping sum).
uint64_t int_reduce(tl::RedType t, tl::RedOp op, const std::vector<uint64_t>& v) {
  const bool wide = tl::red_type_bytes(t) == 8;
  const uint64_t mask = wide ? ~uint64_t{0} : 0xffffffffULL;
  const bool is_signed = t == tl::RedType::kS32 || t == tl::RedType::kS64;
  uint64_t acc = v[0];
  for (size_t k = 1; k < v.size(); ++k) {
    const uint64_t x = v[k];
    switch (op) {
      case tl::RedOp::kSum: acc = (acc + x) & mask; break;
      case tl::RedOp::kAnd: acc &= x; break;
      case tl::RedOp::kOr: acc |= x; break;
      case tl::RedOp::kXor: acc ^= x; break;
      case tl::RedOp::kMin:
        if (is_signed ? to_signed(t, x) < to_signed(t, acc) : x < acc) acc = x;
        break;
      case tl::RedOp::kMax:
        if (is_signed ? to_signed(t, x) > to_signed(t, acc) : x > acc) acc = x;
        break;
    }
  }
  return acc;
}

struct Checker {
  const top::TxnFabric& f;
  const CollectiveRun& r;
  // The caller's result, by reference: a CheckResult member value-initialised with `{}` and
  // copied out at return made GCC 12 (-O3, no LTO) warn that its std::string may be used
  // uninitialised; the caller's named result is returned directly (NRVO) instead.
  CheckResult& res;
  int e = tl::red_type_bytes(r.spec.type);

  const tl::SparseMemory& mem(int i) const {
    return const_cast<top::TxnFabric&>(f).endpoints().memory(r.spec.ranks[static_cast<size_t>(i)]);
  }
  // Counts a wrong element; only the first one's description is built (a message per element
  // cost more than the simulation on large collectives).
  template <class Describe>
  void wrong(const Describe& describe) {
    if (res.wrong++ == 0) res.first = describe();
  }
  std::string rank_name(int i) const { return "rank " + std::to_string(r.spec.ranks[static_cast<size_t>(i)]); }
  // Data movement: `bytes` at rank i's `at` equal rank j's `from`.
  void same(int i, uint64_t at, int j, uint64_t from, uint64_t bytes) {
    std::vector<uint8_t> a(bytes), b(bytes);
    mem(i).read(at, a.data(), bytes);
    mem(j).read(from, b.data(), bytes);
    for (uint64_t k = 0; k < bytes; k += static_cast<uint64_t>(e)) {
      ++res.elements;
      if (std::memcmp(a.data() + k, b.data() + k, static_cast<size_t>(e)) != 0)
        wrong([&] {
          return rank_name(i) + " offset " + std::to_string(at + k) + ": differs from " + rank_name(j) +
                 "'s offset " + std::to_string(from + k);
        });
    }
  }
  // Reductions: the out[off, off+bytes) of each rank in `who` against the reduction of every
  // rank's in[off, ...). The reference of an element is computed once and compared with every
  // rank that holds it (ranks x elements work, not ranks^2 x elements), in blocks of 64 KiB so
  // the check's memory does not grow with the size. Float sums are checked against the exact sum
  // and a rounding bound, in long double for f64 and in double for the narrower types (their
  // sums over any group carry an error far below the bound's 0.01% slack); the other reductions
  // are bit-exact.
  void reduced(const std::vector<int>& who, uint64_t off, uint64_t bytes) {
    if (tl::red_is_float(r.spec.type) && r.spec.op == tl::RedOp::kSum) {
      if (r.spec.type == tl::RedType::kF64)
        reduced_blocks(who, off, bytes, [&](auto&&... a) { sum_block<long double>(a...); });
      else
        reduced_blocks(who, off, bytes, [&](auto&&... a) { sum_block<double>(a...); });
    } else {
      reduced_blocks(who, off, bytes, [&](auto&&... a) { exact_block(a...); });
    }
  }
  // Reads every rank's input of each block and has `check` compare the ranks of `who` with it.
  template <class Check>
  void reduced_blocks(const std::vector<int>& who, uint64_t off, uint64_t bytes, const Check& check) {
    const auto n = static_cast<size_t>(r.spec.ranks.size());
    const auto eb = static_cast<uint64_t>(e);
    const uint64_t block = std::max<uint64_t>(eb, (uint64_t{1} << 16) / eb * eb);
    std::vector<uint8_t> in;
    for (uint64_t b0 = 0; b0 < bytes; b0 += block) {
      const uint64_t len = std::min(block, bytes - b0);
      in.resize(n * len);
      for (size_t x = 0; x < n; ++x) mem(static_cast<int>(x)).read(r.layout.in + off + b0, in.data() + x * len, len);
      check(who, in, n, len, r.layout.out + off + b0);
    }
  }
  // A block of a float sum: each element's exact value and bound, summed rank by rank in rank
  // order, then every rank of `who` against them.
  template <class Real>
  void sum_block(const std::vector<int>& who, const std::vector<uint8_t>& in, size_t n, uint64_t len, uint64_t out) {
    const auto eb = static_cast<uint64_t>(e);
    const size_t count = static_cast<size_t>(len / eb);
    const auto us = static_cast<Real>(step_roundoff(r.spec.type, r.spec.algo));
    const auto uf = static_cast<Real>(final_roundoff(r.spec.type, r.spec.algo));
    std::vector<Real> exact(count, Real{0}), mag(count, Real{0}), row(count);
    for (size_t x = 0; x < n; ++x) {
      to_real_row(r.spec.type, in.data() + x * len, count, row.data());
      for (size_t c = 0; c < count; ++c) {
        exact[c] += row[c];
        mag[c] += std::fabs(row[c]);
      }
    }
    std::vector<double> bound(count);
    for (size_t c = 0; c < count; ++c)
      bound[c] = static_cast<double>(static_cast<Real>(n - 1) * us * static_cast<Real>(1.0001L) * mag[c] +
                                     uf * std::fabs(exact[c])) + 1e-300;
    std::vector<uint8_t> got(len);
    for (int i : who) {
      mem(i).read(out, got.data(), len);
      to_real_row(r.spec.type, got.data(), count, row.data());
      for (size_t c = 0; c < count; ++c) {
        ++res.elements;
        const double err = static_cast<double>(std::fabs(row[c] - exact[c]));
        res.max_error_ratio = std::max(res.max_error_ratio, err / bound[c]);
        if (err <= bound[c]) continue;
        wrong([&] {
          return rank_name(i) + " element at offset " + std::to_string(out + c * eb) + ": got " +
                 std::to_string(static_cast<double>(row[c])) + ", exact " +
                 std::to_string(static_cast<double>(exact[c])) + ", bound " + std::to_string(bound[c]);
        });
      }
    }
  }
  // A block of any other reduction: the expected bytes (integers bit-exact; min / max pick one of
  // the inputs), then every rank of `who` against them.
  void exact_block(const std::vector<int>& who, const std::vector<uint8_t>& in, size_t n, uint64_t len, uint64_t out) {
    const auto eb = static_cast<uint64_t>(e);
    const size_t count = static_cast<size_t>(len / eb);
    const bool fl = tl::red_is_float(r.spec.type);
    auto input = [&](size_t x, size_t c) { return in.data() + x * len + c * eb; };
    std::vector<uint8_t> want(count * eb, 0), got(len);
    std::vector<uint64_t> vals(n);
    for (size_t c = 0; c < count; ++c) {
      if (!fl) {
        for (size_t x = 0; x < n; ++x) vals[x] = to_bits(e, input(x, c));
        const uint64_t v = int_reduce(r.spec.type, r.spec.op, vals);
        std::memcpy(want.data() + c * eb, &v, static_cast<size_t>(eb));
      } else {
        long double best = to_ld(r.spec.type, input(0, c));
        for (size_t x = 1; x < n; ++x) {
          const long double v = to_ld(r.spec.type, input(x, c));
          best = r.spec.op == tl::RedOp::kMin ? std::min(best, v) : std::max(best, v);
        }
        store_float(r.spec.type, static_cast<double>(best), want.data() + c * eb);
      }
    }
    for (int i : who) {
      mem(i).read(out, got.data(), len);
      for (size_t c = 0; c < count; ++c) {
        ++res.elements;
        const uint8_t* g = got.data() + c * eb;
        if (std::memcmp(g, want.data() + c * eb, static_cast<size_t>(eb)) == 0) continue;
        wrong([&] {
          const std::string got_text = fl ? std::to_string(static_cast<double>(to_ld(r.spec.type, g)))
                                          : std::to_string(to_bits(e, g));
          const std::string want_text = fl ? std::to_string(static_cast<double>(to_ld(r.spec.type, want.data() + c * eb)))
                                           : std::to_string(to_bits(e, want.data() + c * eb));
          return rank_name(i) + " element at offset " + std::to_string(out + c * eb) + ": got " + got_text +
                 ", expected " + want_text;
        });
      }
    }
  }
};

}  // namespace

double step_roundoff(tl::RedType t, Algorithm a) {
  switch (t) {
    case tl::RedType::kF64: return std::ldexp(1.0, -53);
    case tl::RedType::kF32: return std::ldexp(1.0, -24);
    // The switch accumulates halves in f32; endpoint reductions round to the type at every step.
    case tl::RedType::kF16: return a == Algorithm::kSwitch ? std::ldexp(1.0, -24) : std::ldexp(1.0, -11);
    case tl::RedType::kBF16: return a == Algorithm::kSwitch ? std::ldexp(1.0, -24) : std::ldexp(1.0, -8);
    default: return 0;
  }
}

double final_roundoff(tl::RedType t, Algorithm a) {
  if (a != Algorithm::kSwitch) return 0;
  if (t == tl::RedType::kF16) return std::ldexp(1.0, -11);
  if (t == tl::RedType::kBF16) return std::ldexp(1.0, -8);
  return 0;
}

void fill_inputs(top::TxnFabric& f, const CollectiveRun& r, uint64_t seed) {
  for (int rank : r.spec.ranks)
    f.endpoints().memory(rank).generate(
        r.layout.in, r.layout.in + r.layout.in_bytes,
        std::make_shared<InputPages>(r.spec.type, seed, rank, r.layout.in, r.layout.in_bytes));
}

CheckResult check_results(const top::TxnFabric& f, const CollectiveRun& r) {
  CheckResult res;
  Checker c{f, r, res};
  const CollectiveSpec& s = r.spec;
  const int n = static_cast<int>(s.ranks.size());
  auto begin = [&](int k) { return chunk_begin(s.bytes, n, k, c.e); };
  if (s.coll == Collective::kAllReduce) {  // every rank holds the whole reduction: one reference
    std::vector<int> all(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) all[static_cast<size_t>(i)] = i;
    c.reduced(all, 0, s.bytes);
    return res;
  }
  for (int i = 0; i < n; ++i) {
    switch (s.coll) {
      case Collective::kAllReduce: break;
      case Collective::kReduceScatter: c.reduced({i}, begin(i), begin(i + 1) - begin(i)); break;
      case Collective::kAllGather:
        for (int k = 0; k < n; ++k) c.same(i, r.layout.out + begin(k), k, r.layout.in + begin(k), begin(k + 1) - begin(k));
        break;
      case Collective::kBroadcast: c.same(i, r.layout.out, s.root, r.layout.in, s.bytes); break;
      case Collective::kAllToAll: {
        uint64_t at = 0;
        for (int k = 0; k < n; ++k) {  // k's block for i, after the blocks of ranks before k
          uint64_t from = 0;
          for (int j = 0; j < i; ++j) from += pair_bytes(s, k, j);
          c.same(i, r.layout.out + at, k, r.layout.in + from, pair_bytes(s, k, i));
          at += pair_bytes(s, k, i);
        }
        break;
      }
    }
  }
  return res;
}

}  // namespace upswitch::coll
