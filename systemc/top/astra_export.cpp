#include "top/astra_export.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "top/table_fits.h"
#include "top/workload_run.h"
#include "version.h"

namespace upswitch::top {
namespace {

// The link as ASTRA-sim's analytical backend charges it: a send of B bytes over a Switch
// dimension takes 2 x latency + B / bandwidth (two hops; astra-network-analytical
// congestion_unaware BasicTopology::compute_communication_delay, Switch::compute_hops_count).
//
// Bandwidth is what one sender's stream to one receiver sustains, the best write pair stream of
// p2p.csv: a send is such a stream, so ASTRA-sim's sends take what ours take. Without p2p rows
// the busbw of the first collective measured at the group size stands in (its per-link rate).
struct Candidate {
  coll::Collective coll;
  coll::Algorithm algo;
};
constexpr Candidate kBusbwCandidates[] = {{coll::Collective::kAllReduce, coll::Algorithm::kRing},
                                          {coll::Collective::kReduceScatter, coll::Algorithm::kRing},
                                          {coll::Collective::kAllGather, coll::Algorithm::kRing},
                                          {coll::Collective::kAllToAll, coll::Algorithm::kOneShot},
                                          {coll::Collective::kBroadcast, coll::Algorithm::kRing}};

std::string coll_row_words(const CollRow& r) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "coll.csv %s %s, %d ranks, %llu B", coll::collective_name(r.coll),
                coll::algorithm_name(r.algo), r.ranks, static_cast<unsigned long long>(r.bytes));
  return buf;
}

void set_bandwidth(const PlannerTable& t, int ranks, AstraDim& d) {
  using json = nlohmann::ordered_json;
  char buf[256];
  if (const P2pRow* r = best_write_pair(t.p2p)) {
    d.bandwidth_gbps = r->pair_gbytes_per_s;
    d.bandwidth_source = json{{"kind", "p2p"},
                              {"op", tl::opcode_name(r->point.op)},
                              {"bytes", r->point.bytes},
                              {"pair_gbytes_per_s", r->pair_gbytes_per_s}};
    std::snprintf(buf, sizeof buf, "p2p.csv %s %llu B pair stream: %.3f GB/s (10^9 B/s), one sender to one receiver",
                  tl::opcode_name(r->point.op), static_cast<unsigned long long>(r->point.bytes), r->pair_gbytes_per_s);
    d.bandwidth_from = buf;
    return;
  }
  for (const Candidate& c : kBusbwCandidates)
    if (const CollRow* r = largest_row(t.coll, c.coll, c.algo, ranks)) {
      d.bandwidth_gbps = r->busbw;
      d.bandwidth_source = json{{"kind", "coll"},
                                {"collective", coll::collective_name(r->coll)},
                                {"algorithm", coll::algorithm_name(r->algo)},
                                {"ranks", r->ranks},
                                {"bytes", r->bytes},
                                {"busbw_gbytes_per_s", r->busbw}};
      std::snprintf(buf, sizeof buf, "%s: busbw %.3f GB/s (10^9 B/s; no p2p row)", coll_row_words(*r).c_str(), r->busbw);
      d.bandwidth_from = buf;
      return;
    }
}

// Latency carries the ring's per-step cost: ASTRA-sim's ring over the dimension runs the steps
// of ours (all-reduce 2(N-1), reduce-scatter and all-gather N-1), each a send of size / N, so it
// predicts time(size) = steps x 2 x latency + size x steps / N / bandwidth, with the bandwidth
// above. The latency is the one that brings those predictions closest to the measured ring, by
// least squares in relative error, over the sizes where the ring is one α-β line: those of the
// ring's fit piece that covers its largest size (top/table_fits.h); the forced ring rows of the
// first of all-reduce, reduce-scatter and all-gather measured at N ranks, in the largest row's
// protocol:
//   a = sum_i (T_i - b_i) / T_i^2 / sum_i 1 / T_i^2,  latency = max(0, a / (2 steps)),
// T_i the measured time and b_i = size_i x steps / N / bandwidth. With one size this is that row's
// step less its send's serialization, over the step's two hops. Not the piece's α itself: that α
// goes with the piece's β, not with the file's bandwidth, and moves by several times when a few
// percent of time moves a size from one piece to the next (doc/workloads.md, "ASTRA-sim").
int ring_steps(coll::Collective c, int n) { return c == coll::Collective::kAllReduce ? 2 * (n - 1) : n - 1; }

