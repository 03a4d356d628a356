#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) into build-fuzz/ and runs each for a
# bounded time (default 60 s; first argument) over a copy of its corpus in tests/fuzz/corpus/.
# Fails if a target finds a crash, a sanitizer report, an uncaught exception or a multi-line
# error; the reproducer is left in build-fuzz/artifacts/. New corpus entries are not written back.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-60}
UPSWITCH_EXTRA_PACKAGES="clang libclang-rt-14-dev" scripts/setup.sh
source scripts/compiler_cache.sh
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DUPSWITCH_FUZZ=ON \
  -DUPSWITCH_TESTS=OFF -DUPSWITCH_COSIM=OFF -DUPSWITCH_LTO=OFF "${UPSWITCH_CACHE_ARGS[@]}" >/dev/null
cmake --build build-fuzz -j "${UPSWITCH_JOBS:-$(nproc)}" --target fuzz_config_yaml fuzz_config_set fuzz_txn_packetiser fuzz_moe_assignment fuzz_trace fuzz_data_link fuzz_chakra >/dev/null
mkdir -p build-fuzz/artifacts
status=0
for target in fuzz_config_yaml fuzz_config_set fuzz_txn_packetiser fuzz_moe_assignment fuzz_trace fuzz_data_link fuzz_chakra; do
  work=$(mktemp -d)
  cp tests/fuzz/corpus/${target#fuzz_}/* "$work"/
  echo "fuzz: $target for ${SECONDS_PER_TARGET}s" >&2
  if ! build-fuzz/tests/fuzz/$target "$work" -max_total_time="$SECONDS_PER_TARGET" -max_len=4096 \
       -artifact_prefix=build-fuzz/artifacts/$target- -print_final_stats=1 2> build-fuzz/$target.log; then
    echo "fuzz: $target FAILED; see build-fuzz/$target.log and build-fuzz/artifacts/" >&2
    tail -30 build-fuzz/$target.log >&2
    status=1
  else
    grep -E "stat::number_of_executed_units|stat::new_units_added" build-fuzz/$target.log | tr '\n' ' ' >&2; echo >&2
  fi
  rm -rf "$work"
done
scripts/fuzz_sweep.py "$SECONDS_PER_TARGET" || status=1  # sweep files (doc/sweeps.md); findings in build-fuzz/artifacts/
exit $status
