#include "top/planner_table.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "config/param_table.h"
#include "core/interrupt.h"
#include "top/list_checks.h"
#include "top/parallel_rows.h"
#include "top/parallel_run.h"
#include "top/planner_exports.h"
#include "top/txn_fabric.h"
#include "top/txn_report.h"
#include "top/workload_run.h"
#include "version.h"

namespace upswitch::top {
namespace {

config::Config moe_point_config(const config::Config& base, int tokens, double skew) {
  config::Config c = base;
  c.workload.kind = traffic::WorkloadKind::kMoe;
  c.workload.steps = 1;
  c.workload.moe.layers = 1;
  c.workload.moe.tokens = tokens;
  c.workload.moe.gating = traffic::Gating::kZipf;  // s = 0 is uniform
  c.workload.moe.zipf_s = skew;
  c.workload.moe.compute_us = 0;
  return c;
}

config::Config loaded_point_config(const config::Config& base, tl::Opcode op, uint64_t bytes, double load) {
  config::Config c = base;
  config::set_param(c, "txn.mix", std::string(tl::opcode_name(op)) + ":1");
  config::set_param(c, "txn.sizes", std::to_string(bytes) + ":1");
  config::set_param(c, "txn.load", std::to_string(load));
  config::set_param(c, "traffic.pattern", "uniform");
  config::validate(c);
  return c;
}

// One synthetic run, summarised as `upswitch run` summarises it (so the two agree).
LoadedLatencyRow measure_loaded(const config::Config& base, tl::Opcode op, uint64_t bytes, double load) {
  const config::Config c = loaded_point_config(base, op, bytes, load);
  TxnFabric f(c, true);
  run_on_one_thread(f, [](uint64_t) { core::poll_interrupt(); });  // windows on a network
  const nlohmann::json s = build_txn_summary(f, RunTiming{}, {});
  const nlohmann::json& l = s["ops"][tl::opcode_name(op)]["latency"];
  LoadedLatencyRow row;
  row.op = op;
  row.bytes = bytes;
  row.load = load;
  row.saturated = s["saturated"].get<bool>() || l["p50"].is_null();
  row.samples = l["count"].get<uint64_t>();
  if (!row.saturated) {
    const double ns = 1.0 / c.clock_ghz;
    row.p50_ns = l["p50"].get<double>() * ns;
    row.p99_ns = l["p99"].get<double>() * ns;
    row.mean_ns = l["mean"].get<double>() * ns;
  }
  return row;
}

}  // namespace

void check_planner_inputs(const config::Config& cfg, const PlannerOptions& opt) {
  check_coll_inputs(cfg, opt.coll);
  check_p2p_inputs(cfg, opt.p2p);
  if (!(opt.loaded_load > 0 && opt.loaded_load <= 1))
    throw config::ConfigError("--load " + std::to_string(opt.loaded_load) + ": expected a fraction of the link in (0, 1]");
  for (tl::Opcode op : opt.loaded_ops)
    for (uint64_t b : opt.loaded_sizes) (void)loaded_point_config(cfg, op, b, opt.loaded_load);
  if (const uint64_t* b = first_repeat(opt.loaded_sizes))
    throw config::ConfigError("--loaded-sizes: " + std::to_string(*b) + " listed twice");
  if (const int* t = first_repeat(opt.moe_tokens))
    throw config::ConfigError("--moe-tokens: " + std::to_string(*t) + " listed twice");
  if (const double* s = first_repeat(opt.moe_skews)) {
    char v[32];
    std::snprintf(v, sizeof v, "%g", *s);
    throw config::ConfigError(std::string("--moe-skews: ") + v + " listed twice");
  }
  for (int t : opt.moe_tokens)
    if (t < 1) throw config::ConfigError("--moe-tokens " + std::to_string(t) + ": expected token counts of at least 1");
  for (double s : opt.moe_skews)
    if (!(s >= 0 && s <= 10))
      throw config::ConfigError("--moe-skews " + std::to_string(s) + ": expected Zipf exponents from 0 to 10");
  if (!opt.moe_tokens.empty()) check_workload(moe_point_config(cfg, opt.moe_tokens.front(), 0));
}

PlannerTable measure_planner_table(const config::Config& cfg, const PlannerOptions& opt,
                                   const std::function<void(const char*, size_t, size_t)>& progress) {
  PlannerTable t;
  t.cfg = cfg;
  t.opt = opt;
  CollTableOptions co = opt.coll;
  co.jobs = opt.jobs;
  t.coll = measure_coll_table(cfg, co, [&](size_t d, size_t n) {
    if (progress) progress("coll", d, n);
  });
  t.interrupted = t.coll.interrupted;  // Ctrl-C: keep what is complete and measure nothing more
  if (t.interrupted) return t;
  P2pOptions po = opt.p2p;
  po.jobs = opt.jobs;
  t.p2p = measure_p2p_table(cfg, po);
  if (progress) progress("p2p", 1, 1);
  t.interrupted = t.p2p.interrupted;
  if (t.interrupted) return t;
  std::vector<std::pair<tl::Opcode, uint64_t>> loaded;
  for (tl::Opcode op : opt.loaded_ops)
    for (uint64_t b : opt.loaded_sizes) loaded.emplace_back(op, b);
  t.loaded.resize(loaded.size());
  t.interrupted = measure_rows(
      t.loaded, opt.jobs,
      [&](size_t i) { t.loaded[i] = measure_loaded(cfg, loaded[i].first, loaded[i].second, opt.loaded_load); },
      [&](size_t d) {
        if (progress) progress("loaded", d, loaded.size());
      });
  std::vector<std::pair<int, double>> points;
  for (int tokens : opt.moe_tokens)
    for (double s : opt.moe_skews) points.emplace_back(tokens, s);
  if (t.interrupted) return t;
  t.moe.resize(points.size());
  t.interrupted = measure_rows(
      t.moe, opt.jobs,
      [&](size_t i) {
        const WorkloadResult r = run_workload(moe_point_config(cfg, points[i].first, points[i].second));
        if (r.interrupted) throw core::Interrupted();  // a partial workload is no table row
        MoeRow& row = t.moe[i];
        row.tokens = points[i].first;
        row.zipf_s = points[i].second;
        const WorkloadPhase& d = r.phases.at(0);
        row.sent_mean = static_cast<uint64_t>(std::llround(d.sent_mean));
        row.recv_max = d.recv_max;
        row.dispatch_us = d.time_us;
        row.combine_us = r.phases.at(1).time_us;
        row.straggler = d.rank_mean_us > 0 ? d.rank_max_us / d.rank_mean_us : 0;
        row.a2a_gbps = d.a2a_gbps;
        row.port_bound_us = d.port_bound_us;
      },
      [&](size_t d) {
        if (progress) progress("moe", d, points.size());
      });
  return t;
}

std::string moe_table_csv(const PlannerTable& t) {
  std::ostringstream o;
  o.precision(10);
  o << "ranks,tokens,zipf_s,sent_mean_bytes,recv_max_bytes,dispatch_us,combine_us,straggler,a2a_gbytes_per_s,"
       "port_bound_us\n";
  const int ranks = t.cfg.workload.moe.ranks ? t.cfg.workload.moe.ranks : t.cfg.endpoints();
  for (const MoeRow& r : t.moe)
    o << ranks << ',' << r.tokens << ',' << r.zipf_s << ',' << r.sent_mean << ',' << r.recv_max << ','
      << r.dispatch_us << ',' << r.combine_us << ',' << r.straggler << ',' << r.a2a_gbps << ',' << r.port_bound_us
      << '\n';
  return o.str();
}

std::string loaded_latency_csv(const PlannerTable& t) {
  std::ostringstream o;
  o.precision(10);
  o << "op,bytes,load,saturated,samples,p50_ns,p99_ns,mean_ns\n";
  for (const LoadedLatencyRow& r : t.loaded) {
    o << tl::opcode_name(r.op) << ',' << r.bytes << ',' << r.load << ',' << (r.saturated ? "true" : "false") << ','
      << r.samples << ',';
    if (r.saturated)
      o << ",,\n";
    else
      o << r.p50_ns << ',' << r.p99_ns << ',' << r.mean_ns << '\n';
  }
  return o.str();
}

nlohmann::ordered_json planner_json(const PlannerTable& t) {
  using json = nlohmann::ordered_json;
  json out;
  out["upswitch_version"] = UPSWITCH_VERSION;
  out["config_hash"] = config_hash(t.cfg);
  out["interrupted"] = t.interrupted;  // Ctrl-C: the parts and rows completed before it
  out["config"] = json::parse(config::config_to_json(t.cfg).dump());
  out["coll"] = coll_json(t.coll);
  out["p2p"] = p2p_json(t.p2p);
  json loaded = json::array();
  for (const LoadedLatencyRow& r : t.loaded) {
    const json none;
    loaded.push_back({{"op", tl::opcode_name(r.op)}, {"bytes", r.bytes}, {"load", r.load}, {"saturated", r.saturated},
                      {"samples", r.samples}, {"p50_ns", r.saturated ? none : json(r.p50_ns)},
                      {"p99_ns", r.saturated ? none : json(r.p99_ns)}, {"mean_ns", r.saturated ? none : json(r.mean_ns)}});
  }
  out["p2p_loaded"] = loaded;
  json moe = json::array();
  for (const MoeRow& r : t.moe)
    moe.push_back({{"tokens", r.tokens}, {"zipf_s", r.zipf_s}, {"sent_mean_bytes", r.sent_mean},
                   {"recv_max_bytes", r.recv_max}, {"dispatch_us", r.dispatch_us}, {"combine_us", r.combine_us},
                   {"straggler", r.straggler}, {"a2a_gbytes_per_s", r.a2a_gbps}, {"port_bound_us", r.port_bound_us}});
  out["moe"] = moe;
  if (!t.interrupted) add_exports_json(t, out);  // derived from whole tables only
  return out;
}

}  // namespace upswitch::top
