// Progress of a long run on stderr: simulated cycles, percent of the planned cycles, rate and
// ETA, redrawn at most twice a second, and only when stderr is a terminal.
#pragma once

#include <chrono>
#include <cstdint>

namespace upswitch::app {

class Progress {
 public:
  Progress(uint64_t planned_cycles, bool enabled);
  void update(uint64_t cycle) {
    if (enabled_ && (++calls_ & 1023) == 0) draw(cycle);
  }
  void finish();

 private:
  void draw(uint64_t cycle);
  uint64_t planned_;
  bool enabled_;
  bool drawn_ = false;
  uint64_t calls_ = 0;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace upswitch::app
