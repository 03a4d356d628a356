#include "app/replay_command.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "app/config_options.h"
#include "app/resolve_config.h"
#include "app/table_files.h"
#include "chakra/chakra_trace.h"
#include "config/config.h"
#include "top/replay_report.h"
#include "top/trace_replay.h"
#include "traffic/trace.h"

namespace upswitch::app {

CLI::App* add_replay_command(CLI::App& app) {
  auto opt = std::make_shared<RunOptions>();
  auto in = std::make_shared<ReplayInput>();
  CLI::App* cmd = app.add_subcommand(
      "replay", "Replay a JSON Lines trace of timed transactions, collectives and compute, or Chakra execution traces "
                "(doc/trace.md)");
  CLI::Option* trace = cmd->add_option("trace", in->trace, "The trace: one JSON object per line");
  CLI::Option* chakra = cmd->add_option("--chakra", in->chakra,
                                        "Replay Chakra execution traces PREFIX.0.et, PREFIX.1.et, ... (one per rank) instead");
  cmd->add_option("--chakra-groups", in->chakra_groups,
                  "Communicator groups of the Chakra traces, as ASTRA-sim's comm-group JSON {\"name\": [ranks]} "
                  "(default: PREFIX.groups.json if it exists, else every collective spans all ranks)")
      ->needs(chakra);
  trace->excludes(chakra);
  add_config_options(cmd, *opt, "switch.ports=16", true);
  cmd->add_option("--out", opt->out_dir, "Write replay.json and replay.csv here");
  cmd->add_flag("--quiet", opt->quiet, "No table on stdout");
  auto placement = std::make_shared<std::string>();
  cmd->add_option("--placement", *placement,
                  "Which endpoints the trace's accelerator ids 0 .. n-1 run on: packed (as written, default), spread "
                  "(dealt over the leaf switches) or a comma-separated endpoint list; the same as --set "
                  "workload.placement=...");
  cmd->callback([opt, in, placement]() {
    if (in->trace.empty() && in->chakra.empty()) {
      std::cerr << "upswitch: error: replay: give a trace file, or --chakra PREFIX\n";
      std::exit(2);
    }
    if (!placement->empty()) opt->sets.push_back("workload.placement=" + *placement);
    const int status = replay_command(*in, *opt);
    std::fflush(stdout);
    std::exit(status);
  });
  return cmd;
}

int replay_command(const ReplayInput& in, const RunOptions& opt) {
  config::Config cfg;
  traffic::Trace trace;
  try {
    RunOptions ro = opt;
    ro.sets.push_back("traffic.kind=transactions");  // a trace is transactions
    cfg = resolve_config(ro);
    traffic::Trace read = in.chakra.empty() ? traffic::read_trace(in.trace)
                                            : chakra::to_trace(chakra::read_chakra(in.chakra, in.chakra_groups));
    trace = top::place_trace(cfg, std::move(read));
    top::check_trace(cfg, trace);
    if (!opt.out_dir.empty()) check_out_dir(opt.out_dir);  // written only once the replay is complete
  } catch (const config::ConfigError& e) {
    std::cerr << "upswitch: error: " << e.what() << "\n";
    return 2;
  }
  top::ReplayResult result;
  if (const int status = run_measurement([&] { result = top::replay_trace(cfg, trace); })) return status;
  if (!opt.out_dir.empty())
    if (const int st = write_table_files(opt.out_dir, {{"replay.json", top::replay_json(result).dump(2) + "\n"},
                                                       {"replay.csv", top::replay_csv(result)}}))
      return st;
  if (!opt.quiet) std::cout << top::replay_text(result);
  return result.interrupted ? interrupted_status(opt.out_dir) : 0;
}

}  // namespace upswitch::app
