#include "app/coll_command.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>

#include "app/cli_lists.h"
#include "app/config_options.h"
#include "app/numeric_flags.h"
#include "app/resolve_config.h"
#include "app/run_command.h"
#include "app/table_files.h"
#include "config/config.h"
#include "core/deadlock_error.h"
#include "top/coll_table.h"
#include "top/report.h"

namespace upswitch::app {
namespace {

[[noreturn]] void bad(const std::string& what) { throw config::ConfigError(what); }

// nccl-tests sizes: a number with an optional K, M or G suffix (powers of 1024).
uint64_t parse_size(const char* option, const std::string& text) {
  size_t pos = 0;
  uint64_t v = 0;
  try {
    if (text.empty() || text[0] == '-') throw std::invalid_argument("");
    v = std::stoull(text, &pos);
  } catch (const std::exception&) {
    bad(std::string(option) + " '" + text + "': expected a byte count such as 8, 256K, 64M or 1G");
  }
  const std::string suffix = text.substr(pos);
  int shift = 0;
  if (suffix == "K" || suffix == "k") shift = 10;
  else if (suffix == "M" || suffix == "m") shift = 20;
  else if (suffix == "G" || suffix == "g") shift = 30;
  else if (!suffix.empty()) bad(std::string(option) + " '" + text + "': expected a byte count such as 8, 256K, 64M or 1G");
  if (v > (uint64_t{1} << 40) >> shift) bad(std::string(option) + " '" + text + "': expected at most 1T");
  return v << shift;
}

}  // namespace

top::CollTableOptions coll_table_options(const CollCliOptions& o) {
  top::CollTableOptions t;
  t.colls.clear();
  if (o.colls == "all") {
    for (int c = 0; c < coll::kCollectives; ++c) t.colls.push_back(static_cast<coll::Collective>(c));
  } else {
    for (const std::string& s : split_list(o.colls)) {
      coll::Collective c;
      if (!coll::parse_collective(s, c))
        bad("--coll '" + o.colls + "': expected all or a comma-separated list of all_reduce, reduce_scatter, all_gather, "
            "broadcast, all_to_all");
      t.colls.push_back(c);
    }
  }
  if (o.algos != "all") {
    // "all" in a list: every algorithm this switch can run, forced (`table`'s default: auto,all).
    bool all = false;
    const std::string expected = "--algo '" + o.algos +
                                 "': expected all or a comma-separated list of auto, all, ring, oneshot, switch (each "
                                 "once; all names every forced algorithm, so not with ring, oneshot or switch)";
    for (const std::string& s : split_list(o.algos)) {
      coll::Algorithm a;
      if (s == "auto" && !t.auto_rows) {
        t.auto_rows = true;
        continue;
      }
      if (s == "all" && !all) {
        all = true;
        continue;
      }
      if (!coll::parse_algorithm(s, a) || std::find(t.algos.begin(), t.algos.end(), a) != t.algos.end()) bad(expected);
      t.algos.push_back(a);
    }
    if (all && !t.algos.empty()) bad(expected);
    t.forced_rows = all || !t.algos.empty();
  }
  if (!o.protocols.empty()) {
    const std::string list = o.protocols == "all" ? "simple,ll128,ll" : o.protocols;
    for (const std::string& s : split_list(list)) {
      coll::Protocol p;
      if (!coll::parse_protocol(s, p))
        bad("--protocol '" + o.protocols + "': expected all or a comma-separated list of simple, ll128, ll");
      t.protocols.push_back(p);
    }
  }
  std::string perr;
  if (!top::parse_placement(o.placement, t.placement, perr)) bad("--placement '" + o.placement + "': " + perr);
  const bool list = t.placement.kind == top::Placement::Kind::kList;
  const std::string ranks = list && !o.ranks_given ? std::to_string(t.placement.list.size()) : o.ranks;
  t.group_sizes.clear();
  for (const std::string& s : split_list(ranks)) {
    int n = 0;
    try {
      size_t pos = 0;
      n = std::stoi(s, &pos);
      if (pos != s.size()) throw std::invalid_argument("");
    } catch (const std::exception&) {
      bad("--ranks '" + o.ranks + "': expected a comma-separated list of group sizes such as 2,8,72");
    }
    t.group_sizes.push_back(n);
  }
  if (!tl::parse_red_type(o.type.c_str(), t.type))
    bad("--type '" + o.type + "': expected f32, f16, bf16, f64, s32, s64, u32 or u64");
  if (!tl::parse_red_op(o.op.c_str(), t.op)) bad("--op '" + o.op + "': expected sum, min, max, and, or or xor");
  t.min_bytes = parse_size("--min-bytes", o.min_bytes);
  t.max_bytes = parse_size("--max-bytes", o.max_bytes);
  t.slice_bytes = o.slice_bytes == "auto" ? 0 : parse_size("--slice-bytes", o.slice_bytes);
  t.step_factor = o.step_factor;
  t.root = o.root;
  t.check = !o.no_check;
  if (o.jobs < 1 || o.jobs > 1024) bad("--jobs " + std::to_string(o.jobs) + ": expected 1 .. 1024 threads");
  t.jobs = o.jobs;
  if (o.threads < 1 || o.threads > 1024) bad("--threads " + std::to_string(o.threads) + ": expected 1 .. 1024 threads");
  t.threads = o.threads_given ? o.threads : 0;
  return t;
}

void add_coll_selection_options(CLI::App* cmd, CollCliOptions& o) {
  cmd->add_option("--coll", o.colls,
                  "all, or a comma-separated list of all_reduce, reduce_scatter, all_gather, broadcast, all_to_all "
                  "(default " + o.colls + ")");
  cmd->add_option("--algo", o.algos, "all (every algorithm, forced), or a comma-separated list of auto (the algorithm, protocol and channels "
                  "the cost model picks per size, doc/nccl.md), all, ring, oneshot, switch (default " + o.algos + ")");
  whole_number_list(cmd->add_option("--ranks", o.ranks,
                                    "Group sizes, comma-separated (default " + o.ranks + "; with a --placement list, its length)"),
                    1, kMaxRanks)
      ->each([&o](const std::string&) { o.ranks_given = true; });
  cmd->add_option("--placement", o.placement,
                  "Which endpoints a group takes: packed (the lowest ids, default), spread (dealt over the leaf "
                  "switches), or a comma-separated endpoint list in ring order");
  cmd->add_option("--type", o.type, "Element type: f32, f16, bf16, f64, s32, s64, u32, u64 (default " + o.type + ")");
  byte_size(cmd->add_option("--min-bytes,-b", o.min_bytes, "Smallest size, nccl-tests' -b (default " + o.min_bytes + ")"), 1,
            kMaxFlagBytes);
  byte_size(cmd->add_option("--max-bytes,-e", o.max_bytes, "Largest size, nccl-tests' -e (default " + o.max_bytes + ")"), 1,
            kMaxFlagBytes);
  whole_number(cmd->add_option("--step-factor,-f", o.step_factor,
                               "Size multiplier between rows, nccl-tests' -f (default " + std::to_string(o.step_factor) + ")"),
               2, 1024);
}

CLI::App* add_coll_command(CLI::App& app) {
  auto opt = std::make_shared<CollCliOptions>();
  CLI::App* cmd = app.add_subcommand(
      "coll", "Collective table like nccl-tests: time, algorithm and bus bandwidth per collective, algorithm, group and size");
  add_config_options(cmd, opt->config_file, opt->preset, opt->sets, nullptr, "reduce.contexts=64");
  cmd->add_option("--out", opt->out_dir, "Write coll.csv and coll.json here");
  add_coll_selection_options(cmd, *opt);
  cmd->add_option("--protocol", opt->protocols,
                  "The ring's protocol: all, or a comma-separated list of simple, ll128, ll, one row set each (default: "
                  "the configuration's coll.protocol; oneshot and switch rows use simple; doc/nccl.md)");
  cmd->add_option("--op", opt->op, "Reduction: sum (default), min, max, and, or, xor");
  byte_size(cmd->add_option("--slice-bytes", opt->slice_bytes,
                            "Pipelining slice: auto (default: ring chunk/8 in 4K..64K, switch 8K) or a size, a multiple of 256"),
            256, uint64_t{1} << 30, "auto");
  whole_number(cmd->add_option("--root", opt->root, "Broadcast root, a rank index (default 0)"), 0, kMaxRanks - 1);
  cmd->add_flag("--no-check", opt->no_check, "Skip comparing the results with the host reference");
  whole_number(cmd->add_option("--jobs", opt->jobs,
                               "Points measured in parallel threads (default 2; the table is the same for any value)"),
               1, kMaxThreads);
  whole_number(cmd->add_option("--threads", opt->threads,
                  "Threads per point, its switches (each with its reduction-engine units) split between them; one switch: "
                  "its accelerators and the switch on two (default: the cores --jobs leaves idle when there are fewer points "
                  "than jobs, where a point can be split, else 1; the table is the same for any value)"),
               1, kMaxThreads)
      ->each([o = opt.get()](const std::string&) { o->threads_given = true; });
  cmd->add_flag("--quiet", opt->quiet, "No table on stdout");
  cmd->callback([opt]() {
    const int status = coll_command(*opt);
    std::fflush(stdout);
    std::exit(status);
  });
  return cmd;
}

int coll_command(const CollCliOptions& opt) {
  config::Config cfg;
  top::CollTableOptions topt;
  try {
    RunOptions ro;
    ro.config_file = opt.config_file;
    ro.preset = opt.preset;
    ro.sets = opt.sets;
    ro.sets.push_back("traffic.kind=transactions");  // collectives are transactions
    cfg = resolve_config(ro);
    topt = coll_table_options(opt);
    if (topt.forced_rows && topt.algos.empty() && !cfg.accel.reduce.enable)  // "all" means all this switch can run
      topt.algos = {coll::Algorithm::kRing, coll::Algorithm::kOneShot};
    top::check_coll_inputs(cfg, topt);
    if (!opt.out_dir.empty()) check_out_dir(opt.out_dir);  // created only once the table is complete
  } catch (const config::ConfigError& e) {
    std::cerr << "upswitch: error: " << e.what() << "\n";
    return 2;
  }

  top::CollTable table;
  const bool tty = isatty(2) != 0;
  const int status = run_measurement([&] {
    table = top::measure_coll_table(cfg, topt, [&](size_t done, size_t total) {
      if (tty) std::fprintf(stderr, "\rcoll: %zu of %zu points", done, total);
      if (tty && done == total) std::fprintf(stderr, "\n");
    });
  });
  if (status) return status;
  int64_t wrong = 0;
  for (const top::CollRow& r : table.rows) wrong += std::max<int64_t>(0, r.wrong);
  if (!opt.out_dir.empty())
    if (const int st = write_table_files(opt.out_dir, {{"coll.csv", top::coll_csv(table)},
                                                       {"coll.json", top::coll_json(table).dump(2) + "\n"}}))
      return st;
  if (!opt.quiet) std::cout << top::coll_text(table);
  if (table.interrupted) return interrupted_status(opt.out_dir);
  if (wrong > 0) {
    std::cerr << "upswitch: error: invariant violated: " << wrong << " result elements differ from the host reference\n";
    return 4;
  }
  return 0;
}

}  // namespace upswitch::app
