#include "app/p2p_command.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>

#include "app/config_options.h"
#include "app/numeric_flags.h"
#include "app/resolve_config.h"
#include "app/run_command.h"

#include "app/table_files.h"
#include "config/config.h"
#include "core/deadlock_error.h"
#include "top/p2p_table.h"
#include "top/report.h"

namespace upswitch::app {
namespace {

// "all" or OP,OP,... (tl opcode names).
std::vector<tl::Opcode> parse_ops(const std::string& text) {
  std::vector<tl::Opcode> ops;
  if (text == "all") return ops;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    tl::Opcode op;
    if (!tl::parse_opcode(item.c_str(), op))
      throw config::ConfigError("--ops '" + text + "': expected all or a comma-separated list of read, write, "
                                "writefull, atomic_r, atomic_nr");
    ops.push_back(op);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return ops;
}

}  // namespace

CLI::App* add_p2p_command(CLI::App& app) {
  auto opt = std::make_shared<P2pCliOptions>();
  CLI::App* cmd = app.add_subcommand(
      "p2p", "Point-to-point table per operation and size: latency, pair and uniform-random bandwidth, efficiency");
  add_config_options(cmd, opt->config_file, opt->preset, opt->sets, nullptr, "accel.mem_latency_cycles=96");
  cmd->add_option("--out", opt->out_dir, "Write p2p.csv and p2p.json here");
  cmd->add_option("--ops", opt->ops, "all (default) or a comma-separated list: read,write,writefull,atomic_r,atomic_nr");
  byte_size(cmd->add_option("--max-bytes", opt->max_bytes, "Largest transfer, a power of two (default 1M)"), 4,
            kMaxTransferFlagBytes);
  whole_number(cmd->add_option("--warmup-cycles", opt->warmup_cycles,
                               "Uniform random runs: cycles before the measurement window (default 4000; more for large "
                               "transfers)"),
               0, kMaxFlagCycles);
  whole_number(cmd->add_option("--measure-cycles", opt->measure_cycles,
                               "Uniform random runs: the measurement window (default 4000; more for large transfers)"),
               1, kMaxFlagCycles);
  whole_number(cmd->add_option("--pair-warmup-cycles", opt->pair_warmup_cycles,
                               "Pair streams: cycles before the window (default 2000)"),
               0, kMaxFlagCycles);
  whole_number(cmd->add_option("--pair-measure-cycles", opt->pair_measure_cycles,
                               "Pair streams: the measurement window (default 10000)"),
               1, kMaxFlagCycles);
  whole_number(cmd->add_option("--jobs", opt->jobs,
                               "Rows measured in parallel threads (default 2; the table is the same for any value)"),
               1, kMaxThreads);
  cmd->add_flag("--quiet", opt->quiet, "No table on stdout");
  cmd->callback([opt]() {
    const int status = p2p_command(*opt);
    std::fflush(stdout);
    std::exit(status);
  });
  return cmd;
}

int p2p_command(const P2pCliOptions& opt) {
  config::Config cfg;
  top::P2pOptions popt;
  try {
    RunOptions ro;
    ro.config_file = opt.config_file;
    ro.preset = opt.preset;
    ro.sets = opt.sets;
    ro.sets.push_back("traffic.kind=transactions");  // forced: the table is about transactions
    cfg = resolve_config(ro);
    popt.ops = parse_ops(opt.ops);
    popt.max_bytes = opt.max_bytes;
    popt.jobs = opt.jobs;
    popt.random_warmup_cycles = opt.warmup_cycles;
    popt.random_measure_cycles = opt.measure_cycles;
    popt.pair_warmup_cycles = opt.pair_warmup_cycles;
    popt.pair_measure_cycles = opt.pair_measure_cycles;
    top::check_p2p_inputs(cfg, popt);
    if (!opt.out_dir.empty()) check_out_dir(opt.out_dir);  // created only once the table is complete
  } catch (const config::ConfigError& e) {
    std::cerr << "upswitch: error: " << e.what() << "\n";
    return 2;
  }

  top::P2pTable table;
  if (const int status = run_measurement([&] { table = top::measure_p2p_table(cfg, popt); })) return status;
  // Files only once every row is known: a failed run leaves nothing behind.
  if (!opt.out_dir.empty())
    if (const int status = write_table_files(opt.out_dir, {{"p2p.csv", top::p2p_csv(table)},
                                                           {"p2p.json", top::p2p_json(table).dump(2) + "\n"}}))
      return status;
  if (!opt.quiet) std::cout << top::p2p_text(table);
  return table.interrupted ? interrupted_status(opt.out_dir) : 0;
}

}  // namespace upswitch::app
