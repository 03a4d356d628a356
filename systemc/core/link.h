// One port link between an endpoint and the switch (or, later, two switches): flits travel one
// way with `latency` cycles, credits travel back and become usable `credit_delay` cycles after
// the receiver freed the slot. A sleeping receiver is woken through WakeListener only when an
// item would arrive before it planned to wake: never one event per flit.
//
// With a data-link layer (core/data_link.h, link.dl.enable) the flits travel inside DL flits
// with CRC and replay instead of the plain delay line, and the DL paces the transmitter; the
// tx_* and flits_* members below answer for whichever carries them. Credits travel on their own
// error-free delay line either way (doc/reliability.md); a scheduled credit loss drops one.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "core/data_link.h"
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
  // `flits_per_cycle` < 1 paces the transmitter (see LinkPacer); the sender consults tx_ready().
  Link(uint32_t latency, uint32_t credit_delay, double flits_per_cycle = 1.0)
      : flits_(latency), credits_(credit_delay), pacer_(flits_per_cycle) {}

  // Carries the flits through a data-link layer from now on (before any flit is sent).
  void set_data_link(std::unique_ptr<DataLink> dl) {
    if (pipeline_) throw std::logic_error("Link: a data-link layer on a link whose sender has a send pipeline");
    dl_ = std::move(dl);
  }
  // The sender's fixed pipeline before the wire (a switch's allocation, crossbar and egress
  // stages): a flit sent at `now` enters the wire `cycles` later and is due at now + cycles +
  // latency(), so the sender keeps no delay line of its own for those stages. Set before any flit
  // is sent, on a link without a data-link layer (a DL frames a flit as it enters the wire).
  void set_send_pipeline(uint32_t cycles) {
    if (dl_) throw std::logic_error("Link: a send pipeline on a link with a data-link layer");
    if (flits_.count() || flits_.last_due() || flit_writer_.held)
      throw std::logic_error("Link: a send pipeline set after a flit was sent");
    const uint32_t wire = latency();
    pipeline_ = cycles;
    flits_.reset(wire + cycles);
    if (deferred_) {  // the held ring for the new latency, and the sender's writer into it
      flits_.hold(true);
      flit_writer_ = flits_.writer();
    }
  }
  uint32_t send_pipeline() const { return pipeline_; }
  const DataLink* data_link() const { return dl_.get(); }
  // Before any credit is sent: up to `k` credits may be sent in one cycle (the receiver of a
  // crossbar with speedup k frees up to k slots per cycle; UALink's UPLI returns 1-4 credits per
  // port per cycle, facts 1.7).
  void set_credits_per_cycle(uint32_t k) {
    // (A held line's writer points into the ring that reset() replaces.)
    if (deferred_) throw std::logic_error("Link: credits per cycle set while the link is deferred");
    credits_.reset(credits_.latency(), k);
  }
  // From each of these cycles on, the next credit sent is lost (fault injection).
  void set_credit_losses(std::vector<uint64_t> cycles) {
    credit_losses_ = std::move(cycles);
    loss_idx_ = 0;
    next_loss_ = credit_losses_.empty() ? UINT64_MAX : credit_losses_[0];
    lossy_ = !credit_losses_.empty();
  }
  uint64_t credits_lost() const { return credits_lost_; }

  // Transmitter: whether the link is slower than one flit per cycle, whether a flit may start
  // at `t`, and taking that start (then send_flit, at once or after a fixed pipeline).
  bool tx_paced() const { return dl_ || pacer_.paced(); }
  bool tx_ready(uint64_t t) { return dl_ ? dl_->ready(t) : pacer_.ready(t); }
  void tx_take(uint64_t t) {
    if (dl_)
      dl_->take(t);
    else
      pacer_.take(t);
  }
  // After tx_ready(t) or tx_take(t) on a link without a data-link layer: the first cycle from `t`
  // at which tx_ready would hold if nothing is taken before (a DL's readiness depends on what
  // comes back, so it has no such answer).
  uint64_t tx_next_ready(uint64_t t) const {
    if (dl_) throw std::logic_error("Link: tx_next_ready on a link with a data-link layer");
    return pacer_.next_ready(t);
  }

  // Parallel runs (top/parallel_run.h): when the two ends of the link are ticked by different
  // threads, what is sent is written into the delay line at once but stays unseen by the
  // receiver until the driver flushes it between windows no longer than min(latency, credit
  // delay): nothing sent in a window is due inside it, so the receiver misses nothing
  // (DelayLine::hold). Each end writes through a Writer of its own, on a cache line of its own.
  // The flits' flush wakes only the flit receiver and the credits' only the credit receiver, so
  // each end's thread flushes what comes to it, both at once (while neither sends). Not with a
  // data-link layer (both ends drive it).
  void set_deferred(bool on) {
    if (on == deferred_) return;
    if (on && dl_) throw std::logic_error("Link: a link with a data-link layer cannot be deferred");
    if (!on && (flit_writer_.held || credit_writer_.held))
      throw std::logic_error("Link: held items not flushed before the link stops holding");
    flits_.hold(on);
    credits_.hold(on);
    flit_writer_ = flits_.writer();
    credit_writer_ = credits_.writer();
    deferred_ = on;
  }
  bool deferred() const { return deferred_; }
  void flush_deferred_flits() {
    const uint64_t due = flits_.publish(flit_writer_);
    if (due == UINT64_MAX) return;
    note_flit_due(due);
    if (flit_listened_) flit_listener_->wake_at(due);
  }
  void flush_deferred_credits() {
    const uint64_t due = credits_.publish(credit_writer_);
    if (due == UINT64_MAX) return;
    note_credit_due(due);
    if (credit_listened_) credit_listener_->wake_at(due);
  }

  // A receiver's compact view of its links (optional): a slot of the flit receiver's holding the
  // cycle its next flit is due, and one of the credit receiver's for credits, so a receiver scans
  // one array of its own each cycle instead of every link object. The link lowers a slot when it
  // sends; the receiver sets it again after each look (refresh_*). A slot is never later than the
  // item it stands for; with a data-link layer the flit slot is 0 (look every cycle) while
  // anything is in the link. Set before the first send.
  //
  // A receiver may also hand a wake slot shared by a group of its slots (a switch's, an
  // endpoint's ports): each send lowers it as it lowers the item's slot, so the receiver can pass
  // over the whole group while its wake slot is later than the cycle, and set it again (to the
  // group's earliest slot) after it looked at the group. An outer wake slot, shared by a group of
  // such groups (a block of endpoints), is lowered the same way, so a receiver with many groups
  // can pass over a whole block of them.
  void set_flit_due_slot(uint64_t* slot, uint64_t* wake = nullptr, uint64_t* outer_wake = nullptr) {
    flit_due_ = slot;
    flit_wake_ = wake;
    flit_outer_wake_ = outer_wake;
    refresh_flit_due();
    if (wake) *wake = 0;
    if (outer_wake) *outer_wake = 0;
  }
  void set_credit_due_slot(uint64_t* slot, uint64_t* wake = nullptr, uint64_t* outer_wake = nullptr) {
    credit_due_ = slot;
    credit_wake_ = wake;
    credit_outer_wake_ = outer_wake;
    refresh_credit_due();
    if (wake) *wake = 0;
    if (outer_wake) *outer_wake = 0;
  }
  void refresh_flit_due() {
    if (flit_due_) *flit_due_ = dl_ ? (dl_->empty() ? UINT64_MAX : 0) : flits_.next_due();
  }
  void refresh_credit_due() {
    if (credit_due_) *credit_due_ = credits_.next_due();
  }

  void send_flit(uint64_t now, const Flit& f) {
    if (deferred_) {
      DelayLine<Flit>::push_held(flit_writer_, now, f);
      return;
    }
    if (dl_) {
      dl_->send(now, f);
      note_flit_due(0);
      if (flit_listened_) flit_listener_->wake_at(dl_->next_due());
      return;
    }
    flits_.push(now, f);
    note_flit_due(now + flits_.latency());
    if (flit_listened_) flit_listener_->wake_at(now + flits_.latency());
  }
  bool receive_flit(uint64_t now, Flit& f) { return dl_ ? dl_->receive(now, f) : flits_.pop(now, f); }
  // The next flit the receiver will take, due or not (nullptr: none, or behind a data-link layer),
  // to prefetch what it refers to; a hint only.
  const Flit* next_flit() const { return dl_ ? nullptr : flits_.front(); }
  // Flits sent and not yet received, and the receiver's view of them.
  uint64_t flits_in_flight() const { return dl_ ? dl_->in_flight() : flits_.count(); }
  bool flits_empty() const { return dl_ ? dl_->empty() : flits_.empty(); }
  bool flits_empty_after(uint64_t t) const { return dl_ ? dl_->empty_after(t) : flits_.empty_after(t); }
  uint64_t next_flit_due() const { return dl_ ? dl_->next_due() : flits_.next_due(); }
  // Due cycle of the newest flit sent (plain links; 0 before the first).
  uint64_t flits_last_due() const { return flits_.last_due(); }

  void send_credit(uint64_t now, const Credit& c) {
    if (lossy_ && now >= next_loss_) {
      ++loss_idx_;
      next_loss_ = loss_idx_ < credit_losses_.size() ? credit_losses_[loss_idx_] : UINT64_MAX;
      ++credits_lost_;
      return;
    }
    if (deferred_) {
      DelayLine<Credit>::push_held(credit_writer_, now, c);
      return;
    }
    credits_.push(now, c);
    note_credit_due(now + credits_.latency());
    if (credit_listened_) credit_listener_->wake_at(now + credits_.latency());
  }
  bool receive_credit(uint64_t now, Credit& c) { return credits_.pop(now, c); }

  const LinkPacer& pacer() const { return pacer_; }

  void set_flit_listener(WakeListener* l) {
    flit_listener_ = l;
    flit_listened_ = l != nullptr;
  }
  void set_credit_listener(WakeListener* l) {
    credit_listener_ = l;
    credit_listened_ = l != nullptr;
  }

  const DelayLine<Credit>& credits() const { return credits_; }
  // The wire's latency (a send pipeline comes before it).
  uint32_t latency() const { return flits_.latency() - pipeline_; }
  uint32_t credit_delay() const { return credits_.latency(); }

 private:
  void note_flit_due(uint64_t due) {
    if (flit_due_ && due < *flit_due_) *flit_due_ = due;
    if (flit_wake_ && due < *flit_wake_) *flit_wake_ = due;
    if (flit_outer_wake_ && due < *flit_outer_wake_) *flit_outer_wake_ = due;
  }
  void note_credit_due(uint64_t due) {
    if (credit_due_ && due < *credit_due_) *credit_due_ = due;
    if (credit_wake_ && due < *credit_wake_) *credit_wake_ = due;
    if (credit_outer_wake_ && due < *credit_outer_wake_) *credit_outer_wake_ = due;
  }

  // What every send and receive reads comes first, in one cache line; each delay line is a line
  // of its own (a network's links together exceed the caches, so each line touched costs).
  alignas(64) bool deferred_ = false;
  // flit_listener_, credit_listener_ are set; credit losses are planned (these lie outside the line)
  bool flit_listened_ = false;
  bool credit_listened_ = false;
  bool lossy_ = false;
  uint32_t pipeline_ = 0;  // set_send_pipeline: cycles before the wire, in flits_' latency
  std::unique_ptr<DataLink> dl_;
  uint64_t* flit_due_ = nullptr;    // the flit receiver's slot (set_flit_due_slot)
  uint64_t* credit_due_ = nullptr;  // the credit receiver's slot
  uint64_t* flit_wake_ = nullptr;   // the flit receiver's wake slot for a group of ports
  uint64_t* credit_wake_ = nullptr;
  uint64_t* flit_outer_wake_ = nullptr;  // ... and for a group of groups
  uint64_t* credit_outer_wake_ = nullptr;
  uint64_t next_loss_ = UINT64_MAX;  // the cycle from which the next credit sent is lost
  WakeListener* flit_listener_ = nullptr;
  WakeListener* credit_listener_ = nullptr;
  DelayLine<Flit> flits_;
  DelayLine<Credit> credits_;
  LinkPacer pacer_;
  std::vector<uint64_t> credit_losses_;
  size_t loss_idx_ = 0;
  uint64_t credits_lost_ = 0;
  // While deferred: the flit sender's and the credit sender's writers, two threads that write
  // them in the same window, so a cache line each.
  alignas(64) DelayLine<Flit>::Writer flit_writer_;
  alignas(64) DelayLine<Credit>::Writer credit_writer_;
};

// The newest due cycle of any flit or credit sent on these links (plain links; 0 before the
// first): once nothing more is sent, every one of them is empty after it.
inline uint64_t last_due_on(const std::vector<Link*>& a, const std::vector<Link*>& b) {
  uint64_t last = 0;
  for (const std::vector<Link*>* links : {&a, &b})
    for (const Link* l : *links) last = std::max({last, l->flits_last_due(), l->credits().last_due()});
  return last;
}

}  // namespace upswitch::core
