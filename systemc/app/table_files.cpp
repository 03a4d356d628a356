#include "app/table_files.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <new>
#include <stdexcept>

#include "app/stop_signals.h"
#include "config/config.h"
#include "core/deadlock_error.h"
#include "core/interrupt.h"
#include "top/report.h"

namespace upswitch::app {

namespace fs = std::filesystem;

void check_out_dir(const std::string& out_dir, const std::string& option) {
  std::error_code ec;
  if (out_dir.empty()) throw config::ConfigError(option + " '': expected a directory path");
  fs::path p = fs::absolute(out_dir, ec);
  while (!ec && !fs::exists(p, ec) && p.has_parent_path() && p.parent_path() != p) p = p.parent_path();
  if (ec || !fs::is_directory(p, ec) || access(p.c_str(), W_OK | X_OK) != 0)
    throw config::ConfigError(option + " '" + out_dir + "': " +
                              (fs::exists(out_dir, ec) ? "not a writable directory" : "cannot create the directory"));
}

void check_out_file(const std::string& path, const std::string& option) {
  std::error_code ec;
  if (path.empty()) throw config::ConfigError(option + " '': expected a file path");
  const fs::path p = fs::absolute(path, ec);
  if (ec) throw config::ConfigError(option + " '" + path + "': not a usable path");
  // A path that does not exist yet is the usual case: status errors on it are not failures.
  std::error_code ignored;
  if (fs::is_directory(p, ignored))
    throw config::ConfigError(option + " '" + path + "': is a directory; expected a file path");
  const fs::path dir = p.parent_path();
  if (!fs::is_directory(dir, ignored) || access(dir.c_str(), W_OK | X_OK) != 0)
    throw config::ConfigError(option + " '" + path + "': its directory does not exist or is not writable");
  if (fs::exists(p, ec) && access(p.c_str(), W_OK) != 0)
    throw config::ConfigError(option + " '" + path + "': not writable");
}

void check_out_prefix(const std::string& prefix, const std::string& option) {
  if (prefix.empty()) throw config::ConfigError(option + " '': expected a path prefix such as out/et/wl");
  const fs::path p(prefix);
  std::error_code ignored;
  if (!p.has_filename() || fs::is_directory(p, ignored))
    throw config::ConfigError(option + " '" + prefix + "': is a directory; expected a path prefix such as " +
                              (p.has_filename() ? prefix + "/wl" : prefix + "wl"));
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  check_out_dir(dir.string(), option + " '" + prefix + "': its folder");
}

void create_prefix_dir(const std::string& prefix, const std::string& option) {
  const fs::path p(prefix);
  if (!p.has_parent_path()) return;
  std::error_code ec;
  fs::create_directories(p.parent_path(), ec);
  if (ec || !fs::is_directory(p.parent_path(), ec))
    throw config::ConfigError(option + " '" + prefix + "': cannot create its folder " + p.parent_path().string());
}

int run_measurement(const std::function<void()>& measure) {
  install_stop_signals();
  try {
    measure();
  } catch (const core::Interrupted&) {
    std::cerr << "upswitch: interrupted before any result was complete; nothing written\n";
    return stopped_status();
  } catch (const std::bad_alloc&) {
    std::cerr << out_of_memory_line() << "\n";
    return 2;
  } catch (const config::ConfigError& e) {
    std::cerr << "upswitch: error: " << e.what() << "\n";
    return 2;
  } catch (const core::DeadlockError& e) {
    std::cerr << "upswitch: error: " << e.what() << "\n" << e.state();
    return 3;
  } catch (const std::logic_error& e) {
    std::cerr << "upswitch: error: invariant violated: " << e.what() << "\n";
    return 4;
  }
  return 0;
}

std::string out_of_memory_line() {
  return "upswitch: error: out of memory during the run (beyond config/memory_estimate.cpp's estimate); make the "
         "run smaller, or lower sim.memory_limit_gib so such runs are refused up front";
}

int interrupted_status(const std::string& out_dir) {
  std::cerr << "upswitch: interrupted; the results complete before it were "
            << (out_dir.empty() ? "printed" : "written to '" + config::ConfigError::printable(out_dir) + "'")
            << ", marked \"interrupted\": true\n";
  return stopped_status();
}

int write_table_files(const std::string& out_dir, const std::vector<std::pair<std::string, std::string>>& files) {
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec || !fs::is_directory(out_dir)) {
    std::cerr << "upswitch: error: --out '" << config::ConfigError::printable(out_dir) << "': cannot create the directory\n";
    return 2;
  }
  std::vector<std::string> tmps;
  auto fail = [&](const std::string& why) {
    for (const std::string& t : tmps) fs::remove(t, ec);
    std::cerr << "upswitch: error: --out '" << config::ConfigError::printable(out_dir) << "': " << why << "\n";
    return 2;
  };
  for (const auto& [name, content] : files) {
    const std::string path = (fs::path(out_dir) / name).string();
    tmps.push_back(path + ".tmp");
    try {
      top::write_file(tmps.back(), content);
    } catch (const std::exception& e) {
      return fail(e.what());
    }
  }
  for (size_t i = 0; i < files.size(); ++i)
    if (std::rename(tmps[i].c_str(), (fs::path(out_dir) / files[i].first).c_str()) != 0)
      return fail("cannot rename '" + tmps[i] + "': " + std::strerror(errno));
  return 0;
}

}  // namespace upswitch::app
