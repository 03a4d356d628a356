// What a transaction run measured: per operation, per port, per status, and the flit counts the
// transaction layer's efficiency is computed from.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "stats/histogram.h"
#include "tl/ops.h"
#include "traffic/saturation.h"

namespace upswitch::endpoint {

struct OpResult {
  uint64_t completed = 0;   // measured transfers completed
  uint64_t bytes = 0;       // their payload bytes
  stats::Histogram latency;          // submission -> completion, cycles (includes waiting for a tag)
  stats::Histogram network_latency;  // first request issued -> completion, cycles
};

struct TxnPortResult {
  uint64_t offered_bytes = 0;    // payload of transfers created in the window
  uint64_t completed_bytes = 0;  // payload of requests answered in the window (as initiator)
  uint64_t served_bytes = 0;     // payload of requests executed in the window (as completer)
  uint64_t backlog_bytes_end = 0;
  // Whole run: payload bytes of the messages that carry data (write data, operands, read data)
  // this endpoint sent to the switch and received from it (the traffic-accounting counters).
  uint64_t tx_payload_bytes = 0, rx_payload_bytes = 0;
  uint64_t tx_flits = 0;            // whole run: flits sent to the switch
  uint64_t tx_blocked_cycles = 0;   // whole run: link free, messages waiting, no credits to send any
};

// The reduction engine, whole run, all units.
struct ReduceResult {
  uint64_t stores = 0, load_reduces = 0, reduces = 0;  // multicast operations completed (on two tiers, by every unit of the tree)
  uint64_t rejected = 0;          // answered with an error by the engine itself (no group, type)
  uint64_t member_requests = 0;   // requests the engine's units sent (to group members and to other units)
  uint64_t tree_requests = 0;     // two tiers: of those, the ones to another unit (leaf -> spine -> leaf)
  uint64_t context_cycles = 0;    // sum over operations of accept -> response ready
  uint64_t alu_busy_cycles = 0;   // sum over units
  uint64_t peak_contexts = 0;     // most contexts in use at one unit
};

struct TxnResult {
  std::array<OpResult, tl::kOpcodes> ops;
  std::vector<TxnPortResult> ports;  // per endpoint
  std::vector<uint64_t> port_window_flits;  // per endpoint port: flits sent to the switch in the window
  std::array<uint64_t, tl::kStatuses> statuses{};  // every completed request, by status
  uint64_t window_cycles = 0, end_cycle = 0;
  uint64_t backlog_bytes_start = 0, backlog_bytes_end = 0;
  bool saturated = false, interrupted = false;
  std::string saturation_reason;
  traffic::SaturationEvidence saturation;  // the sample windows behind the verdict (synthetic runs)
  uint64_t transfers_created = 0, transfers_completed = 0;
  uint64_t requests_issued = 0, requests_answered = 0, requests_rejected = 0;
  uint64_t measured_transfers = 0, measured_completed = 0;
  // Link traffic by message class (0 = requests, 1 = responses), counted over the window.
  std::array<uint64_t, 2> window_flits{}, window_messages{}, window_packets{}, window_payload{};
  uint64_t flits_sent = 0, flits_received = 0;  // whole run, for conservation
  // Responses (or switch rejects) that came back after their request's completion timeout had
  // answered it: dropped, never delivered twice (doc/reliability.md).
  uint64_t late_responses = 0;
  ReduceResult reduce;
};

}  // namespace upswitch::endpoint
