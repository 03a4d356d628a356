// Partitions and port faults as the switch enforces them (doc/reliability.md): the virtual pod of
// every accelerator port (UALink vPods, kept apart by routing entries in each switch, facts
// §1.11), and the windows of cycles in which a switch port is down. Keys and defaults:
// systemc/config/fault_params.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace upswitch::core {

// Port `port` of switch `sw` (0 on one switch) is down in cycles [begin, end); it is the switch end
// of accelerator `accel`'s link.
struct PortDownWindow {
  int port = 0;
  uint64_t begin = 0, end = UINT64_MAX;
  int sw = 0;
  int accel = 0;
};

// faults.switch_down: switch `sw` of the network is taken out of service at cycle `at`.
struct SwitchDown {
  int sw = 0;
  uint64_t at = 0;
};

struct FaultParams {
  // partition.pods: pod id of accelerator i (on one switch, accelerator port i); empty = every
  // accelerator in pod 0. Endpoints beyond the list (the reduction engine's units) belong to no
  // pod: the engine checks its own requests.
  std::vector<int> pods;
  std::vector<PortDownWindow> port_down;  // faults.port_down, in cycles
  // faults.switch_down, by cycle. Not a switch's per-packet filter (any() leaves it out): the
  // endpoints stop using the switch and its neighbours route around it (top/txn_fabric.cpp).
  std::vector<SwitchDown> switch_down;

  bool partitioned() const {
    for (int p : pods)
      if (p != pods.front()) return true;
    return false;
  }
  bool any() const { return partitioned() || !port_down.empty() || !target_down.empty(); }
  // Whether accelerators a and b may exchange requests: same pod, or either outside the table.
  bool same_pod(int a, int b) const {
    const auto n = static_cast<int>(pods.size());
    return a >= n || b >= n || pods[static_cast<size_t>(a)] == pods[static_cast<size_t>(b)];
  }
  // "" when `ports` are all in one pod, else which two are not (a collective's ranks).
  std::string pod_split(const std::vector<int>& ports) const {
    for (int p : ports)
      if (!ports.empty() && !same_pod(ports.front(), p))
        return "ranks " + std::to_string(ports.front()) + " (pod " +
               std::to_string(pods[static_cast<size_t>(ports.front())]) + ") and " + std::to_string(p) + " (pod " +
               std::to_string(pods[static_cast<size_t>(p)]) +
               ") are in different virtual pods (partition.pods); a collective runs inside one pod";
    return "";
  }
  // "" when no port of `ports` (a collective's members) is ever taken down, else which one is. A
  // collective needs every member to answer, so one across a failed port is refused up front
  // rather than left to stall (doc/reliability.md).
  std::string down_member(const std::vector<int>& ports) const {
    for (int p : ports)
      for (const PortDownWindow& w : port_down)
        if (w.accel == p)
          return "accelerator " + std::to_string(p) +
                 " is a member and faults.port_down takes its port down; a collective needs every member, so "
                 "the run is refused: take down ports outside the collective's ranks";
    return "";
  }
  // On a network, the windows of accelerator ports a switch rejects requests to at their first
  // switch (on_switch): those whose switch is in its plane.
  std::vector<PortDownWindow> target_down;

  // The rules of switch `s` of a network whose switch k is in plane plane_of[k]: the same
  // partition, its own ports' windows, and the accelerator ports down in its plane as targets.
  FaultParams on_switch(int s, const std::vector<int>& plane_of) const {
    FaultParams f = *this;
    f.port_down.clear();
    for (const PortDownWindow& w : port_down) {
      if (w.sw == s) f.port_down.push_back(w);
      if (plane_of[static_cast<size_t>(w.sw)] == plane_of[static_cast<size_t>(s)]) f.target_down.push_back(w);
    }
    return f;
  }
  // Whether requests to accelerator `accel` are rejected at `t` (target_down).
  bool target_is_down(int accel, uint64_t t) const {
    for (const PortDownWindow& w : target_down)
      if (w.accel == accel && t >= w.begin && t < w.end) return true;
    return false;
  }
  // Port `port` of the switch these rules are for (on_switch) is down at `t`.
  bool down(int port, uint64_t t) const {
    for (const PortDownWindow& w : port_down)
      if (w.port == port && t >= w.begin && t < w.end) return true;
    return false;
  }
};

}  // namespace upswitch::core
