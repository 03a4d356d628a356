// The transaction layer's transmitter at an accelerator: packs queued messages into packets of
// TL flits (tl/packet_format.h) and sends at most one flit per cycle, subject to credits and the
// link's pacing (doc/transactions.md "Transmitter").
#include <algorithm>

#include "endpoint/accelerators.h"

namespace upswitch::endpoint {
namespace {

// Queued messages a packet may be gathered from (a transmitter's lookahead).
constexpr size_t kPackScan = 16;

}  // namespace

AcceleratorEndpoints::Queued AcceleratorEndpoints::queued(uint32_t h) const {
  Queued q = queued_of(msgs_[h]);
  q.msg = h;
  return q;
}

AcceleratorEndpoints::Queued AcceleratorEndpoints::queued_of(const tl::Message& m) {
  Queued q;
  q.dst = m.response ? m.src : m.dst;  // a request goes to its completer, a response back
  q.sectors = static_cast<uint8_t>(tl::header_sectors(m));
  q.halves = static_cast<uint8_t>(tl::data_halves(m) + m.flag_halves);
  q.payload = tl::carries_payload(m) ? m.len : 0;
  q.vc = m.vc;
  return q;
}

// A packet of part g's: one it freed, or a new one in its store.
uint32_t AcceleratorEndpoints::new_bundle(int g) {
  Part& part = parts_[static_cast<size_t>(g)];
  if (part.free_bundles.empty()) return (static_cast<uint32_t>(g) << PartMessages::kShift) | part.bundles.grow();
  const uint32_t h = part.free_bundles.back();
  part.free_bundles.pop_back();
  bundle(h) = Bundle{};
  return h;
}

// Packs messages from a lane's queue into one packet: the head message and those after it, among
// the first kPackScan, with the same destination, in queue order (messages to other destinations
// may be passed: only one source-destination pair's order is kept, as the ordering rules allow), while their headers fit one control half-flit (8 sectors) and the
// count stays within tl.max_messages_per_packet. A request packet also stays within the
// receiver's reserved buffer of one lane, because the receiver holds all of its slots until the
// completer admits it.
bool AcceleratorEndpoints::form_bundle(int p, int lane) {
  Port& port = ports_[p];
  TxLane& L = port.tx[static_cast<size_t>(lane)];
  if (L.queue.empty()) return false;
  const bool request = lane < v_;
  const int max_msgs = max_packet_msgs_[request ? 0 : 1];
  const uint16_t dst = L.queue.front().dst;  // a request's completer, a response's initiator
  const uint32_t bh = new_bundle(part_of(port.owner));
  Bundle& b = bundle(bh);
  int sectors = 0, halves = 0;
  for (size_t k = 0; k < L.queue.size() && k < kPackScan && b.count < max_msgs;) {
    const Queued q = L.queue.at(k);
    if (q.dst != dst) {  // another destination's message: may be passed
      ++k;
      continue;
    }
    if (sectors + q.sectors > tl::kSectorsPerControl) break;
    if (request && b.count > 0 && tl::packet_flits(halves + q.halves) > rx_lane_flits_) break;
    const Queued taken = L.queue.take(k);
    b.msg[b.count++] = taken.msg != tl::kNoMessage ? taken.msg : make_member(p, taken);
    sectors += q.sectors;
    halves += q.halves;
    b.payload += q.payload;
  }
  b.dst = dst;
  b.lane = static_cast<uint8_t>(lane);
  b.flits = static_cast<uint16_t>(tl::packet_flits(halves));
  b.packet_id = (static_cast<uint64_t>(p) << 40) | port.packet_seq++;
  L.bundle = bh;
  L.sent = 0;
  return true;
}

// One flit per cycle on endpoint port p: the packet in progress continues while its lane has credit; when it is
// blocked, another lane's packet may go instead (a partly sent one first); a packet starts only
// when its lane has credits for all of it (or for as much as the lane can ever hold), so packets
// are sent whole, back to back, whenever they can be.
void AcceleratorEndpoints::transmit(int p, uint64_t t) {
  Port& port = ports_[p];
  if (port.tx_work == 0) return;
  if (!to_switch_[p]->tx_ready(t)) return;
  if (port.last_lane >= 0 && port.credits.can_take(port.last_lane)) {
    send_flit(p, port.last_lane, t);
    return;
  }
  const int lanes = 2 * v_;
  // Lanes in round-robin order from the pointer, visiting only those in the mask.
  auto first = [&](uint32_t mask) {
    const uint32_t at_or_after = mask & (~0U << port.lane_ptr);
    return __builtin_ctz(at_or_after ? at_or_after : mask);
  };
  for (uint32_t m = port.lanes_partial; m;) {  // a blocked packet that can go on
    const int l = first(m);
    m &= ~(1U << l);
    if (port.credits.can_take(l)) {
      port.lane_ptr = (l + 1) % lanes;
      send_flit(p, l, t);
      return;
    }
  }
  for (uint32_t m = port.lanes_pending & ~port.lanes_partial; m;) {  // a new packet
    const int l = first(m);
    m &= ~(1U << l);
    TxLane& L = port.tx[static_cast<size_t>(l)];
    if (L.bundle == tl::kNoMessage && !form_bundle(p, l)) continue;
    const Bundle& b = bundle(L.bundle);
    const int need = std::min<int>(b.flits, lane_capacity_[l < v_ ? 0 : 1]);
    const auto have = static_cast<int>(port.credits.reserved(l) + port.credits.shared_for(l));
    if (have < need || port.cmd.available(l) < b.count) continue;
    port.lane_ptr = (l + 1) % lanes;
    send_flit(p, l, t);
    return;
  }
  ++result_.ports[static_cast<size_t>(port.owner)].tx_blocked_cycles;
}

void AcceleratorEndpoints::send_flit(int p, int lane, uint64_t t) {
  Port& port = ports_[p];
  TxLane& L = port.tx[static_cast<size_t>(lane)];
  const uint32_t bh = L.bundle;
  Bundle& b = bundle(bh);
  core::Flit f;
  if (L.sent == 0) b.cmd_shared_tx = static_cast<uint8_t>(port.cmd.take_n(lane, b.count));
  f.msgs = b.count;
  f.cmd_shared = b.cmd_shared_tx;
  f.dst = b.dst;
  f.payload = bh;
  f.src = static_cast<uint16_t>(port.owner);
  f.size = b.flits;
  f.vc = static_cast<uint8_t>(lane);
  f.flags = static_cast<uint8_t>((L.sent == 0 ? core::Flit::kHead : 0) | (L.sent + 1 == b.flits ? core::Flit::kTail : 0));
  f.set_shared_credit(port.credits.take(lane));
  to_switch_[p]->tx_take(t);
  to_switch_[p]->send_flit(t, f);
  Counts& k = counts_of(port.owner);
  ++k.flits_sent;
  ++result_.ports[static_cast<size_t>(port.owner)].tx_flits;
  const int cls = lane < v_ ? 0 : 1;
  const bool window = in_window(t);
  if (window) {
    ++k.window_flits[static_cast<size_t>(cls)];
    ++result_.port_window_flits[static_cast<size_t>(p)];
  }
  if (L.sent == 0) {
    result_.ports[static_cast<size_t>(port.owner)].tx_payload_bytes += b.payload;
    if (window) {
      ++k.window_packets[static_cast<size_t>(cls)];
      k.window_messages[static_cast<size_t>(cls)] += b.count;
      k.window_payload[static_cast<size_t>(cls)] += b.payload;
    }
  }
  const uint32_t bit = 1U << lane;
  if (++L.sent == b.flits) {
    port.tx_work -= b.count;
    L.bundle = tl::kNoMessage;
    L.sent = 0;
    port.last_lane = -1;
    port.lanes_partial &= ~bit;
    if (L.queue.empty()) port.lanes_pending &= ~bit;
  } else {
    port.last_lane = lane;
    port.lanes_partial |= bit;
  }
}

}  // namespace upswitch::endpoint
