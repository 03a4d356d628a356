#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite with ctest.
# UPSWITCH_SANITIZE=1 builds into build-asan/ with AddressSanitizer + UBSan and runs the C++
# suites there (not the RTL co-simulation nor the Python tools, which test no C++ of their own).
# UPSWITCH_SANITIZE=thread builds the parallel-execution tests alone into build-tsan/ with
# ThreadSanitizer and runs them (the only code that runs on several threads), but for the two
# NVL72 rack runs (2 and 4 minutes there; the same code runs on planes and two tiers; with
# UPSWITCH_TSAN_ALL=1 they run too).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if [ "${UPSWITCH_SANITIZE:-0}" = thread ]; then
  export UPSWITCH_BUILD_DIR=build-tsan UPSWITCH_BUILD_TYPE=RelWithDebInfo UPSWITCH_BUILD_TARGETS=upswitch_parallel_tests
  scripts/build.sh -DUPSWITCH_TSAN=ON -DUPSWITCH_COSIM=OFF -DUPSWITCH_PYTHON_TESTS=OFF >/dev/null
  cd build-tsan
  filter=-'ParallelRun.TheNvl72Rack*:ParallelRun.TransactionsOnTheNvl72Rack*'
  if [ "${UPSWITCH_TSAN_ALL:-0}" = 1 ]; then filter='*'; fi
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" ./tests/upswitch_parallel_tests --gtest_filter="$filter"
  exit 0
fi
if [ "${UPSWITCH_SANITIZE:-0}" = 1 ]; then
  export UPSWITCH_BUILD_DIR=build-asan UPSWITCH_BUILD_TYPE=RelWithDebInfo
  scripts/build.sh -DUPSWITCH_SANITIZE=ON -DUPSWITCH_COSIM=OFF -DUPSWITCH_PYTHON_TESTS=OFF >/dev/null
else
  scripts/build.sh -DUPSWITCH_TESTS=ON -DUPSWITCH_COSIM=ON >/dev/null
fi
cd "${UPSWITCH_BUILD_DIR:-build}"
skip=()
# Under the sanitizers the 72-rank collective tests, the three NVL72 rack transaction tests and the
# 72-port packet-mode saturation sweeps take 40-100 s or more each; they run in the release suite
# (the packet-mode code itself runs under the sanitizers in PacketMode.*, Conservation.* and
# TxnDeadlock.*), and UPSWITCH_ASAN_ALL=1 runs them here too.
if [ "${UPSWITCH_SANITIZE:-0}" = 1 ] && [ "${UPSWITCH_ASAN_ALL:-0}" != 1 ]; then
  skip=(-E '^(CollCorrectness\.EveryTypeAndOpOn72Ranks|CollCorrectness\.EveryReductionTypeAndOpOnSmallGroups|CollBandwidth\.InSwitchOverRingAt72RanksIsAtLeastOnePointEight|NetworkColl\.Nvl72RackInSwitchAllReduce|NetworkTxn\.Nvl72RackPairBandwidthIsAtLeast17TimesOnePlane|NetworkSwitchDown\.Nvl72RackLosingAChipCostsAnEighteenth|ParallelRun\.TransactionsOnTheNvl72RackGiveTheSameResultsOnEveryThreadCount|PacketModeSaturation\.[A-Za-z]+)$')
fi
# Long fidelity tests (label `long`, minutes each) run only with UPSWITCH_LONG=1; the normal suite
# has a bounded version of each (README "Tests").
long=(-LE long)
if [ "${UPSWITCH_LONG:-0}" = 1 ]; then long=(); fi
ctest --output-on-failure -j "${UPSWITCH_JOBS:-$(nproc)}" "${skip[@]}" "${long[@]}"
