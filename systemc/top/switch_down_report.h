// What a run with switches taken out of service (faults.switch_down, doc/reliability.md) has
// left: per accelerator, its links to switches still in service and their bandwidth against all
// of its links, from the topology (the measured effect is in the run's throughput and the p2p
// table). summary.json "/switch_down"; the text summary's "switch down" line.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/fault_params.h"
#include "network/topology.h"

namespace upswitch::top {

// `flit_gbytes_per_s`: flit bytes x clock (a one-flit-per-cycle link); `clock_ghz` for ns.
nlohmann::json switch_down_json(const network::Topology& t, const std::vector<core::SwitchDown>& down,
                                double flit_gbytes_per_s, double clock_ghz);
// One line from that object: "sw1 at 937.5 ns: an accelerator keeps ...".
std::string switch_down_line(const nlohmann::json& j);

}  // namespace upswitch::top
