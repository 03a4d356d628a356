// The unit the switch moves: one 64 B TL flit. Only timing-relevant fields are carried; the
// payload bytes are modelled by the transaction layer (systemc/tl/) outside the cycle core, and
// a flit only carries a handle to them.
#pragma once

#include <cstdint>

namespace upswitch::core {

// Transactions: the most messages one packet carries (eight 1-sector response headers).
constexpr int kMaxPacketMessages = 8;

struct Flit {
  enum Flags : uint8_t {
    kHead = 1,          // first flit of its packet
    kTail = 2,          // last flit of its packet
    kSharedCredit = 4,  // the credit used on the current hop came from the shared pool
    kMeasured = 8,      // packet created inside the measurement window
  };
  uint16_t dst = 0;        // destination endpoint id (mapped to a port by the routing table)
  uint16_t out = 0;        // output port at the current switch, chosen by its routing stage
  // The sender's handle of its packet, unique among its packets in flight, which the receiver
  // reads what the packet carries beyond its flits through: transactions, its messages (tl/);
  // synthetic packets, its id and its creation and injection cycles (traffic::TrafficEndpoints).
  // A switch carries it unchanged.
  uint32_t payload = 0;
  uint16_t src = 0;        // source endpoint id
  uint16_t size = 1;       // packet length in flits
  uint8_t vc = 0;          // virtual channel on the current hop
  uint8_t flags = 0;
  // Transactions: messages in the packet (each takes a command credit at its head on every hop),
  // and how many of those credits came from the shared pool on the current hop.
  uint8_t msgs = 0;
  uint8_t cmd_shared = 0;

  bool head() const { return flags & kHead; }
  bool tail() const { return flags & kTail; }
  bool shared_credit() const { return flags & kSharedCredit; }
  void set_shared_credit(bool s) {
    flags = static_cast<uint8_t>(s ? (flags | kSharedCredit) : (flags & ~kSharedCredit));
  }
};
// Every hop copies a flit through its links' delay lines and a buffer slot: what a packet needs
// only at its ends stays with its sender (`payload`), so a flit and its due cycle take 24 B.
static_assert(sizeof(Flit) == 16, "core::Flit grew: keep per-packet data behind `payload`");

// A credit returned upstream: which VC's buffer freed a slot and whether it was a shared one.
struct Credit {
  uint8_t vc = 0;
  bool shared = false;
  // Transactions: command credits returned with this flit credit (a packet's, with its tail's
  // flit credit), and how many of them are shared-pool credits.
  uint8_t cmds = 0;
  uint8_t cmd_shared = 0;
  // The output port the flit was queued for at the receiver, echoed so that a sender enforcing
  // switch.shared_buffer_output_cap knows which output's share of the pool came back.
  uint16_t out = 0;
};

}  // namespace upswitch::core
