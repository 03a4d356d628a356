// Injection processes: when a source creates its next packet. Both give the configured mean
// rate in flits per cycle; gaps are drawn directly (geometric), so an idle source costs nothing.
//  - bernoulli: a packet is created in each cycle with probability rate / mean packet size;
//  - onoff: bursts of geometrically many packets (mean burst_packets) sent back to back at one
//    flit per cycle, separated by geometric off periods sized to keep the mean rate.
#pragma once

#include <cstdint>

#include "traffic/rng.h"
#include "traffic/traffic_params.h"

namespace upswitch::traffic {

class InjectionProcess {
 public:
  InjectionProcess() = default;
  InjectionProcess(const TrafficParams& p, double mean_packet_flits);
  // Cycle of the first packet, given the run start; UINT64_MAX if the source never sends.
  uint64_t first(uint64_t start, Rng& rng);
  // Cycle of the packet after one created at `now` of `flits` flits.
  uint64_t next(uint64_t now, int flits, Rng& rng);

 private:
  uint64_t off_gap(Rng& rng);
  uint64_t packet_gap(Rng& rng) {
    return packet_threshold_ ? rng.geometric_trials(packet_threshold_) : rng.geometric_log(packet_log_q_);
  }
  bool onoff_ = false;
  double packet_log_q_ = 0;    // bernoulli: log(1 - per-cycle packet probability)
  uint64_t packet_threshold_ = 0;  // bernoulli with probability >= 1/4: probability * 2^64, else 0
  double burst_end_prob_ = 1;  // onoff: probability a packet ends its burst
  double off_log_q_ = 0;       // onoff: log(1 - per-cycle probability an off period ends)
  bool idle_ = true;
};

}  // namespace upswitch::traffic
