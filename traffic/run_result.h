// What one run measured, as the endpoints saw it (switch-side counters are in SwitchStats).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stats/histogram.h"
#include "traffic/saturation.h"

namespace upswitch::traffic {

struct PortResult {
  uint64_t offered_flits = 0;   // created at this source inside the window
  uint64_t injected_flits = 0;  // sent by this source inside the window
  uint64_t accepted_flits = 0;  // delivered to this sink inside the window
  uint64_t backlog_flits_end = 0;  // waiting at this source at the end of the window
};

// Flits of one destination class (hot: to traffic.hotspot_ports under the hotspot pattern; cold:
// to any other endpoint), counted like the ports' offered and accepted flits.
struct FlowClassResult {
  uint64_t offered_flits = 0;   // of measured packets, created inside the window
  uint64_t accepted_flits = 0;  // delivered inside the window
};

struct RunResult {
  stats::Histogram packet_latency;   // creation -> tail delivery, measured packets
  stats::Histogram network_latency;  // head injection -> tail delivery, measured packets
  std::vector<PortResult> ports;
  // Per endpoint: flits it sent (as the packets' source) and flits sent to it, delivered inside
  // the window; the fairness indices are taken over these.
  std::vector<uint64_t> source_accepted, destination_accepted;
  FlowClassResult hot, cold;
  uint64_t window_cycles = 0;
  uint64_t backlog_flits_start = 0, backlog_flits_end = 0;
  bool saturated = false;
  std::string saturation_reason;
  SaturationEvidence saturation;  // the sample windows behind the verdict
  bool interrupted = false;
  uint64_t end_cycle = 0;  // last simulated cycle + 1
  uint64_t packets_created = 0, packets_delivered = 0;
  uint64_t flits_created = 0, flits_delivered = 0;
  uint64_t measured_packets = 0, measured_delivered = 0;
};

}  // namespace upswitch::traffic
