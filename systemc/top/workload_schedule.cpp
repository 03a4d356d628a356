#include "top/workload_schedule.h"

#include <algorithm>
#include <map>
#include <utility>

#include "top/coll_choice.h"
#include "top/placement.h"
#include "traffic/tp.h"

namespace upswitch::top {
namespace {

uint64_t us_to_cycles(const config::Config& c, double us) {
  return static_cast<uint64_t>(us * c.clock_ghz * 1000.0 + 0.5);
}

// MoE: per step and layer, a dispatch all-to-all, the experts' compute, a combine all-to-all.
void moe_chain(const config::Config& cfg, WorkloadSchedule& out) {
  const traffic::MoeParams p = resolved_moe(cfg);
  const std::vector<int> ranks(out.endpoints.begin(), out.endpoints.begin() + p.ranks);  // MoE rank i on placed[i]
  traffic::MoeAssignment from_file;
  if (p.gating == traffic::Gating::kFile) from_file = traffic::read_assignment(p, p.assignment_file);
  ScheduledChain chain;
  chain.workload = "moe";
  for (int step = 0; step < cfg.workload.steps; ++step) {
    WorkloadStep st;
    st.workload = "moe";
    st.step = step;
    for (int layer = 0; layer < p.layers; ++layer) {
      traffic::MoeAssignment a = p.gating == traffic::Gating::kFile
                                     ? from_file
                                     : traffic::draw_assignment(p, cfg.measure.seed,
                                                                static_cast<uint64_t>(step) * 65536 + static_cast<uint64_t>(layer));
      traffic::apply_capacity(p, a);
      st.dropped += a.dropped;
      const std::vector<uint64_t> dispatch = traffic::dispatch_bytes(p, a);
      std::vector<uint64_t> combine(dispatch.size());
      const auto n = static_cast<size_t>(p.ranks);
      for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n; ++j) combine[j * n + i] = dispatch[i * n + j];
      for (int k = 0; k < 2; ++k) {
        ScheduledPhase q;
        coll::CollectiveSpec& s = q.spec;
        s.coll = coll::Collective::kAllToAll;
        s.algo = coll::Algorithm::kOneShot;
        // Copy-constructed, then moved in: copy-assigning into the fresh spec's empty vector
        // made GCC 12 without LTO warn of a null memmove destination (-Wnonnull) on the
        // zero-length path of vector::operator=.
        s.ranks = std::vector<int>(ranks);
        s.type = tl::RedType::kU32;
        s.pair_bytes = k == 0 ? dispatch : combine;
        for (size_t i = 0; i < n; ++i) {
          uint64_t row = 0;
          for (size_t j = 0; j < n; ++j) row += s.pair_bytes[i * n + j];
          s.bytes = std::max(s.bytes, row);
        }
        q.phase.channels = choose_collective(cfg, s, {true, true, p.channels}).channels;
        if (k == 1) {
          q.compute_before_us = p.compute_us;
          q.compute_before_cycles = us_to_cycles(cfg, p.compute_us);
          st.compute_us += p.compute_us;
        }
        q.phase.workload = "moe";
        q.phase.step = step;
        q.phase.layer = layer;
        q.phase.phase = k == 0 ? "dispatch" : "combine";
        q.phase.coll = s.coll;
        q.phase.algo = s.algo;
        q.phase.ranks = p.ranks;
        q.phase.bytes = s.bytes;
        q.slot = k == 0 ? "moe-dispatch" : "moe-combine";
        chain.phases.push_back(std::move(q));
      }
    }
    out.steps.push_back(st);
  }
  out.chains.push_back(std::move(chain));
}

// TP: per group, step, pass and layer, the layer's compute and collectives in order; compute after
// a chain's last collective is not simulated (nothing waits for it).
void tp_chains(const config::Config& cfg, WorkloadSchedule& out) {
  const traffic::TpParams& p = cfg.workload.tp;
  const int groups = traffic::tp_group_count(p, cfg.endpoints());
  const std::vector<traffic::TpStep> layer_steps = traffic::tp_layer_steps(p);
  const config::Config shared = tp_choice_config(cfg, groups);
  const ChoiceFixed fixed{p.algo != traffic::kTpAuto, p.protocol != traffic::kTpAuto, p.channels};
  for (int g = 0; g < groups; ++g) {
    const std::vector<int> ranks = on_endpoints(traffic::tp_group_ranks(p, cfg.endpoints(), g), out.endpoints);
    // The group's choice per (collective, size): its steps and layers repeat a few of them.
    std::map<std::pair<coll::Collective, uint64_t>, CollChoice> chosen;
    const auto choice = [&](coll::CollectiveSpec s) -> const CollChoice& {
      const auto key = std::make_pair(s.coll, s.bytes);
      auto it = chosen.find(key);
      if (it == chosen.end()) {
        s.algo = p.algo == traffic::kTpAuto ? coll::Algorithm::kRing : static_cast<coll::Algorithm>(p.algo);
        s.protocol = p.protocol == traffic::kTpAuto ? coll::Protocol::kSimple : static_cast<coll::Protocol>(p.protocol);
        it = chosen.emplace(key, choose_collective(shared, s, fixed)).first;
      }
      return it->second;
    };
    ScheduledChain chain;
    chain.workload = "tp";
    chain.group = g;
    double compute_us = 0;
    uint64_t compute_cycles = 0;
    for (int step = 0; step < cfg.workload.steps; ++step) {
      WorkloadStep st;
      st.workload = "tp";
      st.group = g;
      st.step = step;
      for (int pass = 0; pass < (p.backward ? 2 : 1); ++pass)
        for (int layer = 0; layer < p.layers; ++layer)
          for (const traffic::TpStep& ls : layer_steps) {
            if (ls.compute) {
              compute_us += ls.compute_us;
              compute_cycles += us_to_cycles(cfg, ls.compute_us);
              st.compute_us += ls.compute_us;
              continue;
            }
            ScheduledPhase q;
            coll::CollectiveSpec& s = q.spec;
            s.coll = ls.coll;
            s.ranks = std::vector<int>(ranks);  // not copy-assigned: GCC 12 -Wnonnull, as above
            s.type = static_cast<tl::RedType>(p.dtype);
            s.op = tl::RedOp::kSum;
            s.bytes = ls.bytes;
            const CollChoice& k = choice(s);
            s.algo = k.algo;
            s.protocol = k.protocol;
            q.phase.channels = k.channels;
            q.compute_before_us = compute_us;
            q.compute_before_cycles = compute_cycles;
            compute_us = 0;
            compute_cycles = 0;
            q.phase.workload = "tp";
            q.phase.step = step;
            q.phase.layer = pass == 0 ? layer : p.layers - 1 - layer;
            q.phase.pass = pass == 0 ? "fwd" : "bwd";
            q.phase.phase = coll::collective_name(s.coll);
            q.phase.group = g;
            q.phase.coll = s.coll;
            q.phase.algo = s.algo;
            q.phase.protocol = s.protocol;
            q.phase.ranks = p.group_size;
            q.phase.bytes = s.bytes;
            q.slot = std::string("tp-") + coll::collective_name(s.coll);
            chain.phases.push_back(std::move(q));
          }
      out.steps.push_back(st);
    }
    out.chains.push_back(std::move(chain));
  }
}

}  // namespace

