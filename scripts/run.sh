#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs the built-in default scenario: the
# mixed workload on the ualink-x4 preset (72 ports): MoE dispatch/combine all-to-alls over every
# port and nine tensor-parallel groups of eight doing in-switch all-reduces at the same time
# (doc/workloads.md). Prints the step table and writes results/default/{workload.json,
# workload_steps.csv,workload_layers.csv,workload_phases.csv,workload.png}. Arguments are passed to
# `upswitch workload`, e.g. scripts/run.sh --set moe.gating=zipf --set tp.algo=ring.
set -euo pipefail
cd "$(dirname "$0")/.."
# Only what the main job needs: the run set of packages, and the upswitch program alone. A first
# run configures build/ without the tests and the co-simulation (no GoogleTest, no Verilator, and
# nothing of theirs compiled); once scripts/test.sh has configured build/ with them, this keeps
# that configuration and still builds only the program.
scripts/setup.sh run
BUILD_DIR=${UPSWITCH_BUILD_DIR:-build}
first=()
[ -f "$BUILD_DIR/CMakeCache.txt" ] || first=(-DUPSWITCH_TESTS=OFF -DUPSWITCH_COSIM=OFF)
UPSWITCH_BUILD_TARGETS=upswitch scripts/build.sh "${first[@]}" >/dev/null
"${UPSWITCH_BUILD_DIR:-build}/upswitch" workload --out results/default "$@"
/usr/bin/python3 scripts/plot_workload.py results/default
