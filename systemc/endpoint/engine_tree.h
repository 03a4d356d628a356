// The reduction engine's tree on two tiers (doc/reduction.md "Two tiers: the SHARP pattern"):
// which engine units sit at which level, and where a unit sends the part of a group it does not
// reach itself. Leaves reduce their own members, spines reduce the leaves' partial results:
//   kLeaf     a leaf's unit serving its accelerators' multicast requests: its own members
//             directly, the rest as one request to a spine unit;
//   kSpine    a spine's unit: one request to a kLeafDown unit of every other leaf with members;
//   kLeafDown a leaf's unit serving a spine: its own members only.
// Each level waits only on the level below it (kLeaf on kSpine, kSpine on kLeafDown, kLeafDown on
// accelerators), on units of their own, so the contexts and receive buffers held never form a
// cycle. Empty (no units listed): every unit reaches every member itself (one switch, planes,
// topology files, reduce.hierarchy = flat).
#pragma once

#include <cstdint>
#include <vector>

namespace upswitch::endpoint {

struct EngineTree {
  enum Role : uint8_t { kLeaf, kSpine, kLeafDown };
  // Per engine unit (endpoint id - accelerators).
  std::vector<Role> role;
  std::vector<int> unit_switch;
  // Per switch.
  std::vector<int> plane;                      // which copy of the fabric
  std::vector<std::vector<int>> units;         // kSpine: its units; a leaf: its kLeafDown units (endpoint ids)
  std::vector<uint64_t> out_at;                // faults.switch_down: out of service from this cycle (UINT64_MAX: never)
  std::vector<std::vector<int>> plane_spines;  // per plane: its spine switches
  int planes = 1;
  std::vector<int> member_leaf;  // per accelerator and plane (a * planes + plane): its leaf switch, -1 = none

  bool empty() const { return role.empty(); }
  int leaf_of(int accelerator, int pl) const {
    return member_leaf[static_cast<size_t>(accelerator) * static_cast<size_t>(planes) + static_cast<size_t>(pl)];
  }
};

}  // namespace upswitch::endpoint
