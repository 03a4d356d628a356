"""The Slurm backend: the pending runs of a plan become Slurm job arrays.

* Runs are packed into array tasks of `runs_per_task` runs (auto: target_task_seconds /
  the expected run time: the median of finished runs of this sweep, else est_run_seconds,
  else 60 s).
* Tasks are split into arrays of at most max_array_size - 1 tasks (Slurm's MaxArraySize,
  default 1001, bounds the array *index*, so indices run 0..max_array_size-1).
* Each array task runs `sweep.py _worker OUT SUB TASK`, which runs its runs one after the
  other through execute.py (same atomic result directories as the local backend), then
  writes SUB/markers/task-TASK.json.
* The submitter polls: a task is finished when its marker exists; a task that is neither in
  `squeue` (pending/running) nor has a marker for marker_grace_seconds is declared dead
  (cancelled, time limit, node failure, OOM): its unfinished runs are recorded as failed.
  No accounting (sacct) is needed.
* Ctrl-C: the submitter scancels its jobs, keeps every finished result and exits 130.

The out directory, the simulator binary and this script must be on a file system shared
with the compute nodes (they are on a one-node cluster).
"""
from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from .execute import Execution, stop_signal
from .interrupt import Interrupt
from .progress import Progress
from .store import Store, atomic_write_json

ACTIVE_STATES = {"PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED", "REQUEUED", "REQUEUE_FED",
                 "REQUEUE_HOLD", "RESIZING", "SIGNALING", "STAGE_OUT", "STOPPED", "PREEMPTED", "RESV_DEL_HOLD",
                 "SPECIAL_EXIT"}
SWEEP_PY = Path(__file__).resolve().parents[1] / "sweep.py"


class SlurmError(Exception):
    pass


@dataclass
class SlurmOptions:
    partition: str | None = None
    account: str | None = None
    qos: str | None = None
    time: str | None = None
    mem: str | None = None
    cpus_per_task: int = 1
    runs_per_task: object = "auto"
    est_run_seconds: float | None = None
    target_task_seconds: float = 600.0
    max_array_size: int = 1001
    array_throttle: int | None = None
    poll_seconds: float = 10.0
    marker_grace_seconds: float = 30.0
    sbatch_args: list = field(default_factory=list)
    python: str = sys.executable or "python3"
    job_name: str | None = None

    @classmethod
    def from_sources(cls, file_opts: dict, cli_opts: dict) -> "SlurmOptions":
        o = cls()
        for src in (file_opts, cli_opts):
            for k, v in src.items():
                if v is None:
                    continue
                if k == "sbatch_args":
                    o.sbatch_args = list(o.sbatch_args) + list(v) if src is cli_opts else list(v)
                else:
                    setattr(o, k, v)
        return o


# ---------------------------------------------------------------------------- packing
def slurm_time_seconds(text: str | None) -> float | None:
    """Slurm's time formats: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S."""
    if not text:
        return None
    days = 0
    if "-" in text:
        d, text = text.split("-", 1)
        days = int(d)
        parts = [int(x) for x in text.split(":")]
        parts += [0] * (3 - len(parts))
        h, m, sec = parts
    else:
        parts = [int(x) for x in text.split(":")]
        if len(parts) == 1:
            h, m, sec = 0, parts[0], 0
        elif len(parts) == 2:
            h, m, sec = 0, parts[0], parts[1]
        else:
            h, m, sec = parts
    return float(((days * 24 + h) * 60 + m) * 60 + sec)


