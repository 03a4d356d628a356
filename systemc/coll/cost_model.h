// The collective cost model that `--algo auto` chooses with (doc/nccl.md, "Algorithm choice"): a
// flow-level replay of a collective's plan (coll/plan.h) in which each rank's uplink and downlink
// are resources that move wire bytes at a fixed rate, and every dependency of the plan (a flag, a
// fold, the switch algorithm's window) costs the zero-load latencies of the per-step cost formula.
// It plays the part of NCCL's tuning model (src/graph/tuning.cc: a latency per step plus bytes
// over a bandwidth), but is computed from the plan the cycle model itself runs, so channels,
// slices and protocols enter it exactly as they enter the simulation. Plain C++: no fabric.
#pragma once

#include <cstdint>

#include "coll/collective.h"

namespace upswitch::coll {

struct CostParams {
  double link_bytes_per_cycle = 0;  // wire bytes an endpoint moves per cycle and direction (all its links)
  double unit_bytes_per_cycle = 0;  // an endpoint's share of the engine units, when every endpoint uses them
  double unit_pool_bytes_per_cycle = 0;  // all the engine units an endpoint's multicast requests reach, together
  double hop_cycles = 0;            // S(1): zero-load one-way latency of a one-flit packet
  double flit_bytes = 64;
  // Requests of a stream to one destination that share a packet: four compressed headers fill a
  // control half-flit, and an endpoint that deals its addresses over several ports in
  // interleave-sized pieces puts at most interleave / store_bytes of them on one port in a row.
  int msgs_per_packet = 4;
  double mem_latency_cycles = 0;    // completer memory latency (a write executes, a read is served)
  double mem_bytes_per_cycle = 1;   // device memory bandwidth (the ring's folds read two and write one)
  double alu_latency_cycles = 0;    // the switch engine's reduction latency
  int store_bytes = 256;            // coll.store_bytes
  double handover_cycles = 2;       // the runner's cycles from a flag to the next transfer's issue
  // The GPU's issue limits: data bytes per cycle one channel's SM issues on a rank by
  // point-to-point and by multimem operations (accel.sm_gbytes_per_s, ...); 0 = unbounded.
  double sm_bytes_per_cycle = 0, multimem_bytes_per_cycle = 0;
  // The GPU's fixed costs, in cycles, indexed by Protocol (accel.launch_us_<protocol>,
  // accel.nvls_launch_us, accel.step_us_<protocol>): before a run's first transfers (the switch
  // algorithm: nvls_launch), and after each ring or chain step's flag.
  double launch_cycles[kProtocols] = {0, 0, 0};
  double nvls_launch_cycles = 0;
  double step_cycles[kProtocols] = {0, 0, 0};
};

// Wire bytes (data, request headers and line flags, and the acknowledgements a receiver returns)
// of a write of `bytes` under protocol p; `packed`: a stream to one destination, whose headers
// share control half-flits (else one message to a packet, as the switch algorithm's traffic).
double wire_bytes(Protocol p, uint64_t bytes, const CostParams& c, bool packed);

// Zero-load cycles from a load-reduce's issue to its result: the request's way to the engine and
// the engine's reads to the members (a hop), the members' memory, their answers and the result's
// way back (a hop), and the reduction.
double load_reduce_round_trip(const CostParams& c);

// Predicted cycles of one collective split into `channels` concurrent channels (contiguous shares
// of the buffer, as top::measure_coll_point runs them), from the first issue to the last
// completion. The spec's protocol is used as given.
double predict_cycles(const CollectiveSpec& s, int channels, const CostParams& c);

}  // namespace upswitch::coll
