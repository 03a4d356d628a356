#include "app/progress.h"

#include <cstdio>

namespace upswitch::app {

Progress::Progress(uint64_t planned_cycles, bool enabled)
    : planned_(planned_cycles ? planned_cycles : 1), enabled_(enabled) {
  start_ = last_ = std::chrono::steady_clock::now();
}

void Progress::draw(uint64_t cycle) {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_ < std::chrono::milliseconds(500)) return;
  last_ = now;
  const double secs = std::chrono::duration<double>(now - start_).count();
  const double rate = secs > 0 ? static_cast<double>(cycle) / secs : 0;
  const double pct = 100.0 * static_cast<double>(cycle) / static_cast<double>(planned_);
  const double eta = rate > 0 && cycle < planned_ ? static_cast<double>(planned_ - cycle) / rate : 0;
  std::fprintf(stderr, "\r[upswitch] cycle %llu  %5.1f%%  %.0f cycles/s  ETA %.0f s   ",
               static_cast<unsigned long long>(cycle), pct > 100 ? 100.0 : pct, rate, eta);
  drawn_ = true;
}

void Progress::finish() {
  if (drawn_) std::fprintf(stderr, "\r%*s\r", 70, "");
}

}  // namespace upswitch::app
