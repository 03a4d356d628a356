#include "coll/cost_model.h"

#include <algorithm>
#include <cmath>
#include <queue>
#include <tuple>
#include <vector>

#include "coll/channels.h"
#include "coll/plan.h"

namespace upswitch::coll {

double wire_bytes(Protocol p, uint64_t bytes, const CostParams& c, bool packed) {
  if (bytes == 0) return 0;
  const Line line = protocol_line(p);
  const double data = static_cast<double>(bytes);
  const double per_request = p == Protocol::kLl ? c.store_bytes / 2.0 : static_cast<double>(c.store_bytes);
  const double requests = std::ceil(data / per_request);
  // Each request's flags round up to whole 32 B half-flits, as the initiator packs them.
  const double flag_halves = line.data > 0 ? std::ceil(std::ceil(per_request / line.data) * (line.bytes - line.data) / 32.0) : 0;
  const double data_halves = std::ceil(per_request / 32.0);
  if (!packed)  // one message to a packet: a control half-flit, then its data, in whole flits
    return requests * std::ceil((1 + data_halves + flag_halves) / 2.0) * c.flit_bytes;
  // A stream of requests to one destination: msgs_per_packet of them share a packet's control
  // half-flit, the packet rounds up to whole flits, and the receiver's acknowledgements (1 sector
  // each) ride eight to one (tl/packet_format.h).
  const double k = std::max(1, c.msgs_per_packet);
  return requests * (std::ceil((1 + k * (data_halves + flag_halves)) / 2.0) * c.flit_bytes / k + 4.0);
}

double load_reduce_round_trip(const CostParams& c) {
  return 2 * c.hop_cycles + c.mem_latency_cycles + c.alu_latency_cycles;
}

namespace {

struct Op {
  const PlanOp* p = nullptr;
  int channel = 0;
  int deps = 0;
  double ready = 0;        // the latest dependency's time
  double complete = 0;     // acknowledged (what `after`, `gate` and the run's end wait for)
  double flag = 0;         // the flag it sets has arrived at its peer
  bool started = false;    // its hand-over and fold are counted (it waits for its SM)
  std::vector<int> next;   // ops that wait for this one's completion
  std::vector<int> flagged;  // ops that wait for its flag
};

}  // namespace

double predict_cycles(const CollectiveSpec& s, int channels, const CostParams& c) {
  const int n = static_cast<int>(s.ranks.size());
  if (n < 2 || s.bytes == 0) return 0;
  const double rate = std::max(1e-9, c.link_bytes_per_cycle);
  std::vector<Plan> plans;
  const std::vector<CollectiveSpec> shares = channel_shares(s, channels);  // as the runs split it
  plans.reserve(shares.size());
  for (const CollectiveSpec& share : shares) plans.push_back(make_plan(share, make_layout(share, 0)));

  std::vector<Op> ops;
  for (size_t ch = 0; ch < plans.size(); ++ch) {
    const size_t base = ops.size();
    const std::vector<PlanOp>& po = plans[ch].ops;
    // The op that sets flag f of rank r: (r, f) -> op.
    std::vector<std::vector<int>> setter(static_cast<size_t>(n));
    for (size_t i = 0; i < po.size(); ++i) {
      Op o;
      o.p = &po[i];
      o.channel = static_cast<int>(ch);
      ops.push_back(o);
      if (po[i].notify_peer >= 0) {
        auto& v = setter[static_cast<size_t>(po[i].notify_peer)];
        if (v.size() <= static_cast<size_t>(po[i].notify_flag)) v.resize(static_cast<size_t>(po[i].notify_flag) + 1, -1);
        v[static_cast<size_t>(po[i].notify_flag)] = static_cast<int>(base + i);
      }
    }
    for (size_t i = 0; i < po.size(); ++i) {
      const int me = static_cast<int>(base + i);
      Op& o = ops[base + i];
      if (po[i].after >= 0) {
        ops[base + static_cast<size_t>(po[i].after)].next.push_back(me);
        ++o.deps;
      }
      if (po[i].gate >= 0) {
        ops[base + static_cast<size_t>(po[i].gate)].next.push_back(me);
        ++o.deps;
      }
      if (po[i].wait_flag >= 0) {
        const auto& v = setter[static_cast<size_t>(po[i].rank)];
        const int from = static_cast<size_t>(po[i].wait_flag) < v.size() ? v[static_cast<size_t>(po[i].wait_flag)] : -1;
        if (from >= 0) {
          ops[static_cast<size_t>(from)].flagged.push_back(me);
          ++o.deps;
        }
      }
    }
  }

  std::vector<double> up(static_cast<size_t>(n), 0.0), down(static_cast<size_t>(n), 0.0);
  double unit_in = 0, unit_out = 0;  // the engine units, shared by every rank (AcceleratorEndpoints::unit_for)
  // Each channel's SM on each rank issues its ops one after another, at its rate.
  std::vector<double> sm(plans.size() * static_cast<size_t>(n), 0.0);
  using Item = std::tuple<double, int>;  // (ready, op): ops issue in the order they become ready
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> ready;
  auto release = [&](int i, double t) {
    Op& o = ops[static_cast<size_t>(i)];
    o.ready = std::max(o.ready, t);
    if (--o.deps == 0) ready.emplace(o.ready, i);
  };
  const auto proto = static_cast<size_t>(s.protocol);
  const double launch = s.algo == Algorithm::kSwitch ? c.nvls_launch_cycles : c.launch_cycles[proto];
  const double step = s.algo == Algorithm::kRing ? c.step_cycles[proto] : 0.0;
  for (size_t i = 0; i < ops.size(); ++i)
    if (ops[i].deps == 0) ready.emplace(launch, static_cast<int>(i));

  // A link moves one transfer at a time, in the order transfers become ready: the cycle this one's
  // last byte leaves it.
  auto occupy = [](double& free, double t, double dur) {
    free = std::max(free, t) + dur;
    return free;
  };
  const bool lines = s.protocol != Protocol::kSimple;
  const double ack_trip = c.mem_latency_cycles + 1 + c.hop_cycles;  // a write's execution and its acknowledgement
  double end = 0;
  while (!ready.empty()) {
    const auto [t0, i] = ready.top();
    ready.pop();
    Op& o = ops[static_cast<size_t>(i)];
    const PlanOp& p = *o.p;
    double t = t0;
    if (!o.started) {
      o.started = true;
      if (p.wait_flag >= 0) t += c.handover_cycles;
      if (p.fold_bytes) t += 3.0 * static_cast<double>(p.fold_bytes) / std::max(1.0, c.mem_bytes_per_cycle);
    }
    const auto me = static_cast<size_t>(p.rank);
    const double sm_rate = p.mc ? c.multimem_bytes_per_cycle : c.sm_bytes_per_cycle;
    double* sm_free = sm_rate > 0 && p.bytes > 0 ? &sm[static_cast<size_t>(o.channel) * static_cast<size_t>(n) + me] : nullptr;
    if (sm_free) t = std::max(t, *sm_free);
    // An op that starts later than it became ready (its hand-over, its fold, its SM busy with the
    // channel's earlier ops) queues again for that time, so that each link still takes transfers
    // in the order they start: taken now, a channel's late op would hold the link it shares with
    // the other channels' earlier ones (a chain's root has every slice ready at once).
    if (t > t0) {
      ready.emplace(t, i);
      continue;
    }
    double issued = 0;  // when the SM has issued the op's last byte
    if (sm_free) *sm_free = issued = t + static_cast<double>(p.bytes) / sm_rate;
    if (p.bytes == 0) {
      o.complete = o.flag = t;
    } else if (!p.mc) {
      // A write (or a oneshot reduce) to one peer: the sender's uplink and the peer's downlink.
      const double dur = wire_bytes(p.op == tl::Opcode::kReduce ? Protocol::kSimple : s.protocol, p.bytes, c, true) / rate;
      const auto peer = static_cast<size_t>(p.peer);
      const double sent = std::max({occupy(up[me], t, dur), occupy(down[peer], t, dur), issued});
      const double land = sent + c.hop_cycles;
      o.complete = land + ack_trip;
      o.flag = lines ? land : o.complete + c.hop_cycles;  // Simple: the flag write after the acknowledgement
    } else {
      // The switch algorithm: a load-reduce reads the slice from every member (their uplinks) and
      // returns the result (the loader's downlink); a multicast store takes the storer's uplink
      // and every member's downlink. Each link moves its share in its own order, as the links do.
      // Priced one message to a packet at the link's full rate. The traffic is all-to-all, which a
      // VOQ/iSLIP crossbar carries at 0.864 of 0.958 flits per cycle at 16 ports (doc/reduction.md,
      // "What the model shows"), but the transmitters pack some of the engine's copies and the
      // ranks' answers to one destination together, and the two roughly cancel: so priced, the
      // simulated switch algorithm is predicted within -6..+4% on dgx-h100 and -3..0% on
      // nvl72-rack, 8 ranks, 256 KiB to 64 MiB (doc/nccl.md, "Where the cost model errs").
      const double dur = wire_bytes(Protocol::kSimple, p.bytes, c, false) / rate;
      const bool load = p.op == tl::Opcode::kRead;
      double sent = std::max(issued, occupy(load ? down[me] : up[me], t, dur));
      for (size_t r = 0; r < up.size(); ++r) sent = std::max(sent, occupy(load ? up[r] : down[r], t, dur));
      // The engine units, among which the switch spreads every rank's requests by address, take
      // every member's contribution to a load in through their ports, and send a store's copy to
      // every member out through them.
      const double unit_dur = static_cast<double>(n) * wire_bytes(Protocol::kSimple, p.bytes, c, false) / std::max(1e-9, c.unit_pool_bytes_per_cycle);
      sent = std::max(sent, occupy(load ? unit_in : unit_out, t, unit_dur));
      o.complete = load ? sent + load_reduce_round_trip(c) : sent + c.hop_cycles + ack_trip;
      o.flag = o.complete;
    }
    end = std::max(end, o.complete);
    for (int j : o.next) release(j, o.complete);
    for (int j : o.flagged) release(j, o.flag + step);
  }
  return end;
}

}  // namespace upswitch::coll
