#include "top/coll_table.h"

#include <cmath>
#include <sstream>

#include "coll/channels.h"
#include "coll/reference.h"
#include "top/coll_choice.h"
#include "config/memory_estimate.h"
#include "coll/runner.h"
#include "config/param_table.h"
#include "top/list_checks.h"
#include "top/parallel_run.h"
#include "top/parallel_rows.h"
#include "top/switch_down_report.h"
#include "top/txn_fabric.h"
#include "version.h"

namespace upswitch::top {
namespace {

double round_to(double v, int digits) {
  const double s = std::pow(10.0, digits);
  return std::round(v * s) / s;
}

std::vector<coll::Algorithm> algos_for(const CollTableOptions& opt, coll::Collective c) {
  std::vector<coll::Algorithm> out;
  if (!opt.forced_rows) return out;
  for (int a = 0; a < coll::kAlgorithms; ++a) {
    const auto algo = static_cast<coll::Algorithm>(a);
    const bool asked = opt.algos.empty() || std::find(opt.algos.begin(), opt.algos.end(), algo) != opt.algos.end();
    if (asked && coll::algorithm_applies(c, algo)) out.push_back(algo);
  }
  return out;
}

// The protocols the rows of algorithm a run: the ring's as asked, the others' simple.
std::vector<coll::Protocol> protocols_for(const config::Config& cfg, const CollTableOptions& opt, coll::Algorithm a) {
  if (a != coll::Algorithm::kRing) return {coll::Protocol::kSimple};
  return opt.protocols.empty() ? std::vector<coll::Protocol>{cfg.coll.protocol} : opt.protocols;
}

coll::CollectiveSpec spec_for(const CollTableOptions& opt, coll::Collective c, coll::Algorithm a,
                              const std::vector<int>& ranks, uint64_t bytes, coll::Protocol p = coll::Protocol::kSimple) {
  coll::CollectiveSpec s;
  s.coll = c;
  s.algo = a;
  s.protocol = p;
  s.ranks = ranks;
  s.bytes = bytes;
  s.type = opt.type;
  s.op = opt.op;
  s.root = opt.root;
  s.slice_bytes = opt.slice_bytes;
  return s;
}

}  // namespace

std::vector<int> group_ranks(const config::Config& cfg, const CollTableOptions& opt, int n) {
  std::string error;
  std::vector<int> ranks = place_ranks(cfg.network(), n, opt.placement, error);
  if (!error.empty())
    throw config::ConfigError((opt.placement.kind == Placement::Kind::kList ? "--placement: " : "--ranks " + std::to_string(n) + ": ") + error);
  return ranks;
}

std::vector<uint64_t> coll_sizes(const CollTableOptions& opt) {
  const auto e = static_cast<uint64_t>(std::max(4, tl::red_type_bytes(opt.type)));  // whole doublewords
  std::vector<uint64_t> sizes;
  for (uint64_t b = opt.min_bytes; b <= opt.max_bytes; b *= static_cast<uint64_t>(opt.step_factor)) {
    const uint64_t size = std::max(e, b / e * e);
    // Sizes below one element round to the same size: one row each, not the same row twice.
    if (sizes.empty() || sizes.back() != size) sizes.push_back(size);
    if (opt.step_factor < 2 || b > UINT64_MAX / static_cast<uint64_t>(opt.step_factor)) break;
  }
  return sizes;
}

void check_coll_inputs(const config::Config& cfg, const CollTableOptions& opt) {
  auto fail = [](const std::string& m) { throw config::ConfigError(m); };
  if (opt.threads != 0)  // (0: chosen per point, see measure_coll_table)
    if (const std::string why = parallel_refusal(cfg, opt.threads); !why.empty()) fail(why);
  if (opt.threads > 1) {
    try {
      TxnFabric probe(cfg, false);
      probe.use_threads(opt.threads);
    } catch (const ParallelError& e) {
      fail("--threads " + std::to_string(opt.threads) + ": " + e.what());
    }
  }
  if (opt.min_bytes < 1 || opt.max_bytes < opt.min_bytes)
    fail("--min-bytes " + std::to_string(opt.min_bytes) + " / --max-bytes " + std::to_string(opt.max_bytes) +
         ": expected 1 <= min <= max");
  if (opt.step_factor < 2 || opt.step_factor > 1024)
    fail("--step-factor " + std::to_string(opt.step_factor) + ": expected 2 .. 1024");
  if (opt.slice_bytes % 256 || opt.slice_bytes > (uint64_t{1} << 30))
    fail("--slice-bytes " + std::to_string(opt.slice_bytes) + ": expected auto or a multiple of 256 B, at most 1 GiB");
  const bool forced_ring = opt.forced_rows && (opt.algos.empty() || std::find(opt.algos.begin(), opt.algos.end(), coll::Algorithm::kRing) != opt.algos.end());
  if (!opt.protocols.empty() && !forced_ring) {
    std::string list;
    for (coll::Protocol p : opt.protocols) list += (list.empty() ? "" : ",") + std::string(coll::protocol_name(p));
    fail("--protocol " + list + ": the forced ring rows' protocols; --algo auto picks its own (add ring to --algo)");
  }
  if (const coll::Protocol* p = first_repeat(opt.protocols))
    fail(std::string("--protocol: ") + coll::protocol_name(*p) + " listed twice");
  if (const int* n = first_repeat(opt.group_sizes)) fail("--ranks: " + std::to_string(*n) + " listed twice");
  if (const coll::Collective* c = first_repeat(opt.colls))
    fail(std::string("--coll: ") + coll::collective_name(*c) + " listed twice");
  for (int n : opt.group_sizes) {
    const std::vector<int> ranks = group_ranks(cfg, opt, n);
    const std::string split = cfg.faults.pod_split(ranks);
    if (!split.empty()) fail("--ranks " + std::to_string(n) + ": " + split);
    const std::string down = cfg.faults.down_member(ranks);
    if (!down.empty()) fail("--ranks " + std::to_string(n) + ": " + down);
  }
  if (opt.root < 0)
    fail("--root " + std::to_string(opt.root) + ": expected a rank index >= 0");
  for (int n : opt.group_sizes)
    if (opt.root >= n && std::find(opt.colls.begin(), opt.colls.end(), coll::Collective::kBroadcast) != opt.colls.end())
      fail("--root " + std::to_string(opt.root) + ": expected a rank index below every --ranks value (" + std::to_string(n) + ")");
  const bool reducing = std::any_of(opt.colls.begin(), opt.colls.end(), coll::reduces);
  if (reducing && !tl::red_supported(opt.type, opt.op))
    fail(std::string("--op ") + tl::red_op_name(opt.op) + ": not defined on --type " + tl::red_type_name(opt.type) +
         " (and, or, xor need an integer type)");
  bool any = opt.auto_rows;
  for (coll::Collective c : opt.colls) any = any || !algos_for(opt, c).empty();
  if (!any) fail("--algo: no listed algorithm applies to the listed collectives (all_to_all is oneshot only)");
  const bool needs_engine = opt.forced_rows && (opt.algos.empty() || std::find(opt.algos.begin(), opt.algos.end(), coll::Algorithm::kSwitch) != opt.algos.end());
  if (needs_engine && !opt.algos.empty() && !cfg.accel.reduce.enable)
    fail("--algo switch with reduce.enable = false: the switch algorithm needs the reduction engine");
  if (needs_engine && cfg.accel.reduce.enable && cfg.coll.channels > cfg.accel.reduce.groups)
    fail("coll.channels = " + std::to_string(cfg.coll.channels) + ": the switch algorithm takes a multicast group per "
         "channel; expected at most reduce.groups = " + std::to_string(cfg.accel.reduce.groups));
  // Memory: each point's ranks touch their whole buffer region (input, output, ring staging); up to
  // --jobs points run at once.
  double point_bytes = 0;
  size_t points = 0;
  for (coll::Collective c : opt.colls) {
    std::vector<coll::Algorithm> algos = algos_for(opt, c);
    if (opt.auto_rows) algos.push_back(c == coll::Collective::kAllToAll ? coll::Algorithm::kOneShot : coll::Algorithm::kRing);
    for (coll::Algorithm a : algos)
      for (int n : opt.group_sizes) {
        const std::vector<int> ranks = group_ranks(cfg, opt, n);
        for (uint64_t b : coll_sizes(opt)) {
          const coll::CollectiveSpec s = spec_for(opt, c, a, ranks, b);
          point_bytes = std::max(point_bytes, static_cast<double>(n) * static_cast<double>(coll::make_layout(s, 0).end()));
          ++points;
        }
      }
  }
  const double concurrent = static_cast<double>(std::min<size_t>(points, static_cast<size_t>(std::max(1, opt.jobs))));
  if (cfg.coll.data == coll::DataMode::kChecked)  // timing: no buffer is stored
    config::check_memory(cfg, {{"collective buffers (ranks x message size x buffers, --jobs points at once)",
                                concurrent * point_bytes}});
  // Buffers: input, output and (ring reductions) staging of the largest size, plus flags.
  const uint64_t biggest = opt.max_bytes;
  const uint64_t need = 3 * ((biggest + 4095) / 4096 * 4096) + 65536;
  if (need > cfg.accel.memory_bytes)
    fail("--max-bytes " + std::to_string(biggest) + ": the buffers need " + std::to_string(need) +
         " B of each rank's memory; accel.memory_bytes = " + std::to_string(cfg.accel.memory_bytes));
}

CollRow measure_coll_point(const config::Config& cfg_in, const coll::CollectiveSpec& spec, bool check, int threads,
                           bool optional, int channels) {
  config::Config cfg = cfg_in;
  if (channels > 0) cfg.coll.channels = channels;
  if (cfg.coll.channels == 0) cfg.coll.channels = choose_channels(cfg, spec).channels;  // auto
  TxnFabric f(cfg, false);
  try {
    // Where the split pays (doc/performance.md, "Parallel execution", twelfth pass): the in-switch
    // algorithm keeps both threads busy. The others, with the engine's units present, run on one
    // thread unless --threads asks (`optional` false): measured, they gained little or lost. And a
    // one-cycle window (units kept with the accelerators, with completion timeouts) costs them
    // even when asked. The table is the same either way.
    bool one = false;
    if (threads > 1 && spec.algo != coll::Algorithm::kSwitch)
      one = (optional && f.endpoints().engine_units() > 0) || plan_parallel(f, threads).window == 1;
    // One thread on a network of switches still goes window by window (issue 21, fifteenth pass).
    if (one || threads <= 1)
      f.use_windows_on_one_thread();
    else
      f.use_threads(threads);
  } catch (const ParallelError&) {
    if (!optional) throw;
    f.use_windows_on_one_thread();
  }
  // Channels (coll.channels): contiguous shares of the buffer in 256 B units, each its own run over
  // the same ranks, all started at once; a share that comes out empty runs no channel.
  coll::CollectiveRunner runner(f);
  std::vector<int> ids;
  const std::vector<coll::CollectiveSpec> shares = coll::channel_shares(spec, cfg.coll.channels);
  for (size_t c = 0; c < shares.size(); ++c) {
    ids.push_back(runner.add(shares[c], 0));
    if (cfg.coll.data == coll::DataMode::kChecked)  // timing: no payload to fill or check
      coll::fill_inputs(f, runner.get(ids.back()), cfg.measure.seed + static_cast<uint64_t>(c));
  }
  runner.run();
  require_txn_conservation(f);
  uint64_t start = UINT64_MAX, end = 0, flags = 0;
  for (int id : ids) {
    const coll::CollectiveRun& r = runner.get(id);
    coll::require_okay(cfg, r, std::string("the ") + coll::collective_name(spec.coll) + " collective");
    start = std::min(start, r.start);
    end = std::max(end, r.end);
    flags += r.flags_sent;
  }
  CollRow row;
  row.coll = spec.coll;
  row.algo = spec.algo;
  row.protocol = runner.get(ids.front()).spec.protocol;
  row.channels = static_cast<int>(ids.size());
  row.ranks = static_cast<int>(spec.ranks.size());
  row.endpoints = spec.ranks;
  row.bytes = spec.bytes;
  row.count = spec.bytes / static_cast<uint64_t>(tl::red_type_bytes(spec.type));
  row.cycles = end - start;
  row.time_us = static_cast<double>(row.cycles) / cfg.clock_ghz / 1000.0;
  row.algbw = row.time_us > 0 ? static_cast<double>(spec.bytes) / (row.time_us * 1000.0) : 0.0;
  row.busbw = row.algbw * coll::bus_factor(spec.coll, row.ranks);
  if (check && cfg.coll.data == coll::DataMode::kChecked) {
    row.wrong = 0;
    for (int id : ids) {
      const coll::CheckResult c = coll::check_results(f, runner.get(id));
      row.wrong += static_cast<int64_t>(c.wrong);
      row.max_error_ratio = std::max(row.max_error_ratio, c.max_error_ratio);
    }
  }
  const auto& res = f.endpoints().result();
  double tx = 0, rx = 0;
  for (int rank : spec.ranks) {
    tx += static_cast<double>(res.ports[static_cast<size_t>(rank)].tx_payload_bytes);
    rx += static_cast<double>(res.ports[static_cast<size_t>(rank)].rx_payload_bytes);
  }
  row.flags = flags;
  const double n = static_cast<double>(spec.ranks.size());
  row.tx_bytes_per_rank = (tx - 8.0 * static_cast<double>(flags)) / n;
  row.rx_bytes_per_rank = (rx - 8.0 * static_cast<double>(flags)) / n;
  return row;
}

// Threads not chosen: the cores the points leave idle go to them (a point takes at most what its
// network can be split into: two on one switch).
int threads_per_point(const CollTableOptions& opt, size_t points) {
  if (opt.threads > 0) return opt.threads;
  const auto jobs = static_cast<size_t>(std::max(1, opt.jobs));
  return static_cast<int>(jobs / std::max<size_t>(1, std::min(points, jobs)));
}

CollTable measure_coll_table(const config::Config& cfg_in, const CollTableOptions& opt,
                             const std::function<void(size_t, size_t)>& progress) {
  CollTable t;
  t.cfg = cfg_in;
  t.opt = opt;
  config::Config& cfg = t.cfg;
  cfg.check_interval_cycles = 0;  // conservation is checked once at the end of each point
  struct Point {
    coll::CollectiveSpec spec;
    int channels = 0;  // 0: coll.channels
    bool chosen = false;
    double predicted_cycles = 0;
  };
  std::vector<Point> points;
  for (coll::Collective c : opt.colls) {
    for (coll::Algorithm a : algos_for(opt, c))
      for (coll::Protocol p : protocols_for(cfg, opt, a))
        for (int n : opt.group_sizes) {
          const std::vector<int> ranks = group_ranks(cfg, opt, n);
          for (uint64_t b : coll_sizes(opt)) points.push_back({spec_for(opt, c, a, ranks, b, p)});
        }
    if (opt.auto_rows)
      for (int n : opt.group_sizes) {
        const std::vector<int> ranks = group_ranks(cfg, opt, n);
        for (uint64_t b : coll_sizes(opt)) {
          coll::CollectiveSpec s = spec_for(opt, c, coll::Algorithm::kRing, ranks, b);
          const CollChoice k = choose_collective(cfg, s);
          s.algo = k.algo;
          s.protocol = k.protocol;
          points.push_back({s, k.channels, true, k.predicted_cycles});
        }
      }
  }
  t.rows.resize(points.size());
  const int threads = threads_per_point(opt, points.size());
  t.interrupted = measure_rows(
      t.rows, opt.jobs,
      [&](size_t i) {
        const Point& p = points[i];
        t.rows[i] = measure_coll_point(cfg, p.spec, opt.check, threads, opt.threads == 0, p.channels);
        t.rows[i].chosen = p.chosen;
        // Forced rows: the cost model's time for what ran, beside the simulated time.
        const double predicted =
            p.chosen ? p.predicted_cycles
                     : coll::predict_cycles(p.spec, t.rows[i].channels, cost_params(cfg, p.spec.ranks));
        t.rows[i].predicted_us = predicted / cfg.clock_ghz / 1000.0;
      },
      [&](size_t d) {
        if (progress) progress(d, points.size());
      });
  return t;
}

namespace {

// The row of the largest size among those `in` takes (with a positive busbw).
template <typename Pred>
const CollRow* largest_of(const CollTable& t, Pred in) {
  const CollRow* best = nullptr;
  for (const CollRow& r : t.rows)
    if (in(r) && r.busbw > 0 && (!best || r.bytes > best->bytes)) best = &r;
  return best;
}

}  // namespace

const CollRow* largest_row(const CollTable& t, coll::Collective c, coll::Algorithm a, int ranks) {
  return largest_of(t, [&](const CollRow& r) { return !r.chosen && r.coll == c && r.algo == a && r.ranks == ranks; });
}

const CollRow* largest_auto_row(const CollTable& t, coll::Collective c, int ranks) {
  return largest_of(t, [&](const CollRow& r) { return r.chosen && r.coll == c && r.ranks == ranks; });
}

std::string run_name(const CollRow& r) { return choice_name({r.algo, r.protocol, r.channels, 0}); }

std::string coll_text(const CollTable& t) {
  std::ostringstream o;
  char line[256];
  const config::Config& c = t.cfg;
  o << "# upswitch " << UPSWITCH_VERSION << " collective table: " << c.network().name << ", " << c.endpoints() << " endpoints, " << c.clock_ghz
    << " GHz, type " << tl::red_type_name(t.opt.type) << ", op " << tl::red_op_name(t.opt.op) << ", seed "
    << c.measure.seed << "\n";
  if (c.coll.data == coll::DataMode::kTiming) o << "# coll.data = timing: no payload moved, results not checked (#wrong N/A)\n";
  o << "# algbw = size / time; busbw = algbw x factor (all_reduce 2(n-1)/n; reduce_scatter, all_gather, all_to_all "
       "(n-1)/n; broadcast 1)\n";
  if (!c.faults.switch_down.empty())  // doc/reliability.md "Switch down"
    o << "# faults.switch_down: "
      << switch_down_line(switch_down_json(c.network(), c.faults.switch_down, c.flit_bytes * c.clock_ghz, c.clock_ghz))
      << "\n";
  const bool channels_per_row = c.coll.channels == 0;  // coll.channels auto: forced rows' counts picked per size
  size_t i = 0;
  while (i < t.rows.size()) {
    const CollRow& first = t.rows[i];
    if (first.chosen)
      o << "#\n# " << coll::collective_name(first.coll) << ", algorithm auto (algorithm/protocol/channels picked per size), "
        << first.ranks << " ranks, placement " << placement_name(t.opt.placement) << ": endpoints " << endpoint_list(first.endpoints) << "\n";
    else
      o << "#\n# " << coll::collective_name(first.coll) << ", algorithm " << coll::algorithm_name(first.algo)
        << ", protocol " << coll::protocol_name(first.protocol) << ", "
        << (channels_per_row ? "channels auto (per size)" : std::to_string(first.channels) + (first.channels == 1 ? " channel" : " channels"))
        << ", " << first.ranks << " ranks, placement " << placement_name(t.opt.placement) << ": endpoints "
        << endpoint_list(first.endpoints) << "\n";
    std::snprintf(line, sizeof line, "# %12s %12s %6s %6s %10s %8s %8s %7s%s\n", "size", "count", "type", "redop", "time",
                  "algbw", "busbw", "#wrong", first.chosen ? "  picked            predicted" : "");
    o << line;
    std::snprintf(line, sizeof line, "# %12s %12s %6s %6s %10s %8s %8s %7s%s\n", "(B)", "(elements)", "", "", "(us)",
                  "(GB/s)", "(GB/s)", "", first.chosen ? "                    (us)" : "");
    o << line;
    double sum = 0;
    int count = 0;
    auto same = [&](const CollRow& r) {
      return r.coll == first.coll && r.ranks == first.ranks && r.chosen == first.chosen &&
             (first.chosen ||
              (r.algo == first.algo && r.protocol == first.protocol && (channels_per_row || r.channels == first.channels)));
    };
    for (; i < t.rows.size() && same(t.rows[i]); ++i) {
      const CollRow& r = t.rows[i];
      const std::string wrong = r.wrong < 0 ? "N/A" : std::to_string(r.wrong);
      std::snprintf(line, sizeof line, "  %12llu %12llu %6s %6s %10.2f %8.2f %8.2f %7s",
                    static_cast<unsigned long long>(r.bytes), static_cast<unsigned long long>(r.count),
                    tl::red_type_name(t.opt.type), coll::reduces(r.coll) ? tl::red_op_name(t.opt.op) : "none",
                    r.time_us, r.algbw, r.busbw, wrong.c_str());
      o << line;
      if (r.chosen) {
        const std::string pick = run_name(r);
        std::snprintf(line, sizeof line, "  %-18s %9.2f", pick.c_str(), r.predicted_us);
        o << line;
      } else if (channels_per_row) {
        o << "  " << r.channels << "ch";
      }
      o << "\n";
      sum += r.busbw;
      ++count;
    }
    std::snprintf(line, sizeof line, "# Avg bus bandwidth    : %.3f GB/s\n", count ? sum / count : 0.0);
    o << line;
  }
  return o.str();
}

std::string coll_csv(const CollTable& t) {
  std::ostringstream o;
  o << "collective,algorithm,protocol,channels,ranks,bytes,count,type,op,cycles,time_us,algbw_gbytes_per_s,busbw_gbytes_per_s,wrong,"
       "tx_bytes_per_rank,rx_bytes_per_rank,selection,predicted_us,placement,endpoints\n";
  char line[512];
  for (const CollRow& r : t.rows) {
    std::snprintf(line, sizeof line, "%s,%s,%s,%d,%d,%llu,%llu,%s,%s,%llu,%.4f,%.3f,%.3f,%lld,%.1f,%.1f",
                  coll::collective_name(r.coll), coll::algorithm_name(r.algo), coll::protocol_name(r.protocol), r.channels, r.ranks,
                  static_cast<unsigned long long>(r.bytes), static_cast<unsigned long long>(r.count),
                  tl::red_type_name(t.opt.type), coll::reduces(r.coll) ? tl::red_op_name(t.opt.op) : "none",
                  static_cast<unsigned long long>(r.cycles), r.time_us, r.algbw, r.busbw, static_cast<long long>(r.wrong),
                  r.tx_bytes_per_rank, r.rx_bytes_per_rank);
    o << line << "," << (r.chosen ? "auto" : "forced") << ",";
    std::snprintf(line, sizeof line, "%.4f", r.predicted_us);
    o << line << "," << placement_name(t.opt.placement) << ",\"" << endpoint_list(r.endpoints) << "\"\n";
  }
  return o.str();
}

nlohmann::ordered_json coll_json(const CollTable& t) {
  using json = nlohmann::ordered_json;
  json meta;
  meta["tool"] = "upswitch coll";
  meta["upswitch_version"] = UPSWITCH_VERSION;
  meta["preset"] = t.cfg.preset.empty() ? "default" : t.cfg.preset;
  meta["topology"] = t.cfg.network().name;
  meta["switches"] = t.cfg.network().num_switches();
  meta["placement"] = std::string(placement_name(t.opt.placement)) +
                      (t.opt.placement.kind == Placement::Kind::kList ? "" : " (ring order: by leaf switch, then endpoint)");
  meta["interrupted"] = t.interrupted;  // Ctrl-C: only the points completed before it
  meta["type"] = tl::red_type_name(t.opt.type);
  meta["op"] = tl::red_op_name(t.opt.op);
  meta["slice_bytes"] = t.opt.slice_bytes ? json(t.opt.slice_bytes) : json("auto");
  meta["definitions"] = {
      {"time_us", "from the collective's start to its last transfer's completion, us"},
      {"algbw_gbytes_per_s", "size / time (1e9 B/s)"},
      {"busbw_gbytes_per_s", "algbw x bus factor: all_reduce 2(n-1)/n; reduce_scatter, all_gather, all_to_all (n-1)/n; broadcast 1"},
      {"wrong", "result elements differing from the host reference (-1: not checked)"},
      {"tx_bytes_per_rank", "payload bytes a rank sent on its link, mean over ranks, without the ring's 8 B flags"},
      {"selection", "auto: algorithm, protocol and channels picked by --algo auto's cost model (doc/nccl.md); forced: as asked"},
      {"predicted_us", "the cost model's time for the row's algorithm, protocol and channels (auto: for the pick)"}};
  meta["config"] = json::parse(config::config_to_json(t.cfg).dump());
  json rows = json::array();
  for (const CollRow& r : t.rows)
    rows.push_back({{"collective", coll::collective_name(r.coll)},
                    {"algorithm", coll::algorithm_name(r.algo)},
                    {"protocol", coll::protocol_name(r.protocol)},
                    {"channels", r.channels},
                    {"ranks", r.ranks},
                    {"placement", placement_name(t.opt.placement)},
                    {"endpoints", r.endpoints},
                    {"bytes", r.bytes},
                    {"count", r.count},
                    {"cycles", r.cycles},
                    {"time_us", round_to(r.time_us, 4)},
                    {"algbw_gbytes_per_s", round_to(r.algbw, 3)},
                    {"busbw_gbytes_per_s", round_to(r.busbw, 3)},
                    {"wrong", r.wrong},
                    {"tx_bytes_per_rank", round_to(r.tx_bytes_per_rank, 1)},
                    {"rx_bytes_per_rank", round_to(r.rx_bytes_per_rank, 1)},
                    {"selection", r.chosen ? "auto" : "forced"},
                    {"predicted_us", json(round_to(r.predicted_us, 4))}});
  json out;
  out["meta"] = meta;
  out["rows"] = rows;
  return out;
}

}  // namespace upswitch::top
