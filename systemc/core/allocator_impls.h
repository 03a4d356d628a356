// The allocator implementations; only allocator_registry.cpp and tests name them directly.
#pragma once

#include <vector>

#include "core/allocator.h"
#include "core/bits.h"

namespace upswitch::core {

class SeparableInputFirst : public Allocator {
 public:
  explicit SeparableInputFirst(int n);
  void allocate(const AllocRequest& req, std::vector<int>& match) override;
  const char* name() const override { return "separable_input_first"; }

 private:
  int n_;
  std::vector<int> in_ptr_, out_ptr_;
  BitMatrix picked_by_;  // row o: inputs whose input arbiter picked o this cycle
  std::vector<int> touched_;
};

class ISlip : public Allocator {
 public:
  ISlip(int n, int iterations);
  void allocate(const AllocRequest& req, std::vector<int>& match) override;
  const char* name() const override { return "islip"; }
  bool needs_by_output() const override { return true; }
  bool needs_by_input() const override { return false; }

 private:
  int n_, iterations_;
  std::vector<int> grant_ptr_, accept_ptr_;
  BitMatrix grants_;            // row i: outputs granting input i in this iteration
  BitMatrix in_free_, out_free_;  // one row each
  BitMatrix in_granted_;          // one row: inputs with a grant in this iteration (granted_)
  std::vector<int> granted_;
  std::vector<int> outputs_;
};

class Wavefront : public Allocator {
 public:
  explicit Wavefront(int n);
  void allocate(const AllocRequest& req, std::vector<int>& match) override;
  const char* name() const override { return "wavefront"; }

 private:
  int n_;
  int priority_ = 0;
  BitMatrix out_taken_;
  std::vector<int> pending_;
};

}  // namespace upswitch::core
