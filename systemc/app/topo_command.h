// `upswitch topo`: what a topology is before anything is simulated: its switches, endpoints and
// links, bandwidth per endpoint and across the bisection, diameter, and the deadlock check of its
// routing; optionally the Graphviz DOT picture and the JSON (doc/topology.md).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace upswitch::app {

struct TopoCliOptions {
  std::string config_file;
  std::string preset;
  std::vector<std::string> sets;  // KEY=VALUE
  std::string dot_file;           // Graphviz DOT
  std::string json_file;
  bool quiet = false;
};

CLI::App* add_topo_command(CLI::App& app);

// Exit status: 0 ok, 2 bad input or a topology that is refused (one error line, nothing written).
int topo_command(const TopoCliOptions& opt);

}  // namespace upswitch::app
