#include "top/parallel_run.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>

#include "core/interrupt.h"
#include "endpoint/part_messages.h"
#include "top/conservation.h"

namespace upswitch::top {
namespace {

// The group a channel end belongs to (endpoints are group 0's but for the engine's units).
int group_at(const ParallelPlan& plan, const network::PortRef& end) {
  if (end.is_switch) return plan.group_of[static_cast<size_t>(end.id)];
  return plan.endpoint_group.empty() ? 0 : plan.endpoint_group[static_cast<size_t>(end.id)];
}

// The endpoints' share of a group's cycle, for either kind of endpoints: packet sources and sinks
// are all group 0's; accelerator endpoints split into parts (AcceleratorEndpoints::set_parts).
void split_endpoints(traffic::TrafficEndpoints&, const ParallelPlan&) {}
void split_endpoints(endpoint::AcceleratorEndpoints& e, const ParallelPlan& plan) {
  if (!plan.endpoint_group.empty() && !e.set_parts(plan.endpoint_group))
    throw std::logic_error("parallel run: the plan splits endpoints that cannot be split");
}
void tick_endpoints(traffic::TrafficEndpoints& e, int g, uint64_t t) {
  if (g == 0) e.tick(t);
}
void tick_endpoints(endpoint::AcceleratorEndpoints& e, int g, uint64_t t) {
  if (e.parts() == 1) {
    if (g == 0) e.tick(t);
  } else if (g < e.parts()) {
    e.tick_part(g, t);
  }
}
uint64_t endpoints_next(const traffic::TrafficEndpoints& e, int g, uint64_t t) {
  return g == 0 ? e.next_activity(t) : UINT64_MAX;
}
uint64_t endpoints_next(const endpoint::AcceleratorEndpoints& e, int g, uint64_t t) {
  if (e.parts() == 1) return g == 0 ? e.next_activity(t) : UINT64_MAX;
  return g < e.parts() ? e.next_activity_part(g, t) : UINT64_MAX;
}
void gather_endpoints(traffic::TrafficEndpoints&, uint64_t) {}
void gather_endpoints(endpoint::AcceleratorEndpoints& e, uint64_t last) {
  if (e.parts() > 1) e.gather_parts(last);
}

// All threads meet here after each window; the last to arrive runs `between` alone first. A
// waiting thread first spins on the generation for a while (a window of one cycle, as with the
// reduction engine's units, lasts tens of microseconds: waking a thread blocked on the condition
// variable costs about as much), then blocks, so a long window's waiter does not hold a core.
class WindowBarrier {
 public:
  WindowBarrier(int n, std::function<void()> between) : n_(n), between_(std::move(between)) {}
  void arrive_and_wait() {
    const uint64_t gen = gen_.load(std::memory_order_acquire);
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == n_) {
      between_();
      arrived_.store(0, std::memory_order_relaxed);
      {
        std::lock_guard<std::mutex> lock(mu_);  // a waiter tests the generation under the lock
        gen_.store(gen + 1, std::memory_order_release);
      }
      cv_.notify_all();
      return;
    }
    for (int k = 0; k < kSpins; ++k) {
      if (gen_.load(std::memory_order_acquire) != gen) return;
      pause();
    }
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return gen_.load(std::memory_order_acquire) != gen; });
  }

 private:
  // A third of a millisecond to one of spinning, by the CPU's pause.
  static constexpr int kSpins = 20000;
  static void pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    std::this_thread::yield();
#endif
  }
  const int n_;
  std::function<void()> between_;
  std::atomic<int> arrived_{0};
  std::atomic<uint64_t> gen_{0};
  std::mutex mu_;
  std::condition_variable cv_;
};

}  // namespace

std::string parallel_refusal(const config::Config& c, int threads) {
  if (threads < 1)
    return "--threads " + std::to_string(threads) +
           ": expected at least 1 (without --threads: every core when the run can be split)";
  if (threads == 1) return "";
  if (c.kind == config::Config::TrafficKind::kTransactions && c.faults.any())
    return "--threads " + std::to_string(threads) +
           " with traffic.kind = transactions and faults: a switch answers a request it rejects on a side line "
           "straight to the accelerator, which cannot join two threads; expected --threads 1";
  if (c.dl.enable)
    return "--threads " + std::to_string(threads) +
           " with link.dl.enable = true: both ends of a link drive its data-link layer, so it cannot join two "
           "threads; expected --threads 1";
  return "";
}

