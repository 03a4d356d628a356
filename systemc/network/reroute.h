// Routing around links between switches while they are down (faults.link_down on a link between
// two switches; doc/reliability.md "Routing around a link that is down"). At the start and at
// the end of every down interval, every switch's routes are recomputed over the links then in
// service, by the topology's own rule, the way a fabric manager reprograms the routing tables.
#pragma once

#include <cstdint>
#include <vector>

#include "core/dl_params.h"
#include "network/topology.h"

namespace upswitch::network {

// Every switch's routes from cycle `at` on, in the layout of Topology::route_begin / route_ports.
struct RouteChange {
  uint64_t at = 0;
  std::vector<uint32_t> route_begin;
  std::vector<uint16_t> route_ports;
};

// The routes of `t` with the links marked in `out` (links between switches) out of service.
// Computed routes (shortest or up/down paths) are computed again without those links; a file's
// routing tables keep their other entries. Where a switch has no route to an endpoint left that
// way, it keeps the routes it had (what is routed there waits for the link to come back).
void routes_around(const Topology& t, const std::vector<char>& out, std::vector<uint32_t>& begin,
                   std::vector<uint16_t>& ports);

// The route changes of a run: `down[l]` is link l's down intervals (sorted, disjoint; empty for
// a link that stays up or for a link to an endpoint). One change at every cycle where the set of
// links down changes, in cycle order; none when no link between switches goes down. Throws
// TopologyError naming the cycle when a change allows a channel dependency cycle: packets routed
// the old way before it take the new routes at the switches they reach after it.
std::vector<RouteChange> plan_reroutes(const Topology& t, const std::vector<std::vector<core::DownInterval>>& down);

}  // namespace upswitch::network