config::Config tp_choice_config(const config::Config& cfg, int groups) {
  config::Config c = cfg;
  c.accel.reduce.groups = cfg.accel.reduce.groups / std::max(1, groups);
  return c;
}

bool runs_moe(const config::Config& c) { return c.workload.kind != traffic::WorkloadKind::kTp; }
bool runs_tp(const config::Config& c) { return c.workload.kind != traffic::WorkloadKind::kMoe; }

traffic::MoeParams resolved_moe(const config::Config& c) { return traffic::resolve_moe(c.workload.moe, c.endpoints()); }

std::vector<int> workload_endpoints(const config::Config& c) {
  int n = 0;
  if (runs_moe(c)) n = std::max(n, resolved_moe(c).ranks);
  if (runs_tp(c)) n = std::max(n, traffic::tp_group_count(c.workload.tp, c.endpoints()) * c.workload.tp.group_size);
  std::string error;
  std::vector<int> placed = place_workload_ranks(c.network(), c.workload.placement, n, error);
  if (!error.empty())
    throw config::ConfigError("workload.placement = '" + c.workload.placement + "': " + error + " (the workload has " +
                              std::to_string(n) + " ranks)");
  return placed;
}

std::vector<int> on_endpoints(const std::vector<int>& ranks, const std::vector<int>& placed) {
  std::vector<int> out;
  for (int r : ranks) out.push_back(placed[static_cast<size_t>(r)]);
  return out;
}

double workload_schedule_bytes(const config::Config& cfg) {
  // A phase: the ScheduledPhase with its strings (about 400 B), its rank list, and for an MoE
  // all-to-all its n x n pair matrix of 8-byte counts.
  constexpr double kPhase = 400.0;
  const double steps = cfg.workload.steps;
  double bytes = 0;
  if (runs_moe(cfg)) {
    const traffic::MoeParams p = resolved_moe(cfg);
    const double n = p.ranks;
    bytes += steps * p.layers * 2.0 * (kPhase + 4.0 * n + 8.0 * n * n);
  }
  if (runs_tp(cfg)) {
    const traffic::TpParams& p = cfg.workload.tp;
    double colls = 0;
    for (const traffic::TpStep& ls : traffic::tp_layer_steps(p)) colls += ls.compute ? 0 : 1;
    const double groups = traffic::tp_group_count(p, cfg.endpoints());
    bytes += groups * steps * (p.backward ? 2.0 : 1.0) * p.layers * colls * (kPhase + 4.0 * p.group_size);
  }
  return bytes;
}

WorkloadSchedule workload_schedule(const config::Config& cfg) {
  WorkloadSchedule out;
  out.endpoints = workload_endpoints(cfg);
  if (runs_moe(cfg)) moe_chain(cfg, out);
  if (runs_tp(cfg)) tp_chains(cfg, out);
  return out;
}

}  // namespace upswitch::top
