"""The Slurm backend on a one-node Slurm started by the test (scripts/slurm_local.py).

Skipped, with the reason, only when Slurm cannot run here (packages missing, not root):
install with `apt-get install -y slurmctld slurmd slurm-client munge`."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pytest

from conftest import REPO, SLOW_WRAPPER, finished_runs, kill_group, run_sweep, start_sweep, write_sweep
import slurm_local

TINY8 = REPO / "configs" / "sweeps" / "tiny-8.yaml"
FAST = ["--poll-seconds", "0.2", "--marker-grace-seconds", "1"]


@pytest.fixture(scope="module")
def slurm(tmp_path_factory):
    reason = slurm_local.unavailable_reason()
    if reason:
        pytest.skip(reason)
    cluster = slurm_local.LocalSlurm(tmp_path_factory.mktemp("slurm"))
    secs = cluster.start(timeout=60)
    print(f"\none-node Slurm started in {secs:.2f} s")
    pids = dict(cluster.pids)
    try:
        yield cluster
    finally:
        cluster.stop()
    alive = {name: pid for name, pid in pids.items() if slurm_local._alive(pid)}
    assert not alive, f"daemons still alive after stop: {alive}"


def test_cluster_started_quickly_and_stops_by_pid(tmp_path):
    reason = slurm_local.unavailable_reason()
    if reason:
        pytest.skip(reason)
    c = slurm_local.LocalSlurm(tmp_path / "c")
    try:
        secs = c.start(timeout=60)
        pids = dict(c.pids)
        assert set(pids) == {"munged", "slurmctld", "slurmd"}
        assert all(slurm_local._alive(p) for p in pids.values())
        assert secs < 60, f"start-up took {secs:.1f} s"
        r = subprocess.run(["sinfo", "-h", "-o", "%t"], env=c.env, capture_output=True, text=True)
        assert r.stdout.split() == ["idle"]
        # munged runs as the munge user
        with open(f"/proc/{pids['munged']}/status") as f:
            uid = next(l.split()[1] for l in f if l.startswith("Uid:"))
        import pwd
        assert int(uid) == pwd.getpwnam("munge").pw_uid
    finally:
        c.stop()
    for name, pid in pids.items():
        assert not slurm_local._alive(pid), f"{name} still alive"
    assert not (tmp_path / "c" / "pids.json").exists()


def test_slurm_gives_the_same_merged_results_as_local(tmp_path, slurm, upswitch):
    local = tmp_path / "local"
    run_sweep("run", TINY8, "--out", local, "--upswitch", upswitch, check=0)
    out = tmp_path / "slurm"
    # 8 runs, 3 per task -> 3 array tasks; arrays of at most 2 tasks -> 2 array jobs
    r = run_sweep("run", TINY8, "--out", out, "--backend", "slurm", "--runs-per-task", 3,
                  "--max-array-size", 3, "--upswitch", upswitch, *FAST, env=slurm.env, timeout=300, check=0)
    assert "as 3 array tasks (3 runs/task)" in r.stderr
    assert (out / "results.csv").read_bytes() == (local / "results.csv").read_bytes()
    assert (out / "results.json").read_bytes() == (local / "results.json").read_bytes()
    subs = list((out / "slurm").iterdir())
    assert len(subs) == 1
    jobs = json.loads((subs[0] / "jobs.json").read_text())
    assert [(j["offset"], j["count"]) for j in jobs] == [(0, 2), (2, 1)]
    markers = sorted(p.name for p in (subs[0] / "markers").glob("task-*.json"))
    assert markers == ["task-0.json", "task-1.json", "task-2.json"]
    for m in markers:
        doc = json.loads((subs[0] / "markers" / m).read_text())
        assert doc["status"] == "ok"
    # everything cached now: nothing is submitted
    r = run_sweep("run", TINY8, "--out", out, "--backend", "slurm", "--upswitch", upswitch, *FAST,
                  env=slurm.env, check=0)
    assert "8 cached, 0 to run" in r.stderr
    assert len(list((out / "slurm").iterdir())) == 1


def test_slurm_failing_point_and_dead_task(tmp_path, slurm, upswitch, slow_upswitch):
    sweep = write_sweep(tmp_path / "mixed.yaml", """
name: mixed
base: {preset: tiny}
set: {sim.warmup_cycles: 200, sim.measure_cycles: 1000}
vary:
  - switch.allocator: [islip, no_such_allocator]
  - traffic.rate: [0.2, 0.4]
