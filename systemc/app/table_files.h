// What the commands share around their outputs: checking --out (and other output paths) before
// any work, running the measurement with its failures mapped to exit statuses, and writing the
// files only at the end, all or nothing.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace upswitch::app {

// Throws config::ConfigError naming `option` unless `out_dir` is a writable directory or can be
// created (its nearest existing ancestor is a writable directory).
void check_out_dir(const std::string& out_dir, const std::string& option = "--out");
// Throws config::ConfigError naming `option` unless `path` can be written as a file: not a
// directory, and its directory exists and is writable.
void check_out_file(const std::string& path, const std::string& option);
// Throws config::ConfigError naming `option` unless `prefix` can start file names (PREFIX.<rank>.et):
// its last component is a name, not empty nor a directory, and its folder exists as a writable
// directory or can be created as --out's can.
void check_out_prefix(const std::string& prefix, const std::string& option);
// Creates the folder of a prefix that check_out_prefix accepted (as --out creates its folders);
// throws config::ConfigError naming `option` if that fails.
void create_prefix_dir(const std::string& prefix, const std::string& option);

// Runs `measure` with Ctrl-C and SIGTERM turned into a stop request (app/stop_signals.h; a second
// signal ends the process): 0 when it returns (the measurement then says whether it was
// interrupted); a one-line error on stderr and 2 (config::ConfigError, or std::bad_alloc), 3
// (core::DeadlockError, with the blocking state), 4 (std::logic_error: an invariant) or 130/143
// (interrupted by SIGINT/SIGTERM with nothing complete).
int run_measurement(const std::function<void()>& measure);
// The one line a std::bad_alloc during a run ends with (exit status 2, nothing written).
std::string out_of_memory_line();
// After writing what an interrupted measurement completed: its line on stderr, and 130 (SIGINT)
// or 143 (SIGTERM).
int interrupted_status(const std::string& out_dir);

// Creates `out_dir` and writes each (file name, content), all or nothing: every file goes to a
// temporary first, and only when all of them are written are they renamed into place. 0, or 2
// with a one-line error naming the file (and no file of the set left behind).
int write_table_files(const std::string& out_dir, const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace upswitch::app
