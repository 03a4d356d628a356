// What the table commands (`p2p`, `coll`) share: checking --out before any work, running the
// measurement with its failures mapped to exit statuses, and writing the files only at the end.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace upswitch::app {

// Throws config::ConfigError unless `out_dir` is a writable directory or can be created.
void check_out_dir(const std::string& out_dir);

// Runs `measure`: 0 when it returns; a one-line error on stderr and 2 (config::ConfigError),
// 3 (core::DeadlockError, with the blocking state) or 4 (std::logic_error: an invariant).
int run_measurement(const std::function<void()>& measure);

// Creates `out_dir` and writes each (file name, content) through a temporary file and a rename:
// 0, or 2 with a one-line error.
int write_table_files(const std::string& out_dir, const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace upswitch::app
