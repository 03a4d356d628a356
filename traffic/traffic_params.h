// Parameters of the synthetic traffic and of the measurement protocol. Defaults, ranges and
// descriptions are declared once, in systemc/config/param_table.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace upswitch::traffic {

enum class Pattern { kUniform, kPermutation, kShift, kHotspot, kIncast };
enum class InjectionKind { kBernoulli, kOnOff };
// A source's waiting packets: one FIFO in creation order, or one queue per destination (virtual
// output queues at the source) served round-robin (endpoint.injection_queues).
enum class InjectionQueues { kFifo, kPerDestination };

struct TrafficParams {
  Pattern pattern = Pattern::kUniform;
  double rate = 0;  // offered flits per port per cycle
  int packet_flits = 1;
  std::vector<std::pair<int, double>> packet_mix;  // (flits, weight); empty = fixed size
  bool exclude_self = false;
  int shift = 1;
  double hotspot_fraction = 0;
  std::vector<int> hotspot_ports;
  int incast_target = 0;
  int incast_sources = 0;  // 0 = every other port
  InjectionKind injection = InjectionKind::kBernoulli;
  double burst_packets = 1;  // mean packets per on-period (on/off injection)
  InjectionQueues injection_queues = InjectionQueues::kFifo;

  double mean_packet_flits() const {
    if (packet_mix.empty()) return packet_flits;
    double w = 0, s = 0;
    for (const auto& [size, weight] : packet_mix) {
      s += size * weight;
      w += weight;
    }
    return s / w;
  }
};

struct MeasureParams {
  uint64_t warmup_cycles = 0;
  uint64_t measure_cycles = 0;
  uint64_t max_drain_cycles = 0;
  bool flush = true;
  uint64_t seed = 0;
  int saturation_windows = 10;  // sample windows the saturation verdict looks at (traffic/saturation.h)
};

}  // namespace upswitch::traffic
