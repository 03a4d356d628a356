#include "cosim/cosim_command.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "app/numeric_flags.h"
#include "app/resolve_config.h"
#include "app/stop_signals.h"
#include "app/table_files.h"
#include "config/param_table.h"
#include "core/deadlock_error.h"
#include "core/interrupt.h"
#include "cosim/cosim_run.h"
#include "top/report.h"

namespace upswitch::cosim {
namespace {

// --packets: ten million packets are minutes of RTL simulation on the 72-port switch.
constexpr int64_t kMaxPackets = 10'000'000;

Fault parse_fault(const std::string& s) {
  if (s == "none") return Fault::kNone;
  if (s == "model-extra-cycle") return Fault::kModelExtraCycle;
  if (s == "rtl-extra-credit") return Fault::kRtlExtraCredit;
  throw config::ConfigError("--fault '" + s + "': expected none, model-extra-cycle or rtl-extra-credit");
}

// The comparison is of the packet switch alone: a key that changes a packet run but that neither
// the RTL nor the co-simulation harness models is refused, never silently dropped.
bool unmodelled(const std::string& key) {
  for (const char* prefix : {"faults.", "link.dl.", "partition."})
    if (key.rfind(prefix, 0) == 0) return true;
  return false;
}

void check_modelled(const config::Config& c) {
  if (c.kind != config::Config::TrafficKind::kPackets)
    throw config::ConfigError("traffic.kind = transactions: the co-simulation compares packet traffic only (doc/cosim.md)");
  const config::Config defaults = config::default_config();
  for (const config::ParamSpec& p : config::param_table()) {
    if (!unmodelled(p.key)) continue;
    const nlohmann::json v = p.get(c);
    if (v != p.get(defaults))
      throw config::ConfigError(p.key + " = " + (v.is_string() ? v.get<std::string>() : v.dump()) +
                                ": the co-simulation does not model faults, the data-link layer or partitions; "
                                "leave it at its default " + p.default_text + " (doc/cosim.md)");
  }
  if (c.sw.packet_mode)
    throw config::ConfigError("switch.packet_mode = true: the reference RTL allocates flit by flit (packet mode is "
                              "not in rtl_ref/); leave it at its default false (doc/cosim.md)");
  if (c.sw.speedup != 1)
    throw config::ConfigError("switch.speedup = " + std::to_string(c.sw.speedup) +
                              ": the reference RTL's crossbar moves one flit per input and output per cycle; leave "
                              "it at its default 1 (doc/cosim.md)");
  // The sources enforce the cap from the output each credit names, which the RTL's credit word
  // does not carry.
  if (c.sw.shared_buffer_output_cap != 0)
    throw config::ConfigError("switch.shared_buffer_output_cap = " + std::to_string(c.sw.shared_buffer_output_cap) +
                              ": the reference RTL's credits do not name the output the cap counts; leave it at "
                              "its default 0 (doc/cosim.md)");
}

double parse_load(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v) || v < 0 || v > 1)
    throw config::ConfigError("--load '" + text + "': expected a number from 0 to 1 (flits per port per cycle)");
  return v;
}

}  // namespace

config::Config resolve_cosim_config(const CosimCliOptions& opt) {
  app::RunOptions run;
  run.preset = opt.preset;
  run.config_file = opt.config_file;
  run.sets.push_back("link.gbytes_per_s=0");
  if (!opt.pattern.empty()) run.sets.push_back("traffic.pattern=" + opt.pattern);
  if (!opt.load.empty()) run.sets.push_back("traffic.rate=" + fmt::format("{}", parse_load(opt.load)));
  run.sets.insert(run.sets.end(), opt.sets.begin(), opt.sets.end());
  run.seed = opt.seed;
  config::Config c = app::resolve_config(run);
  check_modelled(c);
  if (opt.packets > 0) {
    if (c.traffic.rate <= 0) throw config::ConfigError("--packets needs traffic.rate > 0");
    const double per_cycle = c.sw.ports * c.traffic.rate / c.traffic.mean_packet_flits();
    const auto window = static_cast<uint64_t>(std::ceil(static_cast<double>(opt.packets) / per_cycle));
    c.measure.warmup_cycles = std::min<uint64_t>(c.measure.warmup_cycles, window / 10 + 100);
    c.measure.measure_cycles = window;
    c.sw.window_begin = c.measure.warmup_cycles;
    c.sw.window_end = c.measure.warmup_cycles + c.measure.measure_cycles;
  }
  return c;
}

