#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs the built-in default scenario (the
# ualink-x4 preset: 72 ports, VOQ + iSLIP, uniform traffic at half load), printing a summary and
# writing results/default/{summary.json,ports.csv,latency_hist.csv}. Arguments are passed to
# `upswitch run`, e.g. scripts/run.sh --set traffic.rate=0.9.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh >/dev/null
exec "${UPSWITCH_BUILD_DIR:-build}/upswitch" run --out results/default "$@"