namespace {

// The least latency or credit delay of a link between two groups of `plan` (UINT64_MAX: none).
uint64_t window_of(const network::Network& net, const ParallelPlan& plan) {
  uint64_t window = UINT64_MAX;
  for (const network::Network::Channel& c : net.channels()) {
    if (group_at(plan, c.from) == group_at(plan, c.to)) continue;
    if (c.wire->data_link())
      throw ParallelError("a link between two threads has a data-link layer (link.dl.enable); expected --threads 1");
    window = std::min<uint64_t>({window, c.wire->latency(), c.wire->credit_delay()});
  }
  return window;
}

// Each reduction-engine unit (endpoints from `first_unit` on; `unit_switch`: per unit its switch,
// -1 none) into its switch's group.
void place_units(ParallelPlan& plan, int first_unit, const std::vector<int>& unit_switch) {
  for (size_t u = 0; u < unit_switch.size(); ++u)
    if (unit_switch[u] >= 0)
      plan.endpoint_group[static_cast<size_t>(first_unit) + u] = plan.group_of[static_cast<size_t>(unit_switch[u])];
}

// At most this many groups: the accelerators give each a part of their own
// (AcceleratorEndpoints::set_parts), so more threads than that use that many.
constexpr int kMaxGroups = endpoint::PartMessages::kMaxParts;
// The finer groups (refine) stop at this many: a few per thread are enough for the threads to
// share the work, and each costs the accelerators a part (a message pool).
constexpr int kFineGroups = 32;

// Finer groups than one per thread, so that a thread that is done with its own takes another's
// (run_windows): the endpoints alone, and each thread's switches (with their units) in up to
// (kFineGroups - 1) / threads groups, each given to that thread. Kept only where it leaves the
// window as it is: every link between two of the finer groups is as long as the window.
void refine(ParallelPlan& plan, const network::Network& net, int first_unit, const std::vector<int>& unit_switch) {
  const int T = plan.threads, S = net.switches();
  if (T + 1 > kFineGroups) return;
  const int per_thread = (kFineGroups - 1) / T;
  std::vector<int> count(static_cast<size_t>(T), 0), first(static_cast<size_t>(T), 0),
      chunks(static_cast<size_t>(T), 0), seen(static_cast<size_t>(T), 0);
  for (int g : plan.group_of) ++count[static_cast<size_t>(g)];
  ParallelPlan fine = plan;
  fine.group_thread.assign(1, 0);  // group 0: the endpoints
  for (int j = 0; j < T; ++j) {
    const auto jj = static_cast<size_t>(j);
    chunks[jj] = std::min(count[jj], per_thread);
    first[jj] = static_cast<int>(fine.group_thread.size());
    fine.group_thread.insert(fine.group_thread.end(), static_cast<size_t>(chunks[jj]), j);
  }
  fine.groups = static_cast<int>(fine.group_thread.size());
  for (int s = 0; s < S; ++s) {  // a thread's switches dealt out over its groups
    const auto j = static_cast<size_t>(plan.group_of[static_cast<size_t>(s)]);
    fine.group_of[static_cast<size_t>(s)] = first[j] + seen[j]++ % chunks[j];
  }
  if (!fine.endpoint_group.empty()) place_units(fine, first_unit, unit_switch);
  fine.window = window_of(net, fine);
  if (fine.window >= plan.window) plan = std::move(fine);
}

// `endpoint_weight`: what one endpoint port costs, in switch ports. `first_unit`: the first
// endpoint that is a reduction-engine unit, to go with its switch (-1: every endpoint is group 0's).
ParallelPlan plan_for(const network::Network& net, double endpoint_weight, int threads, int first_unit = -1) {
  const int S = net.switches();
  ParallelPlan plan;
  // Per switch, the units attached to it (their ports weigh with the switch), and per unit its switch.
  std::vector<int> units_at(static_cast<size_t>(S), 0);
  std::vector<int> unit_switch;
  if (first_unit >= 0) {
    unit_switch.assign(static_cast<size_t>(std::max(0, net.topology().num_endpoints() - first_unit)), -1);
    for (const network::Network::Channel& c : net.channels())
      if (!c.from.is_switch && c.from.id >= first_unit && c.to.is_switch) {
        unit_switch[static_cast<size_t>(c.from.id - first_unit)] = c.to.id;
        ++units_at[static_cast<size_t>(c.to.id)];
      }
  }
  int unit_ports = 0;
  for (int u : units_at) unit_ports += u;
  // One switch: the endpoints are one group and the switch (with any units) the other.
  const bool alone = S == 1 && threads > 1;
  plan.groups = alone ? 2 : std::max(1, std::min({threads, S, kMaxGroups}));
  plan.threads = plan.groups;
  plan.group_thread.resize(static_cast<size_t>(plan.groups));
  std::iota(plan.group_thread.begin(), plan.group_thread.end(), 0);
  plan.group_of.assign(static_cast<size_t>(S), alone ? 1 : 0);
  if (!alone) {  // longest first onto the least loaded group
    std::vector<double> load(static_cast<size_t>(plan.groups), 0.0);
    load[0] = endpoint_weight * (net.endpoint_ports() - unit_ports);
    auto cost = [&](int s) { return net.sw(s).ports() + endpoint_weight * units_at[static_cast<size_t>(s)]; };
    std::vector<int> order(static_cast<size_t>(S));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return cost(a) > cost(b); });
    for (int s : order) {
      const auto g = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
      plan.group_of[static_cast<size_t>(s)] = static_cast<int>(g);
      load[g] += cost(s);
    }
  }
  if (first_unit >= 0 && plan.groups > 1) {
    plan.endpoint_group.assign(static_cast<size_t>(net.topology().num_endpoints()), 0);
    place_units(plan, first_unit, unit_switch);
  }
  plan.window = window_of(net, plan);
  if (plan.window == 0)
    throw ParallelError("a link between two threads has no latency or credit delay, so no window is safe; expected "
                        "--threads 1");
  if (plan.window == UINT64_MAX) plan.window = 1024;  // one group: any window
  if (!alone && plan.groups > 1) refine(plan, net, first_unit, unit_switch);
  return plan;
}