namespace {

nlohmann::json side_json(const SideStats& s, uint64_t cycles, int ports) {
  const traffic::RunResult& r = s.result;
  uint64_t offered = 0, accepted = 0;
  for (const auto& p : r.ports) {
    offered += p.offered_flits;
    accepted += p.accepted_flits;
  }
  const double denom = static_cast<double>(r.window_cycles) * ports;
  auto lat = [](const stats::Histogram& h) {
    nlohmann::json j;
    j["mean"] = h.count() ? nlohmann::json(h.mean()) : nlohmann::json();
    j["p99"] = h.count() ? nlohmann::json(h.percentile(0.99)) : nlohmann::json();
    return j;
  };
  nlohmann::json j;
  j["packets_delivered"] = r.packets_delivered;
  j["offered"] = denom > 0 ? static_cast<double>(offered) / denom : 0.0;
  j["accepted"] = denom > 0 ? static_cast<double>(accepted) / denom : 0.0;
  j["saturated"] = r.saturated;
  j["packet_latency"] = lat(r.packet_latency);
  j["network_latency"] = lat(r.network_latency);
  j["wall_seconds"] = s.wall_seconds;
  j["cycles_per_second"] = s.wall_seconds > 0 ? static_cast<double>(cycles) / s.wall_seconds : 0.0;
  return j;
}

void print_side(const char* name, const nlohmann::json& j) {
  auto num = [](const nlohmann::json& v) { return v.is_null() ? std::string("-") : fmt::format("{:.2f}", v.get<double>()); };
  fmt::print("  {:<6} offered {:.4f} accepted {:.4f} flits/port/cycle{}; packet latency mean {} p99 {}; "
             "network latency mean {} cycles; {:.0f} cycles/s\n",
             name, j["offered"].get<double>(), j["accepted"].get<double>(), j["saturated"].get<bool>() ? " (saturated)" : "",
             num(j["packet_latency"]["mean"]), num(j["packet_latency"]["p99"]), num(j["network_latency"]["mean"]),
             j["cycles_per_second"].get<double>());
}

}  // namespace

