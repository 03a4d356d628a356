// Name -> allocator table: one row per implementation, so adding one is one line here.
#include <stdexcept>

#include "core/allocator_impls.h"

namespace upswitch::core {
namespace {

struct Entry {
  const char* name;
  std::unique_ptr<Allocator> (*make)(int n, int iterations);
};

const Entry kAllocators[] = {
    {"separable_input_first",
     [](int n, int) -> std::unique_ptr<Allocator> { return std::make_unique<SeparableInputFirst>(n); }},
    {"islip",
     [](int n, int it) -> std::unique_ptr<Allocator> { return std::make_unique<ISlip>(n, it); }},
    {"wavefront",
     [](int n, int) -> std::unique_ptr<Allocator> { return std::make_unique<Wavefront>(n); }},
};

}  // namespace

const std::vector<std::string>& allocator_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const Entry& e : kAllocators) v.emplace_back(e.name);
    return v;
  }();
  return names;
}

std::unique_ptr<Allocator> make_allocator(const std::string& name, int n, int iterations) {
  for (const Entry& e : kAllocators)
    if (name == e.name) return e.make(n, iterations);
  throw std::invalid_argument("unknown allocator '" + name + "'");
}

}  // namespace upswitch::core
