#include "app/table_files.h"

#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "config/config.h"
#include "core/deadlock_error.h"
#include "top/report.h"

namespace upswitch::app {

namespace fs = std::filesystem;

void check_out_dir(const std::string& out_dir) {
  std::error_code ec;
  fs::path p = fs::absolute(out_dir, ec);
  while (!ec && !fs::exists(p, ec) && p.has_parent_path() && p.parent_path() != p) p = p.parent_path();
  if (ec || !fs::is_directory(p, ec) || access(p.c_str(), W_OK | X_OK) != 0)
    throw config::ConfigError("--out '" + out_dir + "': " +
                              (fs::exists(out_dir, ec) ? "not a writable directory" : "cannot create the directory"));
}

int run_measurement(const std::function<void()>& measure) {
  try {
    measure();
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

int write_table_files(const std::string& out_dir, const std::vector<std::pair<std::string, std::string>>& files) {
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec || !fs::is_directory(out_dir)) {
    std::cerr << "upswitch: error: --out '" << config::ConfigError::printable(out_dir) << "': cannot create the directory\n";
    return 2;
  }
  try {
    for (const auto& [name, content] : files) top::write_file_atomic((fs::path(out_dir) / name).string(), content);
  } catch (const std::exception& e) {
    std::cerr << "upswitch: error: --out '" << config::ConfigError::printable(out_dir) << "': " << e.what() << "\n";
    return 2;
  }
  return 0;
}

}  // namespace upswitch::app