bool set_step_latency(const PlannerTable& t, int ranks, AstraDim& d) {
  using json = nlohmann::ordered_json;
  if (d.bandwidth_gbps <= 0 || ranks < 2) return false;
  const std::vector<TableFit> fits = coll_fits(t.coll);
  for (coll::Collective c : {coll::Collective::kAllReduce, coll::Collective::kReduceScatter, coll::Collective::kAllGather}) {
    const CollRow* last = largest_row(t.coll, c, coll::Algorithm::kRing, ranks);
    if (!last) continue;
    const int steps = ring_steps(c, ranks);
    double lo = 0;  // the smallest size of the fit piece that covers the largest
    for (const TableFit& f : fits)
      if (f.operation == coll::collective_name(c) && f.algorithm == "ring" && f.ranks == ranks &&
          f.fit.min_bytes <= static_cast<double>(last->bytes) && f.fit.max_bytes >= static_cast<double>(last->bytes))
        lo = f.fit.min_bytes;
    // The sends' time at the bandwidth (GB/s = B/ns) and the measured time of a row, in ns.
    auto sends_ns = [&](const CollRow& r) { return static_cast<double>(r.bytes) * steps / ranks / d.bandwidth_gbps; };
    auto time_ns = [](const CollRow& r) { return r.time_us * 1000.0; };
    std::vector<const CollRow*> used;
    double num = 0, den = 0;
    for (const CollRow& r : t.coll.rows) {
      if (r.chosen || r.coll != c || r.algo != coll::Algorithm::kRing || r.ranks != ranks || r.protocol != last->protocol ||
          r.time_us <= 0 || static_cast<double>(r.bytes) < lo)
        continue;
      num += (time_ns(r) - sends_ns(r)) / (time_ns(r) * time_ns(r));
      den += 1.0 / (time_ns(r) * time_ns(r));
      used.push_back(&r);
    }
    if (used.empty()) continue;  // (only a ring timed at 0 us)
    const double alpha_ns = std::max(0.0, num / den);
    d.latency_ns = alpha_ns / (2.0 * steps);
    double worst = 0;
    json sizes = json::array();
    for (const CollRow* r : used) {
      worst = std::max(worst, std::abs((alpha_ns + sends_ns(*r)) / time_ns(*r) - 1.0));
      sizes.push_back(r->bytes);
    }
    d.latency_source = json{{"kind", "coll"},
                            {"collective", coll::collective_name(c)},
                            {"algorithm", "ring"},
                            {"protocol", coll::protocol_name(last->protocol)},
                            {"ranks", ranks},
                            {"bytes", sizes},
                            {"steps", steps},
                            {"max_relative_error", worst}};
    char buf[320];
    std::snprintf(buf, sizeof buf, "%s ring (%s), %d ranks, %zu sizes %.0f..%llu B (the fit piece of the largest): "
                  "the latency whose %d steps x 2 hops plus each size's sends at the bandwidth fit the measured times "
                  "best (least squares, relative; worst %.1f%%)", coll::collective_name(c),
                  coll::protocol_name(last->protocol), ranks, used.size(), static_cast<double>(used.front()->bytes),
                  static_cast<unsigned long long>(last->bytes), steps, 100.0 * worst);
    d.latency_from = buf;
    return true;
  }
  return false;
}

// With no ring measured: a 64 B write's round trip crosses four links (request: NPU to switch to
// NPU; response: back) and the target's memory. With --p2p-max-bytes below 64, the largest write
// measured stands in for the 64 B one.
void set_wire_latency(const PlannerTable& t, AstraDim& d) {
  using json = nlohmann::ordered_json;
  const P2pRow* w = nullptr;
  for (const P2pRow& r : t.p2p.rows)
    if (r.point.op == tl::Opcode::kWrite && r.point.bytes <= 64 && (!w || r.point.bytes > w->point.bytes)) w = &r;
  if (!w) return;
  const auto& ap = t.cfg.accel;
  const double bytes = static_cast<double>(w->point.bytes);
  const double memory = ap.mem_latency_cycles + std::ceil(bytes / ap.mem_bytes_per_cycle);
  d.latency_ns = (static_cast<double>(w->latency_cycles) - memory) / 4.0 / t.cfg.clock_ghz;
  d.latency_source = json{{"kind", "p2p"}, {"op", "write"}, {"bytes", w->point.bytes}, {"latency_cycles", w->latency_cycles}};
  d.latency_from = "p2p.csv write " + std::to_string(w->point.bytes) + " B round trip " +
                   std::to_string(w->latency_cycles) + " cycles, less the memory access, over 4 link crossings "
                   "(no ring measured at this group size)";
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
  if (!set_step_latency(t, ranks, d)) set_wire_latency(t, d);
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
                    {"latency_source", d.latency_source},
                    {"latency_from", d.latency_from}});
  return {{"file", astra_file_name(a.npus_count)},
          {"npus_count", a.npus_count},
          {"units", astra_units_name(a.units)},
          {"bandwidth_unit_bytes_per_s", unit},
          {"dimensions", dims}};
}

}  // namespace upswitch::top
