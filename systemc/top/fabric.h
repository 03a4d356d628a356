// Synthetic packet traffic on a network: the switches and links of the configuration's topology
// (network/network.h, the one assembly every traffic kind uses) and one packet source and sink
// per endpoint port, built from a resolved Config. The same Fabric is run either by the plain
// C++ driver below (tests, co-simulation) or by the SystemC modules in systemc/sc/ (the
// `upswitch run` command); both give identical results.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "config/config.h"
#include "core/link.h"
#include "core/switch_core.h"
#include "network/network.h"
#include "traffic/endpoints.h"

namespace upswitch::top {

class Fabric {
 public:
  explicit Fabric(const config::Config& cfg);

  const config::Config& config() const { return cfg_; }
  network::Network& network() { return *network_; }
  const network::Network& network() const { return *network_; }
  // The first (on `single`, the only) switch.
  core::SwitchCore& sw() { return network_->sw(0); }
  const core::SwitchCore& sw() const { return network_->sw(0); }
  traffic::TrafficEndpoints& endpoints() { return *endpoints_; }
  const traffic::TrafficEndpoints& endpoints() const { return *endpoints_; }
  // Endpoint port p's links (on `single`, port p of the switch).
  core::Link& uplink(int port) { return network_->uplink(port); }      // endpoint -> switch
  core::Link& downlink(int port) { return network_->downlink(port); }  // switch -> endpoint
  const core::Link& uplink(int port) const { return network_->uplink(port); }
  const core::Link& downlink(int port) const { return network_->downlink(port); }
  int endpoint_ports() const { return network_->endpoint_ports(); }

  // Runs to completion with the plain C++ driver, skipping idle cycles. `on_cycle`, if given,
  // is called after every simulated cycle (progress, interruption).
  void run_plain(const std::function<void(uint64_t)>& on_cycle = {});
  uint64_t simulated_cycles() const { return endpoints_->result().end_cycle; }

 private:
  config::Config cfg_;
  std::unique_ptr<network::Network> network_;
  std::unique_ptr<traffic::TrafficEndpoints> endpoints_;
};

// Upstream credit layout that the sources see for this configuration.
traffic::UpstreamCredits upstream_credits(const config::Config& cfg);

}  // namespace upswitch::top
