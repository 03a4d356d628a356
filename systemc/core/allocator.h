// Switch allocator contract: given which outputs each input requests this cycle, produce a
// matching (each input at most one output, each output at most one input). Implementations
// keep their own round-robin state and must be deterministic. Exact rules per allocator are in
// doc/architecture.md ("Allocators"); the RTL in rtl_ref/ implements the same rules.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/bits.h"

namespace upswitch::core {

struct AllocRequest {
  const BitMatrix* by_input = nullptr;   // row i: outputs requested by input i (when needs_by_input())
  const BitMatrix* by_output = nullptr;  // row o: inputs requesting output o (when needs_by_output())
  const std::vector<int>* inputs = nullptr;   // inputs with at least one request, ascending
  const std::vector<int>* outputs = nullptr;  // outputs with at least one request, ascending
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  // Fills match[i] with the output granted to input i, or -1. match has one entry per input.
  virtual void allocate(const AllocRequest& req, std::vector<int>& match) = 0;
  virtual const char* name() const = 0;
  // Whether allocate() reads AllocRequest::by_output (the caller may skip building it).
  virtual bool needs_by_output() const { return false; }
  // Whether allocate() reads AllocRequest::by_input (the caller may skip building it when it
  // builds the requests output by output).
  virtual bool needs_by_input() const { return true; }
};

// Names accepted by make_allocator(), in documentation order.
const std::vector<std::string>& allocator_names();
// Builds the allocator `name` for an n x n switch; `iterations` is used by iterative ones.
std::unique_ptr<Allocator> make_allocator(const std::string& name, int n, int iterations);

}  // namespace upswitch::core
