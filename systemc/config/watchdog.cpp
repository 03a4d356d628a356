// The deadlock watchdogs judge progress over a window of cycles; on a fabric whose round trip is
// longer than that window (link.latency_cycles = 200000), waiting for an answer looked like a
// deadlock. The window scales with what the configuration says a round trip takes.
#include <algorithm>

#include "config/config.h"

namespace upswitch::config {

uint64_t Config::watchdog_window() const {
  const uint64_t set = sw.watchdog_cycles;
  if (set == 0) return 0;
  // One request's round trip: both links and their credit returns, the switch pipeline both ways,
  // the completer's memory latency, and the data-link layer's pipeline and acknowledgement both
  // ways when it is on.
  const uint64_t pipeline = static_cast<uint64_t>(sw.routing_cycles) + static_cast<uint64_t>(sw.vc_alloc_cycles) +
                            static_cast<uint64_t>(sw.sw_alloc_cycles) + static_cast<uint64_t>(sw.xbar_cycles) +
                            static_cast<uint64_t>(sw.egress_cycles);
  uint64_t round_trip = 4 * static_cast<uint64_t>(link_latency_cycles) + 4 * static_cast<uint64_t>(credit_delay_cycles) +
                        2 * pipeline;
  if (kind == TrafficKind::kTransactions) round_trip += static_cast<uint64_t>(accel.mem_latency_cycles);
  if (dl.enable) round_trip += 4 * static_cast<uint64_t>(dl.rx_cycles + dl.ack_cycles);
  // Scheduled outages stall traffic without a deadlock: the longest link-down interval, and a
  // request to a down port waits for its completion timeout.
  uint64_t outage = accel.completion_timeout_cycles;
  for (const core::LinkFaults& f : link_faults)
    for (const core::DownInterval& d : f.down) outage = std::max(outage, d.end - d.begin);
  return std::max(set, 4 * round_trip + outage);
}

}  // namespace upswitch::config