// Where a run starts and what ends it: the endpoints' done() (a measured run), or, `until_idle`,
// nothing left with work anywhere or the cycle `limit` (TxnFabric::run_until_idle).
struct Span {
  uint64_t start = 0;
  uint64_t limit = UINT64_MAX;
  bool until_idle = false;
  CycleHook* hook = nullptr;
  // Out: until_idle, whether it ended idle, and the next cycle to simulate.
  bool idle = false;
  uint64_t next = 0;
};

// The driver for either kind of endpoints (traffic::TrafficEndpoints, endpoint::AcceleratorEndpoints:
// tick, next_activity, done, earliest_end and the deferred flush end). `check_conservation` runs
// every `check` cycles between windows (0: never).
template <class Endpoints>
void run_windows(network::Network& net, Endpoints& eps, uint64_t check, const std::function<void()>& check_conservation,
                 const ParallelPlan& plan, const std::function<void(uint64_t)>& on_window, Span& span) {
  const int G = plan.groups;
  // A plan without group_thread (written by hand, as before it existed): a thread per group.
  const bool given_out = plan.group_thread.size() == static_cast<size_t>(G);
  const int N = given_out ? plan.threads : G;
  auto thread_of = [&](int g) { return given_out ? plan.group_thread[static_cast<size_t>(g)] : g; };
  for (int g = 0; g < G; ++g)
    if (thread_of(g) < 0 || thread_of(g) >= N || (g == 0 && thread_of(g) != 0))
      throw std::invalid_argument("parallel run: group " + std::to_string(g) + " is given to thread " +
                                  std::to_string(thread_of(g)) + " of " + std::to_string(N) +
                                  " (group 0 is thread 0's)");
  std::vector<std::vector<int>> members(static_cast<size_t>(G));
  for (int s = 0; s < net.switches(); ++s) members[static_cast<size_t>(plan.group_of[static_cast<size_t>(s)])].push_back(s);
  // Per group, whether a thread has started it in this window (cleared between windows).
  std::unique_ptr<std::atomic<bool>[]> started(new std::atomic<bool>[static_cast<size_t>(G)]);
  auto clear_started = [&] {
    for (int g = 0; g < G; ++g) started[static_cast<size_t>(g)].store(false, std::memory_order_relaxed);
  };
  clear_started();
  std::vector<core::Link*> held;  // links between two groups
  // Per group, the held links whose flits (to) or credits (from) come to it: it flushes them.
  std::vector<std::vector<core::Link*>> flits_in(static_cast<size_t>(G)), credits_in(static_cast<size_t>(G));
  for (const network::Network::Channel& c : net.channels())
    if (group_at(plan, c.from) != group_at(plan, c.to)) {
      c.wire->set_deferred(true);
      held.push_back(c.wire);
      flits_in[static_cast<size_t>(group_at(plan, c.to))].push_back(c.wire);
      credits_in[static_cast<size_t>(group_at(plan, c.from))].push_back(c.wire);
    }
  if (!span.until_idle) eps.defer_flush_end();
  split_endpoints(eps, plan);
  // A window ends at the limit; `begin` is below it.
  auto window_end = [&](uint64_t b) { return b + std::min(plan.window, span.limit - b); };

  // The window [begin, end) every group simulates next; written only between windows.
  uint64_t begin = span.start, end = window_end(begin);
  bool stop = false;
  uint64_t next_check = span.start + check;
  // Per group, the last cycle it simulated (until_idle: the run's next cycle follows the latest).
  std::vector<uint64_t> last_tick(static_cast<size_t>(G), span.start);
  // Group 0 (the endpoints) leads from cycle `free_until` on: lead_next is the next cycle it will
  // tick (it has finished every cycle before); lead_done_at the cycle it ended the run at. Before
  // free_until the run cannot end, so the other groups do not wait for it. (Until idle, a run ends
  // only between windows.)
  auto lead_from = [&] { return span.until_idle ? UINT64_MAX : eps.earliest_end(); };
  uint64_t free_until = lead_from();
  std::atomic<uint64_t> lead_next{0};
  std::atomic<uint64_t> lead_done_at{UINT64_MAX};
  std::atomic<bool> failed{false};
  std::mutex error_mu;
  std::exception_ptr error;
  auto fail = [&](std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(error_mu);
    if (!error) error = e;
    failed.store(true, std::memory_order_release);
  };

  auto between = [&] {
    try {
      if (failed.load(std::memory_order_acquire)) {
        stop = true;
        return;
      }
      const uint64_t last = end - 1;
      gather_endpoints(eps, last);  // the parts' counters, and the watchdog
      if (!span.until_idle) {
        if (!eps.done() && eps.flush_ready_at() != UINT64_MAX) {
          const uint64_t at = std::max(eps.flush_ready_at(), eps.links_last_due());
          if (at <= last) eps.finish_at(at);
        }
        if (eps.done()) {
          stop = true;
          return;
        }
      } else {
        core::poll_interrupt();
      }
      if (on_window) on_window(last);
      if (check && last >= next_check) {
        check_conservation();
        next_check = last + check;
      }
      uint64_t next = eps.next_activity(last);
      for (int s = 0; s < net.switches(); ++s) next = std::min(next, net.sw(s).next_activity(last));
      if (span.hook) next = std::min(next, span.hook->next_activity(last));
      if (span.until_idle && (next == UINT64_MAX || next >= span.limit)) {
        span.idle = next == UINT64_MAX;
        span.next = span.idle ? *std::max_element(last_tick.begin(), last_tick.end()) + 1 : next;
        stop = true;
        return;
      }
      if (next == UINT64_MAX) throw std::logic_error("parallel run: nothing is left to simulate before the run's end");
      begin = next;
      end = span.until_idle ? window_end(next) : next + plan.window;
      free_until = lead_from();  // after on_window, which may ask for a stop
      lead_next.store(begin, std::memory_order_release);
      clear_started();
    } catch (...) {
      fail(std::current_exception());
      stop = true;
    }
  };
  WindowBarrier ticked(N, [] {});  // every group has finished the window: what it sent is written, unpublished
  WindowBarrier barrier(N, between);

  // Simulates group g's part of the window; returns the last cycle it simulated (UINT64_MAX: none).
  auto window = [&](int g) -> uint64_t {
    const std::vector<int>& mine = members[static_cast<size_t>(g)];
    uint64_t t = begin, ticked_last = UINT64_MAX;
    while (t < end) {
      // From free_until on, tick t only once group 0 has finished t - 1 and not ended the run before t.
      if (g != 0 && t >= free_until) {
        while (lead_next.load(std::memory_order_acquire) < t) {
          if (failed.load(std::memory_order_acquire)) return ticked_last;
          std::this_thread::yield();
        }
        if (lead_done_at.load(std::memory_order_acquire) < t) return ticked_last;
      }
      // Packet endpoints alone in group 0 run a stretch of their window endpoint by endpoint
      // (TrafficEndpoints::tick_span); the accelerators always cycle by cycle.
      if constexpr (std::is_same_v<Endpoints, traffic::TrafficEndpoints>) {
        if (g == 0 && mine.empty() && !span.hook && t + 1 < std::min(end, free_until)) {
          ticked_last = t;  // (read only by runs until idle, which packet endpoints do not make)
          t = eps.tick_span(t, std::min(end, free_until));
          if (eps.done()) {  // (not before free_until, as things stand: only its first cycle could end it)
            lead_done_at.store(ticked_last, std::memory_order_release);
            lead_next.store(UINT64_MAX, std::memory_order_release);
            return ticked_last;
          }
          lead_next.store(std::min(t, end), std::memory_order_release);
          continue;
        }
      }
      if (g == 0 && span.hook) span.hook->before_cycle(t);
      for (int s : mine)  // as network::Network::tick: the switches with something due
        if (net.sw(s).wake() <= t) net.sw(s).tick(t);
      ticked_last = t;
      tick_endpoints(eps, g, t);
      if (g == 0 && eps.done()) {
        lead_done_at.store(t, std::memory_order_release);
        lead_next.store(UINT64_MAX, std::memory_order_release);
        return ticked_last;
      }
      uint64_t next = endpoints_next(eps, g, t);
      if (g == 0 && span.hook) next = std::min(next, span.hook->next_activity(t));
      for (int s : mine) net.sw(s).fold_wake(t, next);  // as network::Network::next_activity
      t = std::max(next, t + 1);
      if (g == 0) lead_next.store(std::min(t, end), std::memory_order_release);
    }
    return ticked_last;
  };
  // Each window every group is run once, by one thread: a thread runs the groups it was given,
  // in order (thread 0 starts with group 0, the endpoints, which only it runs: the others may
  // wait for it, never it for them), then takes, from the back, those another thread has not
  // started. Whichever thread runs a group, it simulates the same cycles with the same inputs.
  std::vector<std::vector<int>> given(static_cast<size_t>(N));
  for (int g = 0; g < G; ++g) given[static_cast<size_t>(thread_of(g))].push_back(g);
  auto body = [&](int k) {
    std::vector<int> ran;  // the groups this thread ran in the window: it flushes what comes to them
    ran.reserve(static_cast<size_t>(G));
    auto run = [&](int g) {
      if (started[static_cast<size_t>(g)].exchange(true, std::memory_order_acq_rel)) return;
      ran.push_back(g);
      try {
        const uint64_t last = window(g);
        if (last != UINT64_MAX) last_tick[static_cast<size_t>(g)] = last;  // once a window, not per cycle
      } catch (...) {
        fail(std::current_exception());
        if (g == 0) lead_next.store(UINT64_MAX, std::memory_order_release);
      }
    };
    for (;;) {
      ran.clear();
      for (int g : given[static_cast<size_t>(k)]) run(g);
      for (int j = 1; j < N; ++j) {
        const std::vector<int>& other = given[static_cast<size_t>((k + j) % N)];
        for (auto it = other.rbegin(); it != other.rend(); ++it)
          if (*it != 0) run(*it);
      }
      ticked.arrive_and_wait();
      try {  // (a model defect, such as a window longer than a link, throws here)
        for (int g : ran) {
          for (core::Link* l : flits_in[static_cast<size_t>(g)]) l->flush_deferred_flits();
          for (core::Link* l : credits_in[static_cast<size_t>(g)]) l->flush_deferred_credits();
        }
      } catch (...) {
        fail(std::current_exception());
      }
      barrier.arrive_and_wait();
      if (stop) return;
    }
  };
  std::vector<std::thread> workers;
  for (int k = 1; k < N; ++k) workers.emplace_back(body, k);
  body(0);
  for (std::thread& w : workers) w.join();
  for (core::Link* l : held) l->set_deferred(false);
  if (error) std::rethrow_exception(error);
}

}  // namespace

