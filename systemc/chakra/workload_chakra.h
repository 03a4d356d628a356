// `upswitch workload --chakra PREFIX`: the workload's schedule (top/workload_schedule.h) as Chakra
// execution traces, one file per rank (PREFIX.<rank>.et) and the communicator groups
// (PREFIX.groups.json, ASTRA-sim's comm-group file), so that ASTRA-sim, or `upswitch replay
// --chakra`, runs the same workload (doc/trace.md, "Chakra traces").
#pragma once

#include <string>
#include <vector>

#include "chakra/chakra_trace.h"
#include "config/config.h"

namespace upswitch::chakra {

// Rank r of the files is workload rank r (before workload.placement): each chain of the schedule
// is, on every rank of it, its compute and collective nodes in order, each depending on the one
// before; chains on one rank do not depend on each other. Collectives carry comm_type, comm_size
// (an all-to-all: what this rank sends), pg_name ("moe", "tp0", "tp1", ...) and upswitch's
// algorithm, element type and all-to-all pair bytes.
ChakraTrace workload_chakra(const config::Config& cfg, const std::string& prefix);

// Writes the rank files and the groups file. Throws config::ConfigError naming a file that cannot
// be written.
void write_chakra(const ChakraTrace& c);

}  // namespace upswitch::chakra
