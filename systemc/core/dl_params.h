// The data-link layer of a link (UALink 1.0 DL; facts §1.8): TL flits packed back to back into
// fixed-size DL flits protected by a CRC, a go-back-N replay buffer with sequence numbers,
// acknowledgements and replay requests, and the faults injected on it. Declared as keys
// link.dl.* and faults.link_* (systemc/config/dl_params.cpp); doc/reliability.md.
#pragma once

#include <cstdint>
#include <vector>

namespace upswitch::core {

struct DlParams {
  bool enable = false;
  int flit_bytes = 640;      // DL flit on the wire: header, segment headers, payload, CRC
  int payload_bytes = 628;   // TL bytes one DL flit carries
  int rx_cycles = 2;         // CRC check and replay-buffer bookkeeping at the receiver
  int ack_cycles = 6;        // an ack or replay request waits this long for a reverse DL flit
  int replay_window = 256;   // DL flits sent and not yet acknowledged, at most
  int tx_fifo_flits = 64;    // TL flits waiting to be framed, at most (backpressure beyond)
  double flit_error_rate = 0;  // probability that an error burst starts on a DL flit
  double bit_error_rate = 0;   // alternative: per bit, converted to a DL flit error rate
  int burst_flits = 1;         // consecutive DL flits an error burst corrupts

  // The per-DL-flit probability that an error burst starts (from either rate).
  double start_probability() const;
};

// A scheduled interval [begin, end) in core cycles during which a link carries nothing.
struct DownInterval {
  uint64_t begin = 0, end = 0;
};

// What is injected on one link (one direction of one port).
struct LinkFaults {
  double flit_error_rate = -1;          // < 0: the global link.dl rate
  std::vector<DownInterval> down;       // sorted, disjoint
  std::vector<uint64_t> credit_losses;  // cycles from which the next credit sent is lost
};

}  // namespace upswitch::core