""")
    out = tmp_path / "out"
    env = slow_upswitch(1.0)
    env["SLURM_CONF"] = str(slurm.conf)
    # 4 runs, one per task.  Task 0's worker is killed with SIGKILL (as the OOM killer or a
    # node failure would: no marker); task 1 is scancelled (SIGTERM: the worker writes a
    # 'terminated' marker); tasks 2 and 3 run a point the simulator rejects.
    proc = start_sweep("run", sweep, "--out", out, "--backend", "slurm", "--runs-per-task", 1,
                       "--upswitch", SLOW_WRAPPER, *FAST, env=env)
    try:
        deadline = time.monotonic() + 60
        while not list((out / "slurm").glob("*/jobs.json")) and time.monotonic() < deadline:
            time.sleep(0.05)
        sub = next((out / "slurm").glob("*/jobs.json")).parent
        job = json.loads((sub / "jobs.json").read_text())[0]["job_id"]
        starts = [sub / "markers" / f"task-{t}.start" for t in (0, 1)]
        while not all(p.exists() for p in starts) and time.monotonic() < deadline:
            time.sleep(0.05)
        worker0 = json.loads(starts[0].read_text())["pid"]
        os.kill(worker0, signal.SIGKILL)
        subprocess.run(["scancel", f"{job}_1"], env=env, check=True)
        _, err = proc.communicate(timeout=120)
    finally:
        kill_group(proc)
    assert proc.returncode == 1, err
    res = json.loads((out / "results.json").read_text())["runs"]
    st = [(r["params"]["switch.allocator"], r["status"]) for r in res]
    assert st == [("islip", "failed"), ("islip", "failed"), ("no_such_allocator", "failed"), ("no_such_allocator", "failed")]
    assert "ended without writing its marker" in res[0]["error"] and f"{job}_0" in res[0]["error"]
    assert "stopped early (terminated" in res[1]["error"] and f"{job}_1" in res[1]["error"]
    for r in res[2:]:
        assert r["exit_code"] == 2 and "no_such_allocator" in r["error"]
    assert not (sub / "markers" / "task-0.json").exists()
    assert json.loads((sub / "markers" / "task-1.json").read_text())["status"] == "terminated"
    # the failed runs are retried on request; then the merged results match a local run
    again = run_sweep("run", sweep, "--out", out, "--backend", "slurm", "--retry-failed", "--upswitch", upswitch,
                      *FAST, env=env, timeout=300, check=1)
    assert "0 cached, 4 to run" in again.stderr
    res = json.loads((out / "results.json").read_text())["runs"]
    assert [r["status"] for r in res] == ["ok", "ok", "failed", "failed"]
    local = tmp_path / "local"
    run_sweep("run", sweep, "--out", local, "--upswitch", upswitch, check=1)
    assert (local / "results.csv").read_bytes() == (out / "results.csv").read_bytes()


def test_slurm_ctrl_c_cancels_jobs_and_keeps_results(tmp_path, slurm, upswitch, slow_upswitch):
    out = tmp_path / "out"
    env = slow_upswitch(1.0)
    env["SLURM_CONF"] = str(slurm.conf)
    proc = start_sweep("run", TINY8, "--out", out, "--backend", "slurm", "--runs-per-task", 4,
                       "--upswitch", SLOW_WRAPPER, *FAST, env=env)
    deadline = time.monotonic() + 60
    while len(finished_runs(out)) < 1 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    kill_group(proc, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "cancelled job(s)" in err
    jobs = [j["job_id"] for j in json.loads(next((out / "slurm").glob("*/jobs.json")).read_text())]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        q = subprocess.run(["squeue", "-h", "-j", ",".join(jobs)], env=env, capture_output=True, text=True)
        if not q.stdout.strip():
            break
        time.sleep(0.2)
    assert not q.stdout.strip(), f"jobs still queued after Ctrl-C: {q.stdout}"
    kept = finished_runs(out)
    assert 1 <= len(kept) < 8
    r = run_sweep("run", TINY8, "--out", out, "--upswitch", upswitch, check=0)  # finish locally
    assert f"{len(kept)} cached" in r.stderr


def test_slurm_runs_coll_and_workload_sweeps_like_local(tmp_path, slurm, upswitch):
    """Sweeps over other commands go through the same array-task worker: the merged tables and
    the seed aggregates are byte-identical to the local backend's, and a second run submits nothing."""
    for name in ("coll-tiny", "workload-tiny"):
        sweep = REPO / "configs" / "sweeps" / f"{name}.yaml"
        local = tmp_path / f"{name}-local"
        run_sweep("run", sweep, "--out", local, "--upswitch", upswitch, check=0)
        out = tmp_path / f"{name}-slurm"
        run_sweep("run", sweep, "--out", out, "--backend", "slurm", "--runs-per-task", 2, "--upswitch", upswitch,
                  *FAST, env=slurm.env, timeout=300, check=0)
        files = sorted(p.name for p in local.glob("results*"))
        assert files == sorted(p.name for p in out.glob("results*"))
        for f in files:
            assert (out / f).read_bytes() == (local / f).read_bytes(), f
        r = run_sweep("run", sweep, "--out", out, "--backend", "slurm", "--upswitch", upswitch, *FAST,
                      env=slurm.env, timeout=120, check=0)
        assert " 0 to run" in r.stderr
