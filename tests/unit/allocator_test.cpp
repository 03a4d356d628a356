// Each allocator against a deliberately naive re-implementation of the rules written in
// doc/architecture.md (loops over ints, no bit tricks), cycle by cycle with evolving pointer
// state; plus the properties every matching must have.
#include <gtest/gtest.h>

#include "core/allocator.h"
#include "traffic/rng.h"

namespace upswitch::core {
namespace {

using Matrix = std::vector<std::vector<bool>>;

struct NaiveSeparable {
  int n;
  std::vector<int> in_ptr, out_ptr;
  explicit NaiveSeparable(int n_) : n(n_), in_ptr(n_, 0), out_ptr(n_, 0) {}
  std::vector<int> run(const Matrix& r) {
    std::vector<int> pick(n, -1), match(n, -1);
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < n && pick[i] < 0; ++k)
        if (r[i][(in_ptr[i] + k) % n]) pick[i] = (in_ptr[i] + k) % n;
    for (int o = 0; o < n; ++o) {
      for (int k = 0; k < n; ++k) {
        const int i = (out_ptr[o] + k) % n;
        if (pick[i] == o) {
          match[i] = o;
          in_ptr[i] = (o + 1) % n;
          out_ptr[o] = (i + 1) % n;
          break;
        }
      }
    }
    return match;
  }
};

struct NaiveISlip {
  int n, iters;
  std::vector<int> gptr, aptr;
  NaiveISlip(int n_, int it) : n(n_), iters(it), gptr(n_, 0), aptr(n_, 0) {}
  std::vector<int> run(const Matrix& r) {
    std::vector<int> match(n, -1), out_match(n, -1);
    for (int it = 0; it < iters; ++it) {
      std::vector<int> grant(n, -1);  // grant[o] = input
      for (int o = 0; o < n; ++o) {
        if (out_match[o] >= 0) continue;
        for (int k = 0; k < n; ++k) {
          const int i = (gptr[o] + k) % n;
          if (match[i] < 0 && r[i][o]) {
            grant[o] = i;
            break;
          }
        }
      }
      std::vector<int> new_match(n, -1);
      for (int i = 0; i < n; ++i) {
        if (match[i] >= 0) continue;
        for (int k = 0; k < n; ++k) {
          const int o = (aptr[i] + k) % n;
          if (grant[o] == i) {
            new_match[i] = o;
            break;
          }
        }
      }
      for (int i = 0; i < n; ++i) {
        if (new_match[i] < 0) continue;
        const int o = new_match[i];
        match[i] = o;
        out_match[o] = i;
        if (it == 0) {
          aptr[i] = (o + 1) % n;
          gptr[o] = (i + 1) % n;
        }
      }
    }
    return match;
  }
};

struct NaiveWavefront {
  int n, p = 0;
  explicit NaiveWavefront(int n_) : n(n_) {}
  std::vector<int> run(const Matrix& r) {
    std::vector<int> match(n, -1);
    std::vector<bool> out_taken(n, false);
    for (int k = 0; k < n; ++k) {
      const int d = (p + k) % n;
      for (int i = 0; i < n; ++i) {
        const int o = ((d - i) % n + n) % n;
        if (match[i] < 0 && r[i][o] && !out_taken[o]) {
          match[i] = o;
          out_taken[o] = true;
        }
      }
    }
    p = (p + 1) % n;
    return match;
  }
};

template <class Naive>
void compare(const std::string& name, int n, int iters, Naive naive, double density) {
  auto alloc = make_allocator(name, n, iters);
  traffic::Rng rng(static_cast<uint64_t>(n) * 31 + iters, 5);
  BitMatrix by_in(n, n), by_out(n, n);
  std::vector<int> match(n, -1);
  for (int cycle = 0; cycle < 400; ++cycle) {
    Matrix r(n, std::vector<bool>(n, false));
    std::vector<int> ins, outs;
    for (int i = 0; i < n; ++i) by_in.clear_row(i), by_out.clear_row(i);
    for (int i = 0; i < n; ++i)
      for (int o = 0; o < n; ++o)
        if (rng.unit() < density) {
          r[i][o] = true;
          set_bit(by_in.row(i), o);
          set_bit(by_out.row(o), i);
        }
    for (int i = 0; i < n; ++i) {
      if (any_bit(by_in.row(i), by_in.words())) ins.push_back(i);
      if (any_bit(by_out.row(i), by_out.words())) outs.push_back(i);
    }
    alloc->allocate(AllocRequest{&by_in, &by_out, &ins, &outs}, match);
    const std::vector<int> want = naive.run(r);
    std::vector<bool> out_used(n, false);
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(match[i], want[i]) << name << " n=" << n << " cycle " << cycle << " input " << i;
      if (match[i] >= 0) {
        EXPECT_TRUE(r[i][match[i]]) << "granted an unrequested pair";
        EXPECT_FALSE(out_used[match[i]]) << "output granted twice";
        out_used[match[i]] = true;
      }
      match[i] = -1;
    }
  }
}

TEST(Allocators, SeparableInputFirstFollowsItsRules) {
  for (int n : {2, 5, 8, 72, 130})
    for (double d : {0.05, 0.3, 0.9}) compare("separable_input_first", n, 1, NaiveSeparable(n), d);
}

TEST(Allocators, ISlipFollowsItsRules) {
  for (int n : {2, 8, 72, 130})
    for (int it : {1, 2, 4})
      for (double d : {0.05, 0.3, 0.9}) compare("islip", n, it, NaiveISlip(n, it), d);
}

TEST(Allocators, WavefrontFollowsItsRules) {
  for (int n : {2, 7, 72})
    for (double d : {0.05, 0.3, 0.9}) compare("wavefront", n, 1, NaiveWavefront(n), d);
}

// With N iterations iSLIP, and the wavefront always, produce a maximal matching: no requested
// pair is left with both its input and its output unmatched.
TEST(Allocators, MaximalWhereTheoryPromises) {
  const int n = 16;
  for (const char* name : {"islip", "wavefront"}) {
    auto alloc = make_allocator(name, n, n);
    traffic::Rng rng(99, 1);
    BitMatrix by_in(n, n), by_out(n, n);
    std::vector<int> match(n, -1);
    for (int cycle = 0; cycle < 200; ++cycle) {
      std::vector<int> ins, outs;
      for (int i = 0; i < n; ++i) by_in.clear_row(i), by_out.clear_row(i);
      for (int i = 0; i < n; ++i)
        for (int o = 0; o < n; ++o)
          if (rng.unit() < 0.2) {
            set_bit(by_in.row(i), o);
            set_bit(by_out.row(o), i);
          }
      for (int i = 0; i < n; ++i) {
        if (any_bit(by_in.row(i), 1)) ins.push_back(i);
        if (any_bit(by_out.row(i), 1)) outs.push_back(i);
      }
      alloc->allocate(AllocRequest{&by_in, &by_out, &ins, &outs}, match);
      std::vector<bool> out_used(n, false);
      for (int i = 0; i < n; ++i)
        if (match[i] >= 0) out_used[match[i]] = true;
      for (int i = 0; i < n; ++i)
        for (int o = 0; o < n; ++o)
          if (test_bit(by_in.row(i), o)) {
            EXPECT_TRUE(match[i] >= 0 || out_used[o]) << name;
          }
      std::fill(match.begin(), match.end(), -1);
    }
  }
}

TEST(Allocators, UnknownNameIsRejected) { EXPECT_THROW(make_allocator("pim", 4, 1), std::invalid_argument); }

}  // namespace
}  // namespace upswitch::core
