#include "app/run_command.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>

#include <fmt/core.h>

#include "app/link_heatmap.h"
#include "app/progress.h"
#include "app/resolve_config.h"
#include "app/run_outcome.h"
#include "app/stop_signals.h"
#include "app/table_files.h"
#include "app/thread_choice.h"
#include "app/txn_run.h"
#include "config/param_table.h"
#include "core/interrupt.h"
#include "core/switch_core.h"
#include "sc/sc_run.h"
#include "top/conservation.h"
#include "top/fabric.h"
#include "top/network_report.h"
#include "top/parallel_run.h"
#include "top/report.h"
#include "top/switch_down_report.h"
#include "revision.h"
#include "version.h"

namespace upswitch::app {
namespace {

void print_summary(const nlohmann::json& s, const top::Fabric& f, int threads) {
  const config::Config& c = f.config();
  const auto& lat = s["latency"];
  auto line = [&](const char* name, const nlohmann::json& l) {
    if (l["mean"].is_null()) {
      fmt::print("  {:<16} not reported (run saturated or interrupted)\n", name);
      return;
    }
    fmt::print("  {:<16} mean {:.1f}  p50 {}  p99 {}  p99.9 {}  max {} cycles  (mean {:.1f} ns, p99 {:.1f} ns)\n",
               name, l["mean"].get<double>(), l["p50"].get<uint64_t>(), l["p99"].get<uint64_t>(),
               l["p999"].get<uint64_t>(), l["max"].get<uint64_t>(), l["mean_ns"].get<double>(),
               l["p99_ns"].get<double>());
  };
  const auto& topo = s["topology"];
  const std::string shape =
      c.single_switch() ? fmt::format("{} ports", c.sw.ports)
                        : fmt::format("{} topology: {} switches, {} endpoints x {} ports", topo["kind"].get<std::string>(),
                                      topo["switches"].get<int>(), topo["endpoints"].get<int>(),
                                      s["throughput"]["ports_per_endpoint"].get<double>());
  fmt::print("upswitch {}: preset {}, {}, {} queueing, {}{}, {} VCs, {} traffic at {:.3f}, seed {}\n",
             UPSWITCH_VERSION, s["preset"].get<std::string>(), shape, s["config"]["switch"]["queueing"].get<std::string>(),
             c.sw.allocator, c.sw.allocator == "islip" ? fmt::format(" x{}", c.sw.allocator_iterations) : "",
             c.sw.vcs, s["config"]["traffic"]["pattern"].get<std::string>(), c.traffic.rate, c.measure.seed);
  const auto& th = s["throughput"];
  fmt::print("  throughput       offered {:.4f}  accepted {:.4f} flits/port/cycle  ({:.1f} GB/s per port, {:.0f} GB/s total)\n",
             th["offered"].get<double>(), th["accepted"].get<double>(),
             th["accepted_gbytes_per_s_per_port"].get<double>(), th["accepted_gbytes_per_s_total"].get<double>());
  if (!c.single_switch())
    fmt::print("  per endpoint     {:.1f} GB/s accepted ({:.1f} GB/s of links; bisection {:.0f} GB/s)\n",
               th["accepted_gbytes_per_s_per_endpoint"].get<double>(), topo["endpoint_gbytes_per_s"].get<double>(),
               topo["bisection_gbytes_per_s"].get<double>());
  const auto& fl = s["flows"];
  if (!fl["hot_ports"].empty())
    fmt::print("  flows            hot offered {:.4f} accepted {:.4f} flits/cycle; cold offered {:.4f} accepted {:.4f} "
               "flits/port/cycle\n",
               fl["hot"]["offered"].get<double>(), fl["hot"]["accepted"].get<double>(),
               fl["cold"]["offered_per_source"].get<double>(), fl["cold"]["accepted_per_source"].get<double>());
  fmt::print("  fairness         Jain {:.4f} over sources, {:.4f} over destinations (accepted)\n",
             s["fairness"]["jain_sources"].get<double>(), s["fairness"]["jain_destinations"].get<double>());
  line("packet latency", lat["packet"]);
  line("network latency", lat["network"]);
  fmt::print("  zero-load        {} cycles ({:.1f} ns) for a {}-flit packet\n", lat["zero_load_cycles"].get<uint64_t>(),
             lat["zero_load_cycles"].get<double>() / c.clock_ghz, c.traffic.packet_flits);
  const auto& sw = s["switch"];
  fmt::print("  switch           buffer mean {:.2f} flits/port (peak {}), crossbar utilisation {:.3f}, credit stalls {} cycles\n",
             sw["mean_buffer_occupancy_flits"].get<double>(), sw["peak_buffer_occupancy_flits"].get<uint64_t>(),
             sw["xbar_utilisation"].get<double>(), sw["credit_stall_cycles"].get<uint64_t>());
  if (s.contains("switch_down")) fmt::print("  switch down      {}\n", top::switch_down_line(s["switch_down"]));
  fmt::print("  saturated        {}{}\n", s["saturated"].get<bool>() ? "YES: " : "no",
             s["saturation_reason"].get<std::string>());
  fmt::print("  conservation     {} ({})\n", s["conservation"]["ok"].get<bool>() ? "ok" : "VIOLATED",
             s["conservation"]["checked"].get<std::string>());
  const auto& sim = s["sim"];
  fmt::print("  simulated        {} cycles ({:.2f} us) in {:.2f} s = {:.0f} cycles/s ({} kernel{})\n",
             sim["cycles"].get<uint64_t>(), sim["simulated_ns"].get<double>() / 1000.0, sim["wall_seconds"].get<double>(),
             sim["cycles_per_second"].get<double>(), sim["kernel"].get<std::string>(),
             threads > 1 ? fmt::format(", {} threads", threads) : "");
}


// links.png: the links' utilisation over the measurement window, one row per switch.
std::string link_heatmap(const top::Fabric& f) {
  const config::Config& c = f.config();
  return link_heatmap_png(top::switch_port_utilisation(
      f.network(), static_cast<double>(f.endpoints().result().window_cycles), c.flit_bytes * c.clock_ghz));
}

}  // namespace

int run_command(const RunOptions& opt) {
  config::Config cfg;
  try {
    cfg = resolve_config(opt);
    if (opt.kernel != "systemc" && opt.kernel != "plain")
      throw config::ConfigError("--kernel '" + opt.kernel + "': expected systemc or plain");
    if (opt.threads != 0) {
      if (const std::string why = top::parallel_refusal(cfg, opt.threads); !why.empty()) throw config::ConfigError(why);
      if (opt.threads > 1 && opt.kernel_given && opt.kernel == "systemc")
        throw config::ConfigError("--threads " + std::to_string(opt.threads) +
                                  " with --kernel systemc: the SystemC kernel runs one process at a time, so parallel "
                                  "runs use the plain driver; expected --kernel plain or --threads 1");
    }
  } catch (const config::ConfigError& e) {
    std::cerr << "upswitch: error: " << e.what() << "\n";
    return 2;
  }
  if (!opt.out_dir.empty()) {
    try {
      check_out_dir(opt.out_dir);  // before the run; the files are written only at its end
    } catch (const config::ConfigError& e) {
      std::cerr << "upswitch: error: " << e.what() << "\n";
      return 2;
    }
  }

  install_stop_signals();
  std::atomic<bool>& stop = core::interrupt_flag();
  if (cfg.kind == config::Config::TrafficKind::kTransactions) return run_transactions(opt, cfg, stop);

  top::Fabric fabric(cfg);
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

  const traffic::RunResult& r = fabric.endpoints().result();
  const std::vector<std::string> violations =
      cfg.measure.flush && !r.interrupted ? top::check_drained(fabric) : top::check_conservation(fabric);
  nlohmann::json summary = top::build_summary(fabric, top::RunTiming{wall, kernel}, violations);
  summary["upswitch_revision"] = UPSWITCH_REVISION;
  if (!opt.quiet) print_summary(summary, fabric, parallel ? plan.threads : 1);
  if (!opt.out_dir.empty())
    if (const int st = write_table_files(opt.out_dir, {{"ports.csv", top::ports_csv(fabric)},
                                                       {"links.csv", top::links_csv(fabric)},
                                                       {"links.png", link_heatmap(fabric)},
                                                       {"latency_hist.csv", top::latency_histogram_csv(fabric)},
                                                       {"summary.json", summary.dump(2) + "\n"}}))
      return st;
  return final_status(opt, violations, r.interrupted, r.end_cycle);
}

}  // namespace upswitch::app
