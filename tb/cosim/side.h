// One side of a co-simulation: a switch block (model or RTL, through CycleSwitch) with its own
// synthetic endpoints and 2N links, built from the same Config as the other side, so both
// sides see identical traffic for as long as their switches behave identically. The side
// translates between model flits and port words (packet tags, fields).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "config/config.h"
#include "core/flit.h"
#include "core/link.h"
#include "cosim/cycle_switch.h"
#include "traffic/endpoints.h"

namespace upswitch::cosim {

// What the switch put on one port in one cycle, in model terms.
struct PortEvent {
  bool flit_valid = false;
  core::Flit flit;  // full packet fields restored from the tag
  traffic::TrafficEndpoints::PacketRecord packet;  // the flit's packet: id, created, injected
  bool credit_valid = false;
  core::Credit credit;
};

class Side {
 public:
  Side(const config::Config& cfg, std::unique_ptr<CycleSwitch> sw);

  // Cycle t: the switch's ports, then the endpoints (same order as Fabric::run_plain).
  void step(uint64_t t);
  const std::vector<PortEvent>& events() const { return events_; }
  bool done() const { return endpoints_->done(); }
  const traffic::RunResult& result() const { return endpoints_->result(); }
  CycleSwitch& sw() { return *sw_; }
  // Fault hook for tests: a credit nobody returned, on output `port`'s credit input next cycle.
  void inject_credit(int port, const core::Credit& c);

 private:
  uint32_t tag_for_arrival(int port, const core::Flit& f);

  int n_;
  std::unique_ptr<CycleSwitch> sw_;
  std::vector<std::unique_ptr<core::Link>> up_, down_;
  std::unique_ptr<traffic::TrafficEndpoints> endpoints_;
  std::vector<PortWords> in_, out_;
  std::vector<PortEvent> events_;
  // By tag: the packet's fields and its record (read from the endpoints when its head arrives:
  // they hold it only until its tail is delivered).
  struct Meta {
    core::Flit flit;
    traffic::TrafficEndpoints::PacketRecord packet;
  };
  std::vector<Meta> meta_;
  std::vector<uint32_t> free_tags_;
  std::vector<uint32_t> arriving_tag_;  // per input: tag of the packet arriving on it
  std::vector<uint8_t> injected_credit_;
};

}  // namespace upswitch::cosim
