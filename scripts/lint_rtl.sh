#!/bin/sh
# Lints rtl_ref/ with Verilator's -Wall at the parameter sets the co-simulation builds (8 and
# 72 ports, both allocators) plus an edge set; waivers, each with its reason, are in
# rtl_ref/lint/upsw_waivers.vlt. Exit status 0 = clean.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
rtl="$root/rtl_ref"
files="$rtl/lint/upsw_waivers.vlt $rtl/upsw_pkg.sv $rtl/upsw_delay.sv $rtl/upsw_alloc_islip.sv
       $rtl/upsw_alloc_sep_if.sv $rtl/upsw_input.sv $rtl/upsw_out_credit.sv $rtl/upsw_switch.sv"
status=0
for params in \
  "-GNumPorts=8 -GNumVcs=2 -GBufSlots=32 -GRouteCycles=2 -GOutCycles=3 -GDownVcCredits=8 -GDownSharedCredits=16 -GAllocKind=0 -GAllocIters=4" \
  "-GNumPorts=8 -GNumVcs=2 -GBufSlots=32 -GRouteCycles=2 -GOutCycles=3 -GDownVcCredits=8 -GDownSharedCredits=16 -GAllocKind=1" \
  "-GNumPorts=72 -GNumVcs=4 -GBufSlots=512 -GRouteCycles=8 -GOutCycles=24 -GDownVcCredits=32 -GDownSharedCredits=384 -GAllocKind=0 -GAllocIters=4" \
  "-GNumPorts=72 -GNumVcs=4 -GBufSlots=512 -GRouteCycles=8 -GOutCycles=24 -GDownVcCredits=32 -GDownSharedCredits=384 -GAllocKind=1" \
  "-GNumPorts=16 -GNumVcs=1 -GBufSlots=8 -GRouteCycles=1 -GOutCycles=0 -GDownVcCredits=4 -GDownSharedCredits=0 -GAllocKind=1"; do
  # shellcheck disable=SC2086
  if ! verilator --lint-only -Wall --assert -I"$rtl" --top-module upsw_switch $params $files; then
    echo "lint_rtl: FAILED with $params" >&2
    status=1
  fi
done
[ "$status" -eq 0 ] && echo "lint_rtl: rtl_ref/ clean under verilator --lint-only -Wall"
exit "$status"
