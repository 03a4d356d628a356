#include "top/workload_run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <sstream>
#include <stdexcept>

#include "coll/channels.h"
#include "coll/plan.h"
#include "coll/runner.h"
#include "config/memory_estimate.h"
#include "config/param_table.h"
#include "core/interrupt.h"
#include "top/link_load.h"
#include "top/placement.h"
#include "top/txn_fabric.h"
#include "top/workload_schedule.h"
#include "traffic/moe.h"
#include "traffic/tp.h"
#include "version.h"

namespace upswitch::top {
namespace {

double cycles_per_us(const config::Config& c) { return c.clock_ghz * 1000.0; }
// Per endpoint: the bytes its links carry per second per direction, in GB/s (TL flits; headers
// included), over all of its ports.
std::vector<double> endpoint_gbps(const config::Config& c, const network::Topology& t) {
  std::vector<double> r(static_cast<size_t>(c.endpoints()), 0.0);
  for (int e = 0; e < c.endpoints(); ++e)
    for (int l : t.endpoint_port_link[static_cast<size_t>(e)])
      r[static_cast<size_t>(e)] +=
          t.links[static_cast<size_t>(l)].flits_per_cycle(c.flit_bytes * c.clock_ghz) * c.flit_bytes * c.clock_ghz;
  return r;
}

uint64_t region_bytes(const coll::CollectiveSpec& s) { return (coll::make_layout(s, 0).end() + 4095) / 4096 * 4096; }

// Collectives of one chain reuse a buffer region per kind of phase once the previous holder is
// done (it always precedes in the chain); a larger one gets fresh memory.
class Regions {
 public:
  int reuse_for(const std::string& slot, const coll::CollectiveRunner& runner, const coll::CollectiveSpec& s) const {
    const auto it = last_.find(slot);
    if (it == last_.end()) return -1;
    const coll::CollectiveRun& r = runner.get(it->second);
    return region_bytes(s) <= r.region_end - r.region_begin ? it->second : -1;
  }
  void hold(const std::string& slot, int run, int reused) {
    if (reused < 0 || last_.count(slot) == 0) last_[slot] = run;
  }

