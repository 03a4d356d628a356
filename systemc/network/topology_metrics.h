// What a topology offers before anything runs: counts, bandwidth per endpoint, bisection
// bandwidth, diameter (doc/topology.md), and its Graphviz DOT picture.
#pragma once

#include <string>

#include "network/topology.h"

namespace upswitch::network {

struct TopologyMetrics {
  int switches = 0, endpoints = 0, links = 0, inter_switch_links = 0;
  // Per endpoint and direction: the sum of its links' rates (GB/s), the first endpoint's.
  double endpoint_gbytes_per_s = 0;
  // Per direction: the minimum cut between endpoints 0 .. E/2-1 and the rest (max-flow over the
  // links' rates). For the built-in kinds that split is the worst one: leaves hold consecutive ids.
  double bisection_gbytes_per_s = 0;
  int diameter = 0;  // most switches a packet crosses between two endpoints, over the routes
};

// `flit_gbytes_per_s`: the rate of a link whose gbytes_per_s is 0 (one flit per core cycle).
TopologyMetrics measure_topology(const Topology& t, double flit_gbytes_per_s);

// Whether the topology is a two-level folded Clos the reduction engine can run as a tree
// (doc/reduction.md "Two tiers"): topology.kind = two_tier, or a topology file whose switches all
// have level 0 or 1, with the accelerators on level 0 only, at least one level-1 switch, and a link
// from every level-0 switch that has accelerators to every level-1 switch.
bool two_level_clos(const Topology& t);

// Graphviz DOT: switches as boxes, endpoints as ellipses, one edge per link labelled with its ports.
std::string topology_dot(const Topology& t);

}  // namespace upswitch::network
