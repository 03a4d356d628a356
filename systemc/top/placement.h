// Which endpoints a group of ranks takes and in which ring order (doc/reduction.md "Placement"):
// packed takes the lowest-numbered endpoints, spread deals ranks over the leaves (the switch each
// endpoint's first port attaches to) one leaf at a time, a list names them. Packed and spread put
// a ring's neighbours on the same leaf first (sorted by leaf, then endpoint), so a ring crosses
// between leaves as few times as the group allows; a list keeps the order it gives.
#pragma once

#include <string>
#include <vector>

#include "network/topology.h"

namespace upswitch::top {

struct Placement {
  enum class Kind { kPacked, kSpread, kList };
  Kind kind = Kind::kPacked;
  std::vector<int> list;  // kList: endpoints, in ring order
};

// "packed", "spread" or a comma-separated endpoint list; false (and `error` set) otherwise.
bool parse_placement(const std::string& text, Placement& out, std::string& error);
// "packed", "spread" or "list".
const char* placement_name(const Placement& p);

// The leaf of endpoint e: the switch its port 0 attaches to (-1 when none).
int leaf_of(const network::Topology& t, int e);

// The endpoints of a group of `n` ranks, in ring order; "" in `error` or what is wrong (n out of
// range, a list naming an endpoint twice or one the topology does not have, a list whose length
// is not n).
std::vector<int> place_ranks(const network::Topology& t, int n, const Placement& p, std::string& error);

// "0-7" or "0,9,18": runs of consecutive endpoint ids as ranges (how outputs name a placement).
std::string endpoint_list(const std::vector<int>& e);

// workload.placement (doc/workloads.md "Placement"): the endpoints ranks 0 .. n-1 of a workload,
// or the accelerator ids 0 .. n-1 of a trace, run on. `text` as parse_placement takes it; packed
// is rank i on endpoint i (as without the key), spread and a list as place_ranks. "" in `error`
// or what is wrong.
std::vector<int> place_workload_ranks(const network::Topology& t, const std::string& text, int n, std::string& error);

}  // namespace upswitch::top
