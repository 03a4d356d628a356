// One switch, its endpoints and the 2N links between them, built from a resolved Config. The
// same Fabric is run either by the plain C++ driver below (tests, co-simulation) or by the
// SystemC modules in systemc/sc/ (the `upswitch run` command); both give identical results.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "config/config.h"
#include "core/link.h"
#include "core/switch_core.h"
#include "traffic/endpoints.h"

namespace upswitch::top {

class Fabric {
 public:
  explicit Fabric(const config::Config& cfg);

  const config::Config& config() const { return cfg_; }
  core::SwitchCore& sw() { return *switch_; }
  const core::SwitchCore& sw() const { return *switch_; }
  traffic::TrafficEndpoints& endpoints() { return *endpoints_; }
  const traffic::TrafficEndpoints& endpoints() const { return *endpoints_; }
  core::Link& uplink(int port) { return *up_[port]; }      // endpoint -> switch
  core::Link& downlink(int port) { return *down_[port]; }  // switch -> endpoint
  const core::Link& uplink(int port) const { return *up_[port]; }
  const core::Link& downlink(int port) const { return *down_[port]; }

  // Runs to completion with the plain C++ driver, skipping idle cycles. `on_cycle`, if given,
  // is called after every simulated cycle (progress, interruption).
  void run_plain(const std::function<void(uint64_t)>& on_cycle = {});
  uint64_t simulated_cycles() const { return endpoints_->result().end_cycle; }

 private:
  config::Config cfg_;
  std::vector<std::unique_ptr<core::Link>> up_, down_;
  std::unique_ptr<core::SwitchCore> switch_;
  std::unique_ptr<traffic::TrafficEndpoints> endpoints_;
};

// Upstream credit layout that the sources see for this configuration.
traffic::UpstreamCredits upstream_credits(const config::Config& cfg);

}  // namespace upswitch::top
