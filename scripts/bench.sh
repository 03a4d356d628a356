#!/usr/bin/env bash
# Speed/memory benchmark: builds, then runs scripts/bench.py (every set: standard scenarios, port and
# load scaling, transactions, collectives, networks, threads, and with --booksim PATH BookSim2 beside
# upswitch) and writes results/bench.json with issue 21's targets. Arguments go to bench.py
# (--markdown, --set NAME, --repeat R, --booksim PATH).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh >/dev/null
exec python3 scripts/bench.py --bin "${UPSWITCH_BUILD_DIR:-build}/upswitch" "$@"
