// The topology keys and the network they describe (config/topology_params.cpp).
#pragma once

#include <vector>

#include "config/config.h"
#include "config/param_table.h"
#include "network/topology_params.h"

namespace upswitch::config {

void add_topology_params(std::vector<ParamSpec>& t);
// The link defaults a topology's links take from link.* and link.inter_switch_*.
network::LinkDefaults link_defaults(const Config& c);
// Reads topology.file when given, builds and checks the network (Config::topology) and refuses
// what does not run on it yet; throws ConfigError.
void resolve_topology(Config& c);

}  // namespace upswitch::config
