// Chakra execution traces as a replay trace (doc/trace.md, "Chakra traces"): the per-rank graphs
// PREFIX.0.et, PREFIX.1.et, ... become one traffic::Trace that `upswitch replay` runs like a JSON
// Lines trace. Each rank's compute node becomes a compute operation on that accelerator; the
// collective nodes of one communicator group are matched across its ranks in each rank's order
// and become one collective; a send and its receive become one write; every other node takes no
// time and passes its dependencies on.
#pragma once

#include <string>
#include <vector>

#include "chakra/chakra_io.h"
#include "traffic/trace.h"

namespace upswitch::chakra {

// The files of one trace: rank r's graph is ranks[r].
struct ChakraTrace {
  std::string prefix;
  std::vector<RankTrace> ranks;
  // Communicator groups (ASTRA-sim's comm-group file: {"name": [rank, ...]}); empty: every
  // collective spans all ranks, whatever its pg_name (as ASTRA-sim without the file).
  std::vector<std::pair<std::string, std::vector<int>>> groups;
};

// PREFIX.<rank>.et from rank 0 up to the first missing file, and the groups: `groups_path`, else
// PREFIX.groups.json when it exists, else none. Throws config::ConfigError naming the file.
ChakraTrace read_chakra(const std::string& prefix, const std::string& groups_path);

// Throws config::ConfigError, one line naming the file and the node: a dependency on a node not in
// the file, a cycle, an unmatched collective, send or receive, members that disagree on a
// collective, a collective upswitch does not run, a size that is not a positive multiple of 4.
traffic::Trace to_trace(const ChakraTrace& c);

// Parses a comm-group file's text; `name` is how errors name it.
std::vector<std::pair<std::string, std::vector<int>>> parse_groups(const std::string& text, const std::string& name);
std::string groups_json(const std::vector<std::pair<std::string, std::vector<int>>>& groups);

}  // namespace upswitch::chakra
