#include "traffic/injection.h"

#include <cmath>

namespace upswitch::traffic {

InjectionProcess::InjectionProcess(const TrafficParams& p, double mean_packet_flits) {
  idle_ = p.rate <= 0;
  onoff_ = p.injection == InjectionKind::kOnOff;
  const double prob = p.rate / mean_packet_flits;
  packet_log_q_ = Rng::log_q(prob);
  if (prob >= 0.25 && prob < 1.0) packet_threshold_ = static_cast<uint64_t>(std::ldexp(prob, 64));
  if (onoff_ && !idle_) {
    // Mean on period = burst_packets * mean size cycles at one flit per cycle; the off period
    // mean makes on / (on + off) = rate.
    burst_end_prob_ = 1.0 / p.burst_packets;
    const double on = p.burst_packets * mean_packet_flits;
    const double off_mean = on * (1.0 - p.rate) / p.rate;
    off_log_q_ = Rng::log_q(1.0 / (1.0 + off_mean));
  }
}

uint64_t InjectionProcess::off_gap(Rng& rng) { return rng.geometric_log(off_log_q_); }

uint64_t InjectionProcess::first(uint64_t start, Rng& rng) {
  if (idle_) return UINT64_MAX;
  if (onoff_) return start + off_gap(rng);
  return start + packet_gap(rng);
}

uint64_t InjectionProcess::next(uint64_t now, int flits, Rng& rng) {
  if (idle_) return UINT64_MAX;
  if (!onoff_) return now + 1 + packet_gap(rng);
  if (rng.unit() >= burst_end_prob_) return now + static_cast<uint64_t>(flits);  // burst goes on
  return now + static_cast<uint64_t>(flits) + off_gap(rng);
}

}  // namespace upswitch::traffic
