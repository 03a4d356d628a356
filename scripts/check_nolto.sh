#!/usr/bin/env bash
# A build combination other than the default LTO Release (issue 23): GCC Release without LTO,
# with -Werror, of the model and SystemC library targets (upswitch_model, upswitch_sc), into
# build-nolto/ (or $UPSWITCH_NOLTO_DIR). Without LTO GCC inlines and warns differently
# (-Wmaybe-uninitialized, -Wnonnull), and a user who builds the library without LTO must not hit
# errors CI never saw. Measured: 6 min 38 s from scratch with -j2 on two cores shared with other
# builds (load average about 6); incremental after that (build-nolto/ is kept).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${UPSWITCH_NOLTO_DIR:-build-nolto}
source scripts/compiler_cache.sh
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DUPSWITCH_LTO=OFF -DUPSWITCH_WERROR=ON "${UPSWITCH_CACHE_ARGS[@]}" \
      -DUPSWITCH_TESTS=OFF -DUPSWITCH_COSIM=OFF >/dev/null
cmake --build "$dir" -j "${UPSWITCH_JOBS:-$(nproc)}" --target upswitch_model upswitch_sc
