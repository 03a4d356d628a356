"""The result directory of a sweep.

    OUT/plan.json               the expanded plan (written by `run`)
    OUT/sweep.yaml              a copy of the sweep file
    OUT/runs/<run_id>/          one finished run: result.json + what the simulator wrote
                                (summary.json, ports.csv, ...) + upswitch.stdout/.stderr
    OUT/runs/.tmp/              runs in progress; renamed into runs/ when finished
    OUT/results.csv, .json      the merged results (merge.py)
    OUT/slurm/                  submissions of the slurm backend
    OUT/.lock                   held by the `sweep.py run` working on OUT

A run directory appears in one rename(2), so runs/<id>/result.json exists exactly when the
run finished (status ok or failed); nothing half-written is ever taken for a result.
"""
from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
import time
import uuid
from pathlib import Path

from .commands import summary_file


def atomic_write(path: Path, text: str):
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    with open(tmp, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def atomic_write_json(path: Path, doc) -> None:
    atomic_write(path, json.dumps(doc, indent=1, ensure_ascii=False) + "\n")


class LockedError(Exception):
    pass


class Store:
    def __init__(self, out):
        self.out = Path(out).resolve()
        self.runs = self.out / "runs"
        self.tmp = self.runs / ".tmp"
        self._lock_fd = None

    # ------------------------------------------------------------ layout
    def ensure(self):
        self.tmp.mkdir(parents=True, exist_ok=True)

    def run_dir(self, run_id: str) -> Path:
        return self.runs / run_id

    def lock(self):
        """Exclusive lock on OUT for the lifetime of this process (or until unlock)."""
        self.out.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.out / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            os.close(fd)
            if e.errno in (errno.EAGAIN, errno.EACCES):
                raise LockedError(f"another `sweep.py run` is working in {self.out}")
            raise
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._lock_fd = fd

    def unlock(self):
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def clean_tmp(self):
        """Remove leftovers of runs that were in progress when an earlier sweep was killed."""
        if not self.tmp.is_dir():
            return
        for p in self.tmp.iterdir():
            if p.is_dir():
                shutil.rmtree(p, ignore_errors=True)
            else:
                try:
                    p.unlink()
                except OSError:
                    pass

    # ------------------------------------------------------------ plan
    def write_plan(self, doc: dict):
        self.out.mkdir(parents=True, exist_ok=True)
        atomic_write_json(self.out / "plan.json", doc)

    def read_plan(self) -> dict:
        p = self.out / "plan.json"
        try:
            doc = json.loads(p.read_text())
        except FileNotFoundError:
            raise FileNotFoundError(f"{self.out} holds no plan.json (not a sweep result directory)")
        except (OSError, ValueError) as e:
            raise FileNotFoundError(f"{p}: not a readable plan ({e}); run the sweep again into a new --out")
        if not isinstance(doc, dict) or not isinstance(doc.get("runs"), list):
            raise FileNotFoundError(f"{p}: not a sweep plan (no list of runs); run the sweep again into a new --out")
        return doc

    # ------------------------------------------------------------ results
    def result(self, run_id: str) -> dict | None:
        try:
            doc = json.loads((self.run_dir(run_id) / "result.json").read_text())
        except (OSError, ValueError):
            return None
        return doc if isinstance(doc, dict) and doc.get("status") in ("ok", "failed") else None

    def checked_result(self, run_id: str) -> dict | None:
        """result(), but a run recorded ok whose summary (summary.json, or coll.json, ... for the
        other commands) is missing or corrupt is reported as failed (its outputs cannot be
        trusted): merges mark it, and --retry-failed runs it again."""
        doc = self.result(run_id)
        if doc is not None and doc["status"] == "ok" and self.summary(run_id, doc) is None:
            name = summary_file(doc.get("argv"))
            doc = dict(doc, status="failed", error=f"{name} missing or corrupt (not a JSON object)")
        return doc

    def summary(self, run_id: str, result: dict | None = None) -> dict | None:
        """The run's summary: the JSON file its command writes (named by the argv in result.json)."""
        if result is None:
            result = self.result(run_id)
        name = summary_file(result.get("argv") if isinstance(result, dict) else None)
        try:
            doc = json.loads((self.run_dir(run_id) / name).read_text())
        except (OSError, ValueError):
            return None
        return doc if isinstance(doc, dict) else None

    def statuses(self, runs) -> dict:
        out = {}
        for r in runs:
            rid = r["run_id"] if isinstance(r, dict) else r.run_id
            res = self.checked_result(rid)
            if res is not None:
                out[rid] = res["status"]
        return out

    def new_tmp(self, run_id: str) -> Path:
        self.tmp.mkdir(parents=True, exist_ok=True)
        p = self.tmp / f"{run_id}.{os.getpid()}.{uuid.uuid4().hex[:8]}"
        p.mkdir()
        return p

    def commit(self, tmp: Path, run_id: str, result: dict) -> bool:
        """Write result.json into tmp and rename tmp to runs/<run_id>.

        A finished result already there wins (returns False, tmp discarded), unless it is a
        failure and this one replaces it (a retry)."""
        atomic_write_json(tmp / "result.json", result)
        dest = self.run_dir(run_id)
        for _ in range(3):
            try:
                os.rename(tmp, dest)
                return True
            except OSError as e:
                if e.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                    raise
            old = self.result(run_id)
            if old is not None and old["status"] == "ok":
                shutil.rmtree(tmp, ignore_errors=True)
                return False
            # a failed (or unreadable) earlier result: move it aside, then retry the rename
            trash = self.tmp / f"old.{run_id}.{uuid.uuid4().hex[:8]}"
            try:
                os.rename(dest, trash)
            except FileNotFoundError:
                pass
            shutil.rmtree(trash, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)
        return False

    def record_failure(self, run: dict, version: str, exit_code, error: str, extra: dict | None = None) -> bool:
        """Record a failure that happened outside the simulator (e.g. a Slurm task died)."""
        tmp = self.new_tmp(run["run_id"])
        res = result_doc(run, version, "failed", exit_code, error)
        res.update(extra or {})
        return self.commit(tmp, run["run_id"], res)


def result_doc(run: dict, version: str, status: str, exit_code, error: str, wall: float | None = None) -> dict:
    return {
        "run_id": run["run_id"],
        "index": run["index"],
        "params": run["params"],
        "seed": run["seed"],
        "argv": run["argv"],
        "simulator_version": version,
        "status": status,
        "exit_code": exit_code,
        "error": error,
        "host": os.uname().nodename,
        "wall_seconds": None if wall is None else round(wall, 3),
        "finished_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
