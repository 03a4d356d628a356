#include "core/data_link.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace upswitch::core {

namespace {
constexpr int kFracBits = 32;
using u128 = unsigned __int128;
}  // namespace

double DlParams::start_probability() const {
  if (bit_error_rate > 0) return -std::expm1(8.0 * flit_bytes * std::log1p(-bit_error_rate));
  return flit_error_rate;
}

DataLink::DataLink(const DlParams& p, const LinkFaults& faults, int tl_flit_bytes, double tl_flits_per_cycle,
                   uint32_t latency, uint64_t seed, uint64_t stream)
    : p_(p), faults_(faults), tl_bytes_(static_cast<uint32_t>(tl_flit_bytes)), latency_(latency), tl_(64),
      frames_(static_cast<uint32_t>(std::min(p.replay_window, 1024))), events_(64), rng_(seed, stream) {
  if (tl_flits_per_cycle <= 0 || tl_flits_per_cycle > 1) tl_flits_per_cycle = 1;
  // A DL flit carries payload_bytes of TL flits; the wire is fast enough that a backlogged link
  // delivers tl_flits_per_cycle TL flits per cycle when nothing is lost.
  const double cycles = static_cast<double>(p_.payload_bytes) / (tl_flits_per_cycle * tl_flit_bytes);
  slot_fp_ = static_cast<uint64_t>(std::llround(std::ldexp(cycles, kFracBits)));
  const double q = faults_.flit_error_rate >= 0 ? faults_.flit_error_rate : p_.start_probability();
  if (q > 0) {
    errors_ = true;
    log_q_ = Rng::log_q(q);
    err_slot_ = rng_.geometric_log(log_q_);
  }
}

uint64_t DataLink::slot_start(uint64_t x) const {
  const u128 v = static_cast<u128>(x) * slot_fp_ + ((u128{1} << kFracBits) - 1);
  return static_cast<uint64_t>(v >> kFracBits);
}

double DataLink::slot_cycles() const { return std::ldexp(static_cast<double>(slot_fp_), -kFracBits); }

uint64_t DataLink::first_slot_at(uint64_t t) const {
  uint64_t x = static_cast<uint64_t>((static_cast<u128>(t) << kFracBits) / slot_fp_);
  while (slot_start(x) < t) ++x;
  while (x > 0 && slot_start(x - 1) >= t) --x;
  return x;
}

bool DataLink::ready(uint64_t t) {
  advance(t);
  return reserved_ + (tl_.end() - framed_) < static_cast<uint64_t>(p_.tx_fifo_flits);
}

void DataLink::take(uint64_t) { ++reserved_; }

void DataLink::send(uint64_t t, const Flit& f) {
  advance(t);
  if (reserved_ == 0) throw std::logic_error("DataLink: a flit was sent without take()");
  --reserved_;
  tl_.push_back(Tl{f, t, 0});
}

bool DataLink::receive(uint64_t t, Flit& f) {
  advance(t);
  if (tl_.begin() == released_) return false;
  const Tl& head = tl_.front();
  if (head.due < t) throw std::logic_error("DataLink: a TL flit was not received in its release cycle");
  if (head.due != t) return false;
  f = head.flit;
  tl_.pop_front();
  return true;
}

uint64_t DataLink::next_due() const {
  if (tl_.begin() != released_) return tl_.front().due;
  if (tl_.empty()) return UINT64_MAX;
  return slot_start(x_ + 1) + latency_ + static_cast<uint64_t>(p_.rx_cycles);
}

bool DataLink::empty_after(uint64_t t) const {
  return tl_.empty() || (tl_.size() == 1 && tl_.begin() != released_ && tl_.front().due <= t);
}

void DataLink::advance(uint64_t t) {
  const std::vector<DownInterval>& down = faults_.down;
  while (true) {
    const uint64_t s = slot_start(x_);
    if (s > t) return;
    while (down_idx_ < down.size() && down[down_idx_].end <= s) {
      ++down_idx_;
      retrain_pending_ = true;
      ++stats_.link_ups;
    }
    if (down_idx_ < down.size() && down[down_idx_].begin < slot_start(x_ + 1)) {
      x_ = std::max(x_ + 1, first_slot_at(down[down_idx_].end));  // nothing crosses a down link
      continue;
    }
    if (evaluate_slot()) continue;
    // Idle: skip to the first slot in which the transmitter could act, but never past `t` (a
    // flit sent at t may still go in the first slot after it).
    const uint64_t until = std::min(idle_until(), t + 1);
    x_ = std::max(x_ + 1, first_slot_at(until));
  }
}