// An endpoint port weighs 0.28 of a switch port with packets (instructions per port, callgrind:
// 0.29 on the NVL72 rack, 0.24 on the superpod) and 0.56 with transactions (the accelerators'
// ports against the switches' on the NVL72 rack at txn.load 0.5; doc/performance.md "Parallel
// execution").
ParallelPlan plan_parallel(const Fabric& f, int threads) { return plan_for(f.network(), 0.28, threads); }
ParallelPlan plan_parallel(const TxnFabric& f, int threads) {
  // The reduction engine's units are endpoints one cycle inside their switch (top/txn_fabric.cpp):
  // they run on their switch's thread (AcceleratorEndpoints::set_parts), so the window stays the
  // accelerators' link latency.
  const endpoint::AcceleratorEndpoints& e = f.endpoints();
  if (e.engine_units() > 0 && e.can_split()) return plan_for(f.network(), 0.56, threads, e.accelerators());
  ParallelPlan plan = plan_for(f.network(), 0.56, threads);
  // Endpoints that cannot be split (completion timeouts) keep the units with the accelerators: a
  // unit whose switch another thread runs makes the window one cycle. On one switch that is the
  // split there is; across switches it is refused.
  if (f.network().switches() == 1) return plan;
  const int accelerators = f.endpoints().accelerators();
  for (const network::Network::Channel& c : f.network().channels()) {
    const bool unit = (!c.from.is_switch && c.from.id >= accelerators) || (!c.to.is_switch && c.to.id >= accelerators);
    if (unit && group_at(plan, c.from) != group_at(plan, c.to))
      throw ParallelError("with completion timeouts (endpoint.completion_timeout_ns) the reduction engine's units "
                          "run on the accelerators' thread, one cycle inside their switches, so splitting the "
                          "switches would synchronise the threads every cycle; expected --threads 1, or "
                          "reduce.enable = false for collectives that do not reduce in the switch");
  }
  return plan;
}

