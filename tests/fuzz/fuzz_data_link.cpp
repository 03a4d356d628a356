// libFuzzer target: the data-link layer (core/data_link.h) under any parameters, error rate,
// burst length, down intervals and send pattern the bytes describe. Whatever they are, every TL
// flit sent must be released exactly once, in order, one per cycle at most, within a bounded
// time, and the replay counters must account for every failed transmission.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "core/data_link.h"

namespace {

struct Bytes {
  const uint8_t* p;
  size_t n, i = 0;
  uint8_t next() { return n ? p[i++ % n] : 0; }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace upswitch::core;  // NOLINT: a fuzz target's own file
  Bytes b{data, size};
  DlParams p;
  p.enable = true;
  p.replay_window = 1 + b.next() % 256;
  p.tx_fifo_flits = 11 + b.next() % 64;
  p.rx_cycles = b.next() % 8;
  p.ack_cycles = b.next() % 16;
  p.flit_error_rate = (b.next() % 128) / 1280.0;  // 0 .. 0.1
  p.burst_flits = 1 + b.next() % 4;
  const uint32_t latency = 1 + b.next() % 200;
  const double rate = 0.5 + (b.next() % 129) / 256.0;  // 0.5 .. 1.0 TL flits per cycle
  LinkFaults f;
  uint64_t at = 0;
  for (int k = b.next() % 4; k > 0; --k) {
    at += 1 + static_cast<uint64_t>(b.next()) * 64;
    const uint64_t len = 1 + static_cast<uint64_t>(b.next()) * 32;
    f.down.push_back(DownInterval{at, at + len});
    at += len;
  }
  DataLink dl(p, f, 64, rate, latency, 1, size);

  constexpr uint64_t kFlits = 300, kLimit = 3000000;
  uint64_t sent = 0, received = 0, next_send = 0, last_release = 0;
  for (uint64_t t = 0; received < kFlits; ++t) {
    if (t > kLimit) __builtin_trap();  // no progress: a replay or window deadlock
    Flit x;
    if (dl.receive(t, x)) {
      if (x.payload != received || (received && t == last_release)) __builtin_trap();
      ++received;
      last_release = t;
    }
    if (sent < kFlits && t >= next_send && dl.ready(t)) {
      x = Flit{};
      x.payload = static_cast<uint32_t>(sent++);
      dl.take(t);
      dl.send(t, x);
      next_send = t + (b.next() % 16);
    }
    if (dl.in_flight() != sent - received) __builtin_trap();
  }
  const DlStats& s = dl.stats();
  if (s.tl_flits != kFlits) __builtin_trap();
  // Every DL flit is accepted by now, so every other transmission was resent once.
  if (s.frames_replayed != s.crc_errors + s.frames_discarded + s.frames_duplicate + s.frames_lost_down) __builtin_trap();
  return 0;
}
