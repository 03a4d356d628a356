// One port link between an endpoint and the switch (or, later, two switches): flits travel one
// way with `latency` cycles, credits travel back and become usable `credit_delay` cycles after
// the receiver freed the slot. A sleeping receiver is woken through WakeListener only when an
// item would arrive before it planned to wake: never one event per flit.
#pragma once

#include <cstdint>

#include "core/delay_line.h"
#include "core/flit.h"
#include "core/link_pacer.h"

namespace upswitch::core {

class WakeListener {
 public:
  virtual ~WakeListener() = default;
  // Something will arrive for this listener at `cycle`.
  virtual void wake_at(uint64_t cycle) = 0;
};

class Link {
 public:
  // `flits_per_cycle` < 1 paces the transmitter (see LinkPacer); the sender consults pacer().
  Link(uint32_t latency, uint32_t credit_delay, double flits_per_cycle = 1.0)
      : flits_(latency), credits_(credit_delay), pacer_(flits_per_cycle) {}

  void send_flit(uint64_t now, const Flit& f) {
    flits_.push(now, f);
    if (flit_listener_) flit_listener_->wake_at(now + flits_.latency());
  }
  bool receive_flit(uint64_t now, Flit& f) { return flits_.pop(now, f); }

  void send_credit(uint64_t now, const Credit& c) {
    credits_.push(now, c);
    if (credit_listener_) credit_listener_->wake_at(now + credits_.latency());
  }
  bool receive_credit(uint64_t now, Credit& c) { return credits_.pop(now, c); }

  LinkPacer& pacer() { return pacer_; }
  const LinkPacer& pacer() const { return pacer_; }

  void set_flit_listener(WakeListener* l) { flit_listener_ = l; }
  void set_credit_listener(WakeListener* l) { credit_listener_ = l; }

  const DelayLine<Flit>& flits() const { return flits_; }
  const DelayLine<Credit>& credits() const { return credits_; }
  uint32_t latency() const { return flits_.latency(); }
  uint32_t credit_delay() const { return credits_.latency(); }

 private:
  DelayLine<Flit> flits_;
  DelayLine<Credit> credits_;
  LinkPacer pacer_;
  WakeListener* flit_listener_ = nullptr;
  WakeListener* credit_listener_ = nullptr;
};

}  // namespace upswitch::core