void run_parallel(Fabric& f, const ParallelPlan& plan, const std::function<void(uint64_t)>& on_window) {
  Span span;
  run_windows(f.network(), f.endpoints(), f.config().check_interval_cycles, [&f] { require_conservation(f); }, plan,
              on_window, span);
}

void run_parallel(TxnFabric& f, const ParallelPlan& plan, const std::function<void(uint64_t)>& on_window) {
  Span span;
  span.start = f.now();
  run_windows(f.network(), f.endpoints(), f.config().check_interval_cycles, [&f] { require_txn_conservation(f); },
              plan, on_window, span);
  f.resume_at(f.endpoints().result().end_cycle + 1);
}

ParallelPlan plan_one_thread(const config::Config& c, const std::function<ParallelPlan(int)>& make_plan) {
  if (c.network().num_switches() < 2 || !parallel_refusal(c, 2).empty()) return ParallelPlan{};
  try {
    return on_one_thread(make_plan(2));
  } catch (const ParallelError&) {
    return ParallelPlan{};
  }
}

ParallelPlan plan_one_thread(const TxnFabric& f) {
  return plan_one_thread(f.config(), [&](int n) { return plan_parallel(f, n); });
}

void run_on_one_thread(TxnFabric& f, const std::function<void(uint64_t)>& on_progress) {
  const ParallelPlan plan = plan_one_thread(f);
  if (plan.groups > 1)
    run_parallel(f, plan, on_progress);
  else
    f.run_plain(on_progress);
}

bool run_parallel_until_idle(TxnFabric& f, const ParallelPlan& plan, uint64_t start, uint64_t limit, CycleHook* hook,
                             uint64_t* next) {
  if (start >= limit) {
    *next = start;
    return false;
  }
  Span span;
  span.start = start;
  span.limit = limit;
  span.until_idle = true;
  span.hook = hook;
  run_windows(f.network(), f.endpoints(), f.config().check_interval_cycles, [&f] { require_txn_conservation(f); },
              plan, {}, span);
  *next = span.next;
  return span.idle;
}

}  // namespace upswitch::top
