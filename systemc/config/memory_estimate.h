// Memory a run will need, estimated from the configuration before anything is allocated, and
// checked against what the machine can give (issue "hard edges": `coll -b 1G -e 1G --ranks 8`
// grew past 20 GB until the kernel killed it; 1,024 ports with long links died with bad_alloc).
// Each component's formula is here, in one place; tests compare the total with the measured peak
// RSS of real runs (tests/cli/memory_cli_test.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/config.h"

namespace upswitch::config {

struct MemoryPart {
  std::string what;
  double bytes = 0;
};

// The fabric itself: the process, the links' delay lines (both directions of every port), the
// switch's buffers, allocation bit matrices and output pipelines, and the endpoints.
std::vector<MemoryPart> fabric_memory(const Config& c);

// The limit: sim.memory_limit_gib, or (0) the machine's MemAvailable; 0 when unknown.
double memory_limit_bytes(const Config& c);

// Throws ConfigError (one line: the estimate, its largest part, the limit and how to override)
// when the fabric plus `extra` (collective buffers, workload memories) exceed the limit.
void check_memory(const Config& c, const std::vector<MemoryPart>& extra = {});

}  // namespace upswitch::config
