#include "coll/runner.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "config/config.h"
#include "config/value_parse.h"

namespace upswitch::coll {
namespace {

// ready_ codes: what to do, in the top three bits, and a global op or run id below.
constexpr uint32_t kStartOp = 0, kSendFlag = 1U << 29, kStartRun = 2U << 29, kSubmit = 3U << 29, kLand = 4U << 29,
                   kComplete = 5U << 29, kSeen = 6U << 29, kKindMask = 7U << 29;
constexpr uint64_t kFlagCookie = uint64_t{1} << 63;
const uint8_t kFlagValue[8] = {1, 0, 0, 0, 0, 0, 0, 0};

}  // namespace

CollectiveRunner::CollectiveRunner(top::TxnFabric& f) : f_(f), inner_(f.endpoints().observer()) {
  f_.endpoints().set_observer(this);
}

CollectiveRunner::~CollectiveRunner() { f_.endpoints().set_observer(inner_); }

int CollectiveRunner::add(const CollectiveSpec& spec, uint64_t start) { return add(spec, start, Order{}); }

int CollectiveRunner::add(const CollectiveSpec& spec, uint64_t start, const Order& order) {
  endpoint::AcceleratorEndpoints& e = f_.endpoints();
  const std::string bad = check_spec(spec, e.accelerators());
  if (!bad.empty()) throw std::invalid_argument("collective: " + bad);
  const std::string split = f_.config().faults.pod_split(spec.ranks);
  if (!split.empty()) throw std::invalid_argument("collective: " + split);
  if (start < f_.now()) throw std::invalid_argument("collective: start cycle already simulated");
  const auto id = static_cast<int>(runs_.size());
  for (int a : order.after)
    if (a < 0 || a >= id) throw std::invalid_argument("collective: 'after' names run " + std::to_string(a) + ", not an earlier one");
  if (spec.algo == Algorithm::kSwitch && e.engine_units() == 0)
    throw std::invalid_argument("collective: the switch algorithm needs the reduction engine (reduce.enable)");
  CollectiveRun r;
  r.spec = spec;
  if (spec.algo != Algorithm::kRing) r.spec.protocol = Protocol::kSimple;  // only ring and chain have protocols
  uint64_t base = next_base_;
  if (order.reuse >= 0) {
    if (!precedes(order.reuse, order.after))
      throw std::invalid_argument("collective: reuses the buffers of run " + std::to_string(order.reuse) +
                                  ", which is not among the runs it waits for");
    base = runs_[static_cast<size_t>(order.reuse)].region_begin;
  }
  r.layout = make_layout(spec, base);
  r.region_begin = base;
  r.region_end = (r.layout.end() + 4095) / 4096 * 4096;
  if (order.reuse >= 0 && r.region_end > runs_[static_cast<size_t>(order.reuse)].region_end)
    throw std::invalid_argument("collective: needs " + std::to_string(r.region_end - base) + " B of buffers; run " +
                                std::to_string(order.reuse) + " has " +
                                std::to_string(runs_[static_cast<size_t>(order.reuse)].region_end - base));
  if (r.layout.end() > f_.config().accel.memory_bytes)  // the workload's sizes, not the model, are at fault
    throw config::ConfigError("collective: buffers need " + std::to_string(r.layout.end()) +
                              " B of each rank's memory; accel.memory_bytes = " +
                              std::to_string(f_.config().accel.memory_bytes) + ": raise it or shrink the workload");
  r.plan = make_plan(spec, r.layout);
  r.start = start;
  r.end = start;
  r.flags_by_rank.assign(spec.ranks.size(), 0);
  sm_free_.emplace_back(spec.ranks.size(), 0);
  if (order.reuse < 0) next_base_ = r.region_end;
  const auto first = static_cast<uint32_t>(ops_.size());
  first_op_.push_back(first);
  flag_base_.push_back(flag_waiter_.size());
  flag_waiter_.resize(flag_waiter_.size() + spec.ranks.size() * static_cast<size_t>(r.layout.flag_count), -1);
  for (size_t k = 0; k < r.plan.ops.size(); ++k) {
    const PlanOp& p = r.plan.ops[k];
    OpState s{id, static_cast<int>(k), (p.after >= 0) + (p.gate >= 0) + (p.wait_flag >= 0)};
    ops_.push_back(s);
    successors_.emplace_back();
  }
  for (size_t k = 0; k < r.plan.ops.size(); ++k) {
    const PlanOp& p = r.plan.ops[k];
    for (int pred : {p.after, p.gate})
      if (pred >= 0) successors_[first + static_cast<uint32_t>(pred)].push_back(first + static_cast<uint32_t>(k));
    if (p.wait_flag >= 0)
      flag_waiter_[flag_base_.back() + static_cast<size_t>(p.rank) * static_cast<size_t>(r.layout.flag_count) +
                   static_cast<size_t>(p.wait_flag)] = static_cast<int>(first + k);
  }
  landing_.emplace_back();
  if (r.spec.protocol != Protocol::kSimple) {
    auto& by_rank = landing_.back();
    by_rank.resize(spec.ranks.size());
    for (size_t k = 0; k < r.plan.ops.size(); ++k) {
      const PlanOp& p = r.plan.ops[k];
      if (p.notify_peer >= 0 && p.bytes > 0)
        by_rank[static_cast<size_t>(p.notify_peer)].push_back({p.remote, p.remote + p.bytes, first + static_cast<uint32_t>(k)});
    }
    for (auto& v : by_rank) std::sort(v.begin(), v.end(), [](const Landing& a, const Landing& b) { return a.begin < b.begin; });
  }
  runs_.push_back(std::move(r));
  run_deps_.push_back(0);
  run_ready_.push_back(start);
  run_delay_.push_back(order.delay);
  run_successors_.emplace_back();
  after_.push_back(order.after);
  for (int a : order.after) {
    const CollectiveRun& pred = runs_[static_cast<size_t>(a)];
    if (pred.done) {
      run_ready_.back() = std::max(run_ready_.back(), pred.end + order.delay);
    } else {
      ++run_deps_.back();
      run_successors_[static_cast<size_t>(a)].push_back(id);
    }
  }
  if (run_deps_.back() == 0) ready_.emplace_back(run_ready_.back(), kStartRun | static_cast<uint32_t>(id));
  ++active_;
  return id;
}

bool CollectiveRunner::precedes(int earlier, const std::vector<int>& after) const {
  std::vector<int> todo = after;
  std::vector<bool> seen(runs_.size(), false);
  while (!todo.empty()) {
    const int a = todo.back();
    todo.pop_back();
    if (a == earlier) return true;
    if (seen[static_cast<size_t>(a)]) continue;
    seen[static_cast<size_t>(a)] = true;
    for (int b : after_[static_cast<size_t>(a)]) todo.push_back(b);
  }
  return false;
}

uint64_t CollectiveRunner::group_address(int id, uint64_t off) const {
  return f_.endpoints().address_map().group_base(get(id).group) + off;
}

bool CollectiveRunner::run(uint64_t max_cycles) {
  if (!f_.run_until_idle(max_cycles, this)) return false;
  if (active_ == 0) return true;
  std::string waiting;
  for (const CollectiveRun& r : runs_)
    if (!r.done)
      waiting += std::string(waiting.empty() ? "" : "; ") + collective_name(r.spec.coll) + "/" +
                 algorithm_name(r.spec.algo) + ": " + std::to_string(r.ops_done) + " of " +
                 std::to_string(r.plan.ops.size()) + " transfers done";
  throw std::logic_error("collective schedule stalled with the fabric idle: " + waiting);
}

void CollectiveRunner::before_cycle(uint64_t t) {
  now_ = t;
  // Entries are appended in event order; those due now run in that order (new ones go after).
  size_t i = 0;
  std::vector<std::pair<uint64_t, uint32_t>>& due = due_;  // reused: no allocation per cycle
  due.clear();
  for (const auto& e : ready_)
    if (e.first <= t) due.push_back(e);
  if (due.empty()) return;
  ready_.erase(std::remove_if(ready_.begin(), ready_.end(), [t](const auto& e) { return e.first <= t; }), ready_.end());
  for (i = 0; i < due.size(); ++i) {
    const uint32_t code = due[i].second, id = code & ~kKindMask;
    if ((code & kKindMask) == kStartRun) {
      start_run(static_cast<int>(id), t);
    } else if ((code & kKindMask) == kSendFlag) {
      CollectiveRun& r = run_of(id);
      const PlanOp& p = plan_op(id);
      endpoint::TransferRequest q;
      q.op = tl::Opcode::kWrite;
      q.addr = f_.endpoints().address_map().window_base(r.spec.ranks[static_cast<size_t>(p.notify_peer)]) +
               r.layout.flags + 8 * static_cast<uint64_t>(p.notify_flag);
      q.bytes = 8;
      q.data = kFlagValue;
      q.client = this;
      q.cookie = kFlagCookie | static_cast<uint64_t>(ops_[id].run);
      q.urgent = true;
      f_.endpoints().submit(r.spec.ranks[static_cast<size_t>(p.rank)], q, t);
      ++r.flags_sent;
      ++r.flags_by_rank[static_cast<size_t>(p.rank)];
    } else if ((code & kKindMask) == kSubmit) {
      submit_op(id, t);
    } else if ((code & kKindMask) == kLand) {
      flag_arrived(id, t);
    } else if ((code & kKindMask) == kComplete) {
      complete_op(id, t);
    } else if ((code & kKindMask) == kSeen) {
      satisfy(id, t);
    } else {
      start_op(id, t);
    }
  }
}

// A run whose start time and predecessors have come: its local copies, its multicast group (held
// only while it runs), and the ops with nothing to wait for.
void CollectiveRunner::start_run(int id, uint64_t t) {
  CollectiveRun& r = runs_[static_cast<size_t>(id)];
  endpoint::AcceleratorEndpoints& e = f_.endpoints();
  r.start = t;
  r.end = t;
  r.send_end.assign(r.spec.ranks.size(), t);
  r.recv_end.assign(r.spec.ranks.size(), t);
  if (on_run_start) on_run_start(id, t);
  if (r.spec.protocol != Protocol::kSimple) line_runs_.push_back(id);
  if (r.spec.algo == Algorithm::kSwitch) {
    // A group is the communicator's multicast object: a run that finds none free is a
    // configuration the callers refuse up front where they can (workloads, traces).
    if (e.free_groups() == 0)
      throw config::ConfigError("reduce.groups = " + std::to_string(f_.config().accel.reduce.groups) +
                                ": an in-switch collective starts at cycle " + std::to_string(t) +
                                " while every multicast group is held by a running one; raise reduce.groups or "
                                "run fewer in-switch collectives at once");
    r.group = e.define_group(r.spec.ranks);
  }
  std::vector<uint8_t>& buf = fold_a_;
  if (!timing_only())
    for (const Plan::Copy& c : r.plan.copies) {
      tl::SparseMemory& m = e.memory(r.spec.ranks[static_cast<size_t>(c.rank)]);
      buf.resize(c.bytes);
      m.read(c.from, buf.data(), c.bytes);
      m.write(c.to, buf.data(), c.bytes);
    }
  if (r.plan.ops.empty()) finish_run(r, t);
  const uint32_t first = first_op_[static_cast<size_t>(id)];
  // The GPU's launch (accel.launch_us_<protocol>, accel.nvls_launch_us): the first transfers wait for it.
  const CollParams& c = f_.config().coll;
  const double launch_us = r.spec.algo == Algorithm::kSwitch ? c.nvls_launch_us : c.launch_us_of(r.spec.protocol);
  const uint64_t launch = us_cycles(launch_us);
  for (size_t k = 0; k < r.plan.ops.size(); ++k)
    if (ops_[first + k].deps == 0) {
      if (launch == 0)
        start_op(first + static_cast<uint32_t>(k), t);
      else
        ready_.emplace_back(t + launch, kStartOp | (first + static_cast<uint32_t>(k)));
    }
}

void CollectiveRunner::finish_run(CollectiveRun& r, uint64_t t) {
  r.done = true;
  if (r.group >= 0) f_.endpoints().release_group(r.group);
  --active_;
  const auto id = static_cast<size_t>(&r - runs_.data());
  line_runs_.erase(std::remove(line_runs_.begin(), line_runs_.end(), static_cast<int>(id)), line_runs_.end());
  for (int next : run_successors_[id]) {
    const auto n = static_cast<size_t>(next);
    run_ready_[n] = std::max(run_ready_[n], t + run_delay_[n]);
    if (--run_deps_[n] == 0) ready_.emplace_back(std::max(run_ready_[n], t + 1), kStartRun | static_cast<uint32_t>(next));
  }
  if (on_run_done) on_run_done(static_cast<int>(id), t);
}

uint64_t CollectiveRunner::next_activity(uint64_t t) const {
  uint64_t next = UINT64_MAX;
  for (const auto& e : ready_) next = std::min(next, std::max(e.first, t + 1));
  return next;
}

// A ready op: a ring reduction step first folds its staged slice into its own buffer, which
// takes the device's memory 3 x bytes / accel.mem_bytes_per_cycle cycles (read both, write one).
void CollectiveRunner::start_op(uint32_t g, uint64_t t) {
  const CollectiveRun& r = run_of(g);
  const PlanOp& p = plan_op(g);
  if (p.fold_bytes == 0) {
    submit_op(g, t);
    return;
  }
  if (!timing_only()) {
    tl::SparseMemory& m = f_.endpoints().memory(r.spec.ranks[static_cast<size_t>(p.rank)]);
    fold_a_.resize(p.fold_bytes);
    fold_b_.resize(p.fold_bytes);
    m.read(p.fold_at, fold_a_.data(), p.fold_bytes);
    m.read(p.fold_from, fold_b_.data(), p.fold_bytes);
    tl::red_apply(r.spec.type, r.spec.op, fold_a_.data(), fold_b_.data(), static_cast<int>(p.fold_bytes));
    m.write(p.fold_at, fold_a_.data(), p.fold_bytes);
  }
  const auto bpc = static_cast<uint64_t>(f_.config().accel.mem_bytes_per_cycle);
  ready_.emplace_back(t + (3 * p.fold_bytes + bpc - 1) / bpc, kSubmit | g);
}

double CollectiveRunner::issue_rate(const CollectiveRun& r, const PlanOp& p) const {
  const CollParams& c = f_.config().coll;
  const double per_sm = p.mc ? c.multimem_gbytes_per_s : c.sm_gbytes_per_s;
  return per_sm * r.spec.sms / f_.config().clock_ghz;
}

// An op's transfer issues when its rank's SMs have issued the ops before it (issue limits): they
// are busy for bytes / rate cycles, and the op is not complete before its last byte has issued.
void CollectiveRunner::submit_op(uint32_t g, uint64_t t) {
  const CollectiveRun& r = run_of(g);
  const PlanOp& p = plan_op(g);
  if (p.bytes == 0) {
    complete_op(g, t);
    return;
  }
  const double rate = issue_rate(r, p);
  if (rate > 0) {
    uint64_t& free = sm_free_[static_cast<size_t>(ops_[g].run)][static_cast<size_t>(p.rank)];
    if (free > t) {
      ready_.emplace_back(free, kSubmit | g);
      return;
    }
    free = t + static_cast<uint64_t>(std::ceil(static_cast<double>(p.bytes) / rate));
    ops_[g].issued_by = free;
  }
  const tl::AddressMap& map = f_.endpoints().address_map();
  endpoint::TransferRequest q;
  q.op = p.op;
  q.addr = p.mc ? map.group_base(r.group) + p.remote : map.window_base(r.spec.ranks[static_cast<size_t>(p.peer)]) + p.remote;
  q.bytes = p.bytes;
  q.rtype = r.spec.type;
  q.rop = r.spec.op;
  if (tl::carries_request_data(p.op))
    q.local_src = p.local;
  else
    q.local_dst = p.local;
  q.client = this;
  q.cookie = g;
  const int store = f_.config().coll.store_bytes;
  const Line line = protocol_line(r.spec.protocol);
  q.max_request = static_cast<uint16_t>(r.spec.protocol == Protocol::kLl ? store / 2 : store);
  q.line_bytes = line.bytes;
  q.line_data = line.data;
  q.timing_only = timing_only();
  f_.endpoints().submit(r.spec.ranks[static_cast<size_t>(p.rank)], q, t);
}

void CollectiveRunner::transfer_done(uint64_t cookie, tl::Status status, uint64_t cycle) {
  if (cookie & kFlagCookie) {
    CollectiveRun& r = runs_[static_cast<size_t>(cookie & ~kFlagCookie)];
    if (r.status == tl::Status::kOkay) r.status = status;
    return;
  }
  CollectiveRun& r = runs_[static_cast<size_t>(ops_[cookie].run)];
  if (r.status == tl::Status::kOkay) r.status = status;
  if (ops_[cookie].issued_by > cycle)  // the network was faster than the SM issued
    ready_.emplace_back(ops_[cookie].issued_by, kComplete | static_cast<uint32_t>(cookie));
  else
    complete_op(static_cast<uint32_t>(cookie), cycle);
}

void CollectiveRunner::complete_op(uint32_t g, uint64_t t) {
  CollectiveRun& r = run_of(g);
  const PlanOp& p = plan_op(g);
  r.end = std::max(r.end, t);
  auto& send = r.send_end[static_cast<size_t>(p.rank)];
  send = std::max(send, t);
  if (p.bytes > 0) {
    if (!tl::carries_request_data(p.op)) {
      auto& recv = r.recv_end[static_cast<size_t>(p.rank)];
      recv = std::max(recv, t);
    } else if (p.mc) {
      for (uint64_t& recv : r.recv_end) recv = std::max(recv, t);
    } else {
      auto& recv = r.recv_end[static_cast<size_t>(p.peer)];
      recv = std::max(recv, t);
    }
  }
  if (p.notify_peer >= 0) {
    if (r.spec.protocol == Protocol::kSimple)
      ready_.emplace_back(t + 1, kSendFlag | g);
    else if (p.bytes == 0)  // an empty slice: its line (flag only) lands a hop later
      flag_arrived(g, t + 1);
  }
  for (uint32_t next : successors_[g]) satisfy(next, t);
  if (++r.ops_done == r.plan.ops.size()) finish_run(r, t);
}

void CollectiveRunner::satisfy(uint32_t g, uint64_t t) {
  if (--ops_[g].deps == 0) ready_.emplace_back(t + 1, kStartOp | g);
}

// The flag that `sender_op` sets at its notify_peer has arrived: its waiter may go.
void CollectiveRunner::flag_arrived(uint32_t g, uint64_t t) {
  const CollectiveRun& r = run_of(g);
  const PlanOp& p = plan_op(g);
  const auto id = static_cast<size_t>(ops_[g].run);
  const int w = flag_waiter_[flag_base_[id] + static_cast<size_t>(p.notify_peer) * static_cast<size_t>(r.layout.flag_count) +
                             static_cast<size_t>(p.notify_flag)];
  if (w < 0) throw std::logic_error("collective: a flag nobody waits for");
  // LL, LL128: the slice's last line, flag and all, is not there before its SM has issued it.
  t = std::max(t, ops_[g].issued_by);
  if (t <= now_)
    flag_seen(static_cast<uint32_t>(w), t);
  else
    ready_.emplace_back(t, kLand | g);
}

// Op `waiter` has seen the flag it waits for: a ring or chain step goes on accel.step_us_<protocol>
// later.
void CollectiveRunner::flag_seen(uint32_t waiter, uint64_t t) {
  const CollectiveSpec& s = run_of(waiter).spec;
  const uint64_t step = s.algo == Algorithm::kRing ? us_cycles(f_.config().coll.step_us_of(s.protocol)) : 0;
  if (step == 0)
    satisfy(waiter, t);
  else
    ready_.emplace_back(t + step, kSeen | waiter);
}

uint64_t CollectiveRunner::us_cycles(double us) const {
  return static_cast<uint64_t>(us * f_.config().clock_ghz * 1000.0 + 0.5);
}

// LL, LL128: data of run `run` executed at its rank `rank`; the slice whose last line this is
// has landed, flag and all.
void CollectiveRunner::landed(int run, int rank, uint64_t off, uint64_t len) {
  const auto& v = landing_[static_cast<size_t>(run)][static_cast<size_t>(rank)];
  auto it = std::upper_bound(v.begin(), v.end(), off, [](uint64_t o, const Landing& l) { return o < l.begin; });
  if (it == v.begin()) return;  // not a slice's data
  --it;
  if (off + len > it->end) return;
  OpState& s = ops_[it->op];
  s.landed += len;
  if (s.landed == it->end - it->begin) flag_arrived(it->op, now_);
}

void CollectiveRunner::executed(int completer, const tl::Message& m, const uint8_t* before) {
  if (inner_) inner_->executed(completer, m, before);
  if (!line_runs_.empty() && (m.op == tl::Opcode::kWrite || m.op == tl::Opcode::kWriteFull) && !m.mc) {
    const uint64_t off = m.addr - f_.endpoints().address_map().window_base(completer);
    for (int id : line_runs_) {
      const CollectiveRun& r = runs_[static_cast<size_t>(id)];
      if (off < r.region_begin || off >= r.region_end) continue;
      const auto it = std::find(r.spec.ranks.begin(), r.spec.ranks.end(), completer);
      if (it == r.spec.ranks.end()) continue;
      landed(id, static_cast<int>(it - r.spec.ranks.begin()), off, m.len);
      return;
    }
  }
  if (m.op != tl::Opcode::kWrite || m.len != 8) return;
  const tl::AddressMap& map = f_.endpoints().address_map();
  const uint64_t off = m.addr - map.window_base(completer);
  for (size_t id = 0; id < runs_.size(); ++id) {
    const CollectiveRun& r = runs_[id];
    if (r.done || off < r.layout.flags || off >= r.layout.end()) continue;
    const auto it = std::find(r.spec.ranks.begin(), r.spec.ranks.end(), completer);
    if (it == r.spec.ranks.end()) return;
    const auto rank = static_cast<size_t>(it - r.spec.ranks.begin());
    const int w = flag_waiter_[flag_base_[id] + rank * static_cast<size_t>(r.layout.flag_count) + (off - r.layout.flags) / 8];
    if (w < 0) throw std::logic_error("collective: a flag nobody waits for");
    flag_seen(static_cast<uint32_t>(w), now_);
    return;
  }
}

void CollectiveRunner::answered(int initiator, const tl::Message& response) {
  if (inner_) inner_->answered(initiator, response);
}

void require_okay(const config::Config& cfg, const CollectiveRun& r, const std::string& what) {
  if (r.status == tl::Status::kOkay) return;
  if (r.status == tl::Status::kCompletionTimeout)
    throw config::ConfigError("endpoint.completion_timeout_ns = " + config::format_float(cfg.completion_timeout_ns) +
                              ": a transfer of " + what +
                              " timed out; a collective needs every transfer answered, so the timeout must exceed "
                              "the longest round trip under load (or be 0: no timeout)");
  throw std::logic_error(what + " ended with status " + tl::status_name(r.status));
}

}  // namespace upswitch::coll
