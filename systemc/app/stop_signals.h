// SIGINT (Ctrl-C) and SIGTERM (what timeout, Slurm, systemd and Kubernetes send) both ask a
// command to stop: the first one sets core::interrupt_flag(), the run loops poll it, and the
// command writes what is complete, marked interrupted, then exits 128 + the signal's number (130
// for SIGINT, 143 for SIGTERM). A second signal of either kind ends the process at once, as its
// default action would. README "Interrupting a run", doc/reliability.md.
#pragma once

namespace upswitch::app {

// Installs the two handlers (idempotent; async-signal-safe: they only store to lock-free atomics).
void install_stop_signals();

// 128 + the first stop signal received: 130 (SIGINT), 143 (SIGTERM); 130 when the stop was
// requested without a signal (a library user setting core::interrupt_flag()).
int stopped_status();

}  // namespace upswitch::app
