#!/bin/sh
# Test helper: the real simulator ($REAL_UPSWITCH) after a pause of $SLOW_UPSWITCH_SLEEP seconds
# for every run (not for --version, so run ids are those of the real binary).
if [ "$1" != "--version" ]; then sleep "${SLOW_UPSWITCH_SLEEP:-0.5}"; fi
exec "$REAL_UPSWITCH" "$@"
