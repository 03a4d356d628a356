// Counters the switch core keeps, per port, over the statistics window unless marked whole run.
#pragma once

#include <cstdint>
#include <vector>

namespace upswitch::core {

struct SwitchStats {
  std::vector<uint64_t> occupancy_flit_cycles;  // per input: sum over window cycles of occupancy
  std::vector<uint64_t> peak_occupancy;         // per input, whole run
  std::vector<uint64_t> xbar_flits;             // per output: flits through the crossbar
  std::vector<uint64_t> credit_stall_cycles;    // per output: a flit waited, no downstream credit
  std::vector<uint64_t> output_buffer_peak;     // per output, whole run (crossbar speedup > 1)
  uint64_t window_cycles = 0;                   // cycles of the window seen so far
  uint64_t grants = 0;                          // whole run
  // Whole run, per port (a network's per-link load over any interval: top/link_load.h).
  std::vector<uint64_t> received_flits;         // per input: flits arrived on its link
  std::vector<uint64_t> sent_flits;             // per output: flits through the crossbar
  uint64_t allocation_rounds = 0;               // cycles in which the allocator ran
  uint64_t speculative_grants = 0;              // speculative grants used (a head crossed in its VA cycle)
  uint64_t speculative_wasted = 0;              // speculative grants to heads whose VC allocation failed
  // Partitions and port faults (doc/reliability.md), per input port, whole run.
  std::vector<uint64_t> protection_violations;  // request messages rejected: target in another pod
  std::vector<uint64_t> target_aborts;          // request messages rejected: target port down
  std::vector<uint64_t> dropped_packets;        // packets dropped: from a down port, or responses to one
  uint64_t flits_discarded = 0;                 // flits of rejected or dropped packets, freed at their input

  void resize(int ports) {
    occupancy_flit_cycles.assign(ports, 0);
    peak_occupancy.assign(ports, 0);
    xbar_flits.assign(ports, 0);
    received_flits.assign(ports, 0);
    sent_flits.assign(ports, 0);
    credit_stall_cycles.assign(ports, 0);
    output_buffer_peak.assign(ports, 0);
    protection_violations.assign(ports, 0);
    target_aborts.assign(ports, 0);
    dropped_packets.assign(ports, 0);
  }
};

}  // namespace upswitch::core
