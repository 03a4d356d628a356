// The words on the switch block's ports, bit for bit as rtl_ref/upsw_pkg.sv declares them
// (flit_t: 50 bits, credit_t: 6 bits). Any block plugged into the harness uses this layout;
// doc/cosim.md, "Port interface".
#pragma once

#include <cstdint>

namespace upswitch::cosim {

// flit_t, MSB first: valid[49] head[48] tail[47] shared[46] vc[45:42] dst[41:32] pkt[31:0].
struct FlitWord {
  bool valid = false;
  bool head = false;
  bool tail = false;
  bool shared = false;
  uint8_t vc = 0;     // 4 bits
  uint16_t dst = 0;   // 10 bits: output port
  uint32_t pkt = 0;   // packet tag
};

// credit_t, MSB first: valid[5] shared[4] vc[3:0].
struct CreditWord {
  bool valid = false;
  bool shared = false;
  uint8_t vc = 0;
};

inline uint64_t pack(const FlitWord& f) {
  if (!f.valid) return 0;
  return uint64_t{1} << 49 | uint64_t{f.head} << 48 | uint64_t{f.tail} << 47 | uint64_t{f.shared} << 46 |
         uint64_t{f.vc & 15U} << 42 | uint64_t{f.dst & 1023U} << 32 | f.pkt;
}

inline FlitWord unpack_flit(uint64_t w) {
  FlitWord f;
  f.valid = (w >> 49) & 1;
  if (!f.valid) return f;
  f.head = (w >> 48) & 1;
  f.tail = (w >> 47) & 1;
  f.shared = (w >> 46) & 1;
  f.vc = static_cast<uint8_t>((w >> 42) & 15);
  f.dst = static_cast<uint16_t>((w >> 32) & 1023);
  f.pkt = static_cast<uint32_t>(w);
  return f;
}

inline uint8_t pack(const CreditWord& c) {
  if (!c.valid) return 0;
  return static_cast<uint8_t>(1U << 5 | unsigned{c.shared} << 4 | (c.vc & 15U));
}

inline CreditWord unpack_credit(uint8_t w) {
  CreditWord c;
  c.valid = (w >> 5) & 1;
  if (!c.valid) return c;
  c.shared = (w >> 4) & 1;
  c.vc = static_cast<uint8_t>(w & 15);
  return c;
}

}  // namespace upswitch::cosim
