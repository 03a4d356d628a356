#include "coll/reference.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "traffic/rng.h"

namespace upswitch::coll {
namespace {

// One element as a long double (floats) or as its raw bits (integers).
long double to_ld(tl::RedType t, const uint8_t* p) {
  switch (t) {
    case tl::RedType::kF32: { float v; std::memcpy(&v, p, 4); return v; }
    case tl::RedType::kF64: { double v; std::memcpy(&v, p, 8); return v; }
    case tl::RedType::kF16: { uint16_t v; std::memcpy(&v, p, 2); return tl::f16_to_f32(v); }
    case tl::RedType::kBF16: { uint16_t v; std::memcpy(&v, p, 2); return tl::bf16_to_f32(v); }
    default: return 0;
  }
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

void store_float(tl::RedType t, double v, uint8_t* p) {
  switch (t) {
    case tl::RedType::kF32: { const float f = static_cast<float>(v); std::memcpy(p, &f, 4); break; }
    case tl::RedType::kF64: std::memcpy(p, &v, 8); break;
    case tl::RedType::kF16: { const uint16_t h = tl::f32_to_f16(static_cast<float>(v)); std::memcpy(p, &h, 2); break; }
    case tl::RedType::kBF16: { const uint16_t h = tl::f32_to_bf16(static_cast<float>(v)); std::memcpy(p, &h, 2); break; }
    default: break;
  }
}

struct Checker {
  const top::TxnFabric& f;
  const CollectiveRun& r;
  CheckResult res;
  int e = tl::red_type_bytes(r.spec.type);

  const tl::SparseMemory& mem(int i) const {
    return const_cast<top::TxnFabric&>(f).endpoints().memory(r.spec.ranks[static_cast<size_t>(i)]);
  }
  void wrong(const std::string& what) {
    if (res.wrong++ == 0) res.first = what;
  }
  // Data movement: `bytes` at rank i's `at` equal rank j's `from`.
  void same(int i, uint64_t at, int j, uint64_t from, uint64_t bytes) {
    std::vector<uint8_t> a(bytes), b(bytes);
    mem(i).read(at, a.data(), bytes);
    mem(j).read(from, b.data(), bytes);
    for (uint64_t k = 0; k < bytes; k += static_cast<uint64_t>(e)) {
      ++res.elements;
      if (std::memcmp(a.data() + k, b.data() + k, static_cast<size_t>(e)) != 0)
        wrong("rank " + std::to_string(r.spec.ranks[static_cast<size_t>(i)]) + " offset " + std::to_string(at + k) +
              ": differs from rank " + std::to_string(r.spec.ranks[static_cast<size_t>(j)]) + "'s offset " +
              std::to_string(from + k));
    }
  }
  // Reductions: rank i's out[off, off+bytes) against the reduction of every rank's in[off, ...).
  void reduced(int i, uint64_t off, uint64_t bytes) {
    const int n = static_cast<int>(r.spec.ranks.size());
    std::vector<std::vector<uint8_t>> in(static_cast<size_t>(n), std::vector<uint8_t>(bytes));
    for (int k = 0; k < n; ++k) mem(k).read(r.layout.in + off, in[static_cast<size_t>(k)].data(), bytes);
    std::vector<uint8_t> got(bytes);
    mem(i).read(r.layout.out + off, got.data(), bytes);
    const bool fl = tl::red_is_float(r.spec.type);
    const double us = step_roundoff(r.spec.type, r.spec.algo), uf = final_roundoff(r.spec.type, r.spec.algo);
    std::vector<uint64_t> vals(static_cast<size_t>(n));
    for (uint64_t k = 0; k < bytes; k += static_cast<uint64_t>(e)) {
      ++res.elements;
      const uint8_t* g = got.data() + k;
      bool ok;
      std::string detail;
      if (!fl) {
        for (int x = 0; x < n; ++x) vals[static_cast<size_t>(x)] = to_bits(e, in[static_cast<size_t>(x)].data() + k);
        const uint64_t want = int_reduce(r.spec.type, r.spec.op, vals);
        ok = to_bits(e, g) == want;
        detail = "got " + std::to_string(to_bits(e, g)) + ", expected " + std::to_string(want);
      } else if (r.spec.op == tl::RedOp::kSum) {
        long double exact = 0, mag = 0;
        for (int x = 0; x < n; ++x) {
          const long double v = to_ld(r.spec.type, in[static_cast<size_t>(x)].data() + k);
          exact += v;
          mag += std::fabs(v);
        }
        const double bound = static_cast<double>((n - 1) * us * 1.0001L * mag + uf * std::fabs(exact)) + 1e-300;
        const double err = static_cast<double>(std::fabs(to_ld(r.spec.type, g) - exact));
        ok = err <= bound;
        res.max_error_ratio = std::max(res.max_error_ratio, err / bound);
        detail = "got " + std::to_string(static_cast<double>(to_ld(r.spec.type, g))) + ", exact " +
                 std::to_string(static_cast<double>(exact)) + ", bound " + std::to_string(bound);
      } else {  // min / max pick one of the inputs: exact
        long double best = to_ld(r.spec.type, in[0].data() + k);
        for (int x = 1; x < n; ++x) {
          const long double v = to_ld(r.spec.type, in[static_cast<size_t>(x)].data() + k);
          best = r.spec.op == tl::RedOp::kMin ? std::min(best, v) : std::max(best, v);
        }
        uint8_t want[8] = {};
        store_float(r.spec.type, static_cast<double>(best), want);
        ok = std::memcmp(want, g, static_cast<size_t>(e)) == 0;
        detail = "got " + std::to_string(static_cast<double>(to_ld(r.spec.type, g))) + ", expected " +
                 std::to_string(static_cast<double>(best));
      }
      if (!ok)
        wrong("rank " + std::to_string(r.spec.ranks[static_cast<size_t>(i)]) + " element at offset " +
              std::to_string(r.layout.out + off + k) + ": " + detail);
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
  const int e = tl::red_type_bytes(r.spec.type);
  std::vector<uint8_t> buf(r.layout.in_bytes);
  for (size_t i = 0; i < r.spec.ranks.size(); ++i) {
    traffic::Rng rng(seed, static_cast<uint64_t>(r.spec.ranks[i]) + 1);
    for (uint64_t k = 0; k + static_cast<uint64_t>(e) <= buf.size(); k += static_cast<uint64_t>(e)) {
      const uint64_t x = rng.next();
      if (tl::red_is_float(r.spec.type))
        store_float(r.spec.type, (static_cast<double>(x % 2048) - 1024.0) / 1024.0, buf.data() + k);
      else
        std::memcpy(buf.data() + k, &x, static_cast<size_t>(e));
    }
    f.endpoints().memory(r.spec.ranks[i]).write(r.layout.in, buf.data(), buf.size());
  }
}

CheckResult check_results(const top::TxnFabric& f, const CollectiveRun& r) {
  Checker c{f, r, {}};
  const CollectiveSpec& s = r.spec;
  const int n = static_cast<int>(s.ranks.size());
  auto begin = [&](int k) { return chunk_begin(s.bytes, n, k, c.e); };
  for (int i = 0; i < n; ++i) {
    switch (s.coll) {
      case Collective::kAllReduce: c.reduced(i, 0, s.bytes); break;
      case Collective::kReduceScatter: c.reduced(i, begin(i), begin(i + 1) - begin(i)); break;
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
  return c.res;
}

}  // namespace upswitch::coll
