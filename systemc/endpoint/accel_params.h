// Parameters of the accelerator endpoints (initiator, completer, memory) and of the transaction
// layer they speak. Defaults, units, ranges and sources are declared once, in
// systemc/config/param_table.cpp (and explained in doc/transactions.md).
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "tl/ops.h"

namespace upswitch::endpoint {

// The switch's reduction engine (doc/reduction.md): units attached to the crossbar like ports,
// each serving the multicast requests of the ports mapped to it.
struct ReduceParams {
  bool enable = true;
  int units = 0;                // 0 = one per switch port
  int contexts = 0;             // per unit: multicast operations in flight (one request each)
  int alu_elems_per_cycle = 0;  // per unit: 32-bit lanes (an 8 B element takes two, f16/bf16 pack two)
  int alu_latency_cycles = 0;   // from the last contribution reduced to the response being ready
  int groups = 0;               // multicast group table entries (and multicast address windows)
  int rx_shared_flits = 0;      // per unit: receive buffer shared by its lanes (per-lane part as endpoints)
  int hierarchy = 0;            // reduce.hierarchy: 0 = tree on two tiers (engine_tree.h), 1 = flat
};

struct AccelParams {
  int max_outstanding = 0;        // tags per initiator
  int issue_interval_cycles = 1;  // at most one request issued per this many cycles
  int mem_latency_cycles = 0;     // completer memory access latency
  int mem_bytes_per_cycle = 0;    // completer memory bandwidth
  int completer_queue = 0;        // requests admitted and not yet answered, per completer
  uint64_t window_base = 0, window_bytes = 0, memory_bytes = 0;
  std::array<bool, tl::kAtomicOps> atomic_supported{};
  // Transaction layer.
  bool compression = true;
  int address_cache_entries = 0;
  int max_messages_per_packet = 0;
  bool strict_order = false;
  ReduceParams reduce;
  // endpoint.completion_timeout_ns in core cycles: a request unanswered this long after it was
  // issued completes with completion_timeout; 0 = off (doc/reliability.md).
  uint64_t completion_timeout_cycles = 0;
};

// Synthetic transaction traffic (used when traffic.kind = transactions).
struct TxnWorkload {
  double load = 0;  // offered payload bytes per port, as a fraction of the link's byte rate
  std::vector<std::pair<tl::Opcode, double>> mix;  // operation weights
  std::vector<std::pair<int, double>> sizes;       // transfer sizes in bytes, weights
  tl::AtomicOp atomic_op = tl::AtomicOp::kAdd;
  int atomic_bytes = 8;                            // element size of synthetic atomics
  uint64_t footprint_bytes = 0;                    // addresses used in each target's window

  // Mean payload of one transfer over the mix, as the offered-load counters count it: a read's,
  // write's or reduce's size (txn.sizes), an atomic's element (atomic_bytes). txn.load is this
  // payload per cycle as a fraction of the link's byte rate, so an atomic counts its 8 B, not a
  // size it does not carry.
  double mean_bytes() const {
    double w = 0, s = 0;
    for (const auto& [b, x] : sizes) {
      s += b * x;
      w += x;
    }
    const double sized = w > 0 ? s / w : 0;
    double mw = 0, ms = 0;
    for (const auto& [op, x] : mix) {
      ms += x * (tl::is_atomic(op) ? static_cast<double>(atomic_bytes) : sized);
      mw += x;
    }
    return mw > 0 ? ms / mw : sized;
  }
};

}  // namespace upswitch::endpoint
