#include "top/astra_export.h"

#include <cmath>
#include <cstdio>

#include "top/workload_run.h"
#include "version.h"

namespace upswitch::top {
namespace {

// Collectives whose busbw is the per-link bandwidth they sustained (each rank's link carries
// busbw x time bytes each way), in order of preference: ASTRA-sim's own collectives over the
// Switch dimension are ring and direct algorithms of the same kind.
struct Candidate {
  coll::Collective coll;
  coll::Algorithm algo;
};
constexpr Candidate kCandidates[] = {{coll::Collective::kAllReduce, coll::Algorithm::kRing},
                                     {coll::Collective::kReduceScatter, coll::Algorithm::kRing},
                                     {coll::Collective::kAllGather, coll::Algorithm::kRing},
                                     {coll::Collective::kAllToAll, coll::Algorithm::kOneShot},
                                     {coll::Collective::kBroadcast, coll::Algorithm::kRing}};

void set_bandwidth(const PlannerTable& t, int ranks, AstraDim& d) {
  using json = nlohmann::ordered_json;
  char buf[256];
  for (const Candidate& c : kCandidates)
    if (const CollRow* r = largest_row(t.coll, c.coll, c.algo, ranks)) {
      d.bandwidth_gbps = r->busbw;
      d.bandwidth_source = json{{"kind", "coll"},
                                {"collective", coll::collective_name(r->coll)},
                                {"algorithm", coll::algorithm_name(r->algo)},
                                {"ranks", r->ranks},
                                {"bytes", r->bytes},
                                {"busbw_gbytes_per_s", r->busbw}};
      std::snprintf(buf, sizeof buf, "coll.csv %s %s, %d ranks, %llu B: busbw %.3f GB/s (10^9 B/s)",
                    coll::collective_name(r->coll), coll::algorithm_name(r->algo), r->ranks,
                    static_cast<unsigned long long>(r->bytes), r->busbw);
      d.bandwidth_from = buf;
      return;
    }
  if (const P2pRow* r = best_write_pair(t.p2p)) {
    d.bandwidth_gbps = r->pair_gbytes_per_s;
    d.bandwidth_source = json{{"kind", "p2p"},
                              {"op", tl::opcode_name(r->point.op)},
                              {"bytes", r->point.bytes},
                              {"pair_gbytes_per_s", r->pair_gbytes_per_s}};
    std::snprintf(buf, sizeof buf, "p2p.csv %s %llu B pair stream: %.3f GB/s (10^9 B/s; no collective measured at %d ranks)",
                  tl::opcode_name(r->point.op), static_cast<unsigned long long>(r->point.bytes), r->pair_gbytes_per_s,
                  ranks);
    d.bandwidth_from = buf;
  }
}

// A 64 B write's round trip crosses four links (request: NPU to switch to NPU; response: back)
// and the target's memory; ASTRA-sim's Switch charges one link latency per hop, two per message.
// With --p2p-max-bytes below 64, the largest write measured stands in for the 64 B one.
void set_latency(const PlannerTable& t, AstraDim& d) {
  const P2pRow* w = nullptr;
  for (const P2pRow& r : t.p2p.rows)
    if (r.point.op == tl::Opcode::kWrite && r.point.bytes <= 64 && (!w || r.point.bytes > w->point.bytes)) w = &r;
  if (!w) return;
  const auto& ap = t.cfg.accel;
  const double bytes = static_cast<double>(w->point.bytes);
  const double memory = ap.mem_latency_cycles + std::ceil(bytes / ap.mem_bytes_per_cycle);
  d.latency_ns = (static_cast<double>(w->latency_cycles) - memory) / 4.0 / t.cfg.clock_ghz;
  d.latency_from = "p2p.csv write " + std::to_string(w->point.bytes) + " B round trip " +
                   std::to_string(w->latency_cycles) + " cycles, less the memory access, over 4 link crossings";
}

}  // namespace

const char* astra_units_name(AstraUnits u) { return u == AstraUnits::kBinary ? "binary" : "decimal"; }

bool parse_astra_units(const std::string& s, AstraUnits& out) {
  if (s == "binary") out = AstraUnits::kBinary;
  else if (s == "decimal") out = AstraUnits::kDecimal;
  else return false;
  return true;
}

double astra_unit_bytes_per_s(AstraUnits u) { return u == AstraUnits::kBinary ? 1073741824.0 : 1e9; }

std::vector<int> astra_group_sizes(const PlannerTable& t) {
  std::vector<int> out;
  for (int n : t.opt.coll.group_sizes)
    if (n >= 2) out.push_back(n);
  return out;
}

AstraNetwork astra_network(const PlannerTable& t, int ranks) {
  AstraNetwork a;
  a.units = t.opt.astra_units;
  // One level: the switch all `ranks` NPUs hang off.
  AstraDim d;
  d.topology = "Switch";
  d.npus = ranks;
  set_bandwidth(t, ranks, d);
  set_latency(t, d);
  a.dims.push_back(d);
  a.npus_count = 1;
  for (const AstraDim& x : a.dims) a.npus_count *= x.npus;
  return a;
}

std::string astra_file_name(int ranks) { return "astra_network_n" + std::to_string(ranks) + ".yml"; }

std::string astra_network_yaml(const PlannerTable& t, const AstraNetwork& a) {
  const double unit = astra_unit_bytes_per_s(a.units);
  std::string out = "# ASTRA-sim analytical network: " + std::to_string(a.npus_count) +
                    " NPUs on upswitch switches (doc/workloads.md, \"ASTRA-sim\").\n"
                    "# upswitch " UPSWITCH_VERSION ", configuration " + config_hash(t.cfg) + "\n";
  out += std::string("# bandwidth unit: ") + astra_units_name(a.units) + ", the number x " +
         (a.units == AstraUnits::kBinary ? "2^30" : "10^9") +
         " = B/s per link and direction (binary: released astra-network-analytical, which reads GB/s as 2^30 B/s; "
         "decimal: versions that read 10^9; upswitch table --astra-units)\n";
  std::string topo, npus, bw, lat;
  for (size_t i = 0; i < a.dims.size(); ++i) {
    const AstraDim& d = a.dims[i];
    out += "# dimension " + std::to_string(i) + " bandwidth from: " + d.bandwidth_from + "\n";
    out += "# dimension " + std::to_string(i) + " latency from: " + d.latency_from + "\n";
    char v[64];
    const char* sep = i ? ", " : "";
    topo += sep + d.topology;
    npus += sep + std::to_string(d.npus);
    std::snprintf(v, sizeof v, "%s%.3f", sep, d.bandwidth_gbps * 1e9 / unit);
    bw += v;
    std::snprintf(v, sizeof v, "%s%.3f", sep, d.latency_ns);
    lat += v;
  }
  out += "topology: [ " + topo + " ]\n";
  out += "npus_count: [ " + npus + " ]\n";
  out += "bandwidth: [ " + bw + " ]  # GB/s per link and direction, GB = " +
         (a.units == AstraUnits::kBinary ? "2^30" : "10^9") + " B\n";
  out += "latency: [ " + lat + " ]  # ns per link\n";
  return out;
}

nlohmann::ordered_json astra_network_json(const AstraNetwork& a) {
  using json = nlohmann::ordered_json;
  json dims = json::array();
  const double unit = astra_unit_bytes_per_s(a.units);
  for (const AstraDim& d : a.dims)
    dims.push_back({{"topology", d.topology},
                    {"npus_count", d.npus},
                    {"bandwidth", d.bandwidth_gbps * 1e9 / unit},
                    {"bandwidth_gbytes_per_s", d.bandwidth_gbps},
                    {"latency_ns", d.latency_ns},
                    {"bandwidth_source", d.bandwidth_source},
                    {"bandwidth_from", d.bandwidth_from},
                    {"latency_from", d.latency_from}});
  return {{"file", astra_file_name(a.npus_count)},
          {"npus_count", a.npus_count},
          {"units", astra_units_name(a.units)},
          {"bandwidth_unit_bytes_per_s", unit},
          {"dimensions", dims}};
}

}  // namespace upswitch::top
