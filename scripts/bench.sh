#!/usr/bin/env bash
# Speed/memory benchmark: builds, then runs scripts/bench.py (standard scenarios, port scaling,
# load scaling) and writes results/bench.json. Arguments go to bench.py (--markdown, --set ...).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh >/dev/null
exec python3 scripts/bench.py --bin "${UPSWITCH_BUILD_DIR:-build}/upswitch" "$@"
