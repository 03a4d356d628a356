// app/stop_signals: the first SIGINT or SIGTERM only asks to stop (core::interrupt_flag) and
// fixes the exit status at 128 + its number; a second one ends the process as its default action
// would. Each case runs in a forked child (death test), so the handlers and the flag stay out of
// this process.
#include "app/stop_signals.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>

#include "core/interrupt.h"

namespace {

namespace app = upswitch::app;
namespace core = upswitch::core;

// The child's exit code says what it saw: the status it would exit with when the flag is set,
// 1 when the signal did not set the flag.
[[noreturn]] void first_signal_then_exit(int sig) {
  app::install_stop_signals();
  std::raise(sig);
  std::_Exit(core::interrupt_requested() ? app::stopped_status() : 1);
}

TEST(StopSignals, FirstSigtermAsksToStopAndMeans143) {
  EXPECT_EXIT(first_signal_then_exit(SIGTERM), testing::ExitedWithCode(143), "");
}

TEST(StopSignals, FirstSigintAsksToStopAndMeans130) {
  EXPECT_EXIT(first_signal_then_exit(SIGINT), testing::ExitedWithCode(130), "");
}

TEST(StopSignals, TheFirstSignalFixesTheStatus) {
  EXPECT_EXIT(
      {
        app::install_stop_signals();
        std::raise(SIGTERM);
        std::signal(SIGINT, SIG_IGN);  // only to look: a later SIGINT must not change the status
        std::_Exit(app::stopped_status());
      },
      testing::ExitedWithCode(143), "");
}

TEST(StopSignals, ASecondSignalEndsTheProcessAtOnce) {
  EXPECT_EXIT(
      {
        app::install_stop_signals();
        std::raise(SIGTERM);
        std::raise(SIGTERM);
        std::_Exit(0);
      },
      testing::KilledBySignal(SIGTERM), "");
  EXPECT_EXIT(
      {
        app::install_stop_signals();
        std::raise(SIGTERM);
        std::raise(SIGINT);
        std::_Exit(0);
      },
      testing::KilledBySignal(SIGINT), "");
}

TEST(StopSignals, AStopWithoutASignalMeans130) {
  EXPECT_EXIT(
      {
        core::interrupt_flag().store(true);
        std::_Exit(app::stopped_status());
      },
      testing::ExitedWithCode(130), "");
}

}  // namespace
