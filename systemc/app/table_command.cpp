#include "app/table_command.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "app/cli_lists.h"
#include "app/coll_command.h"
#include "app/config_options.h"
#include "app/numeric_flags.h"
#include "app/resolve_config.h"
#include "app/run_command.h"
#include "app/table_files.h"
#include "config/config.h"
#include "top/astra_export.h"
#include "top/planner_exports.h"
#include "top/planner_table.h"
#include "top/workload_run.h"
#include "version.h"

namespace upswitch::app {
namespace {

struct TableCliOptions {
  RunOptions run;
  CollCliOptions coll;
  uint64_t p2p_max_bytes = 1048576;
  double load = 0.25;
  std::string loaded_sizes = "64,256,4096";
  std::string moe_tokens = "16,64,256", moe_skews = "0,0.5,1";
  int jobs = 2;
  std::string astra_units = "binary";
};

template <class T, class Parse>
std::vector<T> parse_list(const char* option, const std::string& text, const char* expected, Parse parse) {
  std::vector<T> out;
  for (const std::string& item : split_list(text)) {
    try {
      size_t pos = 0;
      out.push_back(parse(item, &pos));
      if (pos != item.size()) throw std::invalid_argument("");
    } catch (const std::exception&) {
      throw config::ConfigError(std::string(option) + " '" + text + "': expected " + expected);
    }
  }
  return out;
}

int table_command(const TableCliOptions& o) {
  config::Config cfg;
  top::PlannerOptions popt;
  try {
    RunOptions ro = o.run;
    ro.sets.push_back("traffic.kind=transactions");
    cfg = resolve_config(ro);
    popt.coll = coll_table_options(o.coll);
    if (popt.coll.algos.empty() && !cfg.accel.reduce.enable)
      popt.coll.algos = {coll::Algorithm::kRing, coll::Algorithm::kOneShot};
    popt.coll.check = false;  // correctness is the tests' business; the table is about time
    popt.p2p.max_bytes = o.p2p_max_bytes;
    popt.moe_tokens = parse_list<int>("--moe-tokens", o.moe_tokens, "a comma-separated list of token counts",
                                      [](const std::string& s, size_t* p) { return std::stoi(s, p); });
    popt.moe_skews = parse_list<double>("--moe-skews", o.moe_skews, "a comma-separated list of Zipf exponents",
                                        [](const std::string& s, size_t* p) { return std::stod(s, p); });
    popt.loaded_load = o.load;
    popt.loaded_sizes = parse_list<uint64_t>("--loaded-sizes", o.loaded_sizes, "a comma-separated list of sizes in bytes",
                                             [](const std::string& s, size_t* p) {
                                               if (!s.empty() && s[0] == '-') throw std::invalid_argument("");
                                               return static_cast<uint64_t>(std::stoull(s, p));
                                             });
    if (o.jobs < 1 || o.jobs > 1024)
      throw config::ConfigError("--jobs " + std::to_string(o.jobs) + ": expected 1 .. 1024 threads");
    popt.jobs = o.jobs;
    if (!top::parse_astra_units(o.astra_units, popt.astra_units))
      throw config::ConfigError("--astra-units '" + o.astra_units +
                                "': expected binary (ASTRA-sim reads GB/s as 2^30 B/s, its released versions) or decimal "
                                "(10^9 B/s)");
    top::check_planner_inputs(cfg, popt);
    if (o.run.out_dir.empty()) throw config::ConfigError("--out is required: the tables are files");
    check_out_dir(o.run.out_dir);
  } catch (const config::ConfigError& e) {
    std::cerr << "upswitch: error: " << e.what() << "\n";
    return 2;
  }
  top::PlannerTable t;
  const bool tty = isatty(2) != 0;
  if (const int status = run_measurement([&] {
        t = top::measure_planner_table(cfg, popt, [&](const char* part, size_t d, size_t n) {
          if (tty) std::fprintf(stderr, "\rtable: %s %zu of %zu   ", part, d, n);
        });
        if (tty) std::fprintf(stderr, "\n");
      }))
    return status;
  // Each CSV starts with a comment naming the version and the configuration (read them with
  // comment='#'); table.json holds the configuration itself.
  const std::string head = std::string("# upswitch ") + UPSWITCH_VERSION + ", configuration " + top::config_hash(cfg) +
                           " (the resolved configuration is in table.json)\n";
  std::vector<std::pair<std::string, std::string>> files = {{"table.json", top::planner_json(t).dump(2) + "\n"},
                                                            {"coll.csv", head + top::coll_csv(t.coll)},
                                                            {"p2p.csv", head + top::p2p_csv(t.p2p)},
                                                            {"p2p_loaded.csv", head + top::loaded_latency_csv(t)},
                                                            {"moe.csv", head + top::moe_table_csv(t)}};
  // The fits and the ASTRA-sim and SimAI files are derived from whole tables: none from an interrupted one.
  if (!t.interrupted)
    for (auto& f : top::planner_export_files(t, head)) files.push_back(std::move(f));
  if (const int st = write_table_files(o.run.out_dir, files)) return st;
  if (t.interrupted) return interrupted_status(o.run.out_dir);
  if (!o.run.quiet) {
    std::printf("wrote %s: table.json, coll.csv (%zu rows), p2p.csv (%zu rows), p2p_loaded.csv (%zu rows), moe.csv (%zu "
                "rows), fits.csv\n",
                o.run.out_dir.c_str(), t.coll.rows.size(), t.p2p.rows.size(), t.loaded.size(), t.moe.size());
    for (int n : top::astra_group_sizes(t)) {
      const top::AstraNetwork a = top::astra_network(t, n);
      const top::AstraDim& d = a.dims.front();
      std::printf("%s: %d NPUs on one switch, %.3f GB/s (%s) and %.1f ns per link; simai_*_n%d\n",
                  top::astra_file_name(n).c_str(), a.npus_count,
                  d.bandwidth_gbps * 1e9 / top::astra_unit_bytes_per_s(a.units), top::astra_units_name(a.units),
                  d.latency_ns, n);
    }
  }
  return 0;
}

}  // namespace

CLI::App* add_table_command(CLI::App& app) {
  auto o = std::make_shared<TableCliOptions>();
  o->coll.colls = "all_reduce,reduce_scatter,all_gather,all_to_all";
  o->coll.algos = "auto,all";  // what NCCL would run beside every algorithm forced (doc/workloads.md)
  o->coll.ranks = "2,4,8";
  o->coll.min_bytes = "64K";
  o->coll.max_bytes = "4M";
  o->coll.step_factor = 4;
  CLI::App* cmd = app.add_subcommand(
      "table", "Tables for planners: collectives, point-to-point, MoE all-to-all, alpha-beta fits, and ASTRA-sim's and "
               "SimAI's network inputs");
  add_config_options(cmd, o->run, "switch.ports=16", true);
  cmd->add_option("--out", o->run.out_dir,
                  "Directory for table.json, coll.csv, p2p.csv, p2p_loaded.csv, moe.csv, fits.csv, astra_network_nN.yml, "
                  "simai_*_nN.*")
      ->required();
  add_coll_selection_options(cmd, o->coll);
  byte_size(cmd->add_option("--p2p-max-bytes", o->p2p_max_bytes, "Largest point-to-point transfer, a power of two (default 1M)"),
            4, kMaxTransferFlagBytes);
  real_number(cmd->add_option("--load", o->load, "Offered load of the loaded-latency rows, fraction of the link (default 0.25)"),
              0, 1, true);
  // Each list's range is its key's: txn.sizes' transfer sizes, moe.tokens, the Zipf exponents check_planner_inputs takes.
  whole_number_list(cmd->add_option("--loaded-sizes", o->loaded_sizes,
                                    "Sizes of the loaded-latency rows in bytes, reads and writes (default 64,256,4096)"),
                    4, int64_t{1} << 30);
  whole_number_list(cmd->add_option("--moe-tokens", o->moe_tokens, "Tokens per rank of the MoE rows (default 16,64,256)"), 1,
                    1048576);
  real_number_list(cmd->add_option("--moe-skews", o->moe_skews, "Zipf exponents of the MoE rows (default 0,0.5,1; 0 = uniform)"),
                   0, 10);
  whole_number(cmd->add_option("--jobs", o->jobs, "Points measured in parallel (default 2; the tables are the same for any value)"),
               1, kMaxThreads);
  cmd->add_option("--astra-units", o->astra_units,
                  "binary (default: ASTRA-sim's released versions read bandwidth in GB/s as 2^30 B/s) or decimal "
                  "(versions that read 10^9 B/s)");
  cmd->add_flag("--quiet", o->run.quiet, "Nothing on stdout");
  cmd->callback([o]() {
    const int status = table_command(*o);
    std::fflush(stdout);
    std::exit(status);
  });
  return cmd;
}

}  // namespace upswitch::app
