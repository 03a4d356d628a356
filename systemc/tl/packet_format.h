// How messages become 64 B TL flits (UALink 1.0 TL, facts §1.6). A flit is two 32 B half-flits;
// a packet is one control half-flit, in the lower half of its first flit, holding the headers of
// up to `max_messages` messages of one lane to one destination, followed in order by their data
// half-flits. Header sizes are in 4 B sectors; a control half-flit holds 8:
//   request: uncompressed 4, compressed 2 (Read/Write/WriteFull of 64..256 B, 64 B aligned, with
//            an address-cache hit); response: uncompressed 2, compressed 1 (status OKAY only).
// Data half-flits: a 64 B beat is 2; a Write adds one 32 B byte-enable half-flit (WriteFull
// none); an atomic carries 2 operand half-flits + 1 byte-enable half-flit; a read response
// carries its beats, an AtomicR response one beat; other responses none. A Reduce carries its
// operand beats and no byte-enable half-flit (whole elements only) and takes an uncompressed
// header, as does a load-reduce (a Read of a multicast address), which names type and operation.
#pragma once

#include "tl/message.h"

namespace upswitch::tl {

constexpr int kSectorsPerControl = 8;
constexpr int kMaxMessagesPerPacket = 8;  // eight 1-sector compressed responses

// Whether a request's format allows a compressed header (the address cache decides the rest).
bool compressible(const Message& m);
int header_sectors(const Message& m);
int data_halves(const Message& m);
// Flits of a packet whose messages' data half-flits add up to `halves`.
inline int packet_flits(int halves) { return (1 + halves + 1) / 2; }

// Whether a message carries data half-flits (data_halves(m) > 0), cheaply.
inline bool carries_payload(const Message& m) {
  return m.response ? m.status == Status::kOkay && returns_data(m.op) : carries_request_data(m.op);
}

// Payload bytes a message moves for its transfer (what bandwidth is counted in): request data for
// writes, response data for reads, the operand bytes for atomics.
int payload_bytes(const Message& m);

}  // namespace upswitch::tl
