#include "app/stop_signals.h"

#include <atomic>
#include <csignal>

#include "core/interrupt.h"

namespace upswitch::app {
namespace {

std::atomic<int> g_first_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "signal handlers may only use lock-free atomics");
static_assert(std::atomic<bool>::is_always_lock_free, "signal handlers may only use lock-free atomics");

extern "C" void on_stop_signal(int sig) {
  int none = 0;
  g_first_signal.compare_exchange_strong(none, sig);
  if (core::interrupt_flag().exchange(true)) {  // the second stop signal: end now
    std::signal(sig, SIG_DFL);
    std::raise(sig);
  }
}

}  // namespace

void install_stop_signals() {
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
}

int stopped_status() {
  const int sig = g_first_signal.load();
  return 128 + (sig != 0 ? sig : SIGINT);
}

}  // namespace upswitch::app
