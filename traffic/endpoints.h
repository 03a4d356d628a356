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
#include "traffic/port_select.h"
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

// Endpoints with several ports (one per plane link): the endpoint each port belongs to, in
// endpoint-major order, and how a port is chosen for each packet.
struct EndpointPorts {
  std::vector<int> owner;  // per port: its endpoint id
  int endpoints = 0;
  PortSelect select = PortSelect::kAddress;
  int interleave_flits = 1;  // address: consecutive runs of this many flits of an endpoint's stream share a port
  int inject_vcs = 0;        // VCs a packet may start on (the lower class with datelines); 0 = all
};

class TrafficEndpoints {
 public:
  enum class Phase { kWarmup, kMeasure, kDrain, kFlush, kDone };

  // One switch, one port per endpoint: `route` maps a destination endpoint id to the port its
  // sink is on (the switch's routing table); `watchdog_cycles` > 0 stops a run in which packets
  // wait but none is delivered.
  TrafficEndpoints(const TrafficParams& traffic, const MeasureParams& measure, int ports, int vcs,
                   const UpstreamCredits& credits, std::vector<int> route, uint64_t watchdog_cycles);
  // A network: every port generates at traffic.rate (so one number loads every endpoint link
  // alike) on behalf of its endpoint, which sends each packet on the port `layout.select` picks.
  TrafficEndpoints(const TrafficParams& traffic, const MeasureParams& measure, const EndpointPorts& layout, int vcs,
                   const UpstreamCredits& credits, uint64_t watchdog_cycles);

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
  int endpoints() const { return e_; }
  int owner(int port) const { return owner_[static_cast<size_t>(port)]; }

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
  void init(const UpstreamCredits& credits);
  void generate(int p, uint64_t t);
  int select_port(int e, const PacketDesc& d);
  void send(int p, uint64_t t);
  void receive(int p, const core::Flit& f, uint64_t t);
  bool links_empty(uint64_t t) const;
  void check_progress(uint64_t t);
  void end_generation();

  TrafficParams tp_;
  std::vector<int> route_;  // one switch: destination -> sink port; empty in a network
  std::vector<int> owner_;  // per port: the endpoint it belongs to (sources send as it)
  std::vector<int> first_;  // per endpoint: its first port (size endpoints + 1)
  PortSelect select_ = PortSelect::kAddress;
  int interleave_flits_ = 1;
  struct EndpointState {
    uint64_t flits = 0;  // flits generated so far (address interleave)
    uint32_t rr = 0;     // round robin position
  };
  std::vector<EndpointState> ep_;
  uint64_t watchdog_ = 0;
  uint64_t last_delivery_ = 0;
  MeasureParams mp_;
  int n_, e_, v_;
  int inject_vcs_ = 0;  // VCs sources use: v_, or the lower VC class with datelines
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
