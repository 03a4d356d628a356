// Runs collectives on a transaction fabric (doc/reduction.md): each rank issues its plan's
// transfers (coll/plan.h) through its accelerator's initiator as their dependencies are met. A
// ring step's slice waits for the flag its predecessor writes after its data has been
// acknowledged (NCCL's "simple" protocol); the flag counts as arrived when the receiver's
// completer executes that write. Several collectives, on any groups, may run at once.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "coll/plan.h"
#include "config/config.h"
#include "endpoint/accelerators.h"
#include "top/txn_fabric.h"

namespace upswitch::coll {

struct CollectiveRun {
  CollectiveSpec spec;
  Layout layout;
  Plan plan;
  int group = -1;  // multicast group (switch algorithm)
  uint64_t start = 0, end = 0;  // cycles: started; last transfer completed
  // Per rank (index into spec.ranks), cycles: its last own transfer completed (send_end), and the
  // last transfer that brought data into its memory completed (recv_end: writes and multicast
  // stores to it, its reads); `start` while none did.
  std::vector<uint64_t> send_end, recv_end;
  uint64_t region_begin = 0, region_end = 0;  // the buffer region (offsets in each rank's memory)
  uint64_t ops_done = 0, flags_sent = 0;
  std::vector<uint64_t> flags_by_rank;  // flag writes each rank sent
  tl::Status status = tl::Status::kOkay;  // first non-OKAY transfer status
  bool done = false;
};

class CollectiveRunner : public endpoint::TransferClient, public endpoint::TxnObserver, public top::CycleHook {
 public:
  // Takes the fabric's observer seat (a scoreboard set before keeps seeing everything).
  explicit CollectiveRunner(top::TxnFabric& f);
  ~CollectiveRunner() override;
  CollectiveRunner(const CollectiveRunner&) = delete;
  CollectiveRunner& operator=(const CollectiveRunner&) = delete;

  // Places the collective's buffers after those of the collectives added before, defines its
  // multicast group (switch algorithm) and starts it at `start` (>= fabric.now()); throws
  // std::invalid_argument for a bad spec. Inputs go in the ranks' memories at layout().in first.
  int add(const CollectiveSpec& spec, uint64_t start);
  // Ordering between collectives (workloads): the collective starts at the latest of `start` and
  // `delay` cycles after every run in `after` completed. With `reuse` >= 0 its buffers take the
  // region of that earlier run (which must be in `after`, directly or through other runs, and whose
  // region must be large enough) instead of new memory, so long schedules fit accel.memory_bytes.
  struct Order {
    std::vector<int> after;
    uint64_t delay = 0;
    int reuse = -1;
  };
  int add(const CollectiveSpec& spec, uint64_t start, const Order& order);
  // Simulates until every added collective has completed; false if `max_cycles` passed first.
  bool run(uint64_t max_cycles = UINT64_MAX);
  const CollectiveRun& get(int id) const { return runs_.at(static_cast<size_t>(id)); }
  size_t size() const { return runs_.size(); }  // runs added
  // Multicast address of offset `off` in the collective's group window.
  uint64_t group_address(int id, uint64_t off) const;
  // Called when run `run` completes at `cycle` (its get().end), after its successors in `after`
  // were scheduled (trace replay). It must not call add(): queue the work for before_cycle().
  std::function<void(int run, uint64_t cycle)> on_run_done;
  // Called when run `run` starts at `cycle` (its get().start), before any of its transfers.
  std::function<void(int run, uint64_t cycle)> on_run_start;

  // TransferClient, TxnObserver, CycleHook.
  void transfer_done(uint64_t cookie, tl::Status status, uint64_t cycle) override;
  void executed(int completer, const tl::Message& request, const uint8_t* memory_before) override;
  // Only an observer it wraps reads the memory before a request (flags are seen in the request).
  bool wants_memory_before() const override { return inner_ && inner_->wants_memory_before(); }
  void answered(int initiator, const tl::Message& response) override;
  void before_cycle(uint64_t t) override;
  uint64_t next_activity(uint64_t t) const override;

