"""The local backend with the real simulator: a small sweep, caching, resume after a kill,
Ctrl-C, failing points and time limits."""
from __future__ import annotations

import csv
import json
import os
import signal
import time
from pathlib import Path

import pytest

from conftest import (REPO, SLOW_WRAPPER, finished_runs, kill_group, run_sweep, start_sweep,
                      wait_for_results, write_sweep)

TINY8 = REPO / "configs" / "sweeps" / "tiny-8.yaml"
TERM_WRAPPER = Path(__file__).resolve().parent / "term_upswitch.sh"


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_tiny8_local_sweep(tmp_path, upswitch):
    out = tmp_path / "a"
    r = run_sweep("run", TINY8, "--out", out, "--jobs", 2, "--upswitch", upswitch, check=0)
    assert "8/8 done" in r.stderr and "0 failed" in r.stderr
    rows = read_csv(out / "results.csv")
    assert [int(x["index"]) for x in rows] == list(range(8))
    assert {x["status"] for x in rows} == {"ok"}
    assert list(rows[0])[:8] == ["index", "run_id", "switch.allocator", "traffic.rate", "seed", "status",
                                 "exit_code", "error"]
    plan = json.loads((out / "plan.json").read_text())
    assert [x["run_id"] for x in rows] == [p["run_id"] for p in plan["runs"]]
    for x in rows:
        s = json.loads((out / "runs" / x["run_id"] / "summary.json").read_text())
        assert float(x["accepted"]) == s["throughput"]["accepted"]
        assert s["config"]["switch"]["allocator"] == x["switch.allocator"]
        assert s["config"]["switch"]["ports"] == 8  # preset tiny
        assert float(x["offered"]) > 0 and x["packet_mean"] != ""
        assert (out / "runs" / x["run_id"] / "ports.csv").exists()
    # seeds differ -> results differ (the seed really reaches the simulator)
    assert rows[0]["packet_mean"] != rows[1]["packet_mean"] or rows[0]["accepted"] != rows[1]["accepted"]
    assert not any((out / "runs" / ".tmp").iterdir())

    # second invocation: everything cached, nothing re-run, same merged files
    before = finished_runs(out)
    csv1, json1 = (out / "results.csv").read_bytes(), (out / "results.json").read_bytes()
    r = run_sweep("run", TINY8, "--out", out, "--upswitch", upswitch, check=0)
    assert "8 cached, 0 to run" in r.stderr
    assert finished_runs(out) == before
    assert (out / "results.csv").read_bytes() == csv1 and (out / "results.json").read_bytes() == json1

    # another directory, one job at a time: byte-identical merged results
    out2 = tmp_path / "b"
    run_sweep("run", TINY8, "--out", out2, "--jobs", 1, "--upswitch", upswitch, check=0)
    assert (out2 / "results.csv").read_bytes() == csv1
    assert (out2 / "results.json").read_bytes() == json1

    # the plan printed by `plan` has the ids of the runs
    p = run_sweep("plan", TINY8, "--upswitch", upswitch, "--out", out, check=0)
    for x in rows:
        assert x["run_id"] in p.stdout
    assert p.stdout.count(" ok") == 8


def test_resume_after_kill_runs_only_missing_points(tmp_path, upswitch, slow_upswitch):
    ref = tmp_path / "ref"
    run_sweep("run", TINY8, "--out", ref, "--upswitch", upswitch, check=0)

    out = tmp_path / "killed"
    proc = start_sweep("run", TINY8, "--out", out, "--jobs", 1, "--upswitch", SLOW_WRAPPER,
                       env=slow_upswitch(0.4))
    try:
        wait_for_results(out, 3, proc)
    finally:
        kill_group(proc, signal.SIGKILL)  # the sweep and its simulator, no chance to clean up
        proc.wait()
    before = finished_runs(out)
    assert 3 <= len(before) < 8, "the kill came too late to test resuming"
    assert not (out / "results.csv").exists()

    r = run_sweep("run", TINY8, "--out", out, "--upswitch", upswitch, check=0)
    assert f"{len(before)} cached, {8 - len(before)} to run" in r.stderr
    after = finished_runs(out)
    assert len(after) == 8
    for rid, stamp in before.items():  # finished runs were not run again
        assert after[rid] == stamp
    assert (out / "results.csv").read_bytes() == (ref / "results.csv").read_bytes()
    assert (out / "results.json").read_bytes() == (ref / "results.json").read_bytes()
    assert not any((out / "runs" / ".tmp").iterdir()), "leftovers of the killed run were not cleaned"


