// Replays a trace (traffic/trace.h, doc/trace.md) on one transaction fabric: each operation starts
// at the latest of its at_us and delay_us after the last of its `after` operations completed (and
// never before the cycle after that); transactions go straight to their initiator, collectives to
// a CollectiveRunner added to as they become due, and compute keeps its accelerator busy (one
// compute at a time per accelerator) for its duration. A replay is a pure function of (configuration,
// trace).
#pragma once

#include <cstdint>
#include <functional>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "coll/runner.h"
#include "config/config.h"
#include "endpoint/transfer.h"
#include "top/txn_fabric.h"
#include "traffic/trace.h"

namespace upswitch::top {

// One operation, replayed. Cycles: started; completed (a transaction's last response, a
// collective's last transfer). Status: the first non-OKAY response of its transfers, or OKAY.
struct ReplayRow {
  int line = 0;
  std::string id, op;
  uint64_t bytes = 0;
  uint64_t start = 0, end = 0;
  double start_us = 0, end_us = 0, time_us = 0;
  tl::Status status = tl::Status::kOkay;
  // Collectives: what ran (the trace's choice, or auto's), and on how many channels; else "" and 0.
  std::string algorithm, protocol;
  int channels = 0;
};

struct ReplayResult {
  config::Config cfg;
  std::string trace;  // the trace's name (path)
  std::vector<ReplayRow> rows;  // in trace order
  uint64_t cycles = 0;          // the cycle after the last simulated one
  double wall_seconds = 0;
  bool interrupted = false;     // Ctrl-C: rows of the operations completed before it
};

// A collective of the trace as the replay runs it (doc/trace.md): the trace's algo, protocol and
// channels, what it leaves as auto chosen as `--algo auto` chooses (top/coll_choice.h), split into
// its channels' shares (coll/channels.h). Expects a spec check_spec accepts.
std::vector<coll::CollectiveSpec> trace_op_shares(const config::Config& cfg, const traffic::TraceOp& op);

// Bytes at the start of every memory the trace's collectives take for their buffers (the runner
// places them from offset 0 up, one 4 KiB-aligned region per channel of each collective).
uint64_t trace_collective_bytes(const config::Config& cfg, const traffic::Trace& t);

// workload.placement for a trace (doc/trace.md "Placement"): accelerator id i of the trace (src,
// dst, a collective's ranks) becomes the endpoint the placement gives rank i of as many ranks as
// the trace names (its largest id + 1); packed leaves the trace as it is. Throws
// config::ConfigError naming the key. `upswitch replay` applies it before check_trace.
traffic::Trace place_trace(const config::Config& cfg, traffic::Trace t);

// The checks that need the configuration (config::ConfigError naming the trace line): accelerator
// ids, the reduction engine for the switch algorithm, collective buffers within accel.memory_bytes,
// transactions within the target's window and clear of the collectives' buffers.
void check_trace(const config::Config& cfg, const traffic::Trace& t);

class TraceReplayer : public endpoint::TransferClient, public CycleHook {
 public:
  // Checks the trace (check_trace); times count from the fabric's next cycle (0 when fresh).
  // `keep_read_data`: keep what each read and atomic_r returns (read_data()).
  TraceReplayer(TxnFabric& f, traffic::Trace trace, bool keep_read_data = false);
  TraceReplayer(const TraceReplayer&) = delete;
  TraceReplayer& operator=(const TraceReplayer&) = delete;

  // Simulates from the fabric's next cycle until every operation completed: true, or false when
  // `max_cycles` passed first. A switch-algorithm collective whose auto channels outnumber the
  // multicast groups free when it starts runs on those free. Throws config::ConfigError when one
  // starts with none free, or with fewer free than the channels its trace line fixes;
  // std::logic_error when the schedule stalls.
  bool run(uint64_t max_cycles = UINT64_MAX);
  // Every operation's row, in trace order; `completed_only`: only those that completed.
  std::vector<ReplayRow> rows(bool completed_only = false) const;
  const traffic::Trace& trace() const { return trace_; }
  // The runner's ids of collective op `op` (index into the trace), one per channel; none before it
  // started.
  const std::vector<int>& runs_of(size_t op) const { return ops_.at(op).runs; }
  const coll::CollectiveRunner& runner() const { return runner_; }
  // The data read op `op` returned (with keep_read_data; empty otherwise).
  const std::vector<uint8_t>& read_data(size_t op) const { return ops_.at(op).result; }

  void transfer_done(uint64_t cookie, tl::Status status, uint64_t cycle) override;
  void before_cycle(uint64_t t) override;
  uint64_t next_activity(uint64_t t) const override;

 private:
  struct OpState {
    uint64_t ready = 0;  // earliest start so far: at_us, then each predecessor's end + delay
    uint64_t delay = 0;
    int deps = 0;        // predecessors not yet complete
    std::vector<size_t> successors;
    std::vector<coll::CollectiveSpec> shares;  // collectives: their channels (trace_op_shares)
    std::vector<int> runs;                     // started: the runner's id of each channel
    int runs_left = 0;
    uint64_t start = 0, end = 0;
    tl::Status status = tl::Status::kOkay;
    bool done = false;
    std::vector<uint8_t> data, result;  // write data / atomic operands; read data
  };
  void start(size_t i, uint64_t t);
  void complete(size_t i, uint64_t t);

  TxnFabric& f_;
  traffic::Trace trace_;
  bool keep_reads_;
  coll::CollectiveRunner runner_;
  std::vector<OpState> ops_;
  std::vector<size_t> op_of_run_;
  // (cycle, op): operations whose predecessors are complete, by start cycle, then trace order.
  std::priority_queue<std::pair<uint64_t, size_t>, std::vector<std::pair<uint64_t, size_t>>,
                      std::greater<std::pair<uint64_t, size_t>>>
      due_;
  // (cycle, op): compute operations running, by the cycle they complete; and per accelerator, the
  // cycle its compute is free again (one at a time).
  std::priority_queue<std::pair<uint64_t, size_t>, std::vector<std::pair<uint64_t, size_t>>,
                      std::greater<std::pair<uint64_t, size_t>>>
      computing_;
  std::vector<uint64_t> compute_free_;
  size_t done_ = 0;
  uint64_t base_ = 0;      // the fabric's cycle when the replayer was made: at_us counts from it
  int groups_in_use_ = 0;  // switch-algorithm channels running (each holds a multicast group)
};

// Builds a fabric for `cfg`, replays the trace on it and checks that the fabric drained.
ReplayResult replay_trace(const config::Config& cfg, const traffic::Trace& trace);

}  // namespace upswitch::top
