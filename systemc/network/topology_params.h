// The topology.* and routing.* keys as the network layer consumes them. Defaults, units, ranges
// and descriptions live in one place only: systemc/config/topology_params.cpp.
#pragma once

#include <string>
#include <vector>

namespace upswitch::network {

enum class TopologyKind { kSingle, kPlanes, kTwoTier, kFile };
// How a switch chooses among equal-cost output ports (routing.multipath).
enum class Multipath { kHash, kRoundRobin, kAdaptive, kInput };

struct TopologyParams {
  TopologyKind kind = TopologyKind::kSingle;
  int endpoints = 0;         // planes: endpoints (two_tier: leaves x endpoints_per_leaf)
  int planes = 1;            // planes, two_tier: independent copies of the fabric
  int links_per_plane = 1;   // planes: ports of every endpoint on every plane
  std::vector<int> plane_links;  // planes: ports of every endpoint on plane s; empty = links_per_plane on each
  int leaves = 0;            // two_tier, per plane
  int endpoints_per_leaf = 0;
  int spines = 0;            // two_tier, per plane
  int uplinks_per_leaf = 0;  // two_tier: leaf-to-spine links of one leaf (spread over the spines)
  std::string file;          // file: path of the topology YAML (read by the config layer)
  std::string file_text;     // file: its contents, read once by the config layer
  Multipath multipath = Multipath::kHash;
};

// Defaults every link takes unless the topology says otherwise.
struct LinkDefaults {
  int latency_cycles = 0;       // endpoint links, one way
  int credit_delay_cycles = 0;
  double gbytes_per_s = 0;      // TL flit bandwidth per direction; 0 = one flit per core cycle
  int inter_switch_latency_cycles = 0;  // switch-to-switch links
  int inter_switch_credit_delay_cycles = 0;
  double inter_switch_gbytes_per_s = 0;
  int switch_radix = 0;         // switch.ports: the most ports one switch chip has
};

}  // namespace upswitch::network
