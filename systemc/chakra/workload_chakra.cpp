#include "chakra/workload_chakra.h"

#include <algorithm>
#include <cmath>
#include <fstream>

#include "tl/reduce_alu.h"
#include "top/workload_schedule.h"

namespace upswitch::chakra {
namespace {

CommType comm_type(coll::Collective c) {
  switch (c) {
    case coll::Collective::kAllReduce: return CommType::kAllReduce;
    case coll::Collective::kAllGather: return CommType::kAllGather;
    case coll::Collective::kReduceScatter: return CommType::kReduceScatter;
    case coll::Collective::kBroadcast: return CommType::kBroadcast;
    case coll::Collective::kAllToAll: return CommType::kAllToAll;
  }
  return CommType::kAllReduce;
}

std::string chain_name(const top::ScheduledChain& c) {
  return c.workload == "tp" ? "tp" + std::to_string(c.group) : c.workload;
}

std::string phase_name(const top::WorkloadPhase& p) {
  std::string s = p.workload + (p.group >= 0 ? std::to_string(p.group) : "") + ".step" + std::to_string(p.step);
  if (!p.pass.empty()) s += "." + p.pass;
  return s + ".layer" + std::to_string(p.layer) + "." + p.phase;
}

}  // namespace

ChakraTrace workload_chakra(const config::Config& cfg, const std::string& prefix) {
  const top::WorkloadSchedule sched = top::workload_schedule(cfg);
  const auto ranks = sched.endpoints.size();
  ChakraTrace out;
  out.prefix = prefix;
  out.ranks.resize(ranks);
  const auto rank_of = [&](int endpoint) {
    return static_cast<int>(std::find(sched.endpoints.begin(), sched.endpoints.end(), endpoint) - sched.endpoints.begin());
  };
  for (const top::ScheduledChain& chain : sched.chains) {
    if (chain.phases.empty()) continue;
    std::vector<int> members;
    for (int e : chain.phases.front().spec.ranks) members.push_back(rank_of(e));
    out.groups.emplace_back(chain_name(chain), members);
    for (size_t pos = 0; pos < members.size(); ++pos) {
      RankTrace& rt = out.ranks[static_cast<size_t>(members[pos])];
      int64_t last = -1;  // this chain's previous node on this rank
      const auto add = [&](Node n) {
        n.id = rt.nodes.size();
        if (last >= 0) n.ctrl_deps.push_back(static_cast<uint64_t>(last));
        last = static_cast<int64_t>(n.id);
        rt.nodes.push_back(std::move(n));
      };
      for (const top::ScheduledPhase& sp : chain.phases) {
        if (sp.compute_before_us > 0) {
          Node c;
          c.type = NodeType::kComp;
          c.name = phase_name(sp.phase) + ".compute";
          c.duration_micros = static_cast<uint64_t>(std::llround(sp.compute_before_us));
          const auto ns = static_cast<int64_t>(std::llround(sp.compute_before_us * 1000.0));
          if (ns != static_cast<int64_t>(c.duration_micros) * 1000) c.upswitch_duration_ns = ns;
          add(std::move(c));
        }
        const coll::CollectiveSpec& s = sp.spec;
        Node n;
        n.type = NodeType::kCommColl;
        n.name = phase_name(sp.phase);
        n.has_comm_type = n.has_comm_size = true;
        n.comm_type = comm_type(s.coll);
        n.pg_name = chain_name(chain);
        // What the workload chose or was given runs again at replay: algorithm, protocol, channels.
        n.upswitch_algo = coll::algorithm_name(s.algo);
        n.upswitch_protocol = coll::protocol_name(sp.phase.protocol);
        n.upswitch_channels = sp.phase.channels;
        n.upswitch_dtype = tl::red_type_name(s.type);
        if (s.coll == coll::Collective::kAllToAll && !s.pair_bytes.empty()) {
          const size_t g = members.size();
          int64_t row = 0;
          for (size_t j = 0; j < g; ++j) {
            n.upswitch_pair_bytes.push_back(static_cast<int64_t>(s.pair_bytes[pos * g + j]));
            row += n.upswitch_pair_bytes.back();
          }
          n.comm_size = row;
        } else {
          n.comm_size = static_cast<int64_t>(s.bytes);
        }
        add(std::move(n));
      }
    }
  }
  return out;
}

void write_chakra(const ChakraTrace& c) {
  for (size_t r = 0; r < c.ranks.size(); ++r) write_rank_trace(c.prefix + "." + std::to_string(r) + ".et", c.ranks[r]);
  const std::string path = c.prefix + ".groups.json";
  std::ofstream f(path, std::ios::trunc);
  f << groups_json(c.groups);
  f.flush();
  if (!f) throw config::ConfigError("chakra groups '" + path + "': cannot be written");
}

}  // namespace upswitch::chakra
