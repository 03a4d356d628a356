// What a run reports about its network, for every topology kind: the switches' aggregate figures
// (summary.json /switch), one entry per switch (/switches), the topology (/topology) and one row
// per directed link (links.csv: utilisation, credit stalls, peak occupancy of the receiver).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "network/network.h"
#include "network/topology_metrics.h"
#include "stats/registry.h"

namespace upswitch::top {

// The switch port an endpoint port is attached to.
network::PortRef attached_switch_port(const network::Network& net, int endpoint_port);

// Buffer, crossbar and credit-stall figures over every switch port of the network; window_cycles
// is the measurement window.
nlohmann::json network_switch_json(const network::Network& net, double window_cycles);
// One entry per switch: id, plane, level, ports and the same figures.
nlohmann::json switches_json(const network::Network& net, double window_cycles);
// kind, switches, endpoints, links, endpoint ports, per-endpoint bandwidth and bisection.
nlohmann::json topology_json(const network::Topology& t, double flit_gbytes_per_s);
// The same from metrics already measured (network/topology_metrics.h).
nlohmann::json topology_json(const network::Topology& t, const network::TopologyMetrics& m);
// Per-switch counters into the registry (switch.* on one switch, switchN.* in a network).
void register_switch_stats(stats::Registry& reg, const network::Network& net);

// Per switch and port: the utilisation of the link the port sends on (flits in the window over
// what the link can carry), for the heat map.
std::vector<std::vector<double>> switch_port_utilisation(const network::Network& net, double window_cycles,
                                                         double flit_gbytes_per_s);

// links.csv: one row per direction of every link. `injected` gives an endpoint port's flits sent
// in the window (the switches count the rest).
std::string links_csv(const network::Network& net, double window_cycles, double flit_gbytes_per_s,
                      const std::vector<uint64_t>& endpoint_port_injected);

}  // namespace upswitch::top
