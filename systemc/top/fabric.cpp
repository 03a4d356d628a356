#include "top/fabric.h"

#include <algorithm>

#include "config/link_faults.h"
#include "top/conservation.h"
#include "top/link_layers.h"

namespace upswitch::top {

traffic::UpstreamCredits upstream_credits(const config::Config& cfg) {
  traffic::UpstreamCredits u;
  if (cfg.sw.queueing == core::Queueing::kFifo) {
    u.classes = 1;
    u.reserved = cfg.sw.vcs * cfg.sw.vc_buffer_flits;
  } else {
    u.classes = cfg.sw.vcs;
    u.reserved = cfg.sw.vc_buffer_flits;
  }
  u.shared = cfg.sw.shared_buffer_flits;
  u.output_cap = cfg.sw.shared_buffer_output_cap;
  return u;
}

Fabric::Fabric(const config::Config& cfg) : cfg_(cfg) {
  core::SwitchParams sp = cfg_.sw;
  sp.watchdog_cycles = cfg_.watchdog_window();
  sp.path_choice = static_cast<core::PathChoice>(cfg_.topo.multipath);
  network_ = std::make_unique<network::Network>(
      cfg_.network(), sp, cfg_.endpoint_rx, cfg_.flit_bytes * cfg_.clock_ghz,
      [this](int p, core::Link& up, core::Link& down) { attach_link_layers(cfg_, p, up, down); },
      [this](int l, core::Link& ab, core::Link& ba) { attach_switch_link_layers(cfg_, l, ab, ba); });
  const int n = network_->endpoint_ports();
  if (cfg_.single_switch()) {
    std::vector<int> route(static_cast<size_t>(n));
    for (int d = 0; d < n; ++d) route[static_cast<size_t>(d)] = sw().output_port(static_cast<uint32_t>(d));
    endpoints_ = std::make_unique<traffic::TrafficEndpoints>(cfg_.traffic, cfg_.measure, n, cfg_.sw.vcs,
                                                             upstream_credits(cfg_), route, cfg_.watchdog_window());
  } else {
    traffic::EndpointPorts layout;
    for (int p = 0; p < n; ++p) layout.owner.push_back(network_->owner(p));
    layout.endpoints = cfg_.endpoints();
    layout.select = static_cast<traffic::PortSelect>(cfg_.port_select);
    layout.interleave_flits = std::max(1, cfg_.interleave_bytes / cfg_.flit_bytes);
    layout.inject_vcs = cfg_.network().vc_classes == 2 ? cfg_.sw.vcs / 2 : cfg_.sw.vcs;
    endpoints_ = std::make_unique<traffic::TrafficEndpoints>(cfg_.traffic, cfg_.measure, layout, cfg_.sw.vcs,
                                                             upstream_credits(cfg_), cfg_.watchdog_window());
  }
  for (int p = 0; p < n; ++p) endpoints_->connect(p, &network_->uplink(p), &network_->downlink(p));
  // faults.switch_down (doc/reliability.md "Switch down"): the endpoints stop using their ports
  // into the switch, and every other switch stops routing into it where it has another route.
  for (const core::SwitchDown& d : cfg_.faults.switch_down) {
    for (int p = 0; p < n; ++p)
      if (network_->switch_end(p).id == d.sw) endpoints_->take_out_port(p, d.at);
    network_->avoid_switch_at(d.sw, d.at);
  }
  // Links between switches that go down: every switch routes around them meanwhile.
  network_->plan_route_changes(network::plan_reroutes(network_->topology(), config::switch_links_down(cfg_)));
}

void Fabric::run_plain(const std::function<void(uint64_t)>& on_cycle) {
  uint64_t t = 0;
  const uint64_t check = cfg_.check_interval_cycles;
  uint64_t next_check = check;
  while (true) {
    network_->tick(t);
    endpoints_->tick(t);
    if (endpoints_->done()) break;
    if (check && t >= next_check) {
      require_conservation(*this);
      next_check = t + check;
    }
    if (on_cycle) on_cycle(t);
    t = std::min(network_->next_activity(t), endpoints_->next_activity(t));
  }
}

}  // namespace upswitch::top
