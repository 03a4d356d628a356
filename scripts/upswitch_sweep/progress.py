"""Sweep progress on stderr: runs done, failed and remaining.

On a terminal one status line is rewritten in place; otherwise (CI logs, Slurm) one line is
printed per change, and nothing at all with quiet=True."""
from __future__ import annotations

import sys
import time


class Progress:
    def __init__(self, total: int, cached_ok: int = 0, cached_failed: int = 0, stream=None, quiet=False, label="sweep"):
        self.total = total
        self.ok = cached_ok
        self.failed = cached_failed
        self.cached = cached_ok + cached_failed
        self.running = 0
        self.extra = ""
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.label = label
        self.t0 = time.monotonic()
        self._last = None

    @property
    def remaining(self) -> int:
        return self.total - self.ok - self.failed

    def line(self) -> str:
        done = self.ok + self.failed
        s = (f"[{self.label}] {done}/{self.total} done ({self.cached} cached), {self.failed} failed, "
             f"{self.remaining} remaining")
        if self.running and self.tty:
            s += f", {self.running} running"
        if self.extra and self.tty:
            s += f"; {self.extra}"
        el = time.monotonic() - self.t0
        if self.tty:
            ran = done - self.cached
            eta = f", ETA {el / ran * self.remaining:.0f}s" if ran and self.remaining else ""
            s += f" [{el:.0f}s{eta}]"
        return s

    def update(self, force=False):
        if self.quiet:
            return
        text = self.line()
        key = text  # on a terminal the clock changes the text about once a second
        if key == self._last and not force:
            return
        self._last = key
        if self.tty:
            self.stream.write("\r\033[K" + text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def note(self, msg: str):
        """A line of its own (e.g. a failed run), not lost under the status line."""
        if self.quiet:
            return
        if self.tty:
            self.stream.write("\r\033[K")
        self.stream.write(msg + "\n")
        self.stream.flush()
        if self.tty:
            self._last = None
            self.update()

    def close(self):
        if self.quiet:
            return
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()

    def done(self, ok: bool, msg: str | None = None):
        if ok:
            self.ok += 1
        else:
            self.failed += 1
        if msg:
            self.note(msg)
        self.update()