def test_ctrl_c_keeps_finished_results_and_resumes(tmp_path, upswitch, slow_upswitch):
    out = tmp_path / "int"
    proc = start_sweep("run", TINY8, "--out", out, "--jobs", 2, "--upswitch", SLOW_WRAPPER,
                       env=slow_upswitch(0.5))
    wait_for_results(out, 2, proc)
    kill_group(proc, signal.SIGINT)  # what a terminal sends on Ctrl-C
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    kept = finished_runs(out)
    assert 2 <= len(kept) < 8
    rows = read_csv(out / "results.csv")  # merged with what finished
    assert sum(x["status"] == "ok" for x in rows) == len(kept)
    assert sum(x["status"] == "pending" for x in rows) == 8 - len(kept)
    assert {x["status"] for x in rows} <= {"ok", "pending"}, "an interrupted run must not count as failed"
    assert not any((out / "runs" / ".tmp").iterdir())
    r = run_sweep("run", TINY8, "--out", out, "--upswitch", upswitch, check=0)
    assert f"{len(kept)} cached" in r.stderr
    assert {x["status"] for x in read_csv(out / "results.csv")} == {"ok"}


def test_failing_point_is_recorded_and_others_complete(tmp_path, upswitch):
    sweep = write_sweep(tmp_path / "bad-point.yaml", """
name: bad-point
base: {preset: tiny}
set: {sim.warmup_cycles: 200, sim.measure_cycles: 1000}
vary:
  - switch.allocator: [islip, no_such_allocator, wavefront]
  - traffic.rate: [0.3]
seeds: [1, 2]
outputs: {accepted: /throughput/accepted}
""")
    out = tmp_path / "out"
    r = run_sweep("run", sweep, "--out", out, "--upswitch", upswitch, check=1)
    assert "4 ok, 2 failed" in r.stderr
    rows = read_csv(out / "results.csv")
    bad = [x for x in rows if x["switch.allocator"] == "no_such_allocator"]
    good = [x for x in rows if x["switch.allocator"] != "no_such_allocator"]
    assert len(bad) == 2 and len(good) == 4
    for x in bad:
        assert x["status"] == "failed" and x["exit_code"] == "2"
        assert "switch.allocator" in x["error"] and "no_such_allocator" in x["error"]
        assert x["accepted"] == ""
        assert f"run {x['index']} {x['run_id']} failed" in r.stderr
    for x in good:
        assert x["status"] == "ok" and x["exit_code"] == "0" and x["error"] == "" and float(x["accepted"]) > 0
    res = json.loads((out / "results.json").read_text())
    assert [x["status"] for x in res["runs"]] == [x["status"] for x in rows]

    # failures are cached too (the simulator is deterministic); nothing runs again
    r = run_sweep("run", sweep, "--out", out, "--upswitch", upswitch, check=1)
    assert "6 cached, 0 to run" in r.stderr


def test_timeout_is_a_failure_and_retry_failed_reruns_it(tmp_path, upswitch, slow_upswitch):
    sweep = write_sweep(tmp_path / "slow.yaml", """
name: slow
base: {preset: tiny}
set: {sim.warmup_cycles: 200, sim.measure_cycles: 1000}
vary: {traffic.rate: [0.2, 0.4]}
run: {timeout_seconds: 0.5}
""")
    out = tmp_path / "out"
    t0 = time.monotonic()
    r = run_sweep("run", sweep, "--out", out, "--upswitch", SLOW_WRAPPER, env=slow_upswitch(30), check=1)
    assert time.monotonic() - t0 < 20
    rows = read_csv(out / "results.csv")
    assert [x["status"] for x in rows] == ["failed", "failed"]
    assert all(x["error"].startswith("timeout") for x in rows)
    r = run_sweep("run", sweep, "--out", out, "--upswitch", upswitch, "--retry-failed", check=0)
    assert "0 cached, 2 to run" in r.stderr
    assert [x["status"] for x in read_csv(out / "results.csv")] == ["ok", "ok"]


