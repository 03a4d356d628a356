#include "app/workload_command.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "app/config_options.h"
#include "app/resolve_config.h"
#include "app/table_files.h"
#include "chakra/workload_chakra.h"
#include "config/config.h"
#include "top/workload_run.h"

namespace upswitch::app {

CLI::App* add_workload_command(CLI::App& app) {
  auto opt = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand(
      "workload", "MoE dispatch/combine all-to-alls and TP collectives from model dimensions (moe.*, tp.*, workload.*)");
  add_config_options(cmd, *opt, "moe.gating=zipf", true);
  cmd->add_option("--out", opt->out_dir, "Write workload.json, workload_steps.csv, workload_layers.csv and workload_phases.csv here");
  cmd->add_flag("--quiet", opt->quiet, "No table on stdout");
  auto placement = std::make_shared<std::string>();
  cmd->add_option("--placement", *placement,
                  "Which endpoints the ranks run on: packed (rank i on endpoint i, default), spread (dealt over the leaf "
                  "switches) or a comma-separated endpoint list; the same as --set workload.placement=...");
  auto chakra = std::make_shared<std::string>();
  cmd->add_option("--chakra", *chakra,
                  "Also write the workload as Chakra execution traces PREFIX.<rank>.et and its communicator groups "
                  "PREFIX.groups.json (for ASTRA-sim, or upswitch replay --chakra), before it runs");
  cmd->callback([opt, placement, chakra]() {
    if (!placement->empty()) opt->sets.push_back("workload.placement=" + *placement);
    const int status = workload_command(*opt, *chakra);
    std::fflush(stdout);
    std::exit(status);
  });
  return cmd;
}

int workload_command(const RunOptions& opt, const std::string& chakra_prefix) {
  config::Config cfg;
  try {
    RunOptions ro = opt;
    ro.sets.push_back("traffic.kind=transactions");  // the workloads are transactions
    cfg = resolve_config(ro);
    top::check_workload(cfg);
    if (!opt.out_dir.empty()) check_out_dir(opt.out_dir);  // written only once the run is complete
    if (!chakra_prefix.empty()) {
      check_out_prefix(chakra_prefix, "--chakra");
      const auto traces = chakra::workload_chakra(cfg, chakra_prefix);
      create_prefix_dir(chakra_prefix, "--chakra");  // as --out creates its folders
      chakra::write_chakra(traces);
    }
  } catch (const config::ConfigError& e) {
    std::cerr << "upswitch: error: " << e.what() << "\n";
    return 2;
  }
  top::WorkloadResult result;
  if (const int status = run_measurement([&] { result = top::run_workload(cfg); })) return status;
  if (!opt.out_dir.empty())
    if (const int st = write_table_files(opt.out_dir, {{"workload.json", top::workload_json(result).dump(2) + "\n"},
                                                       {"workload_steps.csv", top::workload_steps_csv(result)},
                                                       {"workload_layers.csv", top::workload_layers_csv(result)},
                                                       {"workload_phases.csv", top::workload_phases_csv(result)}}))
      return st;
  if (!opt.quiet) std::cout << top::workload_text(result);
  return result.interrupted ? interrupted_status(opt.out_dir) : 0;
}

}  // namespace upswitch::app