uint64_t DataLink::idle_until() const {
  uint64_t until = UINT64_MAX;
  if (!events_.empty()) until = events_.front().arrives;
  const bool window_open = next_seq_ - acked_ < static_cast<uint64_t>(p_.replay_window);
  if (framed_ != tl_.end() && window_open) until = std::min(until, tl_.at(framed_).sent + 1);
  return until;
}

bool DataLink::evaluate_slot() {
  const uint64_t s = slot_start(x_), e = slot_start(x_ + 1);
  apply_events(s);
  if (retrain_pending_) {  // link-up: resend everything not acknowledged
    retrain_pending_ = false;
    resend_ = acked_;
    ++epoch_;
  }
  uint64_t seq = 0;
  if (resend_ < next_seq_) {
    seq = resend_++;
    ++stats_.frames_replayed;
  } else if (framed_ != tl_.end() && tl_.at(framed_).sent < s &&
             next_seq_ - acked_ < static_cast<uint64_t>(p_.replay_window)) {
    seq = next_seq_++;
    resend_ = next_seq_;
    Frame fr;
    fr.tl_begin = framed_;
    fr.tl_end = pack_frame(s);
    frames_.push_back(fr);
    ++stats_.frames_sent;
    stats_.max_unacked = std::max(stats_.max_unacked, next_seq_ - acked_);
  } else {
    return false;
  }
  const bool bad = corrupt(x_);
  ++x_;
  const uint64_t arrival = e + latency_;
  if (lost_in_down(s, arrival)) {
    ++stats_.frames_lost_down;
    return true;
  }
  const uint64_t check = arrival + static_cast<uint64_t>(p_.rx_cycles);
  if (bad) {
    ++stats_.crc_errors;
    if (epoch_ > rx_nak_epoch_) {  // one replay request per replay
      rx_nak_epoch_ = epoch_;
      ++stats_.replay_requests;
      events_.push_back(Event{check, check + latency_ + static_cast<uint64_t>(p_.ack_cycles), rx_expected_, true});
    }
    return true;
  }
  receive_frame(seq, frames_.at(seq), check);
  return true;
}

void DataLink::receive_frame(uint64_t seq, const Frame& fr, uint64_t check) {
  if (seq < rx_expected_) {  // resent after a link-up whose ack was lost: acknowledge it again
    ++stats_.frames_duplicate;
    events_.push_back(Event{check, check + latency_ + static_cast<uint64_t>(p_.ack_cycles), rx_expected_ - 1, false});
    return;
  }
  if (seq > rx_expected_) {
    ++stats_.frames_discarded;
    return;
  }
  ++rx_expected_;
  if (fr.tl_begin != released_) throw std::logic_error("DataLink: DL flits accepted out of TL order");
  for (uint64_t i = fr.tl_begin; i != fr.tl_end; ++i) {
    const uint64_t due = std::max(check, last_due_ + 1);
    tl_.at(i).due = due;
    last_due_ = due;
  }
  released_ = fr.tl_end;
  stats_.tl_flits += fr.tl_end - fr.tl_begin;
  events_.push_back(Event{check, check + latency_ + static_cast<uint64_t>(p_.ack_cycles), seq, false});
}

void DataLink::apply_events(uint64_t now) {
  while (!events_.empty() && events_.front().arrives <= now) {
    const Event ev = events_.front();
    events_.pop_front();
    if (lost_in_down(ev.sent, ev.arrives)) continue;
    if (ev.replay_request) {
      acked_ = std::max(acked_, ev.seq);  // a replay request acknowledges everything before it
      resend_ = std::max(ev.seq, acked_);
      ++epoch_;
    } else {
      acked_ = std::max(acked_, ev.seq + 1);
      resend_ = std::max(resend_, acked_);
    }
    while (frames_.begin() < acked_) frames_.pop_front();
  }
}

bool DataLink::corrupt(uint64_t x) {
  if (!errors_) return false;
  const auto burst = static_cast<uint64_t>(p_.burst_flits);
  while (err_slot_ + burst <= x) err_slot_ += burst + rng_.geometric_log(log_q_);
  return x >= err_slot_;
}

bool DataLink::lost_in_down(uint64_t from, uint64_t to) const {
  for (const DownInterval& d : faults_.down)
    if (d.begin < to && from < d.end) return true;
  return false;
}

uint64_t DataLink::pack_frame(uint64_t slot_begin) {
  uint32_t room = static_cast<uint32_t>(p_.payload_bytes);
  while (room > 0 && framed_ != tl_.end() && tl_.at(framed_).sent < slot_begin) {
    const uint32_t rest = tl_bytes_ - part_bytes_;
    if (rest <= room) {
      room -= rest;
      part_bytes_ = 0;
      ++framed_;
    } else {
      part_bytes_ += room;
      room = 0;
    }
  }
  return framed_;
}

}  // namespace upswitch::core
