#include "top/fabric.h"

#include <algorithm>

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
  return u;
}

Fabric::Fabric(const config::Config& cfg) : cfg_(cfg) {
  const int n = cfg.sw.ports;
  const auto lat = static_cast<uint32_t>(cfg.link_latency_cycles);
  const auto cred = static_cast<uint32_t>(cfg.credit_delay_cycles);
  const double rate = cfg.link_flits_per_cycle();
  for (int p = 0; p < n; ++p) {
    up_.push_back(std::make_unique<core::Link>(lat, cred, rate));
    down_.push_back(std::make_unique<core::Link>(lat, cred, rate));
    attach_link_layers(cfg, p, *up_.back(), *down_.back());
  }
  core::SwitchParams sp = cfg.sw;
  sp.watchdog_cycles = cfg.watchdog_window();
  switch_ = std::make_unique<core::SwitchCore>(sp, cfg.endpoint_rx);
  std::vector<int> route(n);
  for (int d = 0; d < n; ++d) route[d] = switch_->output_port(static_cast<uint32_t>(d));
  endpoints_ = std::make_unique<traffic::TrafficEndpoints>(cfg.traffic, cfg.measure, n, cfg.sw.vcs,
                                                           upstream_credits(cfg), route, cfg.watchdog_window());
  for (int p = 0; p < n; ++p) {
    switch_->connect(p, up_[p].get(), down_[p].get());
    endpoints_->connect(p, up_[p].get(), down_[p].get());
  }
}

void Fabric::run_plain(const std::function<void(uint64_t)>& on_cycle) {
  uint64_t t = 0;
  const uint64_t check = cfg_.check_interval_cycles;
  uint64_t next_check = check;
  while (true) {
    switch_->tick(t);
    endpoints_->tick(t);
    if (endpoints_->done()) break;
    if (check && t >= next_check) {
      require_conservation(*this);
      next_check = t + check;
    }
    if (on_cycle) on_cycle(t);
    t = std::min(switch_->next_activity(t), endpoints_->next_activity(t));
  }
}

}  // namespace upswitch::top
