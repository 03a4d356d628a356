// The load every directed link of a network carried over an interval of a run (a workload phase,
// doc/workloads.md): flits per switch and the busiest link, from the switches' whole-run per-port
// counters (core::SwitchStats received_flits / sent_flits) read at the interval's two ends.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "network/network.h"

namespace upswitch::top {

// The counters at one moment: per switch its crossbar flits, per channel (Network::channels()
// order) the flits its link carried.
struct LinkCounters {
  std::vector<uint64_t> switch_flits;
  std::vector<uint64_t> channel_flits;
};
LinkCounters read_link_counters(const network::Network& net);

struct LinkLoad {
  std::vector<uint64_t> switch_flits;  // per switch: flits through its crossbar in the interval
  int busiest = -1;                    // channel carrying the most flits relative to its rate; -1 = none
  std::string busiest_name;            // "sw3.p7->ep7.p3"
  uint64_t busiest_flits = 0;
  double busiest_utilisation = 0;      // its flits over what it could carry in the interval
  double switch_spread = 0;            // busiest switch's flits over the mean switch's (1 = even)
};
// The load between two readings `cycles` cycles apart; `flit_gbytes_per_s` converts link rates
// to flits per cycle (network::LinkSpec::flits_per_cycle). The links of reduction units (endpoints
// after the accelerators) count like any other; ties go to the first channel.
LinkLoad link_load(const network::Network& net, const LinkCounters& begin, const LinkCounters& end, uint64_t cycles,
                   double flit_gbytes_per_s);

}  // namespace upswitch::top
