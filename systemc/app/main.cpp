// The `upswitch` command line (CLI11). Contract: README.md, "Command line".
#include <cstdlib>
#include <iostream>

#include <CLI/CLI.hpp>
#include <systemc>

#include "app/coll_command.h"
#include "app/numeric_flags.h"
#include "app/config_options.h"
#include "app/p2p_command.h"
#include "app/replay_command.h"
#include "app/table_files.h"
#include "app/run_command.h"
#include "app/stop_signals.h"
#include "app/table_command.h"
#include "app/topo_command.h"
#include "app/workload_command.h"
#include "config/config.h"
#include "config/param_table.h"
#include "config/presets.h"
#include "revision.h"
#include "version.h"
#ifdef UPSWITCH_HAVE_COSIM
#include "cosim/cosim_command.h"
#endif

namespace {

int print_keys(bool markdown) {
  if (markdown) {
    std::cout << upswitch::config::config_reference_markdown();
    return 0;
  }
  for (const auto& p : upswitch::config::param_table())
    std::cout << p.key << " = " << p.default_text << "  [" << p.type << (p.unit.empty() ? "" : ", " + p.unit)
              << "; " << p.allowed << "]  " << p.description << "\n";
  return 0;
}

int print_presets() {
  for (const auto& p : upswitch::config::presets()) std::cout << p.name << ": " << p.description << "\n";
  return 0;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  // From the start, so that a SIGTERM or Ctrl-C while a command reads its inputs already means
  // "stop, keep what is complete, exit 143 or 130" (app/stop_signals.h), never a silent death.
  upswitch::app::install_stop_signals();
  // The kernel's "simulation stopped" note is not a result: keep stdout for the summary.
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  CLI::App app{"upswitch: cycle-level model of a scale-up (UALink/NVSwitch-class) switch"};
  app.set_version_flag("--version", std::string("upswitch ") + UPSWITCH_VERSION + " (" + UPSWITCH_REVISION + ")");
  app.require_subcommand(1);

  upswitch::app::RunOptions run;
  CLI::App* run_cmd = app.add_subcommand("run", "Simulate one configuration and report latency and throughput");
  upswitch::app::add_config_options(run_cmd, run, "switch.ports=16", true);
  run_cmd->add_option("--out", run.out_dir, "Write summary.json, ports.csv, links.csv, links.png and latency_hist.csv here");
  CLI::Option* kernel_opt =
      run_cmd->add_option("--kernel", run.kernel, "systemc (default) or plain (the same model without the kernel)");
  CLI::Option* threads_opt = run_cmd->add_option("--threads", run.threads,
                      "Threads for a network of switches (packets or transactions): above 1 the plain driver runs the switches in "
                      "parallel, with byte-identical results (doc/performance.md \"Parallel execution\"); one switch runs on two, "
                      "its endpoints on one and the switch on the other; default: every core when a network can be split and "
                      "--kernel is not given, else 1. One thread with the plain driver on a network of switches still runs "
                      "window by window, each switch through a window at a time (faster, the same results)");
  upswitch::app::whole_number(threads_opt, 1, upswitch::app::kMaxThreads);
  run_cmd->add_flag("--quiet", run.quiet, "No summary on stdout, no progress");

  bool markdown = false;
  CLI::App* keys_cmd = app.add_subcommand("keys", "List every configuration key with default, unit and range");
  keys_cmd->add_flag("--markdown", markdown, "Print the Markdown reference (doc/config.md)");
  CLI::App* presets_cmd = app.add_subcommand("presets", "List the presets");
  upswitch::app::add_p2p_command(app);
  upswitch::app::add_topo_command(app);
  upswitch::app::add_coll_command(app);
  upswitch::app::add_workload_command(app);
  upswitch::app::add_replay_command(app);
  upswitch::app::add_table_command(app);
#ifdef UPSWITCH_HAVE_COSIM
  upswitch::cosim::add_cosim_command(app);
#endif

  // The subcommands run inside parse() (their callbacks end the process with their status). What
  // escapes them is turned into one line here, never SystemC's "uncaught exception" report.
  try {
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
      std::cerr << "upswitch: error: " << upswitch::config::ConfigError::printable(e.what())
                << " (see upswitch --help)\n";
      return 2;
    }
    if (run_cmd->parsed()) {
      run.kernel_given = kernel_opt->count() > 0;
      return upswitch::app::run_command(run);
    }
    if (keys_cmd->parsed()) return print_keys(markdown);
    if (presets_cmd->parsed()) return print_presets();
  } catch (const upswitch::config::ConfigError& e) {
    std::cerr << "upswitch: error: " << e.what() << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << upswitch::app::out_of_memory_line() << "\n";
    return 2;
  } catch (const std::exception& e) {  // a model defect: reported like a broken invariant
    std::cerr << "upswitch: error: internal error: " << upswitch::config::ConfigError::printable(e.what()) << "\n";
    return 4;
  }
  return 2;
}