 private:
  std::map<std::string, int> last_;
};

struct Pending {
  WorkloadPhase phase;
  std::vector<int> runs;  // one per channel
  std::vector<uint64_t> pair;  // MoE: ranks x ranks bytes
};

struct ChainEnd {
  std::vector<int> last;    // the runs of the chain's last phase
  uint64_t delay = 0;       // compute after it, before the next collective
};

// A phase is a run per channel (coll/channels.h), all started together after every run of the
// chain's previous phase; channel c reuses the region of channel c of the slot's last holder.
std::vector<int> add_phase(coll::CollectiveRunner& runner, Regions& regions, const std::string& slot,
                           const coll::CollectiveSpec& s, int channels, ChainEnd& chain) {
  std::vector<int> ids;
  const std::vector<coll::CollectiveSpec> shares = coll::channel_shares(s, channels);
  for (size_t c = 0; c < shares.size(); ++c) {
    const std::string key = slot + "#" + std::to_string(c);
    coll::CollectiveRunner::Order o;
    o.after = chain.last;
    o.delay = chain.delay;
    o.reuse = chain.last.empty() ? -1 : regions.reuse_for(key, runner, shares[c]);
    const int id = runner.add(shares[c], chain.last.empty() ? chain.delay : 0, o);
    regions.hold(key, id, o.reuse);
    ids.push_back(id);
  }
  chain.last = ids;
  chain.delay = 0;
  return ids;
}

}  // namespace

void check_workload(const config::Config& cfg) {
  const int acc = cfg.endpoints();
  if (runs_moe(cfg)) {
    const std::string bad = traffic::check_moe(cfg.workload.moe, acc);
    if (!bad.empty()) throw config::ConfigError(bad);
    if (cfg.workload.moe.gating == traffic::Gating::kFile)
      (void)traffic::read_assignment(resolved_moe(cfg), cfg.workload.moe.assignment_file);
  }
  if (runs_tp(cfg)) {
    const std::string bad = traffic::check_tp(cfg.workload.tp, acc);
    if (!bad.empty()) throw config::ConfigError(bad);
  }
  // The ranks' endpoints, once the rank counts are known to fit (workload.placement).
  const std::vector<int> placed = workload_endpoints(cfg);
  if (runs_moe(cfg)) {
    const std::vector<int> ranks(placed.begin(), placed.begin() + resolved_moe(cfg).ranks);  // MoE rank i on placed[i]
    const std::string split = cfg.faults.pod_split(ranks);  // the all-to-alls would cross pods
    if (!split.empty()) throw config::ConfigError("moe.ranks: " + split);
    const std::string down = cfg.faults.down_member(ranks);
    if (!down.empty()) throw config::ConfigError("moe.ranks: " + down);
  }
  if (runs_tp(cfg)) {
    const bool in_switch = static_cast<coll::Algorithm>(cfg.workload.tp.algo) == coll::Algorithm::kSwitch;
    if (in_switch && !cfg.accel.reduce.enable)
      throw config::ConfigError("tp.algo = switch: needs the reduction engine (reduce.enable = true)");
    // Each TP group is a communicator holding one multicast group while its collectives run, and
    // the groups run at once (as NCCL's NVLS allocates a multicast object per communicator).
    const int tp_groups = traffic::tp_group_count(cfg.workload.tp, acc);
    const int channels = cfg.workload.tp.channels;
    if (in_switch && channels > 0 && tp_groups * channels > cfg.accel.reduce.groups)
      throw config::ConfigError("tp.channels = " + std::to_string(channels) + ": the " + std::to_string(tp_groups) +
                                " TP groups each hold a multicast group per switch-algorithm channel at once; "
                                "reduce.groups = " + std::to_string(cfg.accel.reduce.groups) + ": expected at most " +
                                std::to_string(cfg.accel.reduce.groups / tp_groups) + " channels");
    if (in_switch && tp_groups > cfg.accel.reduce.groups)
      throw config::ConfigError("tp.algo = switch: the " + std::to_string(tp_groups) +
                                " TP groups each hold a multicast group at once; reduce.groups = " +
                                std::to_string(cfg.accel.reduce.groups) + ": expected at least " +
                                std::to_string(tp_groups));
    for (int g = 0; g < tp_groups; ++g) {
      const std::vector<int> members = on_endpoints(traffic::tp_group_ranks(cfg.workload.tp, acc, g), placed);
      const std::string split = cfg.faults.pod_split(members);
      if (!split.empty()) throw config::ConfigError("tp group " + std::to_string(g) + ": " + split);
      const std::string down = cfg.faults.down_member(members);
      if (!down.empty()) throw config::ConfigError("tp group " + std::to_string(g) + ": " + down);
    }
  }
}

WorkloadResult run_workload(const config::Config& cfg) {
  check_workload(cfg);
  const auto wall0 = std::chrono::steady_clock::now();
  TxnFabric fabric(cfg, false);
  coll::CollectiveRunner runner(fabric);
  Regions regions;
  std::vector<Pending> pending;

  // Memory, checked while the collectives are placed and once more when all are, before anything
  // is simulated: each rank's buffers up to the highest region, and the collectives' plans. A
  // chain repeats its step's phases, so once its first phases are placed its whole plan is
  // extrapolated from them: a workload of many steps is refused before its plans fill the machine.
  uint64_t region = 0;
  double plan_bytes = 0;
  const auto check = [&](double chain_rest) {
    config::check_memory(cfg, {{"workload buffers (ranks x collective regions)",
                                static_cast<double>(cfg.endpoints()) * static_cast<double>(region)},
                               {"workload collective plans", plan_bytes + chain_rest}});
  };
  config::check_memory(cfg, {{"workload schedule (phases of every step)", workload_schedule_bytes(cfg)}});
  const WorkloadSchedule schedule = workload_schedule(cfg);
  constexpr size_t kSample = 64;  // phases of a chain placed before its extrapolation
  for (const ScheduledChain& c : schedule.chains) {
    ChainEnd chain;
    double chain_bytes = 0;
    for (size_t i = 0; i < c.phases.size(); ++i) {
      const ScheduledPhase& sp = c.phases[i];
      chain.delay = sp.compute_before_cycles;
      Pending q;
      q.phase = sp.phase;
      if (sp.spec.coll == coll::Collective::kAllToAll) q.pair = sp.spec.pair_bytes;
      q.runs = add_phase(runner, regions, sp.slot, sp.spec, sp.phase.channels, chain);
      q.phase.channels = static_cast<int>(q.runs.size());
      double bytes = 0;
      for (int id : q.runs) {
        const coll::CollectiveRun& r = runner.get(id);
        region = std::max(region, r.region_end);
        bytes += static_cast<double>(r.plan.ops.size()) * 160.0;
      }
      plan_bytes += bytes;
      chain_bytes += bytes;
      pending.push_back(std::move(q));
      if (i + 1 == kSample && c.phases.size() > kSample)
        check(chain_bytes / kSample * static_cast<double>(c.phases.size() - kSample));
    }
  }
  std::vector<WorkloadStep> steps = schedule.steps;
  const std::vector<int>& placed = schedule.endpoints;
  check(0);
  WorkloadResult out;
  out.cfg = cfg;
  out.endpoints = placed;
  // Each collective's load on the network, from the link counters when its first channel starts
  // to when its last one is done.
  const network::Network& net = fabric.network();
  std::vector<size_t> phase_of_run(runner.size());
  std::vector<int> runs_left(pending.size());
  for (size_t k = 0; k < pending.size(); ++k) {
    for (int id : pending[k].runs) phase_of_run[static_cast<size_t>(id)] = k;
    runs_left[k] = static_cast<int>(pending[k].runs.size());
  }
  std::map<size_t, std::pair<uint64_t, LinkCounters>> at_start;  // phase -> its start cycle, counters
  std::map<size_t, LinkLoad> loads;
  runner.on_run_start = [&](int run, uint64_t t) {
    const size_t k = phase_of_run[static_cast<size_t>(run)];
    if (at_start.count(k) == 0) at_start.emplace(k, std::make_pair(t, read_link_counters(net)));
  };
  runner.on_run_done = [&](int run, uint64_t t) {
    const size_t k = phase_of_run[static_cast<size_t>(run)];
    if (--runs_left[k] > 0) return;
    const auto& [begin, counters] = at_start.at(k);
    loads[k] = link_load(net, counters, read_link_counters(net), t - begin, cfg.flit_bytes * cfg.clock_ghz);
    at_start.erase(k);
  };
  try {
    if (!runner.run()) throw std::logic_error("workload: the collectives did not complete");
    const std::vector<std::string> undrained = check_txn_drained(fabric);
    if (!undrained.empty()) throw std::logic_error("workload: fabric not drained at the end: " + undrained[0]);
  } catch (const core::Interrupted&) {
    out.interrupted = true;  // Ctrl-C: report the steps whose collectives all completed
    const auto complete = [&](const WorkloadPhase& ph) {
      for (const Pending& q : pending)
        if (q.phase.workload == ph.workload && q.phase.group == ph.group && q.phase.step == ph.step)
          for (int id : q.runs)
            if (!runner.get(id).done) return false;
      return true;
    };
    steps.erase(std::remove_if(steps.begin(), steps.end(),
                               [&](const WorkloadStep& st) {
                                 WorkloadPhase ph;
                                 ph.workload = st.workload;
                                 ph.group = st.group;
                                 ph.step = st.step;
                                 return !complete(ph);
                               }),
                steps.end());
    std::vector<Pending> kept;  // after the steps: `complete` reads the full list
    for (Pending& q : pending)
      if (complete(q.phase)) kept.push_back(std::move(q));
    pending = std::move(kept);
  }
  const double cpu = cycles_per_us(cfg);
  const std::vector<double> rate = endpoint_gbps(cfg, net.topology());
  for (size_t k = 0; k < pending.size(); ++k) {
    Pending& q = pending[k];
    WorkloadPhase& ph = q.phase;
    // Channels: from the first start to the last end; a rank's data is in when every channel's is.
    uint64_t start = UINT64_MAX, end = 0;
    std::vector<uint64_t> recv_end;
    for (int id : q.runs) {
      const coll::CollectiveRun& r = runner.get(id);
      coll::require_okay(cfg, r, std::string("the workload's ") + q.phase.phase + " collective");
      start = std::min(start, r.start);
      end = std::max(end, r.end);
      recv_end.resize(r.recv_end.size(), 0);
      for (size_t i = 0; i < r.recv_end.size(); ++i) recv_end[i] = std::max(recv_end[i], r.recv_end[i]);
    }
    ph.start = start;
    ph.end = end;
    ph.time_us = static_cast<double>(end - start) / cpu;
    double sum = 0;
    for (uint64_t e : recv_end) {
      const double us = static_cast<double>(e - start) / cpu;
      ph.rank_max_us = std::max(ph.rank_max_us, us);
      sum += us;
    }
    ph.rank_mean_us = sum / static_cast<double>(recv_end.size());
    if (!q.pair.empty()) {
      const auto n = static_cast<size_t>(ph.ranks);
      uint64_t total = 0;
      for (size_t i = 0; i < n; ++i) {  // MoE rank i is endpoint placed[i]
        const auto e = static_cast<size_t>(placed[i]);
        uint64_t sent = 0, recv = 0;
        for (size_t j = 0; j < n; ++j)
          if (j != i) {
            sent += q.pair[i * n + j];
            recv += q.pair[j * n + i];
          }
        ph.sent_max = std::max(ph.sent_max, sent);
        ph.recv_max = std::max(ph.recv_max, recv);
        ph.port_bound_us = std::max(ph.port_bound_us, static_cast<double>(std::max(sent, recv)) / (rate[e] * 1000.0));
        ph.limit_gbps += rate[e];
        total += sent;
      }
      ph.sent_mean = ph.recv_mean = static_cast<double>(total) / static_cast<double>(n);
      ph.a2a_gbps = ph.time_us > 0 ? static_cast<double>(total) / (ph.time_us * 1000.0) : 0;
    }
    const auto load = loads.find(k);
    if (load != loads.end()) {
      ph.switch_flits = load->second.switch_flits;
      ph.switch_spread = load->second.switch_spread;
      ph.busiest_link = load->second.busiest_name;
      ph.busiest_link_flits = load->second.busiest_flits;
      ph.busiest_link_utilisation = load->second.busiest_utilisation;
    }
    out.phases.push_back(ph);
  }
  // Steps: each chain's phases in order; a step ends with its last phase.
  for (WorkloadStep& st : steps) {
    uint64_t prev_end = 0, end = 0;
    for (const WorkloadPhase& ph : out.phases) {
      if (ph.workload != st.workload || ph.group != st.group) continue;
      if (ph.step == st.step) {
        end = std::max(end, ph.end);
        st.comm_us += ph.time_us;
      } else if (ph.step == st.step - 1) {
        prev_end = std::max(prev_end, ph.end);
      }
    }
    st.time_us = static_cast<double>(end - prev_end) / cpu;
    st.exposed_us = st.time_us - st.compute_us;
  }
  out.steps = std::move(steps);
  // Layers: consecutive phases of one chain with the same (step, pass, layer); phases are in chain
  // order per workload and group. A layer runs from the end of its chain's previous layer.
  std::map<std::pair<std::string, int>, uint64_t> chain_end;  // (workload, group) -> last phase end
  std::vector<std::pair<uint64_t, uint64_t>> spans;           // per layer: begin, end (cycles)
  for (const WorkloadPhase& ph : out.phases) {
    uint64_t& end = chain_end[{ph.workload, ph.group}];
    const WorkloadLayer* l = out.layers.empty() ? nullptr : &out.layers.back();
    if (!l || l->workload != ph.workload || l->group != ph.group || l->step != ph.step || l->pass != ph.pass ||
        l->layer != ph.layer) {
      out.layers.push_back({ph.workload, ph.pass, ph.group, ph.step, ph.layer, 0, 0});
      spans.emplace_back(end, end);
    }
    out.layers.back().comm_us += ph.time_us;
    spans.back().second = ph.end;
    end = ph.end;
  }
  for (size_t k = 0; k < out.layers.size(); ++k)
    out.layers[k].time_us = static_cast<double>(spans[k].second - spans[k].first) / cpu;
  out.ports = fabric.endpoints().result().ports;
  out.cycles = fabric.now();
  out.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return out;
}

std::string config_hash(const config::Config& cfg) {
  const std::string text = config::config_to_json(cfg).dump();
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char ch : text) {
    h ^= ch;
    h *= 0x100000001b3ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

namespace {
// "  switches max/mean 1.02" when the network has more than one switch.
std::string switch_spread_text(const WorkloadPhase& p) {
  if (p.switch_flits.size() < 2) return "";
  char b[64];
  std::snprintf(b, sizeof b, "  switches max/mean %.3f", p.switch_spread);
  return b;
}
}  // namespace

std::string workload_text(const WorkloadResult& r) {
  std::ostringstream o;
  char line[384];
  o << "placement " << r.cfg.workload.placement << ": ranks on endpoints " << endpoint_list(r.endpoints) << "\n";
  std::snprintf(line, sizeof line, "%-5s %5s %4s %11s %11s %11s %11s %8s\n", "work", "group", "step", "time_us",
                "compute_us", "comm_us", "exposed_us", "dropped");
  o << line;
  for (const WorkloadStep& s : r.steps) {
    std::snprintf(line, sizeof line, "%-5s %5s %4d %11.2f %11.2f %11.2f %11.2f %8llu\n", s.workload.c_str(),
                  s.group < 0 ? "-" : std::to_string(s.group).c_str(), s.step, s.time_us, s.compute_us, s.comm_us,
                  s.exposed_us, static_cast<unsigned long long>(s.dropped));
    o << line;
  }
  for (const WorkloadPhase& p : r.phases) {
    if (p.workload != "moe") continue;
    std::snprintf(line, sizeof line,
                  "moe step %d layer %d %-8s %9.2f us  slowest/mean rank %.3f  %8.1f GB/s of %.1f  port bound %.2f us"
                  "  busiest link %s %.2f%s\n",
                  p.step, p.layer, p.phase.c_str(), p.time_us, p.rank_mean_us > 0 ? p.rank_max_us / p.rank_mean_us : 0.0,
                  p.a2a_gbps, p.limit_gbps, p.port_bound_us, p.busiest_link.empty() ? "-" : p.busiest_link.c_str(),
                  p.busiest_link_utilisation, switch_spread_text(p).c_str());
    o << line;
  }
  return o.str();
}

namespace {
const char* kPhaseHeader =
    "workload,step,layer,pass,phase,group,collective,algorithm,protocol,channels,ranks,bytes,start_cycle,end_cycle,time_us,"
    "sent_max,sent_mean,recv_max,recv_mean,rank_max_us,rank_mean_us,a2a_gbps,limit_gbps,port_bound_us,"
    "switch_spread,busiest_link,busiest_link_flits,busiest_link_utilisation\n";
}

std::string workload_phases_csv(const WorkloadResult& r) {
  std::ostringstream o;
  o.precision(10);
  o << kPhaseHeader;
  for (const WorkloadPhase& p : r.phases)
    o << p.workload << ',' << p.step << ',' << p.layer << ',' << p.pass << ',' << p.phase << ',' << p.group << ','
      << coll::collective_name(p.coll) << ',' << coll::algorithm_name(p.algo) << ',' << coll::protocol_name(p.protocol) << ','
      << p.channels << ',' << p.ranks << ',' << p.bytes << ','
      << p.start << ',' << p.end << ',' << p.time_us << ',' << p.sent_max << ',' << p.sent_mean << ',' << p.recv_max
      << ',' << p.recv_mean << ',' << p.rank_max_us << ',' << p.rank_mean_us << ',' << p.a2a_gbps << ','
      << p.limit_gbps << ',' << p.port_bound_us << ',' << p.switch_spread << ',' << p.busiest_link << ','
      << p.busiest_link_flits << ',' << p.busiest_link_utilisation << '\n';
  return o.str();
}

std::string workload_steps_csv(const WorkloadResult& r) {
  std::ostringstream o;
  o.precision(10);
  o << "workload,group,step,time_us,compute_us,comm_us,exposed_us,dropped\n";
  for (const WorkloadStep& s : r.steps)
    o << s.workload << ',' << s.group << ',' << s.step << ',' << s.time_us << ',' << s.compute_us << ',' << s.comm_us
      << ',' << s.exposed_us << ',' << s.dropped << '\n';
  return o.str();
}

std::string workload_layers_csv(const WorkloadResult& r) {
  std::ostringstream o;
  o.precision(10);
  o << "workload,group,step,pass,layer,time_us,comm_us\n";
  for (const WorkloadLayer& l : r.layers)
    o << l.workload << ',' << l.group << ',' << l.step << ',' << l.pass << ',' << l.layer << ',' << l.time_us << ','
      << l.comm_us << '\n';
  return o.str();
}

nlohmann::ordered_json workload_json(const WorkloadResult& r) {
  using json = nlohmann::ordered_json;
  json out;
  out["upswitch_version"] = UPSWITCH_VERSION;
  out["config_hash"] = config_hash(r.cfg);
  out["interrupted"] = r.interrupted;  // Ctrl-C: the steps completed before it
  out["config"] = json::parse(config::config_to_json(r.cfg).dump());
  out["cycles"] = r.cycles;
  out["placement"] = {{"kind", r.cfg.workload.placement}, {"endpoints", r.endpoints}};
  json steps = json::array();
  for (const WorkloadStep& s : r.steps)
    steps.push_back({{"workload", s.workload}, {"group", s.group}, {"step", s.step}, {"time_us", s.time_us},
                     {"compute_us", s.compute_us}, {"comm_us", s.comm_us}, {"exposed_us", s.exposed_us},
                     {"dropped", s.dropped}});
  out["steps"] = steps;
  json layers = json::array();
  for (const WorkloadLayer& l : r.layers)
    layers.push_back({{"workload", l.workload}, {"group", l.group}, {"step", l.step}, {"pass", l.pass},
                      {"layer", l.layer}, {"time_us", l.time_us}, {"comm_us", l.comm_us}});
  out["layers"] = layers;
  json phases = json::array();
  for (const WorkloadPhase& p : r.phases)
    phases.push_back({{"workload", p.workload}, {"step", p.step}, {"layer", p.layer}, {"pass", p.pass},
                      {"phase", p.phase}, {"group", p.group}, {"collective", coll::collective_name(p.coll)},
                      {"algorithm", coll::algorithm_name(p.algo)}, {"protocol", coll::protocol_name(p.protocol)},
                      {"channels", p.channels}, {"ranks", p.ranks}, {"bytes", p.bytes},
                      {"start_cycle", p.start}, {"end_cycle", p.end}, {"time_us", p.time_us},
                      {"sent_max", p.sent_max}, {"sent_mean", p.sent_mean}, {"recv_max", p.recv_max},
                      {"recv_mean", p.recv_mean}, {"rank_max_us", p.rank_max_us}, {"rank_mean_us", p.rank_mean_us},
                      {"a2a_gbps", p.a2a_gbps}, {"limit_gbps", p.limit_gbps}, {"port_bound_us", p.port_bound_us},
                      {"switch_flits", p.switch_flits}, {"switch_spread", p.switch_spread},
                      {"busiest_link", p.busiest_link}, {"busiest_link_flits", p.busiest_link_flits},
                      {"busiest_link_utilisation", p.busiest_link_utilisation}});
  out["phases"] = phases;
  return out;
}

}  // namespace upswitch::top