def runs_per_task(opts: SlurmOptions, store: Store, plan: dict) -> int:
    if opts.runs_per_task != "auto":
        return int(opts.runs_per_task)
    # measured beats guessed: the median run time of finished runs of this sweep, else the
    # sweep file's est_run_seconds, else 60 s
    walls = []
    for r in plan["runs"]:
        res = store.result(r["run_id"])
        if res and res["status"] == "ok" and res.get("wall_seconds"):
            walls.append(res["wall_seconds"])
    est = statistics.median(walls) if walls else (opts.est_run_seconds or 60.0)
    target = opts.target_task_seconds
    limit = slurm_time_seconds(opts.time)
    if limit:  # keep a task well inside its time limit
        target = min(target, limit / 2)
    return max(1, int(target // max(est, 1e-3)))


def pack(indices: list[int], per_task: int) -> list[list[int]]:
    """Contiguous blocks whose sizes differ by at most one."""
    if not indices:
        return []
    n_tasks = -(-len(indices) // per_task)
    base, extra = divmod(len(indices), n_tasks)
    out, i = [], 0
    for t in range(n_tasks):
        size = base + (1 if t < extra else 0)
        out.append(indices[i:i + size])
        i += size
    return out


def chunk_arrays(n_tasks: int, max_array_size: int) -> list[tuple[int, int]]:
    """(offset, count) per array job; indices 0..count-1 stay below max_array_size."""
    per = max(1, max_array_size - 1)
    return [(off, min(per, n_tasks - off)) for off in range(0, n_tasks, per)]


# ---------------------------------------------------------------------------- slurm commands
def _tool(name: str) -> str:
    p = shutil.which(name)
    if not p:
        raise SlurmError(f"{name} not found on PATH (install slurm-client, or run where Slurm is)")
    return p


def _last_line(text: str) -> str:
    lines = [l.strip() for l in text.strip().splitlines() if l.strip()]
    return lines[-1] if lines else ""


def squeue_active(job_ids: list[str]) -> set[str] | None:
    """{"<job>_<task>", ...} of array tasks still queued or running; None when squeue failed."""
    if not job_ids:
        return set()
    try:
        r = subprocess.run([_tool("squeue"), "-h", "-r", "-j", ",".join(job_ids), "-o", "%i %T"],
                           capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return None
    if r.returncode != 0:
        if "Invalid job id" in r.stderr:  # every job already purged from the controller
            return set()
        return None
    active = set()
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[1] in ACTIVE_STATES:
            active.add(parts[0])
    return active


def scancel(job_ids: list[str]):
    if job_ids:
        try:
            subprocess.run([_tool("scancel")] + job_ids, capture_output=True, text=True, timeout=60)
        except (subprocess.TimeoutExpired, SlurmError):
            pass


# ---------------------------------------------------------------------------- submitter
class Submission:
    def __init__(self, store: Store, sub_dir: Path):
        self.store, self.dir = store, sub_dir
        self.markers = sub_dir / "markers"
        self.logs = sub_dir / "logs"
        self.jobs: list[dict] = []  # {"job_id", "offset", "count"}

    def marker(self, task: int) -> dict | None:
        try:
            return json.loads((self.markers / f"task-{task}.json").read_text())
        except (OSError, ValueError):
            return None

    def slurm_name(self, task: int) -> str:
        for j in self.jobs:
            if j["offset"] <= task < j["offset"] + j["count"]:
                return f"{j['job_id']}_{task - j['offset']}"
        return f"?_{task}"

    def log_of(self, task: int) -> Path:
        name = self.slurm_name(task)
        return self.logs / f"{name}.out"


def _check_stale(store: Store):
    """Refuse to submit while jobs of an earlier submission into the same OUT still run."""
    subs = store.out / "slurm"
    if not subs.is_dir():
        return
    ids = []
    for jf in sorted(subs.glob("*/jobs.json")):
        try:
            ids += [j["job_id"] for j in json.loads(jf.read_text())]
        except (OSError, ValueError, KeyError, TypeError):
            continue
    if not ids:
        return
    act = squeue_active(ids)
    if act:
        jobs = sorted({a.split("_")[0] for a in act})
        raise SlurmError(f"jobs {','.join(jobs)} of an earlier submission into {store.out} are still queued or "
                         f"running; wait for them or scancel them first")


def _job_script(opts: SlurmOptions, store: Store, sub: Path, offset: int) -> str:
    argv = [opts.python, str(SWEEP_PY), "_worker", str(store.out), str(sub)]
    cmd = " ".join(shlex.quote(a) for a in argv)
    return ("#!/bin/sh\n"
            "# generated by scripts/sweep.py: one array task runs the runs listed in tasks.json\n"
            f"exec {cmd} \"$(({offset} + SLURM_ARRAY_TASK_ID))\"\n")


def submit(store: Store, plan: dict, pending: list[dict], binary: str, version: str,
           opts: SlurmOptions, per_task: int) -> Submission:
    _tool("sbatch")
    _check_stale(store)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    sub_dir = store.out / "slurm" / f"{stamp}-{os.getpid()}"
    sub = Submission(store, sub_dir)
    sub.markers.mkdir(parents=True)
    sub.logs.mkdir()
    tasks = pack([r["index"] for r in pending], per_task)
    atomic_write_json(sub_dir / "tasks.json", {"binary": binary, "version": version,
                                               "timeout_seconds": plan.get("timeout_seconds"), "tasks": tasks})
    name = opts.job_name or f"upsw-{plan['name']}"
    try:
        for k, (offset, count) in enumerate(chunk_arrays(len(tasks), opts.max_array_size)):
            script = sub_dir / f"job-{k}.sh"
            script.write_text(_job_script(opts, store, sub_dir, offset))
            script.chmod(0o755)
            array = f"0-{count - 1}" + (f"%{opts.array_throttle}" if opts.array_throttle else "")
            argv = [_tool("sbatch"), "--parsable", f"--job-name={name}", f"--array={array}",
                    f"--output={sub.logs}/%A_%a.out", f"--cpus-per-task={opts.cpus_per_task}",
                    f"--chdir={os.getcwd()}"]
            for key in ("partition", "account", "qos", "time", "mem"):
                v = getattr(opts, key)
                if v:
                    argv.append(f"--{key}={v}")
            argv += list(opts.sbatch_args) + [str(script)]
            r = subprocess.run(argv, capture_output=True, text=True, timeout=120)
            if r.returncode != 0:
                raise SlurmError(f"sbatch failed (exit {r.returncode}): {_last_line(r.stderr) or _last_line(r.stdout)}")
            job_id = r.stdout.strip().split(";")[0]
            if not job_id.isdigit():
                raise SlurmError(f"sbatch printed no job id: {r.stdout.strip()!r}")
            sub.jobs.append({"job_id": job_id, "offset": offset, "count": count})
            atomic_write_json(sub_dir / "jobs.json", sub.jobs)
    except BaseException:
        scancel([j["job_id"] for j in sub.jobs])
        raise
    sub.tasks = tasks
    return sub


def run_slurm(store: Store, plan: dict, pending: list[dict], binary: str, version: str,
              opts: SlurmOptions, progress: Progress, intr: Interrupt) -> bool:
    if not pending:
        return True
    per_task = runs_per_task(opts, store, plan)
    sub = submit(store, plan, pending, binary, version, opts, per_task)
    tasks = sub.tasks
    by_index = {r["index"]: r for r in plan["runs"]}
    job_ids = [j["job_id"] for j in sub.jobs]
    progress.note(f"[sweep] submitted {len(pending)} runs as {len(tasks)} array tasks "
                  f"({per_task} runs/task) in job(s) {','.join(job_ids)}; logs in {sub.logs}")
    finished_tasks: set[int] = set()
    dead: dict[int, str] = {}
    seen_runs: set[int] = set()
    suspect_since: dict[int, float] = {}

    def account_results():
        for t, idxs in enumerate(tasks):
            for i in idxs:
                if i in seen_runs:
                    continue
                res = store.result(by_index[i]["run_id"])
                if res is not None:
                    seen_runs.add(i)
                    ok = res["status"] == "ok"
                    progress.done(ok, None if ok else f"[sweep] run {i} {res['run_id']} failed "
                                                      f"(exit {res['exit_code']}): {res['error']}")

    while True:
        if intr.requested:
            scancel(job_ids)
            progress.note(f"[sweep] interrupted: cancelled job(s) {','.join(job_ids)}")
            account_results()
            return False
        for t in range(len(tasks)):
            if t not in finished_tasks and t not in dead and sub.marker(t) is not None:
                finished_tasks.add(t)
        account_results()
        open_tasks = [t for t in range(len(tasks)) if t not in finished_tasks and t not in dead]
        progress.extra = f"{len(open_tasks)} of {len(tasks)} array tasks open"
        progress.update()
        if not open_tasks:
            break
        active = squeue_active(job_ids)
        now = time.monotonic()
        if active is not None:
            for t in open_tasks:
                if sub.slurm_name(t) in active:
                    suspect_since.pop(t, None)
                    continue
                first = suspect_since.setdefault(t, now)
                if now - first >= opts.marker_grace_seconds and sub.marker(t) is None:
                    dead[t] = "no marker"
        # sleep in small steps so Ctrl-C is handled promptly
        end = time.monotonic() + opts.poll_seconds
        while time.monotonic() < end and not intr.requested:
            time.sleep(min(0.1, opts.poll_seconds))

    # tasks that ended without finishing all their runs
    for t in range(len(tasks)):
        m = sub.marker(t)
        if t in dead:
            why = "ended without writing its marker (cancelled, time limit, node failure or out of memory)"
        elif m is not None and m.get("status") != "ok":
            why = f"stopped early ({m.get('status')}: {m.get('reason', '')})"
        else:
            why = "reported done but left no result for this run"
        for i in tasks[t]:
            run = by_index[i]
            if store.result(run["run_id"]) is None:
                store.record_failure(run, version, None,
                                     f"slurm array task {sub.slurm_name(t)} {why}; log: {sub.log_of(t)}")
    account_results()
    progress.extra = ""
    return True


# ---------------------------------------------------------------------------- worker
def worker_main(out: str, sub_dir: str, task: int) -> int:
    """Runs inside one array task.  Needs only the standard library."""
    store = Store(out)
    sub = Path(sub_dir)
    doc = json.loads((sub / "tasks.json").read_text())
    plan = store.read_plan()
    by_index = {r["index"]: r for r in plan["runs"]}
    markers = sub / "markers"
    host = socket.gethostname()
    atomic_write_json(markers / f"task-{task}.start", {"task": task, "host": host, "pid": os.getpid()})
    status, reason, statuses = "ok", "", {}
    with Interrupt() as intr:
        try:
            for i in doc["tasks"][task]:
                run = by_index[i]
                prev = store.result(run["run_id"])
                if prev is not None and prev["status"] == "ok":  # a requeued task
                    statuses[run["run_id"]] = "cached"
                    continue
                ex = Execution(store, run, doc["binary"], doc["version"], doc.get("timeout_seconds"))
                ex.start()
                while not ex.poll():
                    if intr.requested:
                        ex.discard()
                        break
                    time.sleep(0.02)
                # scancel signals the whole job: the simulator may end on it (exit 143 or 130,
                # or killed by it) before this worker's handler has run. Such a run is cancelled,
                # not a failed point: nothing is recorded, and a resumed sweep runs it again.
                rc = ex.proc.returncode if ex.proc is not None else None
                sig = stop_signal(rc)
                if not intr.requested and sig is not None:
                    ex.discard()
                    intr.requested, intr.signum = True, sig
                if intr.requested:
                    status, reason = "terminated", f"received {signal.Signals(intr.signum).name}"
                    break
                res = ex.finish()
                statuses[run["run_id"]] = res["status"]
                print(f"run {i} {run['run_id']}: {res['status']} {res['error'] or ''}".rstrip(), flush=True)
        except Exception as e:  # recorded in the marker; the submitter marks the runs failed
            status, reason = "error", f"{type(e).__name__}: {e}"
            print(f"worker error: {reason}", file=sys.stderr, flush=True)
    atomic_write_json(markers / f"task-{task}.json",
                      {"task": task, "host": host, "status": status, "reason": reason, "runs": statuses})
    return 0 if status == "ok" else 1