int cosim_command(const CosimCliOptions& opt) {
  config::Config cfg;
  const RtlVariant* variant = nullptr;
  Fault fault;
  try {
    fault = parse_fault(opt.fault);
    cfg = resolve_cosim_config(opt);
    variant = &match_variant(cfg);
    app::check_out_dir(opt.wave_dir, "--wave-dir");
    if (!opt.json_out.empty()) app::check_out_file(opt.json_out, "--json");
  } catch (const config::ConfigError& e) {
    std::cerr << "upswitch: error: " << e.what() << "\n";
    return 2;
  }
  CosimOptions copt;
  copt.wave_dir = opt.wave_dir;
  copt.fault = fault;
  copt.stop = &core::interrupt_flag();
  app::install_stop_signals();
  CosimResult r;
  try {
    r = run_cosim(cfg, *variant, copt);
  } catch (const core::DeadlockError& e) {
    std::cerr << "upswitch: error: " << e.what() << "\n" << e.state();
    return 3;
  } catch (const std::logic_error& e) {
    std::cerr << "upswitch: error: invariant violated: " << e.what() << "\n";
    return 4;
  }

  nlohmann::json j;
  j["variant"] = variant->name;
  j["ports"] = cfg.sw.ports;
  j["allocator"] = cfg.sw.allocator;
  j["pattern"] = opt.pattern;
  j["rate"] = cfg.traffic.rate;
  j["seed"] = cfg.measure.seed;
  j["cycles"] = r.cycles;
  j["agree"] = r.agree;  // with "interrupted": over the cycles compared before the stop
  j["interrupted"] = r.interrupted;
  j["model"] = side_json(r.model, r.cycles, cfg.sw.ports);
  j["rtl"] = side_json(r.rtl, r.cycles, cfg.sw.ports);
  j["rtl_error"] = r.rtl_error;
  if (r.mismatch_found) {
    const Mismatch& m = r.mismatch;
    j["mismatch"] = {{"cycle", m.cycle},           {"port", m.port},
                     {"what", m.what},             {"packet_known", m.packet_known},
                     {"packet_id", m.packet_id},   {"src", m.src},
                     {"dst", m.dst},               {"injected", m.injected},
                     {"expected_delivery", m.expected_delivery}, {"actual_delivery", m.actual_delivery},
                     {"wave_file", m.wave_file}};
  }
  if (!opt.json_out.empty()) {
    try {
      top::write_file_atomic(opt.json_out, j.dump(2) + "\n");
    } catch (const std::exception& e) {
      std::cerr << "upswitch: error: --json: " << config::ConfigError::printable(e.what()) << "\n";
      return 2;
    }
  }

  if (!opt.quiet) {
    fmt::print("upswitch cosim: RTL {} vs model: {} ports, {} VCs, {}{}, {} traffic at {:.3f}, seed {}\n", variant->name,
               cfg.sw.ports, cfg.sw.vcs, cfg.sw.allocator,
               cfg.sw.allocator == "islip" ? fmt::format(" x{}", cfg.sw.allocator_iterations) : "",
               j["pattern"].get<std::string>().empty() ? "configured" : opt.pattern, cfg.traffic.rate, cfg.measure.seed);
    print_side("model", j["model"]);
    print_side("rtl", j["rtl"]);
    fmt::print("  compared {} cycles, {} packets delivered by the model\n", r.cycles, r.model.result.packets_delivered);
  }
  if (!r.rtl_error.empty()) {
    std::cerr << "upswitch: error: " << r.rtl_error << "\n";
    return 4;
  }
  if (r.mismatch_found) {
    const Mismatch& m = r.mismatch;
    fmt::print("  verdict MISMATCH: first difference in {}\n", describe(m));
    if (m.packet_known) {
      auto cyc = [](int64_t c) { return c < 0 ? std::string("not delivered within the tracking limit") : std::to_string(c); };
      fmt::print("  first differing packet {} (source {}, destination {}), injected in cycle {}: expected delivery "
                 "cycle {}, actual {}\n",
                 m.packet_id, m.src, m.dst, m.injected, cyc(m.expected_delivery), cyc(m.actual_delivery));
    }
    if (!m.wave_file.empty())
      fmt::print("  waveform {} (cycles {} .. {}; time = 2 x cycle)\n", m.wave_file, m.wave_from, m.wave_to);
    std::fflush(stdout);
    if (!r.interrupted) return 1;
  }
  if (r.interrupted) {
    if (!r.mismatch_found && !opt.quiet)
      fmt::print("  verdict INTERRUPTED: every port's flit and credit identical in the {} cycles compared\n", r.cycles);
    std::fflush(stdout);
    std::cerr << "upswitch: interrupted at cycle " << r.cycles << "; the comparison so far was "
              << (opt.json_out.empty() ? "printed" : "written to --json") << ", marked \"interrupted\": true\n";
    return app::stopped_status();
  }
  if (!opt.quiet) fmt::print("  verdict AGREE: every port's flit and credit identical in every cycle\n");
  return 0;
}

CLI::App* add_cosim_command(CLI::App& app) {
  auto opt = std::make_shared<CosimCliOptions>();
  CLI::App* cmd = app.add_subcommand("cosim", "Compare the model with the reference RTL (Verilator), cycle for cycle");
  cmd->add_option("--preset", opt->preset, "Start from a named preset (tiny = 8 ports, ualink-x4 = 72 ports)");
  cmd->add_option("--config", opt->config_file, "YAML configuration file");
  cmd->add_option("--set", opt->sets, "Override a key: --set switch.allocator=separable_input_first (repeatable)")
      ->take_all();
  cmd->add_option("--pattern", opt->pattern, "Traffic pattern (traffic.pattern)");
  app::real_number(cmd->add_option("--load", opt->load, "Offered load in flits/port/cycle (traffic.rate)"), 0, 1);
  app::whole_number(cmd->add_option("--packets", opt->packets, "Size the measurement window for about this many packets"), 1,
                    kMaxPackets);
  app::whole_number(cmd->add_option("--seed", opt->seed, "Random seed (the same as --set sim.seed=N; give one of the two)"),
                    0, app::kMaxSeed);
  cmd->add_option("--wave-dir", opt->wave_dir, "Where a mismatch writes its waveform (default: current directory)");
  cmd->add_option("--fault", opt->fault, "Test hook: none, model-extra-cycle, rtl-extra-credit");
  cmd->add_option("--json", opt->json_out, "Write the verdict and both sides' results as JSON here");
  cmd->add_flag("--quiet", opt->quiet, "Print only errors and a mismatch report");
  cmd->callback([opt]() {
    const int status = cosim_command(*opt);
    std::fflush(stdout);
    std::exit(status);
  });
  return cmd;
}

}  // namespace upswitch::cosim
