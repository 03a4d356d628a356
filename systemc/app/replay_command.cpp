#include "app/replay_command.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "app/config_options.h"
#include "app/resolve_config.h"
#include "app/table_files.h"
#include "config/config.h"
#include "top/replay_report.h"
#include "top/trace_replay.h"
#include "traffic/trace.h"

namespace upswitch::app {

CLI::App* add_replay_command(CLI::App& app) {
  auto opt = std::make_shared<RunOptions>();
  auto trace = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "replay", "Replay a JSON Lines trace of timed transactions and collectives (doc/trace.md)");
  cmd->add_option("trace", *trace, "The trace: one JSON object per line")->required();
  add_config_options(cmd, *opt, "switch.ports=16", true);
  cmd->add_option("--out", opt->out_dir, "Write replay.json and replay.csv here");
  cmd->add_flag("--quiet", opt->quiet, "No table on stdout");
  auto placement = std::make_shared<std::string>();
  cmd->add_option("--placement", *placement,
                  "Which endpoints the trace's accelerator ids 0 .. n-1 run on: packed (as written, default), spread "
                  "(dealt over the leaf switches) or a comma-separated endpoint list; the same as --set "
                  "workload.placement=...");
  cmd->callback([opt, trace, placement]() {
    if (!placement->empty()) opt->sets.push_back("workload.placement=" + *placement);
    const int status = replay_command(*trace, *opt);
    std::fflush(stdout);
    std::exit(status);
  });
  return cmd;
}

int replay_command(const std::string& trace_path, const RunOptions& opt) {
  config::Config cfg;
  traffic::Trace trace;
  try {
    RunOptions ro = opt;
    ro.sets.push_back("traffic.kind=transactions");  // a trace is transactions
    cfg = resolve_config(ro);
    trace = top::place_trace(cfg, traffic::read_trace(trace_path));
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
