#include "cosim/side.h"

#include <stdexcept>

#include "cosim/port_words.h"
#include "top/fabric.h"

namespace upswitch::cosim {

Side::Side(const config::Config& cfg, std::unique_ptr<CycleSwitch> sw)
    : n_(cfg.sw.ports), sw_(std::move(sw)), in_(n_), out_(n_), events_(n_), arriving_tag_(n_, 0),
      injected_credit_(n_, 0) {
  if (sw_->ports() != n_) throw std::logic_error("cosim: switch block and configuration differ in ports");
  const auto lat = static_cast<uint32_t>(cfg.link_latency_cycles);
  const auto cred = static_cast<uint32_t>(cfg.credit_delay_cycles);
  std::vector<int> route(n_);
  for (int p = 0; p < n_; ++p) {
    up_.push_back(std::make_unique<core::Link>(lat, cred));
    down_.push_back(std::make_unique<core::Link>(lat, cred));
    route[p] = p;  // the reference configuration has the identity routing table
  }
  endpoints_ = std::make_unique<traffic::TrafficEndpoints>(cfg.traffic, cfg.measure, n_, cfg.sw.vcs,
                                                           top::upstream_credits(cfg), route,
                                                           cfg.watchdog_window());
  for (int p = 0; p < n_; ++p) endpoints_->connect(p, up_[p].get(), down_[p].get());
}

void Side::inject_credit(int port, const core::Credit& c) {
  injected_credit_[port] = pack(CreditWord{true, c.shared, c.vc});
}

// Packets arrive on a link one after another (a source sends one packet at a time), so the
// head's tag serves the rest of the packet.
uint32_t Side::tag_for_arrival(int port, const core::Flit& f) {
  if (!f.head()) return arriving_tag_[port];
  uint32_t tag;
  if (free_tags_.empty()) {
    tag = static_cast<uint32_t>(meta_.size());
    meta_.emplace_back();
  } else {
    tag = free_tags_.back();
    free_tags_.pop_back();
  }
  meta_[tag] = Meta{f, endpoints_->packet(f.payload)};
  arriving_tag_[port] = tag;
  return tag;
}

void Side::step(uint64_t t) {
  for (int p = 0; p < n_; ++p) {
    in_[p] = PortWords{};
    core::Flit f;
    if (!up_[p]->flits_empty() && up_[p]->receive_flit(t, f)) {
      FlitWord w;
      w.valid = true;
      w.head = f.head();
      w.tail = f.tail();
      w.shared = f.shared_credit();
      w.vc = f.vc;
      w.dst = static_cast<uint16_t>(f.dst);
      w.pkt = tag_for_arrival(p, f);
      in_[p].flit = pack(w);
    }
    core::Credit c;
    if (!down_[p]->credits().empty() && down_[p]->receive_credit(t, c))
      in_[p].credit = pack(CreditWord{true, c.shared, c.vc});
    if (injected_credit_[p]) {
      in_[p].credit = injected_credit_[p];
      injected_credit_[p] = 0;
    }
  }
  sw_->cycle(t, in_.data(), out_.data());
  for (int p = 0; p < n_; ++p) {
    PortEvent& e = events_[p];
    e = PortEvent{};
    const FlitWord w = unpack_flit(out_[p].flit);
    if (w.valid) {
      if (w.pkt >= meta_.size()) throw std::logic_error("cosim: switch emitted an unknown packet tag");
      const Meta& meta = meta_[w.pkt];
      core::Flit f = meta.flit;
      f.vc = w.vc;
      f.flags = static_cast<uint8_t>((f.flags & core::Flit::kMeasured) | (w.head ? core::Flit::kHead : 0) |
                                     (w.tail ? core::Flit::kTail : 0));
      f.set_shared_credit(w.shared);
      if (w.tail) free_tags_.push_back(w.pkt);
      e.flit_valid = true;
      e.flit = f;
      e.packet = meta.packet;
      down_[p]->send_flit(t, f);
    }
    const CreditWord c = unpack_credit(out_[p].credit);
    if (c.valid) {
      e.credit_valid = true;
      e.credit = core::Credit{c.vc, c.shared};
      up_[p]->send_credit(t, e.credit);
    }
  }
  endpoints_->tick(t);
}

}  // namespace upswitch::cosim
