#include "app/txn_run.h"

#include <unistd.h>

#include <chrono>
#include <iostream>

#include <fmt/core.h>

#include "app/link_heatmap.h"
#include "app/progress.h"
#include "app/run_outcome.h"
#include "app/table_files.h"
#include "app/thread_choice.h"
#include "sc/txn_sc_run.h"
#include "top/network_report.h"
#include "top/parallel_run.h"
#include "top/switch_down_report.h"
#include "top/txn_fabric.h"
#include "top/txn_report.h"
#include "revision.h"
#include "version.h"

namespace upswitch::app {
namespace {

std::string num_or_dash(const nlohmann::json& v, const char* fmtspec) {
  return v.is_null() ? "-" : fmt::format(fmt::runtime(fmtspec), v.get<double>());
}

void print_txn_summary(const nlohmann::json& s, const top::TxnFabric& f, int threads) {
  const config::Config& c = f.config();
  const std::string where = c.single_switch()
                                ? std::to_string(c.sw.ports) + " ports"
                                : fmt::format("{} endpoints on {} switches ({} endpoint ports)", c.endpoints(),
                                              f.network().switches(), f.network().endpoint_ports());
  fmt::print("upswitch {}: preset {}, {}, {} VCs per class, transactions {} at load {:.3f}, seed {}\n", UPSWITCH_VERSION,
             s["preset"].get<std::string>(), where, c.sw.vcs, c.txn_mix_text, c.txn.load, c.measure.seed);
  const auto& th = s["throughput"];
  fmt::print("  throughput       offered {:.1f}  completed {:.1f} GB/s per port payload (link {:.1f} GB/s)\n",
             th["offered_gbytes_per_s_per_port"].get<double>(), th["completed_gbytes_per_s_per_port"].get<double>(),
             th["link_gbytes_per_s"].get<double>());
  for (const auto& [name, op] : s["ops"].items()) {
    const auto& l = op["latency"];
    fmt::print("  {:<16} {} transfers, latency mean {} p99 {} cycles ({} ns mean)\n", name,
               op["completed"].get<uint64_t>(), num_or_dash(l["mean"], "{:.1f}"), num_or_dash(l["p99"], "{:.0f}"),
               num_or_dash(l["mean_ns"], "{:.1f}"));
  }
  for (const auto& [name, k] : s["link"].items())
    fmt::print("  link {:<11} {:.3f} flits/port/cycle, {:.2f} messages per packet, efficiency {:.3f}\n", name,
               k["flits_per_port_per_cycle"].get<double>(), k["messages_per_packet"].get<double>(),
               k["efficiency"].get<double>());
  if (s.contains("switch_down")) fmt::print("  switch down      {}\n", top::switch_down_line(s["switch_down"]));
  fmt::print("  saturated        {}{}\n", s["saturated"].get<bool>() ? "YES: " : "no",
             s["saturation_reason"].get<std::string>());
  fmt::print("  conservation     {} ({})\n", s["conservation"]["ok"].get<bool>() ? "ok" : "VIOLATED",
             s["conservation"]["checked"].get<std::string>());
  const auto& sim = s["sim"];
  fmt::print("  simulated        {} cycles ({:.2f} us) in {:.2f} s = {:.0f} cycles/s, {:.0f} transfers/s ({} kernel{})\n",
             sim["cycles"].get<uint64_t>(), sim["simulated_ns"].get<double>() / 1000.0, sim["wall_seconds"].get<double>(),
             sim["cycles_per_second"].get<double>(), sim["transfers_per_second"].get<double>(),
             sim["kernel"].get<std::string>(), threads > 1 ? fmt::format(", {} threads", threads) : "");
}

}  // namespace

int run_transactions(const RunOptions& opt, const config::Config& cfg, const std::atomic<bool>& stop) {
  top::TxnFabric fabric(cfg, /*synthetic=*/true);
  top::ParallelPlan plan;
  if (const int st = choose_parallel_plan(opt, cfg, [&](int n) { return top::plan_parallel(fabric, n); }, plan))
    return st;
  const bool parallel = plan.groups > 1;
  const std::string kernel = parallel ? "plain" : opt.kernel;
  Progress progress(cfg.measure.warmup_cycles + cfg.measure.measure_cycles, !opt.quiet && isatty(STDERR_FILENO));
  auto on_cycle = [&](uint64_t t) { progress.update(t); };
  const auto t0 = std::chrono::steady_clock::now();
  const int failed = run_guarded(opt, progress, [&] {
    if (parallel) {
      top::run_parallel(fabric, plan, [&](uint64_t t) {
        if (stop.load(std::memory_order_relaxed)) fabric.endpoints().request_stop();
        on_cycle(t);
      });
    } else if (opt.kernel == "plain") {
      fabric.run_plain([&](uint64_t t) {
        if (stop.load(std::memory_order_relaxed)) fabric.endpoints().request_stop();
        on_cycle(t);
      });
    } else {
      sc::run_systemc(fabric, &stop, on_cycle);
    }
  });
  if (failed) return failed;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const endpoint::TxnResult& r = fabric.endpoints().result();
  const std::vector<std::string> violations =
      cfg.measure.flush && !r.interrupted ? top::check_txn_drained(fabric) : top::check_txn_conservation(fabric);
  nlohmann::json summary = top::build_txn_summary(fabric, top::RunTiming{wall, kernel}, violations);
  summary["upswitch_revision"] = UPSWITCH_REVISION;
  if (!opt.quiet) print_txn_summary(summary, fabric, plan.threads);
  if (!opt.out_dir.empty())
    if (const int st = write_table_files(opt.out_dir, {{"ports.csv", top::txn_ports_csv(fabric)},
                                                       {"links.csv", top::txn_links_csv(fabric)},
                                                       {"links.png", link_heatmap_png(top::switch_port_utilisation(
                                                                         fabric.network(),
                                                                         static_cast<double>(fabric.endpoints().result().window_cycles),
                                                                         cfg.flit_bytes * cfg.clock_ghz))},
                                                       {"latency_hist.csv", top::txn_latency_histogram_csv(fabric)},
                                                       {"summary.json", summary.dump(2) + "\n"}}))
      return st;
  return final_status(opt, violations, r.interrupted, r.end_cycle);
}

}  // namespace upswitch::app
