"""Run one simulator invocation into the store.  Every backend goes through here, so a run's
result directory looks the same whether it ran in the local pool or in a Slurm array task."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

from .commands import interrupted, summary_file
from .store import Store, result_doc


def _signame(n: int) -> str:
    try:
        return signal.Signals(n).name
    except ValueError:
        return f"signal {n}"


def error_line(stderr_path: Path, limit: int = 500) -> str:
    try:
        lines = [l.strip() for l in stderr_path.read_text(errors="replace").splitlines() if l.strip()]
    except OSError:
        return ""
    # progress lines (\r-rewritten) never reach a file: the simulator is quiet off a terminal
    return lines[-1][:limit] if lines else ""


def stop_signal(rc: int | None) -> int | None:
    """The stop signal (SIGINT or SIGTERM) a simulator's exit status says it ended by, else None:
    killed by it (-2, -15), or stopped cleanly on it (130, 143: it wrote what was complete, marked
    interrupted).  Such a run was cancelled, not failed: nothing is recorded and a resumed sweep
    runs it again."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        if rc in (-sig, 128 + sig):
            return int(sig)
    return None


class Execution:
    """One running `upswitch COMMAND ... --out TMP`."""

    def __init__(self, store: Store, run: dict, binary: str, version: str, timeout: float | None):
        self.store, self.run, self.binary, self.version, self.timeout = store, run, binary, version, timeout
        self.proc: subprocess.Popen | None = None
        self.tmp: Path | None = None
        self.t0 = 0.0
        self.timed_out = False

    def start(self):
        self.tmp = self.store.new_tmp(self.run["run_id"])
        argv = [self.binary] + self.run["argv"] + ["--out", str(self.tmp / "out")]
        self._stdout = open(self.tmp / "upswitch.stdout", "wb")
        self._stderr = open(self.tmp / "upswitch.stderr", "wb")
        self.t0 = time.monotonic()
        env = dict(os.environ)
        self.start_error = None
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=self._stdout, stderr=self._stderr,
                                         env=env, close_fds=True)
        except OSError as e:  # binary gone, not executable, out of processes: a failed run
            self.start_error = f"cannot start {self.binary}: {e.strerror or e}"

    def poll(self) -> bool:
        """True once the process has ended (kills it first when over the time limit)."""
        if self.proc is None:
            return True
        if self.proc.poll() is not None:
            return True
        if self.timeout is not None and time.monotonic() - self.t0 > self.timeout:
            self.timed_out = True
            self.proc.kill()
            self.proc.wait()
            return True
        return False

    def wait(self):
        while not self.poll():
            time.sleep(0.02)

    def discard(self):
        """Stop the process (interrupt) and drop its partial output: nothing is recorded."""
        if self.proc is not None and self.proc.poll() is None:
            try:
                self.proc.terminate()
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._close()
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def _close(self):
        for f in (getattr(self, "_stdout", None), getattr(self, "_stderr", None)):
            if f is not None and not f.closed:
                f.close()

    def finish(self) -> dict:
        """Classify the ended process, commit its result directory, return result.json."""
        self._close()
        wall = time.monotonic() - self.t0
        rc = self.proc.returncode if self.proc is not None else None
        out = self.tmp / "out"
        err = error_line(self.tmp / "upswitch.stderr")
        if self.start_error:
            status, code, msg = "failed", None, self.start_error
        elif self.timed_out:
            status, code, msg = "failed", None, f"timeout: killed after {self.timeout:g} s"
        elif rc < 0:
            status, code, msg = "failed", 128 - rc, f"killed by {_signame(-rc)}" + (f"; last stderr line: {err}" if err else "")
        elif rc != 0:
            status, code, msg = "failed", rc, err or f"exit code {rc} with nothing on stderr"
        else:
            status, code, msg = "ok", 0, ""
            name = summary_file(self.run["argv"])  # summary.json, coll.json, workload.json, ...
            try:
                doc = json.loads((out / name).read_text())
                if not isinstance(doc, dict):
                    raise ValueError("not a JSON object")
                if interrupted(doc):
                    status, msg = "failed", "the simulator was interrupted (partial results)"
            except FileNotFoundError:
                status, msg = "failed", f"exit 0 but no {name} written"
            except ValueError as e:
                status, msg = "failed", f"exit 0 but {name} is not valid JSON: {e}"
        # flatten: the simulator's files sit next to result.json in the run directory
        if out.is_dir():
            for p in out.iterdir():
                dest = self.tmp / p.name
                if dest.exists():  # a simulator file named like ours: keep it under out/
                    continue
                os.rename(p, dest)
            try:
                out.rmdir()
            except OSError:
                pass
        res = result_doc(self.run, self.version, status, code, msg, wall)
        self.store.commit(self.tmp, self.run["run_id"], res)
        return res


def run_one(store: Store, run: dict, binary: str, version: str, timeout: float | None) -> dict:
    ex = Execution(store, run, binary, version, timeout)
    ex.start()
    try:
        ex.wait()
    except BaseException:
        ex.discard()
        raise
    return ex.finish()
