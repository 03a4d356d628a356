#!/bin/sh
# Test helper: the real simulator ($REAL_UPSWITCH), except that run number $TERM_UPSWITCH_AT (1, 2,
# ... counted in $TERM_UPSWITCH_COUNT, a file) ends as a simulator stopped by SIGTERM does:
# TERM_UPSWITCH_HOW=exit exits 143 (the simulator's own clean stop), =kill dies of the signal.
if [ "$1" != "--version" ]; then
  n=$(( $(cat "$TERM_UPSWITCH_COUNT" 2>/dev/null || echo 0) + 1 ))
  echo "$n" > "$TERM_UPSWITCH_COUNT"
  if [ "$n" = "$TERM_UPSWITCH_AT" ]; then
    if [ "$TERM_UPSWITCH_HOW" = kill ]; then kill -TERM $$; sleep 5; fi
    echo "upswitch: interrupted; the results complete before it were written, marked \"interrupted\": true" >&2
    exit 143
  fi
fi
exec "$REAL_UPSWITCH" "$@"
