#include "app/run_outcome.h"

#include <iostream>
#include <new>
#include <stdexcept>

#include "app/stop_signals.h"
#include "app/table_files.h"
#include "core/deadlock_error.h"
#include "top/report.h"

namespace upswitch::app {

int run_guarded(const RunOptions& opt, Progress& progress, const std::function<void()>& simulate) {
  try {
    simulate();
  } catch (const core::DeadlockError& e) {
    progress.finish();
    std::cerr << "upswitch: error: " << e.what() << "\n" << e.state();
    if (!opt.out_dir.empty())
      (void)write_table_files(opt.out_dir, {{"deadlock.txt", std::string(e.what()) + "\n" + e.state()}});
    return 3;
  } catch (const std::logic_error& e) {
    progress.finish();
    std::cerr << "upswitch: error: invariant violated: " << e.what() << "\n";
    return 4;
  } catch (const std::bad_alloc&) {
    progress.finish();
    std::cerr << out_of_memory_line() << "\n";
    return 2;
  }
  progress.finish();
  return 0;
}

int final_status(const RunOptions& opt, const std::vector<std::string>& violations, bool interrupted,
                 uint64_t end_cycle) {
  int status = 0;
  if (!violations.empty()) {
    std::cerr << "upswitch: error: conservation violated: " << violations[0] << "\n";
    status = 4;
  }
  if (interrupted) {
    std::cerr << "upswitch: interrupted at cycle " << end_cycle << "; partial results "
              << (opt.out_dir.empty() ? "printed" : "written") << "\n";
    status = status ? status : stopped_status();
  }
  return status;
}

}  // namespace upswitch::app
