// A network carrying transactions: the switches of the configuration's topology with two message
// classes (requests and responses, each with `switch.vcs` lanes), the accelerator endpoints with
// one port per endpoint link (several on planes), and the links, built by the one network assembly
// (network/network.h) from a resolved Config with traffic.kind = transactions. On `single` the
// reduction engine's units sit behind extra ports of the one switch. Run by the plain C++ driver
// below (tests, the p2p table) or by the SystemC modules in systemc/sc/ (`upswitch run`, the
// TLM-2.0 sockets); both give identical results.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "config/config.h"
#include "core/link.h"
#include "core/reject_line.h"
#include "core/switch_core.h"
#include "endpoint/accelerators.h"
#include "network/network.h"
#include "top/parallel_plan.h"

namespace upswitch::top {

// A driver's hook into the plain run loop (the collective layer): called at the start of every
// simulated cycle, before the switch and the endpoints tick, and asked when it next has work.
class CycleHook {
 public:
  virtual ~CycleHook() = default;
  virtual void before_cycle(uint64_t t) = 0;
  virtual uint64_t next_activity(uint64_t t) const = 0;  // UINT64_MAX = nothing pending
};

class TxnFabric {
 public:
  // `synthetic`: the endpoints generate cfg.txn's workload under the measurement protocol and the
  // run ends by itself; otherwise transfers come only from endpoints().submit() (TLM, tests).
  TxnFabric(const config::Config& cfg, bool synthetic);

  const config::Config& config() const { return cfg_; }
  core::SwitchCore& sw() { return network_->sw(0); }  // the first (on `single`, the only) switch
  const core::SwitchCore& sw() const { return network_->sw(0); }
  network::Network& network() { return *network_; }
  const network::Network& network() const { return *network_; }
  endpoint::AcceleratorEndpoints& endpoints() { return *endpoints_; }
  const endpoint::AcceleratorEndpoints& endpoints() const { return *endpoints_; }
  // Endpoint port `port`'s links (Network numbering: endpoint-major).
  core::Link& uplink(int port) { return network_->uplink(port); }      // endpoint -> switch
  core::Link& downlink(int port) { return network_->downlink(port); }  // switch -> endpoint
  const core::Link& uplink(int port) const { return network_->uplink(port); }
  const core::Link& downlink(int port) const { return network_->downlink(port); }

  // Synthetic runs: to completion, skipping idle cycles; `on_cycle` after every simulated cycle.
  void run_plain(const std::function<void(uint64_t)>& on_cycle = {});
  // External transfers: simulates from the next unsimulated cycle until every submitted transfer
  // has completed (or `max_cycles` more cycles passed: returns false). Returns true when idle.
  // On the threads of use_threads(), with the same results.
  bool run_until_idle(uint64_t max_cycles = UINT64_MAX, CycleHook* hook = nullptr);
  // run_until_idle() from now on runs on `threads` threads (top/parallel_run.h; 1: the plain
  // driver). Throws ParallelError when the fabric cannot be split so (top::parallel_refusal says
  // why a configuration cannot).
  void use_threads(int threads);
  // run_until_idle() from now on runs on one thread window by window, as two threads would split
  // the fabric (top::on_one_thread: each group through a window at a time), where it can be split
  // so and the window is long enough; else the plain driver. The same results either way.
  void use_windows_on_one_thread();
  // The next cycle the plain driver will simulate (submit() transfers at this cycle or later).
  uint64_t now() const { return now_; }
  // After another driver ran the fabric (top/parallel_run.h): the next cycle to simulate.
  void resume_at(uint64_t t) { now_ = t; }

 private:
  void take_out(const core::SwitchDown& d);  // faults.switch_down
  void route_around_links_down();            // faults.link_down between switches
  config::Config cfg_;
  std::unique_ptr<network::Network> network_;
  std::vector<std::unique_ptr<core::RejectLine>> rejects_;  // per port, with partitions or port faults
  std::unique_ptr<endpoint::AcceleratorEndpoints> endpoints_;
  uint64_t now_ = 0;
  ParallelPlan plan_;  // use_threads(): groups 1 = the plain driver
};

// The lane layout the endpoints' transmitters see for this configuration.
endpoint::LaneLayout txn_lanes(const config::Config& cfg);

// Invariants over a transaction fabric (as top/conservation.h for packets): credits on every
// link, no flit lost or duplicated, every request answered exactly once.
std::vector<std::string> check_txn_conservation(const TxnFabric& f);
// Additionally: everything home and no transaction in flight (after a flush or run_until_idle).
std::vector<std::string> check_txn_drained(const TxnFabric& f);
void require_txn_conservation(const TxnFabric& f);

}  // namespace upswitch::top
