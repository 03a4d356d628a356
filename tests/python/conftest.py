"""Shared helpers for the sweep tool tests (run with /usr/bin/python3 -m pytest tests/python).

Tests that need the simulator take it from $UPSWITCH_BIN (default build/upswitch) and fail,
not skip, when it is missing: build it first (cmake -S . -B build && cmake --build build)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = REPO / "scripts"
SWEEP = SCRIPTS / "sweep.py"
PLOT = SCRIPTS / "plot.py"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SLOW_WRAPPER = Path(__file__).resolve().parent / "slow_upswitch.sh"
sys.path.insert(0, str(SCRIPTS))


def upswitch_path() -> Path:
    p = Path(os.environ.get("UPSWITCH_BIN", REPO / "build" / "upswitch"))
    return p if p.is_absolute() else (REPO / p)


@pytest.fixture(scope="session")
def upswitch() -> Path:
    p = upswitch_path()
    if not os.access(p, os.X_OK):
        pytest.fail(f"simulator not found at {p}: build it (cmake -S . -B build && cmake --build build) "
                    f"or set UPSWITCH_BIN")
    return p


@pytest.fixture
def slow_upswitch(upswitch, monkeypatch):
    """A wrapper that sleeps before each run (not before --version), so tests can stop a
    sweep midway.  Same version string, hence the same run ids, as the real binary."""
    def make(sleep: float = 0.5) -> dict:
        env = dict(os.environ)
        env["REAL_UPSWITCH"] = str(upswitch)
        env["SLOW_UPSWITCH_SLEEP"] = str(sleep)
        return env
    return make


def sweep_cmd(*args) -> list[str]:
    return [sys.executable, str(SWEEP), *map(str, args)]


def run_sweep(*args, env=None, timeout=600, check=None) -> subprocess.CompletedProcess:
    r = subprocess.run(sweep_cmd(*args), capture_output=True, text=True, env=env, timeout=timeout, cwd=REPO)
    if check is not None and r.returncode != check:
        raise AssertionError(f"sweep.py {' '.join(map(str, args))} exited {r.returncode}, expected {check}\n"
                             f"stdout:\n{r.stdout}\nstderr:\n{r.stderr}")
    return r


def start_sweep(*args, env=None) -> subprocess.Popen:
    """Start sweep.py in its own process group (so the test can signal it like a terminal)."""
    return subprocess.Popen(sweep_cmd(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, cwd=REPO, start_new_session=True)


def wait_for_results(out: Path, n: int, proc: subprocess.Popen, timeout: float = 120) -> int:
    """Wait until at least n finished run directories exist; returns how many."""
    runs = out / "runs"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        have = len(finished_runs(out))
        if have >= n:
            return have
        if proc.poll() is not None:
            raise AssertionError(f"sweep ended (exit {proc.returncode}) before {n} results: {proc.stderr.read()}")
        time.sleep(0.02)
    raise AssertionError(f"fewer than {n} results in {runs} after {timeout}s")


def finished_runs(out: Path) -> dict:
    """run_id -> (inode, mtime_ns) of result.json, for every finished run."""
    res = {}
    runs = out / "runs"
    if runs.is_dir():
        for d in runs.iterdir():
            f = d / "result.json"
            if not d.name.startswith(".") and f.exists():
                st = f.stat()
                res[d.name] = (st.st_ino, st.st_mtime_ns)
    return res


def kill_group(proc: subprocess.Popen, sig=signal.SIGKILL):
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        pass


def write_sweep(path: Path, text: str) -> Path:
    path.write_text(text)
    return path
