#include "top/simai_export.h"

#include <cstdio>

#include "top/workload_run.h"
#include "version.h"

namespace upswitch::top {
namespace {

constexpr coll::Collective kSimaiColls[] = {coll::Collective::kAllReduce, coll::Collective::kAllGather,
                                            coll::Collective::kReduceScatter, coll::Collective::kAllToAll};

// SimAI's key for a collective (busbw.yaml keys and its coll_type names).
const char* simai_name(coll::Collective c) {
  switch (c) {
    case coll::Collective::kAllReduce: return "allreduce";
    case coll::Collective::kAllGather: return "allgather";
    case coll::Collective::kReduceScatter: return "reducescatter";
    case coll::Collective::kAllToAll: return "alltoall";
    case coll::Collective::kBroadcast: return "broadcast";
  }
  return "";
}

double simai_gb(double gbytes_per_s) { return gbytes_per_s * 1e9 / kSimaiBytesPerGB; }

std::string value_or_null(const CollRow* r) {
  if (!r) return "null";
  char v[32];
  std::snprintf(v, sizeof v, "%.3f", simai_gb(r->busbw));
  return v;
}

// "ring", or for an --algo auto row "auto (ring/ll128/1ch)".
std::string row_algorithm(const CollRow& r) {
  if (!r.chosen) return coll::algorithm_name(r.algo);
  return "auto (" + run_name(r) + ")";
}

// Rows of the same series as `r`: its collective and group, and its algorithm (forced) or auto.
bool same_series(const CollRow& a, const CollRow& r) {
  return a.coll == r.coll && a.ranks == r.ranks && a.chosen == r.chosen && (r.chosen || a.algo == r.algo);
}

const CollRow* pick_row(const SimaiBusbw& s, coll::Collective c) {
  for (const SimaiPick& p : s.picks)
    if (p.coll == c) return p.row;
  return nullptr;
}

std::string busbw_yaml(const PlannerTable& t, const SimaiBusbw& s) {
  char buf[512];
  // SimAI skips the first line (the file's name) and lines starting with '#'; a line ending in
  // ':' opens a section; "key,: value" sets the section's collective, "null" leaves it unset.
  std::string o = "upswitch_n" + std::to_string(s.ranks) + "\n";
  o += "# SimAI-Analytical busbw file (-busbw, layout of SimAI's example/busbw.yaml; doc/workloads.md \"SimAI\")\n";
  o += "# upswitch " UPSWITCH_VERSION ", configuration " + config_hash(t.cfg) + "\n";
  o += "# values: busbw in SimAI's GB/s = 2^30 B/s (its GBps = 1/(1024^3)); upswitch's own tables use 10^9\n";
  o += "# TP and EP: collectives of " + std::to_string(s.ranks) +
       " ranks on one upswitch switch, the largest size measured, what --algo auto picked there (without auto rows: "
       "the algorithm with the highest busbw):\n";
  for (const SimaiPick& p : s.picks) {
    if (p.row)
      std::snprintf(buf, sizeof buf, "#   %s: coll.csv %s %s, %llu B, busbw %.3f GB/s (10^9 B/s)\n", simai_name(p.coll),
                    coll::collective_name(p.coll), row_algorithm(*p.row).c_str(),
                    static_cast<unsigned long long>(p.row->bytes), p.row->busbw);
    else
      std::snprintf(buf, sizeof buf, "#   %s: not measured (null)\n", simai_name(p.coll));
    o += buf;
  }
  o += "# DP (and EP's allreduce, allgather, reducescatter, which SimAI uses for DP_EP groups): null, their groups\n"
       "#   leave the scale-up switch; PP: the point-to-point bandwidth of ";
  if (s.pp)
    std::snprintf(buf, sizeof buf, "p2p.csv %s %llu B pair stream, %.3f GB/s (10^9 B/s)\n", tl::opcode_name(s.pp->point.op),
                  static_cast<unsigned long long>(s.pp->point.bytes), s.pp->pair_gbytes_per_s);
  else
    std::snprintf(buf, sizeof buf, "a write stream: not measured (null)\n");
  o += buf;
  o += "# SimAI since its auto-busbw change (26b4574b) no longer reads -busbw: give it TP's allgather value as -nv\n"
       "#   (the simai_*_ratio files are relative to it)\n";
  o += "TP:\n";
  for (const SimaiPick& p : s.picks) o += std::string("  ") + simai_name(p.coll) + ",: " + value_or_null(p.row) + "\n";
  o += "DP:\n";
  for (const SimaiPick& p : s.picks) o += std::string("  ") + simai_name(p.coll) + ",: null\n";
  o += "EP:\n";
  for (const SimaiPick& p : s.picks)
    o += std::string("  ") + simai_name(p.coll) + ",: " +
         (p.coll == coll::Collective::kAllToAll ? value_or_null(p.row) : "null") + "\n";
  o += "PP:\n";
  if (s.pp)
    std::snprintf(buf, sizeof buf, "  busbw: %.3f\n", simai_gb(s.pp->pair_gbytes_per_s));
  else
    std::snprintf(buf, sizeof buf, "  busbw: null\n");
  return o + buf;
}

// SimAI's ratio files: a header line it skips, then one row per message size; column 1 is one
// node (a single scale-up domain, the only column a group on one switch uses), the other eleven
// are its multi-node scales, left empty (SimAI reads an empty cell as 1: no size adjustment).
// SimAI divides each row by the last one, and refuses sizes beyond the last row.
std::string ratio_csv(const PlannerTable& t, const CollRow& largest) {
  std::string o =
      "Size,1 Node(NVLinkx),2Node-16GPU(NIC ),4Node-32GPU(NIC),8Node-64GPU(NIC),16Node-128GPU(NIC),"
      "32Node-256GPU(NIC),64Node-512GPU(NIC),128Node-1024GPU(NIC),Multi 16,Multi 32,Muiti 64,Multi (NIC)\n";
  char buf[128];
  for (const CollRow& r : t.coll.rows)
    if (same_series(r, largest)) {
      std::snprintf(buf, sizeof buf, "%llu,%.6f,,,,,,,,,,,\n", static_cast<unsigned long long>(r.bytes),
                    r.busbw / largest.busbw);
      o += buf;
    }
  return o;
}

size_t sizes_measured(const PlannerTable& t, const CollRow& largest) {
  size_t n = 0;
  for (const CollRow& r : t.coll.rows) n += same_series(r, largest);
  return n;
}

// The collective behind each ratio file: all-gather for nvlink_ratio (SimAI applies it to
// all-gather and reduce-scatter alike; reduce-scatter when all-gather was not measured).
const CollRow* nvlink_source(const SimaiBusbw& s) {
  const CollRow* r = pick_row(s, coll::Collective::kAllGather);
  return r ? r : pick_row(s, coll::Collective::kReduceScatter);
}

}  // namespace

SimaiBusbw simai_busbw(const PlannerTable& t, int ranks) {
  SimaiBusbw s;
  s.ranks = ranks;
  for (coll::Collective c : kSimaiColls) {
    SimaiPick p;
    p.coll = c;
    p.row = largest_auto_row(t.coll, c, ranks);  // what NCCL would run, when the table has it
    if (!p.row)
      for (int a = 0; a < coll::kAlgorithms; ++a) {
        const CollRow* r = largest_row(t.coll, c, static_cast<coll::Algorithm>(a), ranks);
        if (r && (!p.row || r->bytes > p.row->bytes || (r->bytes == p.row->bytes && r->busbw > p.row->busbw))) p.row = r;
      }
    s.picks.push_back(p);
  }
  s.pp = best_write_pair(t.p2p);
  return s;
}

std::vector<std::pair<std::string, std::string>> simai_files(const PlannerTable& t, int ranks) {
  const SimaiBusbw s = simai_busbw(t, ranks);
  const std::string n = "_n" + std::to_string(ranks);
  std::vector<std::pair<std::string, std::string>> files = {{"simai_busbw" + n + ".yaml", busbw_yaml(t, s)}};
  if (const CollRow* r = nvlink_source(s); r && sizes_measured(t, *r) >= 2)
    files.emplace_back("simai_nvlink_ratio" + n + ".csv", ratio_csv(t, *r));
  if (const CollRow* r = pick_row(s, coll::Collective::kAllToAll); r && sizes_measured(t, *r) >= 2)
    files.emplace_back("simai_ata_ratio" + n + ".csv", ratio_csv(t, *r));
  return files;
}

nlohmann::ordered_json simai_json(const PlannerTable& t, int ranks) {
  using json = nlohmann::ordered_json;
  const SimaiBusbw s = simai_busbw(t, ranks);
  json busbw = json::object();
  for (const SimaiPick& p : s.picks)
    busbw[simai_name(p.coll)] = p.row ? json{{"busbw", simai_gb(p.row->busbw)},
                                             {"algorithm", coll::algorithm_name(p.row->algo)},
                                             {"selection", p.row->chosen ? "auto" : "forced"},
                                             {"bytes", p.row->bytes},
                                             {"busbw_gbytes_per_s", p.row->busbw}}
                                      : json(nullptr);
  json files = json::array();
  for (const auto& f : simai_files(t, ranks)) files.push_back(f.first);
  const CollRow* nv = nvlink_source(s);
  return {{"ranks", ranks},
          {"files", files},
          {"busbw_unit_bytes_per_s", kSimaiBytesPerGB},
          {"tp", busbw},
          {"pp_busbw", s.pp ? json(simai_gb(s.pp->pair_gbytes_per_s)) : json(nullptr)},
          {"nvlink_ratio_from", nv ? json(coll::collective_name(nv->coll)) : json(nullptr)}};
}

}  // namespace upswitch::top
