#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs the built-in default scenario: the
# mixed workload on the ualink-x4 preset (72 ports): MoE dispatch/combine all-to-alls over every
# port and nine tensor-parallel groups of eight doing in-switch all-reduces at the same time
# (doc/workloads.md). Prints the step table and writes results/default/{workload.json,
# workload_steps.csv,workload_layers.csv,workload_phases.csv,workload.png}. Arguments are passed to
# `upswitch workload`, e.g. scripts/run.sh --set moe.gating=zipf --set tp.algo=ring.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh >/dev/null
"${UPSWITCH_BUILD_DIR:-build}/upswitch" workload --out results/default "$@"
/usr/bin/python3 scripts/plot_workload.py results/default
