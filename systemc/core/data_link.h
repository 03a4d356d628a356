// The data-link layer of one link direction (UALink 1.0 DL, facts §1.8), below the TL flits the
// switch and the endpoints exchange. The wire is a sequence of DL flit slots, each
// `flit_bytes` long at the wire rate (the link's TL rate x flit_bytes / payload_bytes, so an
// error-free backlogged link carries exactly link.gbytes_per_s of TL flits). At a slot's start
// the transmitter sends, in this order of preference: the next DL flit of a replay in progress;
// a new DL flit packed with the TL flits waiting in its FIFO (back to back, straddling DL flits,
// sent at least one cycle before the slot); nothing (a NOP flit). Every data DL flit gets the
// next sequence number and stays in the replay buffer until acknowledged.
//
// The receiver checks a DL flit `rx_cycles` after its last byte arrived (slot end + link
// latency). A good one with the expected sequence number releases the TL flits whose last byte
// it holds, one per cycle, and is acknowledged; a corrupt one is discarded and, once per replay,
// answered with a replay request for the expected number; intact ones out of sequence (after a
// corrupt one, or resent after a link-up) are discarded. Acks and replay requests reach the
// transmitter `latency + ack_cycles` after they were sent; a replay request makes it resend
// everything from that number (go-back-N). While a link is down it carries nothing; DL flits and
// acks in flight are lost, and at link-up the transmitter resends everything unacknowledged.
//
// Everything is evaluated lazily, slot by slot, whenever either end touches the link, and only
// from what was sent before the slot: results do not depend on which end runs first, idle slots
// cost nothing, and nothing is allocated per flit once the rings have grown to the credit bound.
#pragma once

#include <cstdint>

#include "core/dl_params.h"
#include "core/flit.h"
#include "core/grow_ring.h"
#include "core/rng.h"

namespace upswitch::core {

struct DlStats {
  uint64_t frames_sent = 0;        // data DL flits sent for the first time
  uint64_t frames_replayed = 0;    // data DL flits sent again (replay)
  uint64_t crc_errors = 0;         // data DL flit transmissions corrupted (injected errors that hit data)
  uint64_t replay_requests = 0;    // replay requests the receiver sent
  uint64_t frames_discarded = 0;   // intact DL flits dropped for being out of sequence
  uint64_t frames_duplicate = 0;   // intact DL flits already received (resent after a link-up)
  uint64_t frames_lost_down = 0;   // DL flits in flight when the link went down
  uint64_t link_ups = 0;           // retrains after a down interval
  uint64_t tl_flits = 0;           // TL flits delivered
  uint64_t max_unacked = 0;        // the replay buffer's high-water mark, in DL flits
};

class DataLink {
 public:
  // `tl_flits_per_cycle` (<= 1): the link's TL rate; `latency`: wire and PHY, one way, cycles.
  DataLink(const DlParams& p, const LinkFaults& faults, int tl_flit_bytes, double tl_flits_per_cycle,
           uint32_t latency, uint64_t seed, uint64_t stream);

  // Transmitter (TL side): room in the FIFO for one more flit at `t`, reserving it (at a switch
  // grant, a fixed pipeline before the flit is sent), and the flit itself.
  bool ready(uint64_t t);
  void take(uint64_t t);
  void send(uint64_t t, const Flit& f);

  // Receiver (TL side): the TL flit released at `t`, if any.
  bool receive(uint64_t t, Flit& f);
  // The earliest cycle a TL flit may be released (exact when one is scheduled; otherwise a lower
  // bound from the next unevaluated slot); UINT64_MAX when none is in the link.
  uint64_t next_due() const;
  // TL flits sent and not yet released.
  uint64_t in_flight() const { return tl_.size(); }
  bool empty() const { return tl_.empty(); }
  bool empty_after(uint64_t t) const;

  const DlStats& stats() const { return stats_; }
  // Slot arithmetic (public for tests): the cycle DL flit slot `x` starts in, and its length.
  uint64_t slot_start(uint64_t x) const;
  double slot_cycles() const;
  // The number of the first slot starting at or after cycle `t`.
  uint64_t first_slot_at(uint64_t t) const;

 private:
  struct Tl {
    Flit flit;
    uint64_t sent = 0;  // cycle the TL side handed it over
    uint64_t due = 0;   // release cycle, once its DL flit was accepted
  };
  struct Frame {
    uint64_t tl_begin = 0, tl_end = 0;  // the TL flits whose last byte this DL flit holds
  };
  struct Event {
    uint64_t sent = 0, arrives = 0, seq = 0;
    bool replay_request = false;
  };

  void advance(uint64_t t);
  // Evaluates slot `x_` (transmission and reception); returns false when nothing was sent.
  bool evaluate_slot();
  void apply_events(uint64_t now);
  bool corrupt(uint64_t x);
  bool lost_in_down(uint64_t from, uint64_t to) const;  // does [from, to) meet a down interval?
  const DownInterval* down_at(uint64_t t) const;
  uint64_t pack_frame(uint64_t slot_begin);  // returns the new frame's tl_end
  void receive_frame(uint64_t seq, const Frame& fr, uint64_t check);
  uint64_t idle_until() const;  // the next cycle at which an idle transmitter could act

  DlParams p_;
  LinkFaults faults_;
  uint32_t tl_bytes_;
  uint32_t latency_;
  uint64_t slot_fp_ = 0;  // slot length in cycles, 32.32 fixed point

  // TL flits: [tl_.begin(), released_) have due cycles; [released_, framed_) sit in accepted or
  // unaccepted DL flits; [framed_, tl_.end()) wait in the FIFO, the first `part_bytes_` bytes of
  // framed_ already packed into the last DL flit.
  GrowRing<Tl> tl_;
  uint64_t released_ = 0, framed_ = 0;
  uint32_t part_bytes_ = 0;
  uint32_t reserved_ = 0;  // FIFO entries taken and not yet sent

  // Replay buffer: DL flits [acked_, next_seq_); the next one to (re)send is resend_.
  GrowRing<Frame> frames_;
  uint64_t acked_ = 0, next_seq_ = 0, resend_ = 0;
  uint64_t epoch_ = 1;           // bumped by every replay and link-up
  uint64_t rx_expected_ = 0;     // receiver: the next sequence number it accepts
  uint64_t rx_nak_epoch_ = 0;    // receiver: the epoch its last replay request answered
  uint64_t last_due_ = 0;
  GrowRing<Event> events_;       // acks and replay requests on their way back, in arrival order

  uint64_t x_ = 0;               // next slot to evaluate
  size_t down_idx_ = 0;          // first down interval not yet over
  bool retrain_pending_ = false; // a down interval ended: resend everything unacknowledged

  // Errors: bursts start at slots err_slot_, err_slot_ + burst + gap, ... (traffic-independent).
  Rng rng_;
  double log_q_ = 0;
  bool errors_ = false;
  uint64_t err_slot_ = 0;

  DlStats stats_;
};

}  // namespace upswitch::core
