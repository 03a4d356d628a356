// The synthetic endpoints: one traffic source and one sink per port, in plain C++, driven one
// cycle at a time like the switch core. They also run the open-loop measurement protocol
// (warm-up, measurement window, drain, flush) and check every delivered packet for loss,
// duplication and interleaving. Cycle semantics: doc/architecture.md.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "core/credit_pool.h"
#include "core/link.h"
#include "core/port_outages.h"
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
  // switch.shared_buffer_output_cap: the most shared credits a source may have outstanding for
  // packets to any one switch output; 0 = none. One switch only (the source knows the output).
  int output_cap = 0;
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

  // faults.switch_down, before the first tick: from cycle `at` port `port` leads to a switch out
  // of service. Its endpoint spreads the packets it creates from then on over its other ports by
  // the same rule (endpoint.port_select); packets already queued at the port are still sent on it.
  void take_out_port(int port, uint64_t at);

  // Parallel runs (top/parallel_run.h): whether every link is empty is not known inside a window
  // (what other threads sent is not visible yet), so the flush's end is decided by the driver
  // between windows: flush_ready_at() is the first flush cycle with every packet delivered and
  // nothing queued, links_last_due() the newest due cycle on this endpoint's links, and the run
  // ends at the larger of the two (where links_empty would have ended it), by finish_at().
  void defer_flush_end() { defer_flush_end_ = true; }
  uint64_t flush_ready_at() const { return flush_ready_at_; }
  uint64_t links_last_due() const;
  void finish_at(uint64_t t);

  void tick(uint64_t t);
  // Ticks cycle t, then the endpoints' cycles up to `until` (excluded) endpoint by endpoint, with
  // the result of ticking them cycle by cycle at the cycles next_activity names; stops earlier
  // where something all endpoints share acts (a phase change, a saturation sample, a port
  // outage, the watchdog's limit). Returns the next cycle to tick. Only for a driver that runs
  // the endpoints alone and holds what they send on every link until after `until`, which is
  // then at most the least latency of their links (top/parallel_run.cpp): within the span no
  // endpoint can receive what another sent.
  uint64_t tick_span(uint64_t t, uint64_t until);
  uint64_t next_activity(uint64_t t) const;
  bool done() const { return phase_ == Phase::kDone; }
  // The first cycle at which the run may end (done() after its tick), as things stand: the
  // measurement window's end while it has not ended and no stop is asked for; else now (0).
  uint64_t earliest_end() const {
    return !stop_requested_ && (phase_ == Phase::kWarmup || phase_ == Phase::kMeasure) ? window_end_ : 0;
  }
  Phase phase() const { return phase_; }
  // Stop at the next tick, keeping what was measured (Ctrl-C).
  void request_stop() { stop_requested_ = true; }

  const RunResult& result() const { return result_; }
  const core::CreditPool& source_credits(int port) const { return src_[port].credits; }
  // switch.shared_buffer_output_cap: shared credits source `port` has outstanding for packets to
  // switch output `out` (0 without a cap); their sum is the pool credits it does not hold.
  uint32_t shared_outstanding(int port, int out) const {
    const auto& u = src_[static_cast<size_t>(port)].shared_used;
    return u.empty() ? 0 : u[static_cast<size_t>(out)];
  }
  int output_cap() const { return cap_; }
  uint64_t backlog_flits() const { return backlog_total_; }
  int ports() const { return n_; }
  int endpoints() const { return e_; }
  int owner(int port) const { return owner_[static_cast<size_t>(port)]; }
  // A packet's id and cycles of creation and injection, kept at its source from its head's
  // injection to its tail's delivery (flits carry only the handle, core::Flit::payload).
  struct PacketRecord {
    uint64_t id = 0;  // unique per run: (source << 40) | sequence number
    uint64_t created = 0;
    uint64_t injected = 0;  // its head left the source (network latency origin)
  };
  // The record of the packet whose flits carry `payload`, while it is in flight.
  const PacketRecord& packet(uint32_t payload) const { return records_.at(payload); }
  // The cycle the watchdog counts from: while packets are outstanding, the later of the last
  // delivery and the creation that ended the last time none was.
  uint64_t watchdog_progress() const { return last_delivery_; }
  // Packets whose head has left and whose tail has not arrived (each holds its record).
  size_t packets_in_flight() const { return records_.size() - free_records_.size(); }

 private:
  struct Source {
    Rng rng;
    InjectionProcess injection;
    uint64_t sequence = 0;
    PacketRing queue;
    core::CreditPool credits;
    PacketDesc cur;
    bool cur_active = false;
    int cur_vc = 0;
    int cur_sent = 0;
    uint32_t cur_record = 0;  // the packet's records_ handle (its flits' payload)
    int cur_out = 0;  // the packet's switch output (output cap accounting)
    int vc_ptr = 0;
    uint64_t backlog = 0;
    // endpoint.injection_queues = per_destination: one queue per destination endpoint, a bit per
    // non-empty queue, and the round-robin position.
    std::vector<PacketRing> dq;
    std::vector<uint64_t> dq_nonempty;
    uint32_t dq_ptr = 0;
    // switch.shared_buffer_output_cap: per switch output, shared credits outstanding.
    std::vector<uint32_t> shared_used;
  };
  struct SinkVc {
    uint32_t packet = UINT32_MAX;  // payload of the packet in progress on this VC, UINT32_MAX = expecting a head
    int flits = 0;
  };

  void advance_phase(uint64_t t);
  // Cycle t of ports [p0, p1) (whole endpoints).
  void tick_ports(int p0, int p1, uint64_t t);
  // The next cycle after t ports [p0, p1) have work at (t + 1 while any has a backlog).
  uint64_t next_of(int p0, int p1, uint64_t t) const;
  struct SpanCycle {
    bool ticked = false;
    uint32_t created = 0, delivered = 0, flits = 0;
  };
  std::vector<SpanCycle> span_;  // tick_span's cycles (capacity kept)
  void init(const UpstreamCredits& credits);
  void generate(int p, uint64_t t);
  int select_port(int e, const PacketDesc& d);
  void send(int p, uint64_t t);
  // The next packet of a per-destination source and the VC it starts on (round-robin over the
  // destinations whose front packet a VC admits); false when none can start.
  bool start_per_destination(Source& s, int& vc);
  // VC for a packet of `size` flits to switch output `out`: the first at or after the source's
  // VC pointer with credits for `need` of its flits (the cap counted); -1 when none.
  int admit_vc(const Source& s, int out, uint32_t need) const;
  uint32_t credits_for(const Source& s, int cls, int out) const;
  bool can_send(const Source& s, int cls, int out) const {
    return s.credits.reserved(cls) > 0 ||
           (s.credits.shared_for(cls) > 0 && (cap_ == 0 || s.shared_used[static_cast<size_t>(out)] < static_cast<uint32_t>(cap_)));
  }
  int output_of(uint32_t dst) const { return route_.empty() ? 0 : route_[dst]; }
  void receive(int p, const core::Flit& f, uint64_t t);
  // A delivered flit broke the packet protocol: the IntegrityError naming it.
  [[noreturn]] void broken(const char* what, int p, const core::Flit& f, uint64_t t) const;
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
    uint64_t flits = 0;     // flits generated so far (address interleave)
    uint32_t rr = 0;        // round robin position
    std::vector<int> live;  // its ports in service, once a switch is taken out (empty: all)
  };
  void take_out_ports(uint64_t t);
  bool defer_flush_end_ = false;
  uint64_t flush_ready_at_ = UINT64_MAX;
  core::PortOutages outages_;  // faults.switch_down
  uint64_t next_outage_ = UINT64_MAX;
  std::vector<EndpointState> ep_;
  uint64_t watchdog_ = 0;
  uint64_t last_delivery_ = 0;
  MeasureParams mp_;
  int n_, e_, v_;
  int inject_vcs_ = 0;  // VCs sources use: v_, or the lower VC class with datelines
  bool fifo_credits_;
  bool per_destination_ = false;  // endpoint.injection_queues
  int cap_ = 0;                   // switch.shared_buffer_output_cap
  uint32_t full_credits_ = 0;     // credits of one class when all are home (the cap counted)
  std::vector<uint8_t> hot_;      // per destination endpoint: a hot port of the hotspot pattern
  Destinations dests_;
  PacketSizes sizes_;
  std::vector<Source> src_;
  std::vector<SinkVc> sink_;  // per (port, vc)
  std::vector<PacketRecord> records_;  // per packet in flight, by handle (reused: a free list)
  std::vector<uint32_t> free_records_;
  std::vector<core::Link*> to_switch_, from_switch_;
  // Per port, kept with the links (core::Link::set_*_due_slot): the cycle the next credit on
  // to_switch_ and the next flit on from_switch_ are due, so tick() looks only at ports with one.
  std::vector<uint64_t> credit_due_, flit_due_;
  // Per port: the cycle its arrival process creates the next packet (UINT64_MAX: none), and
  // whether its source has flits waiting; beside the Sources, which tick() then touches only
  // for ports with something to do.
  std::vector<uint64_t> next_arrival_;
  std::vector<uint8_t> has_backlog_;
  std::vector<uint64_t> send_at_;  // per port: the first cycle its paced link may start a flit (0: no pacing)
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