def test_second_sweep_on_the_same_directory_is_refused(tmp_path, upswitch, slow_upswitch):
    out = tmp_path / "out"
    proc = start_sweep("run", TINY8, "--out", out, "--jobs", 1, "--upswitch", SLOW_WRAPPER, env=slow_upswitch(0.5))
    try:
        wait_for_results(out, 1, proc)
        r = run_sweep("run", TINY8, "--out", out, "--upswitch", upswitch)
        assert r.returncode == 3 and "another `sweep.py run`" in r.stderr
    finally:
        kill_group(proc, signal.SIGKILL)
        proc.wait()


def test_bad_out_and_bad_merge_are_one_line_exit_2(tmp_path, upswitch):
    """Issue 22 item 9: no traceback for an --out that cannot be made or a directory that is not
    a sweep's, one line and exit 2."""
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "plan.json").write_text("{")
    for args in (("run", TINY8, "--out", a_file / "x", "--upswitch", upswitch),
                 ("run", TINY8, "--out", "/proc/not-here", "--upswitch", upswitch),
                 ("merge", bad), ("report", bad), ("merge", tmp_path / "missing")):
        r = run_sweep(*args, check=2)
        assert "Traceback" not in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert r.stderr.startswith("sweep: "), r.stderr


def test_corrupt_point_summary_is_merged_as_failed(tmp_path, upswitch):
    """A point whose summary.json is corrupt is recorded as failed, not merged with empty outputs."""
    out = tmp_path / "c"
    run_sweep("run", TINY8, "--out", out, "--upswitch", upswitch, check=0)
    plan = json.loads((out / "plan.json").read_text())
    victim = plan["runs"][3]["run_id"]
    (out / "runs" / victim / "summary.json").write_text('{"throughput": ')
    r = run_sweep("merge", out, check=0)
    assert "7 ok, 1 failed" in r.stderr, r.stderr
    rows = {x["run_id"]: x for x in read_csv(out / "results.csv")}
    assert rows[victim]["status"] == "failed"
    assert "summary.json" in rows[victim]["error"]
    assert all(x["status"] == "ok" for k, x in rows.items() if k != victim)


@pytest.mark.parametrize("how", ["exit", "kill"])
def test_a_simulator_stopped_by_sigterm_is_cancelled_not_failed(tmp_path, upswitch, how):
    """timeout, Slurm or systemd may send SIGTERM to the simulator alone. The simulator then exits
    143 (or dies of it): the sweep records that point as cancelled (not run, no failure), stops as
    if it had been signalled itself (exit 143), and a resumed sweep runs the point."""
    out = tmp_path / "term"
    env = dict(os.environ, REAL_UPSWITCH=str(upswitch), TERM_UPSWITCH_AT="3", TERM_UPSWITCH_HOW=how,
               TERM_UPSWITCH_COUNT=str(tmp_path / "count"))
    r = run_sweep("run", TINY8, "--out", out, "--jobs", 1, "--upswitch", TERM_WRAPPER, env=env)
    assert r.returncode == 143, r.stderr
    assert "interrupted" in r.stderr and "Traceback" not in r.stderr
    rows = read_csv(out / "results.csv")
    assert sum(x["status"] == "ok" for x in rows) == 2
    assert {x["status"] for x in rows} == {"ok", "pending"}, "a cancelled point must not count as failed"
    assert not any((out / "runs" / ".tmp").iterdir())
    r = run_sweep("run", TINY8, "--out", out, "--upswitch", upswitch, check=0)
    assert "2 cached" in r.stderr
    assert {x["status"] for x in read_csv(out / "results.csv")} == {"ok"}
