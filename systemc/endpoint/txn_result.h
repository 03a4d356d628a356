// What a transaction run measured: per operation, per port, per status, and the flit counts the
// transaction layer's efficiency is computed from.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "stats/histogram.h"
#include "tl/ops.h"

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
};

struct TxnResult {
  std::array<OpResult, tl::kOpcodes> ops;
  std::vector<TxnPortResult> ports;
  std::array<uint64_t, tl::kStatuses> statuses{};  // every completed request, by status
  uint64_t window_cycles = 0, end_cycle = 0;
  uint64_t backlog_bytes_start = 0, backlog_bytes_end = 0;
  bool saturated = false, interrupted = false;
  std::string saturation_reason;
  uint64_t transfers_created = 0, transfers_completed = 0;
  uint64_t requests_issued = 0, requests_answered = 0, requests_rejected = 0;
  uint64_t measured_transfers = 0, measured_completed = 0;
  // Link traffic by message class (0 = requests, 1 = responses), counted over the window.
  std::array<uint64_t, 2> window_flits{}, window_messages{}, window_packets{}, window_payload{};
  uint64_t flits_sent = 0, flits_received = 0;  // whole run, for conservation
};

}  // namespace upswitch::endpoint
