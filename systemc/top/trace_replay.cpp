#include "top/trace_replay.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "coll/channels.h"
#include "coll/plan.h"
#include "config/memory_estimate.h"
#include "core/interrupt.h"
#include "top/coll_choice.h"
#include "top/placement.h"

namespace upswitch::top {
namespace {

uint64_t us_to_cycles(const config::Config& c, double us) {
  return static_cast<uint64_t>(us * c.clock_ghz * 1000.0 + 0.5);
}

uint64_t add_sat(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

uint64_t region_bytes(const coll::CollectiveSpec& s) { return (coll::make_layout(s, 0).end() + 4095) / 4096 * 4096; }

[[noreturn]] void bad(const traffic::Trace& t, const traffic::TraceOp& op, const std::string& what) {
  throw config::ConfigError("trace '" + t.name + "' line " + std::to_string(op.line) + ": " + what);
}

std::string not_here(int id, int acc) {
  return "accelerator " + std::to_string(id) + " is not on this switch (0 .. " + std::to_string(acc - 1) +
         "; switch.ports = " + std::to_string(acc) + ")";
}

}  // namespace

traffic::Trace place_trace(const config::Config& cfg, traffic::Trace t) {
  if (cfg.workload.placement == "packed") return t;
  int n = 0;
  for (const traffic::TraceOp& op : t.ops) {
    if (op.transaction()) n = std::max({n, op.src + 1, op.dst + 1});
    if (op.compute) n = std::max(n, op.rank + 1);
    for (int r : op.spec.ranks) n = std::max(n, r + 1);
  }
  std::string error;
  const std::vector<int> placed = place_workload_ranks(cfg.network(), cfg.workload.placement, n, error);
  if (!error.empty())
    throw config::ConfigError("workload.placement = '" + cfg.workload.placement + "': " + error + " (trace '" + t.name +
                              "' names accelerators 0 .. " + std::to_string(n - 1) + ")");
  for (traffic::TraceOp& op : t.ops) {
    if (op.transaction()) {
      op.src = placed[static_cast<size_t>(op.src)];
      op.dst = placed[static_cast<size_t>(op.dst)];
    }
    if (op.compute) op.rank = placed[static_cast<size_t>(op.rank)];
    for (int& r : op.spec.ranks) r = placed[static_cast<size_t>(r)];
  }
  return t;
}

std::vector<coll::CollectiveSpec> trace_op_shares(const config::Config& cfg, const traffic::TraceOp& op) {
  coll::CollectiveSpec s = op.spec;
  const CollChoice k = choose_collective(cfg, s, {op.algo_given, op.protocol_given, op.channels});
  s.algo = k.algo;
  s.protocol = k.protocol;
  return coll::channel_shares(s, k.channels);
}

uint64_t trace_collective_bytes(const config::Config& cfg, const traffic::Trace& t) {
  uint64_t used = 0;
  for (const traffic::TraceOp& op : t.ops)
    if (op.collective)
      for (const coll::CollectiveSpec& s : trace_op_shares(cfg, op)) used += region_bytes(s);
  return used;
}

namespace {

// check_trace, keeping each collective's shares (empty for other operations) for the replayer, so
// that the choice is made once.
std::vector<std::vector<coll::CollectiveSpec>> checked_shares(const config::Config& cfg, const traffic::Trace& t) {
  std::vector<std::vector<coll::CollectiveSpec>> shares(t.ops.size());
  if (cfg.kind != config::Config::TrafficKind::kTransactions)
    throw config::ConfigError("trace '" + t.name + "': a replay needs traffic.kind = transactions");
  const int acc = cfg.endpoints();
  std::vector<bool> coll_rank(static_cast<size_t>(acc), false);
  uint64_t used = 0;
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const traffic::TraceOp& op = t.ops[i];
    if (!op.collective) continue;
    for (int r : op.spec.ranks) {
      if (r >= acc) bad(t, op, "field 'ranks': " + not_here(r, acc));
      coll_rank[static_cast<size_t>(r)] = true;
    }
    if (op.spec.algo == coll::Algorithm::kSwitch && !cfg.accel.reduce.enable)
      bad(t, op, "field 'algo' = \"switch\": needs the reduction engine (reduce.enable = true)");
    const std::string wrong = coll::check_spec(op.spec, acc);
    if (!wrong.empty()) bad(t, op, op.op + ": " + wrong);
    const std::string split = cfg.faults.pod_split(op.spec.ranks);
    if (!split.empty()) bad(t, op, "field 'ranks': " + split);
    const std::string down = cfg.faults.down_member(op.spec.ranks);
    if (!down.empty()) bad(t, op, "field 'ranks': " + down);
    shares[i] = trace_op_shares(cfg, op);
    for (const coll::CollectiveSpec& share : shares[i]) used += region_bytes(share);
    if (used > cfg.accel.memory_bytes)
      bad(t, op, "the collectives up to this line need " + std::to_string(used) +
                     " B of buffers in each rank's memory; accel.memory_bytes = " + std::to_string(cfg.accel.memory_bytes));
  }
  for (const traffic::TraceOp& op : t.ops) {
    if (op.compute && op.rank >= acc) bad(t, op, "field 'rank' = " + std::to_string(op.rank) + ": " + not_here(op.rank, acc));
    if (!op.transaction()) continue;
    if (op.src >= acc) bad(t, op, "field 'src' = " + std::to_string(op.src) + ": " + not_here(op.src, acc));
    if (op.dst >= acc) bad(t, op, "field 'dst' = " + std::to_string(op.dst) + ": " + not_here(op.dst, acc));
    if (op.offset + op.bytes > cfg.accel.window_bytes)
      bad(t, op, "field 'offset' = " + std::to_string(op.offset) + ": offset + bytes = " +
                     std::to_string(op.offset + op.bytes) + " leaves the target's address window (accel.window_bytes = " +
                     std::to_string(cfg.accel.window_bytes) + ")");
    if (coll_rank[static_cast<size_t>(op.dst)] && op.offset < used)
      bad(t, op, "field 'offset' = " + std::to_string(op.offset) + ": accelerator " + std::to_string(op.dst) +
                     " is a rank of the trace's collectives, whose buffers take the first " + std::to_string(used) +
                     " B of its memory: expected an offset >= " + std::to_string(used));
  }
  // Memory: the collectives' buffers in every rank, and each transaction's data (its bytes at
  // the source, in the target's memory, and what a read returns).
  double ranks = 0, txn_bytes = 0;
  for (bool r : coll_rank) ranks += r ? 1 : 0;
  for (const traffic::TraceOp& op : t.ops)
    if (op.transaction()) txn_bytes += 3.0 * static_cast<double>(op.bytes);
  config::check_memory(cfg, {{"trace collective buffers", ranks * static_cast<double>(used)},
                             {"trace transaction data", txn_bytes}});
  return shares;
}

}  // namespace

void check_trace(const config::Config& cfg, const traffic::Trace& t) { (void)checked_shares(cfg, t); }

TraceReplayer::TraceReplayer(TxnFabric& f, traffic::Trace trace, bool keep_read_data)
    : f_(f), trace_(std::move(trace)), keep_reads_(keep_read_data), runner_(f) {
  const config::Config& cfg = f_.config();
  std::vector<std::vector<coll::CollectiveSpec>> shares = checked_shares(cfg, trace_);
  base_ = f_.now();
  ops_.resize(trace_.ops.size());
  for (size_t i = 0; i < ops_.size(); ++i) {
    const traffic::TraceOp& op = trace_.ops[i];
    OpState& s = ops_[i];
    s.ready = add_sat(base_, us_to_cycles(cfg, op.at_us));
    s.delay = us_to_cycles(cfg, op.delay_us);
    s.deps = static_cast<int>(op.after.size());
    for (size_t a : op.after) ops_[a].successors.push_back(i);
    if (s.deps == 0) due_.emplace(s.ready, i);
  }
  compute_free_.assign(static_cast<size_t>(cfg.endpoints()), 0);
  for (size_t i = 0; i < ops_.size(); ++i) ops_[i].shares = std::move(shares[i]);
  runner_.on_run_done = [this](int run, uint64_t t) {
    if (runner_.get(run).spec.algo == coll::Algorithm::kSwitch) --groups_in_use_;
    const size_t i = op_of_run_[static_cast<size_t>(run)];
    if (--ops_[i].runs_left == 0) complete(i, t);
  };
}

bool TraceReplayer::run(uint64_t max_cycles) {
  if (!f_.run_until_idle(max_cycles, this)) return false;
  if (done_ == ops_.size()) return true;
  for (size_t i = 0; i < ops_.size(); ++i)
    if (!ops_[i].done)
      throw std::logic_error("trace replay stalled with the fabric idle: " + std::to_string(done_) + " of " +
                             std::to_string(ops_.size()) + " operations complete; line " +
                             std::to_string(trace_.ops[i].line) + " ('" + trace_.ops[i].id + "') is not");
  return true;
}

void TraceReplayer::before_cycle(uint64_t t) {
  while (!due_.empty() && due_.top().first <= t) {
    const size_t i = due_.top().second;
    due_.pop();
    start(i, t);
  }
  while (!computing_.empty() && computing_.top().first <= t) {
    const auto [end, i] = computing_.top();
    computing_.pop();
    complete(i, end);
  }
  runner_.before_cycle(t);
}

uint64_t TraceReplayer::next_activity(uint64_t t) const {
  uint64_t next = runner_.next_activity(t);
  if (!due_.empty()) next = std::min(next, std::max(due_.top().first, t + 1));
  if (!computing_.empty()) next = std::min(next, std::max(computing_.top().first, t + 1));
  return next;
}

// Collectives join the runner with start `t`: its before_cycle(t), which follows, starts them.
void TraceReplayer::start(size_t i, uint64_t t) {
  const traffic::TraceOp& op = trace_.ops[i];
  OpState& s = ops_[i];
  s.start = t;
  if (op.compute) {  // after the rank's earlier compute; done duration_us after it began
    uint64_t& free = compute_free_[static_cast<size_t>(op.rank)];
    s.start = std::max(t, free);
    free = add_sat(s.start, us_to_cycles(f_.config(), op.duration_us));
    if (free == t)
      complete(i, t);
    else
      computing_.emplace(free, i);
    return;
  }
  if (op.collective) {
    std::vector<coll::CollectiveSpec>& shares = s.shares;
    if (shares.front().algo == coll::Algorithm::kSwitch) {
      const int free = f_.config().accel.reduce.groups - groups_in_use_;
      const auto want = static_cast<int>(shares.size());
      if (free < want && op.channels == 0 && free > 0) {  // auto: on the groups free
        coll::CollectiveSpec whole = shares.front();
        whole.bytes = op.spec.bytes;
        whole.pair_bytes = op.spec.pair_bytes;
        shares = coll::channel_shares(whole, free);
      }
      if (free < static_cast<int>(shares.size()))
        bad(trace_, op, "starts at cycle " + std::to_string(t) + " on " + std::to_string(shares.size()) +
                            " switch-algorithm channels while " + std::to_string(groups_in_use_) +
                            " run, which leaves " + std::to_string(std::max(0, free)) +
                            " of the multicast groups (reduce.groups = " +
                            std::to_string(f_.config().accel.reduce.groups) +
                            "); order them with 'after', lower 'channels' or raise reduce.groups");
      groups_in_use_ += static_cast<int>(shares.size());
    }
    for (const coll::CollectiveSpec& share : shares) {
      const int run = runner_.add(share, t);
      if (static_cast<size_t>(run) != op_of_run_.size()) throw std::logic_error("trace replay: runs out of step");
      s.runs.push_back(run);
      op_of_run_.push_back(i);
    }
    s.runs_left = static_cast<int>(s.runs.size());
    return;
  }
  endpoint::TransferRequest q;
  q.op = op.opcode;
  q.aop = op.atomic;
  if (tl::is_atomic(op.opcode)) q.elem_bytes = static_cast<uint8_t>(op.bytes);
  q.addr = f_.endpoints().address_map().window_base(op.dst) + op.offset;
  q.bytes = op.bytes;
  if (tl::carries_request_data(op.opcode)) {
    s.data = traffic::trace_data(op);
    q.data = s.data.data();
  }
  if (keep_reads_ && tl::returns_data(op.opcode)) {
    s.result.assign(op.bytes, 0);
    q.result = s.result.data();
  }
  q.client = this;
  q.cookie = i;
  f_.endpoints().submit(op.src, q, t);
}

void TraceReplayer::transfer_done(uint64_t cookie, tl::Status status, uint64_t cycle) {
  OpState& s = ops_.at(cookie);
  s.status = status;
  std::vector<uint8_t>().swap(s.data);
  complete(cookie, cycle);
}

// An operation completed at `t`: its successors may start from t + delay, and never before t + 1.
void TraceReplayer::complete(size_t i, uint64_t t) {
  OpState& s = ops_[i];
  s.done = true;
  s.end = t;
  ++done_;
  for (size_t n : s.successors) {
    OpState& x = ops_[n];
    x.ready = std::max(x.ready, add_sat(t, x.delay));
    if (--x.deps == 0) due_.emplace(std::max(x.ready, t + 1), n);
  }
}

std::vector<ReplayRow> TraceReplayer::rows(bool completed_only) const {
  const double cpu = f_.config().clock_ghz * 1000.0;
  const auto us = [&](uint64_t c) { return static_cast<double>(c - std::min(c, base_)) / cpu; };
  std::vector<ReplayRow> out;
  for (size_t i = 0; i < ops_.size(); ++i) {
    const traffic::TraceOp& op = trace_.ops[i];
    const OpState& s = ops_[i];
    if (completed_only && !s.done) continue;
    ReplayRow r;
    r.line = op.line;
    r.id = op.id;
    r.op = op.op;
    r.bytes = op.collective ? op.spec.bytes : op.bytes;
    r.start = s.start;
    r.end = s.end;
    r.start_us = us(s.start);
    r.end_us = us(s.end);
    r.time_us = r.end_us - r.start_us;
    r.status = s.status;
    for (int run : s.runs)
      if (r.status == tl::Status::kOkay) r.status = runner_.get(run).status;
    if (op.collective) {
      r.algorithm = coll::algorithm_name(s.shares.front().algo);
      r.protocol = coll::protocol_name(s.shares.front().protocol);
      r.channels = static_cast<int>(s.shares.size());
    }
    out.push_back(r);
  }
  return out;
}

ReplayResult replay_trace(const config::Config& cfg, const traffic::Trace& trace) {
  const auto wall0 = std::chrono::steady_clock::now();
  TxnFabric fabric(cfg, false);
  TraceReplayer replayer(fabric, trace);
  ReplayResult out;
  try {
    if (!replayer.run()) throw std::logic_error("trace replay: the operations did not complete");
    const std::vector<std::string> undrained = check_txn_drained(fabric);
    if (!undrained.empty()) throw std::logic_error("trace replay: fabric not drained at the end: " + undrained[0]);
  } catch (const core::Interrupted&) {
    out.interrupted = true;  // Ctrl-C: the rows of the operations completed before it
  }
  out.cfg = cfg;
  out.trace = trace.name;
  out.rows = replayer.rows(out.interrupted);
  out.cycles = fabric.now();
  out.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return out;
}

}  // namespace upswitch::top
