// The synthetic endpoints: one traffic source and one sink per port, in plain C++, driven one
// cycle at a time like the switch core. They also run the open-loop measurement protocol
// (warm-up, measurement window, drain, flush) and check every delivered packet for loss,
// duplication and interleaving. Cycle semantics: doc/architecture.md.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "core/credit_pool.h"
#include "core/link.h"
#include "core/deadlock_error.h"
#include "traffic/destinations.h"
#include "traffic/injection.h"
#include "traffic/packet_ring.h"
#include "traffic/packet_sizes.h"
#include "traffic/rng.h"
#include "traffic/run_result.h"
#include "traffic/traffic_params.h"

namespace upswitch::traffic {

// The switch input buffer seen from a source: credit classes and their depths.
struct UpstreamCredits {
  int classes = 1;  // 1 for `fifo` queueing (one queue), else one per VC
  int reserved = 0;
  int shared = 0;
};

// A delivered flit broke the packet protocol: lost, duplicated or interleaved flits.
class IntegrityError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

class TrafficEndpoints {
 public:
  enum class Phase { kWarmup, kMeasure, kDrain, kFlush, kDone };

  // `route` maps a destination endpoint id to the port its sink is on (the switch's routing
  // table); `watchdog_cycles` > 0 stops a run in which packets wait but none is delivered.
  TrafficEndpoints(const TrafficParams& traffic, const MeasureParams& measure, int ports, int vcs,
                   const UpstreamCredits& credits, std::vector<int> route, uint64_t watchdog_cycles);

  // Port p's link towards the switch (flits out, credits in) and back (flits in, credits out).
  void connect(int port, core::Link* to_switch, core::Link* from_switch);

  void tick(uint64_t t);
  uint64_t next_activity(uint64_t t) const;
  bool done() const { return phase_ == Phase::kDone; }
  Phase phase() const { return phase_; }
  // Stop at the next tick, keeping what was measured (Ctrl-C).
  void request_stop() { stop_requested_ = true; }

  const RunResult& result() const { return result_; }
  const core::CreditPool& source_credits(int port) const { return src_[port].credits; }
  uint64_t backlog_flits() const { return backlog_total_; }
  int ports() const { return n_; }

 private:
  struct Source {
    Rng rng;
    InjectionProcess injection;
    uint64_t next_arrival = UINT64_MAX;
    uint64_t sequence = 0;
    PacketRing queue;
    core::CreditPool credits;
    PacketDesc cur;
    bool cur_active = false;
    int cur_vc = 0;
    int cur_sent = 0;
    uint64_t cur_injected = 0;
    int vc_ptr = 0;
    uint64_t backlog = 0;
  };
  struct SinkVc {
    uint64_t packet = UINT64_MAX;  // packet in progress on this VC, UINT64_MAX = expecting a head
    int flits = 0;
  };

  void advance_phase(uint64_t t);
  void generate(int p, uint64_t t);
  void send(int p, uint64_t t);
  void receive(int p, const core::Flit& f, uint64_t t);
  bool links_empty(uint64_t t) const;
  void check_progress(uint64_t t);
  void end_generation();

  TrafficParams tp_;
  std::vector<int> route_;
  uint64_t watchdog_ = 0;
  uint64_t last_delivery_ = 0;
  MeasureParams mp_;
  int n_, v_;
  bool fifo_credits_;
  Destinations dests_;
  PacketSizes sizes_;
  std::vector<Source> src_;
  std::vector<SinkVc> sink_;  // per (port, vc)
  std::vector<core::Link*> to_switch_, from_switch_;
  uint64_t window_begin_, window_end_;
  SaturationDetector saturation_;
  Phase phase_ = Phase::kWarmup;
  bool generating_ = true;
  bool stop_requested_ = false;
  uint64_t backlog_total_ = 0;
  int sources_with_backlog_ = 0;
  uint64_t measured_outstanding_ = 0;
  RunResult result_;
};

}  // namespace upswitch::traffic
