#include "app/topo_command.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>

#include <fmt/core.h>

#include "app/config_options.h"
#include "app/resolve_config.h"
#include "app/table_files.h"
#include "config/config.h"
#include "network/topology_metrics.h"
#include "top/network_report.h"
#include "top/report.h"

namespace upswitch::app {

CLI::App* add_topo_command(CLI::App& app) {
  auto opt = std::make_shared<TopoCliOptions>();
  CLI::App* cmd = app.add_subcommand(
      "topo", "Describe a topology: switches, endpoints, links, bandwidth, bisection, diameter, deadlock check");
  add_config_options(cmd, opt->config_file, opt->preset, opt->sets, nullptr, "topology.planes=4");
  cmd->add_option("--dot", opt->dot_file, "Write the topology as a Graphviz DOT graph to this file");
  cmd->add_option("--json", opt->json_file, "Write the topology summary (as summary.json /topology) to this file");
  cmd->add_flag("--quiet", opt->quiet, "Nothing on stdout");
  cmd->callback([opt]() {
    const int status = topo_command(*opt);
    std::fflush(stdout);
    std::exit(status);
  });
  return cmd;
}

int topo_command(const TopoCliOptions& opt) {
  config::Config cfg;
  try {
    RunOptions ro;
    ro.config_file = opt.config_file;
    ro.preset = opt.preset;
    ro.sets = opt.sets;
    cfg = resolve_config(ro);  // builds the topology and runs the deadlock check
    if (!opt.dot_file.empty()) check_out_file(opt.dot_file, "--dot");
    if (!opt.json_file.empty()) check_out_file(opt.json_file, "--json");
  } catch (const config::ConfigError& e) {
    std::cerr << "upswitch: error: " << e.what() << "\n";
    return 2;
  }
  const network::Topology& t = cfg.network();
  const double flit_gbs = cfg.flit_bytes * cfg.clock_ghz;
  const network::TopologyMetrics m = network::measure_topology(t, flit_gbs);
  nlohmann::json j = top::topology_json(t, m);  // as runs write it in summary.json
  j["vc_classes"] = t.vc_classes;
  j["deadlock_free"] = true;  // build_topology refused the topology otherwise
  try {
    if (!opt.dot_file.empty()) top::write_file_atomic(opt.dot_file, network::topology_dot(t));
    if (!opt.json_file.empty()) top::write_file_atomic(opt.json_file, j.dump(2) + "\n");
  } catch (const std::exception& e) {
    std::cerr << "upswitch: error: " << e.what() << "\n";
    return 2;
  }
  if (opt.quiet) return 0;
  int min_ports = 1 << 30, max_ports = 0;
  for (const network::SwitchSpec& s : t.switches) {
    min_ports = std::min(min_ports, s.ports);
    max_ports = std::max(max_ports, s.ports);
  }
  fmt::print("topology   {} ({}): {} switches, {} endpoints, {} links ({} between switches)\n",
             j["kind"].get<std::string>(), t.name, m.switches, m.endpoints, m.links, m.inter_switch_links);
  fmt::print("switches   {} ports in use per switch (switch.ports = {})\n",
             min_ports == max_ports ? std::to_string(min_ports) : fmt::format("{} .. {}", min_ports, max_ports),
             cfg.sw.ports);
  fmt::print("endpoint   {} ports, {:.1f} GB/s per direction\n", t.endpoints.empty() ? 0 : t.endpoints[0].ports,
             m.endpoint_gbytes_per_s);
  fmt::print("bisection  {:.1f} GB/s per direction (endpoints 0 .. {} against the rest)\n", m.bisection_gbytes_per_s,
             m.endpoints / 2 - 1);
  fmt::print("diameter   {} switch{} between endpoints\n", m.diameter, m.diameter == 1 ? "" : "es");
  fmt::print("deadlock   none possible: the channel dependency graph of the routing is acyclic ({} VC class{})\n",
             t.vc_classes, t.vc_classes == 1 ? "" : "es");
  return 0;
}

}  // namespace upswitch::app
