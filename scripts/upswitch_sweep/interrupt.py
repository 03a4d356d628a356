"""Ctrl-C / SIGTERM handling: the first signal asks the backend to stop cleanly (running
simulator processes are ended and their partial output dropped, finished results stay); the
backends poll `requested`.  A second Ctrl-C raises KeyboardInterrupt as usual."""
from __future__ import annotations

import signal


class Interrupt:
    def __init__(self):
        self.requested = False
        self.signum = None
        self._old = {}

    def _handler(self, signum, frame):
        if self.requested and signum == signal.SIGINT:
            raise KeyboardInterrupt
        self.requested = True
        self.signum = signum

    def __enter__(self):
        for s in (signal.SIGINT, signal.SIGTERM):
            self._old[s] = signal.signal(s, self._handler)
        return self

    def __exit__(self, *exc):
        for s, h in self._old.items():
            signal.signal(s, h)
        return False

    @property
    def exit_code(self) -> int:
        return 128 + (self.signum or signal.SIGINT)
