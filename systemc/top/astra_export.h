// ASTRA-sim's analytical network file from the planner table (doc/workloads.md, "ASTRA-sim"):
// one file per group size N of the collective table (ASTRA-sim needs npus_count to equal its
// number of workload files), one dimension per switch level between the NPUs. The model has one
// level, a single switch, so every file has one `Switch` dimension; a multi-level topology adds
// one AstraDim per level in astra_network().
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "top/astra_units.h"
#include "top/planner_table.h"

namespace upswitch::top {

struct AstraDim {
  std::string topology;          // "Switch"
  int npus = 0;                  // NPUs on this level
  double bandwidth_gbps = 0;     // measured per link and direction, 1e9 B/s
  double latency_ns = 0;         // per link
  nlohmann::ordered_json bandwidth_source;  // the measurement the bandwidth is (p2p row, or a collective's)
  nlohmann::ordered_json latency_source;    // the measurement the latency comes from (ring row, or p2p)
  std::string bandwidth_from, latency_from;  // the same in words
};

struct AstraNetwork {
  int npus_count = 0;  // product of the dimensions' NPUs: the workload's file count
  AstraUnits units = AstraUnits::kBinary;
  std::vector<AstraDim> dims;
};

// The group sizes that get a file: every --ranks value of at least 2, in the order given.
std::vector<int> astra_group_sizes(const PlannerTable& t);
// The network of `ranks` NPUs, its links as ASTRA-sim charges them (a send: 2 x latency + bytes /
// bandwidth). Bandwidth: the best write pair stream of the p2p table (one sender to one
// receiver); without p2p rows, the busbw of the first of ring all_reduce, reduce_scatter,
// all_gather, oneshot all_to_all, ring broadcast measured at `ranks`. Latency: the ring's per-step
// cost, the α of the first of ring all_reduce, reduce_scatter, all_gather measured at `ranks`
// (its α-β fit's piece covering the largest size) over 2 x its steps (one size only: that row's
// step less its send's serialization, over 2 hops); without a ring, the 64 B write round trip
// less the memory access, over the four link crossings of a round trip.
AstraNetwork astra_network(const PlannerTable& t, int ranks);
std::string astra_file_name(int ranks);  // astra_network_nN.yml
std::string astra_network_yaml(const PlannerTable& t, const AstraNetwork& a);
nlohmann::ordered_json astra_network_json(const AstraNetwork& a);

}  // namespace upswitch::top