 private:
  // coll.data = timing: no payload is read, folded, copied or stored.
  bool timing_only() const { return f_.config().coll.data == DataMode::kTiming; }
  struct OpState {
    int run = 0, op = 0;
    int deps = 0;
    uint64_t landed = 0;  // LL, LL128: data bytes executed at the receiver so far
    uint64_t issued_by = 0;  // the cycle its SM has issued its last byte (issue limits; 0 = none)
  };
  // LL, LL128: where a slice lands in its receiver's memory [begin, end), and its op.
  struct Landing {
    uint64_t begin = 0, end = 0;
    uint32_t op = 0;
  };
  void landed(int run, int rank, uint64_t off, uint64_t len);
  void flag_arrived(uint32_t sender_op, uint64_t t);
  void flag_seen(uint32_t waiter, uint64_t t);
  uint64_t us_cycles(double us) const;  // microseconds of the configuration's clock, rounded
  // The run and the plan entry of a global op.
  CollectiveRun& run_of(uint32_t global) { return runs_[static_cast<size_t>(ops_[global].run)]; }
  const PlanOp& plan_op(uint32_t global) const {
    const OpState& s = ops_[global];
    return runs_[static_cast<size_t>(s.run)].plan.ops[static_cast<size_t>(s.op)];
  }
  void satisfy(uint32_t global, uint64_t t);
  void start_op(uint32_t global, uint64_t t);
  void submit_op(uint32_t global, uint64_t t);
  void complete_op(uint32_t global, uint64_t t);

  top::TxnFabric& f_;
  endpoint::TxnObserver* inner_;
  std::vector<CollectiveRun> runs_;
  // Whether run `earlier` is in `after` or precedes one of them.
  bool precedes(int earlier, const std::vector<int>& after) const;
  void start_run(int id, uint64_t t);
  void finish_run(CollectiveRun& r, uint64_t t);

  std::vector<uint32_t> first_op_;  // per run: global id of its op 0
  std::vector<int> run_deps_;       // per run: runs in its `after` not yet complete
  std::vector<uint64_t> run_ready_; // per run: earliest start so far (start, then each dependency's end + delay)
  std::vector<uint64_t> run_delay_;
  std::vector<std::vector<int>> run_successors_, after_;
  std::vector<OpState> ops_;
  std::vector<std::vector<uint32_t>> successors_;  // per global op: ops whose `after` or `gate` it is
  std::vector<int> flag_waiter_;    // per run, rank, flag: global op waiting (flattened per run)
  std::vector<size_t> flag_base_;   // per run: index of its first flag_waiter_ entry
  std::vector<std::pair<uint64_t, uint32_t>> ready_;  // (cycle, global op) to start
  std::vector<std::pair<uint64_t, uint32_t>> due_;    // scratch of before_cycle
  uint64_t next_base_ = 0, now_ = 0;
  std::vector<uint8_t> fold_a_, fold_b_;  // scratch for folds
  int active_ = 0;
  // LL, LL128: per run, per receiving rank, the slices that land there, by offset; and the
  // running runs that use lines (executed() looks only at them).
  std::vector<std::vector<std::vector<Landing>>> landing_;
  std::vector<int> line_runs_;
  // Issue limits (accel.sm_gbytes_per_s): per run, per rank, the cycle its SMs are free again.
  std::vector<std::vector<uint64_t>> sm_free_;
  // Bytes per cycle the run's SMs on one rank issue op `p` at; 0 = unbounded.
  double issue_rate(const CollectiveRun& r, const PlanOp& p) const;
};

// A completed collective whose transfers were not all answered: a completion timeout shorter
// than the fabric needs under load (endpoint.completion_timeout_ns) is the configuration's fault:
// config::ConfigError naming the key and `what` (exit 2); any other status is a model defect
// (std::logic_error). Faults that take members away are refused before the run.
void require_okay(const config::Config& cfg, const CollectiveRun& r, const std::string& what);

}  // namespace upswitch::coll
