#!/usr/bin/env bash
# Configures and builds upswitch into build/ (or $UPSWITCH_BUILD_DIR). Extra arguments go to
# cmake's configure step, e.g. scripts/build.sh -DUPSWITCH_SANITIZE=ON.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${UPSWITCH_BUILD_DIR:-build}
JOBS=${UPSWITCH_JOBS:-$(nproc)}
source scripts/compiler_cache.sh
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=${UPSWITCH_BUILD_TYPE:-Release} "${UPSWITCH_CACHE_ARGS[@]}" "$@" >/dev/null
# UPSWITCH_BUILD_TARGETS: only these targets (space-separated); default all.
targets=()
for t in ${UPSWITCH_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$BUILD_DIR" -j "$JOBS" "${targets[@]}"
