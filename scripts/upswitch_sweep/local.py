"""The local backend: a pool of `jobs` simulator processes (default: one per core)."""
from __future__ import annotations

import os
import time

from .execute import Execution, stop_signal
from .interrupt import Interrupt
from .progress import Progress
from .store import Store


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def run_local(store: Store, pending: list[dict], binary: str, version: str, jobs: int,
              timeout: float | None, progress: Progress, intr: Interrupt) -> bool:
    """Runs `pending` (plan rows).  Returns False when interrupted (finished results kept)."""
    queue = list(pending)
    running: list[Execution] = []
    try:
        while (queue or running) and not intr.requested:
            while queue and len(running) < jobs and not intr.requested:
                ex = Execution(store, queue.pop(0), binary, version, timeout)
                ex.start()
                running.append(ex)
            progress.running = len(running)
            progress.update()
            time.sleep(0.01)
            for ex in list(running):
                if intr.requested:
                    break
                if ex.poll():
                    running.remove(ex)
                    sig = stop_signal(ex.proc.returncode if ex.proc is not None else None)
                    if sig is not None and not ex.timed_out:
                        # The simulator was stopped by SIGTERM or Ctrl-C (a terminal's Ctrl-C reaches
                        # it as well as us; timeout, Slurm or systemd may signal it alone): a cancelled
                        # run, as for the slurm backend. Nothing recorded; the sweep stops as if it had
                        # been signalled itself, and a resumed sweep runs the point again.
                        ex.discard()
                        intr.requested, intr.signum = True, intr.signum or sig
                        break
                    res = ex.finish()
                    progress.running = len(running)
                    ok = res["status"] == "ok"
                    progress.done(ok, None if ok else f"[sweep] run {res['index']} {res['run_id']} failed "
                                                      f"(exit {res['exit_code']}): {res['error']}")
    finally:
        # interrupted (or an exception): end the processes still running, record nothing for them
        for ex in running:
            ex.discard()
        progress.running = 0
    return not intr.requested
