// Reading a user's input file (a configuration, a trace, an MoE assignment): only a regular,
// readable file of bounded size, read whole with every read checked. A directory, a device, a
// FIFO, a file that fails mid-read (/proc/self/mem) or one over the size limit is one clear
// ConfigError naming the option and the path, never an empty input, a hang or a memory blow-up.
#pragma once

#include <cstdint>
#include <string>

namespace upswitch::config {

// `what` names the input in the error ("--config", "trace", "moe.assignment_file").
std::string read_input_file(const std::string& what, const std::string& path, uint64_t max_bytes);

// The limits the readers use (documented in doc/reliability.md).
constexpr uint64_t kMaxConfigFileBytes = uint64_t{16} << 20;
constexpr uint64_t kMaxTraceFileBytes = uint64_t{256} << 20;
constexpr uint64_t kMaxAssignmentFileBytes = uint64_t{256} << 20;

}  // namespace upswitch::config
