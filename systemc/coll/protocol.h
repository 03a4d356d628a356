// How a collective's data and its synchronisation travel, as NCCL's three protocols do
// (doc/nccl.md): Simple writes a slice, waits for it to be acknowledged and then writes a flag;
// LL128 and LL carry the flag inside the data's own lines, so the receiver sees a slice as soon
// as its last line lands, at the price of wire bytes that are not data.
#pragma once

#include <cstdint>
#include <string>

namespace upswitch::coll {

enum class Protocol : uint8_t { kSimple, kLl128, kLl };
constexpr int kProtocols = 3;

inline const char* protocol_name(Protocol p) {
  switch (p) {
    case Protocol::kSimple: return "simple";
    case Protocol::kLl128: return "ll128";
    case Protocol::kLl: return "ll";
  }
  return "?";
}

inline bool parse_protocol(const std::string& text, Protocol& out) {
  for (int k = 0; k < kProtocols; ++k)
    if (text == protocol_name(static_cast<Protocol>(k))) {
      out = static_cast<Protocol>(k);
      return true;
    }
  return false;
}

// A protocol's line: every `data` bytes of payload travel in `bytes` bytes on the wire (the rest
// is flags); {0, 0} = no lines (Simple). LL: 8 B of data and 8 B of flag per 16 B store; LL128:
// 120 B of data and an 8 B flag per 128 B line (NCCL src/device/prims_ll.h, prims_ll128.h).
struct Line {
  uint16_t bytes = 0, data = 0;
};
inline Line protocol_line(Protocol p) {
  switch (p) {
    case Protocol::kSimple: return {};
    case Protocol::kLl128: return {128, 120};
    case Protocol::kLl: return {16, 8};
  }
  return {};
}

// coll.data: whether collectives move their payload (checked against the host reference) or only
// its timing: every packet, flag and ordering as in checked mode, no bytes stored (doc/nccl.md).
enum class DataMode : uint8_t { kChecked, kTiming };

// coll.*: the collective library's choices that every collective of a run follows.
struct CollParams {
  Protocol protocol = Protocol::kSimple;  // ring and chain algorithms (oneshot and switch: Simple)
  int store_bytes = 256;                  // largest write the GPU issues for a collective
  int channels = 1;                       // concurrent rings / pipelines, each on its share of the buffer
  DataMode data = DataMode::kChecked;
  // The GPU's issue limits (accel.sm_gbytes_per_s, accel.multimem_gbytes_per_s): data bytes per
  // ns one channel's SM moves on each rank by point-to-point loads and stores, and by multimem
  // loads and stores; 0 = unbounded.
  double sm_gbytes_per_s = 0, multimem_gbytes_per_s = 0;
  // The GPU's fixed costs, indexed by Protocol (accel.launch_us_<protocol>, accel.nvls_launch_us,
  // accel.step_us_<protocol>; doc/nccl.md): from a run's start to its first transfer (ring, chain,
  // one-shot by protocol; the switch algorithm), and from a ring or chain step's flag being seen
  // to its waiter going on; 0 = none.
  double launch_us[kProtocols] = {0, 0, 0};
  double nvls_launch_us = 0;
  double step_us[kProtocols] = {0, 0, 0};
  double launch_us_of(Protocol p) const { return launch_us[static_cast<int>(p)]; }
  double step_us_of(Protocol p) const { return step_us[static_cast<int>(p)]; }
};

}  // namespace upswitch::coll
