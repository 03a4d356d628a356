#include "top/coll_choice.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "top/report.h"
#include "traffic/port_select.h"

namespace upswitch::top {

coll::CostParams cost_params(const config::Config& cfg, const std::vector<int>& ranks) {
  const network::Topology& t = cfg.network();
  const int e = ranks.empty() ? 0 : ranks.front();
  const double flit_rate = cfg.flit_bytes * cfg.clock_ghz;  // GB/s of one flit per cycle
  double flits = 0;
  int latency = cfg.link_latency_cycles;
  // Accelerator ports per switch: a switch's engine units serve them all, by address.
  std::vector<int> accel_ports(static_cast<size_t>(t.num_switches()), 0);
  for (const network::LinkSpec& l : t.links)
    if (!l.inter_switch()) ++accel_ports[static_cast<size_t>(l.a.is_switch ? l.a.id : l.b.id)];
  double unit_flits = 0, pool_flits = 0;
  std::vector<int> seen;  // the endpoint's switches
  const auto& links = t.endpoint_port_link[static_cast<size_t>(e)];
  for (size_t k = 0; k < links.size(); ++k) {
    const network::LinkSpec& l = t.links[static_cast<size_t>(links[k])];
    flits += l.flits_per_cycle(flit_rate);
    if (k == 0) latency = l.latency_cycles;
    const int sw = l.a.is_switch ? l.a.id : l.b.id;
    const int given = t.switches[static_cast<size_t>(sw)].reduce_units;
    const int units = given >= 0 ? given : cfg.accel.reduce.units;
    const int ports = std::max(1, accel_ports[static_cast<size_t>(sw)]);
    unit_flits += units == 0 ? 1.0 : std::min(1.0, static_cast<double>(units) / ports);  // a unit moves a flit a cycle
    if (std::find(seen.begin(), seen.end(), sw) == seen.end()) {  // each switch's units once
      seen.push_back(sw);
      pool_flits += units == 0 ? ports : units;
    }
  }
  coll::CostParams c;
  c.flit_bytes = cfg.flit_bytes;
  c.link_bytes_per_cycle = flits * cfg.flit_bytes;
  c.unit_bytes_per_cycle = unit_flits * cfg.flit_bytes;
  c.unit_pool_bytes_per_cycle = pool_flits * cfg.flit_bytes;
  // The switch's zero-load latency of one flit, with the endpoint's own link latency (a topology
  // file's links may differ from link.latency_cycles).
  c.hop_cycles = static_cast<double>(zero_load_latency_cycles(cfg, 1)) + 2.0 * (latency - cfg.link_latency_cycles);
  c.mem_latency_cycles = cfg.accel.mem_latency_cycles;
  c.mem_bytes_per_cycle = cfg.accel.mem_bytes_per_cycle;
  c.alu_latency_cycles = cfg.accel.reduce.alu_latency_cycles;
  c.store_bytes = cfg.coll.store_bytes;
  c.msgs_per_packet = std::min(4, cfg.accel.max_messages_per_packet);
  if (links.size() > 1 && cfg.port_select == static_cast<int>(traffic::PortSelect::kAddress))
    c.msgs_per_packet = std::clamp(cfg.interleave_bytes / std::max(1, cfg.coll.store_bytes), 1, c.msgs_per_packet);
  c.sm_bytes_per_cycle = cfg.coll.sm_gbytes_per_s / cfg.clock_ghz;
  c.multimem_bytes_per_cycle = cfg.coll.multimem_gbytes_per_s / cfg.clock_ghz;
  const double cycles_per_us = cfg.clock_ghz * 1000.0;
  for (int p = 0; p < coll::kProtocols; ++p) {
    c.launch_cycles[p] = std::round(cfg.coll.launch_us[p] * cycles_per_us);
    c.step_cycles[p] = std::round(cfg.coll.step_us[p] * cycles_per_us);
  }
  c.nvls_launch_cycles = std::round(cfg.coll.nvls_launch_us * cycles_per_us);
  return c;
}

namespace {

// Each channel keeps whole pipelines: the switch algorithm a full window of slices per rank, the
// ring chunks of eight of its largest slices (64 KiB), since smaller slices pay the step's
// synchronisation more often. Per rank: the buffer over the ranks; broadcast: the root's buffer.
int trim_channels(const coll::CollectiveSpec& s, int c) {
  const uint64_t ranks = s.coll == coll::Collective::kBroadcast ? 1 : s.ranks.size();
  const uint64_t per_rank = s.algo == coll::Algorithm::kSwitch ? static_cast<uint64_t>(s.window) * coll::slice_of(s) : 8 * 65536;
  while (c > 1 && s.bytes / static_cast<uint64_t>(c) < ranks * per_rank) c /= 2;
  return c;
}

}  // namespace

int auto_channels(const config::Config& cfg, const coll::CollectiveSpec& s, const coll::CostParams& params, bool trim) {
  const int e = s.ranks.empty() ? 0 : s.ranks.front();
  const int links = static_cast<int>(cfg.network().endpoint_port_link[static_cast<size_t>(e)].size());
  double want = std::max(1, links / 2);
  int cap = 32;
  if (s.algo == coll::Algorithm::kSwitch) {
    // Under load a load-reduce takes about twice its zero-load round trip (dgx-h100, 8 ranks, 16 MiB,
    // one channel: 4 x 8 KiB in flight per rank give 28 GB/s, a 1.17 us round trip against 0.48).
    const double round_trip = 2 * coll::load_reduce_round_trip(params);
    const double in_flight = static_cast<double>(s.ranks.size()) * s.window * static_cast<double>(coll::slice_of(s));
    want = params.unit_bytes_per_cycle * round_trip / in_flight;
    cap = std::min(cap, std::max(1, cfg.accel.reduce.groups));
  }
  int c = 1;
  if (s.algo == coll::Algorithm::kSwitch) {
    while (c < cap && c < want) c *= 2;  // enough to cover the round trip
  } else {
    while (2 * c <= want) c *= 2;  // one per two links, rounded down
  }
  // Enough SMs to keep the links busy (the GPU's issue limits): a ring or chain rank sends the
  // link's rate; an in-switch rank issues 2/(N+1) of what its links carry (a slice of the result
  // loaded and stored for N slices' contributions and copies through its port).
  const double per_sm = s.algo == coll::Algorithm::kSwitch ? params.multimem_bytes_per_cycle : params.sm_bytes_per_cycle;
  const double issue = s.algo == coll::Algorithm::kSwitch ? params.link_bytes_per_cycle * 2.0 / static_cast<double>(s.ranks.size() + 1)
                                                          : params.link_bytes_per_cycle;
  while (per_sm > 0 && c < cap && c * per_sm < issue) c *= 2;
  c = std::min(c, cap);
  return trim ? trim_channels(s, c) : c;
}

namespace {

// Every power of two from the trimmed count to the untrimmed one, with its predicted cycles.
void weigh_channels(const config::Config& cfg, const coll::CollectiveSpec& s, const coll::CostParams& params,
                    std::vector<CollChoice>& all) {
  const int hi = auto_channels(cfg, s, params, false);
  const int lo = trim_channels(s, hi);
  for (int c = lo; c <= hi; c *= 2) all.push_back({s.algo, s.protocol, c, coll::predict_cycles(s, c, params)});
}

// The lowest predicted time; on a tie, the first weighed.
const CollChoice& fastest(const std::vector<CollChoice>& all) {
  const CollChoice* best = &all.front();
  for (const CollChoice& k : all)
    if (k.predicted_cycles < best->predicted_cycles) best = &k;
  return *best;
}

}  // namespace

CollChoice choose_channels(const config::Config& cfg, const coll::CollectiveSpec& s) {
  return choose_collective(cfg, s, {true, true, 0});
}

CollChoice choose_collective(const config::Config& cfg, const coll::CollectiveSpec& base, const ChoiceFixed& fixed) {
  if (fixed.algo && !coll::algorithm_applies(base.coll, base.algo))
    throw std::invalid_argument(std::string("collective choice: ") + coll::algorithm_name(base.algo) + " does not run " +
                                coll::collective_name(base.coll));
  const coll::CostParams params = cost_params(cfg, base.ranks);
  std::vector<CollChoice> all;
  auto weigh = [&](coll::Algorithm a, coll::Protocol p) {
    if (fixed.algo && a != base.algo) return;
    coll::CollectiveSpec s = base;
    s.algo = a;
    s.protocol = a != coll::Algorithm::kRing ? coll::Protocol::kSimple : fixed.protocol ? base.protocol : p;
    if (fixed.channels > 0)
      all.push_back({a, s.protocol, fixed.channels, coll::predict_cycles(s, fixed.channels, params)});
    else
      weigh_channels(cfg, s, params, all);
  };
  if (base.coll == coll::Collective::kAllToAll) {
    weigh(coll::Algorithm::kOneShot, coll::Protocol::kSimple);
  } else {
    for (coll::Protocol p : {coll::Protocol::kSimple, coll::Protocol::kLl128, coll::Protocol::kLl}) {
      if (fixed.protocol && p != base.protocol) continue;
      weigh(coll::Algorithm::kRing, p);
    }
    // A fixed switch algorithm is weighed even when the engine is off: the runner refuses it then.
    const bool engine = cfg.accel.reduce.enable && cfg.accel.reduce.groups > 0;
    if ((engine || fixed.algo) && coll::algorithm_applies(base.coll, coll::Algorithm::kSwitch))
      weigh(coll::Algorithm::kSwitch, coll::Protocol::kSimple);
    if (fixed.algo && base.algo == coll::Algorithm::kOneShot) weigh(coll::Algorithm::kOneShot, coll::Protocol::kSimple);
  }
  return fastest(all);
}

std::string choice_name(const CollChoice& c) {
  return std::string(coll::algorithm_name(c.algo)) + "/" + coll::protocol_name(c.protocol) + "/" + std::to_string(c.channels) + "ch";
}

}  // namespace upswitch::top
