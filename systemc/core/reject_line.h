// What the switch hands back to the endpoints for a packet it did not forward (doc/reliability.md):
// a request it rejected (protection violation, target port down), answered to its requester with
// an error status, or a packet it dropped (from or to a down port), which only the model's
// bookkeeping hears of. One line per switch input: at most one tail leaves an input's routing
// stage per cycle, so a record is a fixed-latency DelayLine item, the error response travelling
// the switch's output pipeline and the requester's downlink (Sa + X + E + L) as a sideband that
// takes neither link bandwidth nor credits. A sleeping receiver is woken through WakeListener,
// as a Link wakes it.
#pragma once

#include <cstdint>

#include "core/delay_line.h"
#include "core/link.h"

namespace upswitch::core {

struct Reject {
  // Why the packet was not forwarded (the endpoints map a reason to its tl::Status).
  enum Reason : uint8_t {
    kForwarded = 0,   // (not a reject: the switch's verdict for packets it forwards)
    kProtection = 1,  // a request to a port of another virtual pod: protection_violation
    kTargetDown = 2,  // a request to a down port: target_abort
    kDropped = 3,     // from a down port, or a response to one: nobody is answered
  };
  uint32_t payload = 0;  // Flit::payload of the packet: the sender's handle of its messages
  uint8_t reason = kForwarded;
};

class RejectLine {
 public:
  explicit RejectLine(uint32_t latency) : line_(latency) {}

  void push(uint64_t now, const Reject& r) {
    line_.push(now, r);
    if (listener_) listener_->wake_at(now + line_.latency());
  }
  bool pop(uint64_t now, Reject& r) { return line_.pop(now, r); }
  bool empty() const { return line_.empty(); }
  bool empty_after(uint64_t t) const { return line_.empty_after(t); }
  uint64_t next_due() const { return line_.next_due(); }
  uint32_t count() const { return line_.count(); }
  uint32_t latency() const { return line_.latency(); }
  void set_listener(WakeListener* l) { listener_ = l; }

 private:
  DelayLine<Reject> line_;
  WakeListener* listener_ = nullptr;
};

}  // namespace upswitch::core
