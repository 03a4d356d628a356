// The one assembly of a scale-up network: the switch cores and links of a Topology, built the
// same way for every kind of traffic. Endpoints (synthetic packet sources, accelerators) sit
// above this layer and attach to the endpoint ports' links; the Network ticks the switches.
// One flit's path across two switches: doc/architecture.md.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/link.h"
#include "core/switch_core.h"
#include "core/switch_params.h"
#include "network/reroute.h"
#include "network/topology.h"

namespace upswitch::network {

class Network {
 public:
  // Called for both links of every endpoint port before anything connects to them (data-link
  // layers, injected faults).
  using Decorate = std::function<void(int endpoint_port, core::Link& up, core::Link& down)>;
  // Called for both wires of every link between two switches (topology link `link`: a -> b and
  // b -> a), before the switches connect to them.
  using DecorateSwitchLink = std::function<void(int link, core::Link& a_to_b, core::Link& b_to_a)>;

  // `sw`: every switch's parameters (ports and routes are set per switch from the topology; a
  // `single` topology keeps sw.routing_table). `endpoint_rx`: the receive buffer of an endpoint
  // port. `flit_gbytes_per_s`: flit bytes x clock, the rate of a one-flit-per-cycle link.
  Network(const Topology& topo, const core::SwitchParams& sw, const core::DownstreamBuffer& endpoint_rx,
          double flit_gbytes_per_s, const Decorate& decorate = {}, const DecorateSwitchLink& decorate_switch_link = {});

  const Topology& topology() const { return topo_; }
  int switches() const { return static_cast<int>(switches_.size()); }
  core::SwitchCore& sw(int s) { return *switches_[static_cast<size_t>(s)]; }
  const core::SwitchCore& sw(int s) const { return *switches_[static_cast<size_t>(s)]; }

  // Endpoint ports in endpoint-major order (Topology::endpoint_first_port).
  int endpoint_ports() const { return static_cast<int>(ep_up_.size()); }
  core::Link& uplink(int ep_port) { return *ep_up_[static_cast<size_t>(ep_port)]; }      // endpoint -> switch
  core::Link& downlink(int ep_port) { return *ep_down_[static_cast<size_t>(ep_port)]; }  // switch -> endpoint
  const core::Link& uplink(int ep_port) const { return *ep_up_[static_cast<size_t>(ep_port)]; }
  const core::Link& downlink(int ep_port) const { return *ep_down_[static_cast<size_t>(ep_port)]; }
  // Switch s's port q: the wire its flits arrive on and the one they leave on.
  core::Link& switch_input(int s, int q) { return *sw_in_[static_cast<size_t>(s)][static_cast<size_t>(q)]; }
  core::Link& switch_output(int s, int q) { return *sw_out_[static_cast<size_t>(s)][static_cast<size_t>(q)]; }
  // The endpoint id an endpoint port belongs to.
  int owner(int ep_port) const { return owner_[static_cast<size_t>(ep_port)]; }

  // Every directed channel: who sends on it and who receives (endpoint ends name the endpoint
  // port index in `port` and the endpoint in `id`).
  struct Channel {
    PortRef from, to;
    int link = 0;  // index into Topology::links
    core::Link* wire = nullptr;
  };
  const std::vector<Channel>& channels() const { return channels_; }
  // Flit slots of the receiver at a channel's end (a switch input or an endpoint receive buffer).
  uint64_t receiver_capacity(const Channel& c) const;

  // The switch port at the other end of endpoint port p.
  PortRef switch_end(int ep_port) const;
  // faults.switch_down, before the run: from cycle `at` every other switch stops routing into
  // switch `sw` wherever its destination has another route (SwitchCore::avoid_ports_at).
  void avoid_switch_at(int sw, uint64_t at);
  // Hands every switch its share of each route change (network/reroute.h), before the run.
  void plan_route_changes(const std::vector<RouteChange>& plan);

  // Ticks the switches with something due at `t` (SwitchCore::wake); the others keep their
  // state, as each switch's own process does under the SystemC kernel.
  void tick(uint64_t t) {
    for (auto& s : switches_)
      if (s->wake() <= t) s->tick(t);
  }
  // After tick(t): the first cycle a switch has work. A ticked switch's wake cycle is set to its
  // next activity, until one has work at t + 1; those left are ticked then (as every switch was
  // in every cycle before wake cycles; a tick with nothing due changes nothing).
  uint64_t next_activity(uint64_t t);
  uint64_t flits_inside() const;  // in every switch (buffers and pipelines)

 private:
  Topology topo_;
  core::SwitchParams sw_;
  core::DownstreamBuffer endpoint_rx_;
  std::vector<std::unique_ptr<core::Link>> wires_;  // two per topology link: [2l] a -> b, [2l+1] b -> a
  std::vector<core::Link*> ep_up_, ep_down_;
  std::vector<int> owner_;
  std::vector<std::vector<core::Link*>> sw_in_, sw_out_;
  std::vector<Channel> channels_;
  std::vector<std::unique_ptr<core::SwitchCore>> switches_;
};

// The buffer of a switch input, as the switch (or endpoint) upstream of it sees it.
core::DownstreamBuffer switch_input_buffer(const core::SwitchParams& sw);

}  // namespace upswitch::network
