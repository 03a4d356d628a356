// Ports taken out of service at given cycles (faults.switch_down), as both endpoint models keep
// them: a plan of (cycle, port) in cycle order, and each endpoint's list of ports still in service.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

namespace upswitch::core {

class PortOutages {
 public:
  // Port `port` goes out of service at cycle `at`; entries of one cycle keep the order given.
  // A negative port marks a cycle without a port (the transaction fabric's paths change).
  void add(uint64_t at, int port) {
    plan_.emplace_back(at, port);
    std::stable_sort(plan_.begin(), plan_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  // The first cycle with an entry; UINT64_MAX when none is left.
  uint64_t next() const { return plan_.empty() ? UINT64_MAX : plan_.front().first; }
  // Calls on_port(port) for every entry due by cycle t, in order, and drops them.
  template <class F>
  void take_due(uint64_t t, F&& on_port) {
    size_t k = 0;
    for (; k < plan_.size() && plan_[k].first <= t; ++k) on_port(plan_[k].second);
    plan_.erase(plan_.begin(), plan_.begin() + static_cast<std::ptrdiff_t>(k));
  }

  // Removes `port` from an endpoint's ports in service, `live` (empty: all of first..end-1).
  // Throws when it was the last: the configuration check refuses a plan that leaves none.
  static void remove_live(std::vector<int>& live, int first, int end, int port) {
    if (live.empty())
      for (int q = first; q < end; ++q) live.push_back(q);
    live.erase(std::remove(live.begin(), live.end(), port), live.end());
    if (live.empty()) throw std::logic_error("PortOutages: an endpoint lost its last port");
  }

 private:
  std::vector<std::pair<uint64_t, int>> plan_;
};

}  // namespace upswitch::core
