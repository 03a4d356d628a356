// The global address map: accelerator e owns the window [base + e*window, base + (e+1)*window)
// of the 57-bit physical address space (facts §1.3), of which the first `memory` bytes are
// backed by its memory. An address in no window cannot be routed (decode error at the
// initiator); one in a window but beyond its memory gets a decode error from the completer.
// After the accelerators' windows come `groups` multicast windows of the same size: offset o of
// group g's window names offset o in every member's window (an NVLS multicast object bound at the
// same offset in each member, facts §2.4); the switch's reduction engine serves them.
#pragma once

#include <cstdint>

namespace upswitch::tl {

struct AddressMap {
  uint64_t base = 0;
  uint64_t window = 0;  // bytes per accelerator (a power of two)
  uint64_t memory = 0;  // bytes of memory behind each window (<= window)
  int endpoints = 0;
  int groups = 0;  // multicast windows

  // The endpoint whose window holds `addr`, or -1.
  int owner(uint64_t addr) const {
    if (addr < base || window == 0) return -1;
    const uint64_t e = (addr - base) / window;
    return e < static_cast<uint64_t>(endpoints) ? static_cast<int>(e) : -1;
  }
  // The multicast group whose window holds `addr`, or -1.
  int group(uint64_t addr) const {
    if (addr < base || window == 0) return -1;
    const uint64_t g = (addr - base) / window;
    const auto e = static_cast<uint64_t>(endpoints);
    return g >= e && g < e + static_cast<uint64_t>(groups) ? static_cast<int>(g - e) : -1;
  }
  uint64_t group_base(int g) const { return window_base(endpoints + g); }
  uint64_t window_base(int e) const { return base + static_cast<uint64_t>(e) * window; }
  // Offset of `addr` in its owner's memory, and whether [addr, addr+len) is backed.
  uint64_t offset(uint64_t addr) const { return (addr - base) % window; }
  bool backed(uint64_t addr, int len) const { return offset(addr) + static_cast<uint64_t>(len) <= memory; }
};

}  // namespace upswitch::tl
