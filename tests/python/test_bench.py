"""scripts/bench.py's BookSim2 set, its instructions set and issue 21's targets: what a BookSim2
run is read for, how each bar is judged, the set run end to end against a stand-in BookSim2 that
records what it was asked to simulate, a bench stopped with Ctrl-C keeping the runs it finished,
and the instruction counts read from callgrind (a stand-in) per delivered flit and per cycle."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import SCRIPTS, kill_group
import bench

BENCH = SCRIPTS / "bench.py"


def test_booksim_cycles_are_its_last_time_taken():
    out = "Warmed up ...Time used is 30000 cycles\nTime taken is 60093 cycles\nTotal run time 7.0\n"
    assert bench.booksim_cycles(out) == 60093
    with pytest.raises(SystemExit, match="Time taken"):
        bench.booksim_cycles("Error: unknown configuration option foo\n")


def booksim_row(name, ratio, ns):
    return {"scenario": name, "ratio": ratio, "booksim": {"cycles_per_second": 1.0},
            "upswitch": {"cycles_per_second": ratio, "ns_per_delivered_flit": ns}}


def test_each_bar_is_judged_on_its_side_of_the_limit():
    rows = [
        booksim_row("b1", 40.0, 100.5),
        booksim_row("b4", 39.99, 100.0),
        {"scenario": "nvl72-rack-0.25-threads2", "wall_seconds_per_simulated_ms": 60.0, "parallel_efficiency": 0.79},
        {"scenario": "allreduce-switch-72x16MiB-checked-threads2", "process_wall_seconds": 20.01, "peak_rss_mib": 953.0},
        {"scenario": "allreduce-switch-72x16MiB-checked", "process_wall_seconds": 11.0},
        {"scenario": "allreduce-switch-72x16MiB", "process_wall_seconds": 10.0},
        {"scenario": "ualink-pod-1024x4-0.5", "cycles_per_second": 123.0, "peak_rss_mib": 4000.0},
    ]
    got = [(t["measured"], t["bar"], t["met"]) for t in bench.targets(rows)]
    assert got == [
        (40.0, 40.0, True),        # at least 40x: 40 is met
        (100.5, 100.0, False),     # at most 100 ns
        (39.99, 40.0, False),
        (100.0, 100.0, True),
        (60.0, 60.0, True),        # one simulated ms in at most a minute
        (0.79, 0.8, False),        # at least 80% efficiency
        (20.01, 20.0, False),
        (953.0, 1e9 / 2**20, True),  # 1 GB is 953.67 MiB
        (1.1, 1.10, True),         # the check costs at most 10%
        (123.0, None, None),       # the pod is reported, not judged
        (4000.0, None, None),
    ]
    assert bench.targets([]) == []


FAKE_BOOKSIM = """#!/usr/bin/env python3
import sys
import time
with open({log!r}, "a") as f:
    f.write(open(sys.argv[1]).read() + " ".join(sys.argv[2:]) + "\\n---\\n")
if {hang_on!r} and {hang_on!r} in open(sys.argv[1]).read():
    time.sleep(120)
print("Warmed up ...Time used is 30000 cycles")
print({final!r})
sys.exit(255)  # as BookSim2 does when it succeeds
"""


def fake_booksim(tmp_path: Path, final: str, hang_on: str = "") -> tuple[Path, Path]:
    """A stand-in BookSim2 that logs its configuration and prints `final`; one whose configuration
    holds `hang_on` sleeps for two minutes first."""
    log = tmp_path / "booksim.log"
    exe = tmp_path / "booksim"
    exe.write_text(FAKE_BOOKSIM.format(log=str(log), final=final, hang_on=hang_on))
    exe.chmod(0o755)
    return exe, log


def run_bench(upswitch, *args):
    return subprocess.run([sys.executable, str(BENCH), "--bin", str(upswitch), *args], capture_output=True, text=True)


def test_the_booksim_set_runs_both_on_the_validated_pairing(upswitch, tmp_path):
    exe, log = fake_booksim(tmp_path, "Time taken is 50000 cycles")
    out = tmp_path / "bench.json"
    p = run_bench(upswitch, "--set", "booksim", "--booksim", str(exe), "--repeat", "2", "--cycles", "1000",
                  "--kernel", "plain", "--out", str(out))
    assert p.returncode == 0, p.stderr
    result = json.loads(out.read_text())
    rows = result["runs"]
    assert [r["scenario"] for r in rows] == ["booksim-vs-upswitch-sepif-vc4-p1-uniform-0.6",
                                             "booksim-vs-upswitch-sepif-vc4-p4-uniform-0.6"]
    for r in rows:
        b, u = r["booksim"], r["upswitch"]
        assert r["repeats"] == 2 and b["simulated_cycles"] == 50000
        assert b["cycles_per_second"] == pytest.approx(50000 / b["process_wall_seconds"])
        assert u["cycles_per_second"] == pytest.approx(u["simulated_cycles"] / u["process_wall_seconds"])
        assert r["ratio"] == pytest.approx(u["cycles_per_second"] / b["cycles_per_second"])
        assert u["accepted"] == pytest.approx(0.6, abs=0.05)
        assert "switch.allocator=separable_input_first" in r["overrides"]
        assert "switch.vcs=4" in r["overrides"] and "traffic.rate=0.6" in r["overrides"]
    assert [r["overrides"].count(f"traffic.packet_flits={n}") for r, n in zip(rows, (1, 4))] == [1, 1]
    # BookSim2 was asked for the same router: two runs per case, 72 ports, 4 VCs of 8 flits.
    runs = log.read_text().split("---\n")[:-1]
    assert len(runs) == 4
    for run, size in zip(runs, (1, 1, 4, 4)):
        for want in ("k = 72;", "num_vcs = 4;", "vc_buf_size = 8;", f"packet_size = {size};",
                     "injection_rate = 0.6;", "traffic = uniform;", "sw_allocator=separable_input_first"):
            assert want in run
    names = [t["target"] for t in result["targets"]]
    assert len(names) == 4 and all(n.startswith("booksim-vs-upswitch-") for n in names)
    assert {t["bar"] for t in result["targets"]} == {40.0, 100.0}


def test_a_booksim_that_fails_or_is_missing_stops_the_bench(upswitch, tmp_path):
    exe, _ = fake_booksim(tmp_path, "Error: no such topology")
    p = run_bench(upswitch, "--set", "booksim", "--booksim", str(exe), "--repeat", "1", "--cycles", "500",
                  "--out", str(tmp_path / "b.json"))
    assert p.returncode != 0 and "Time taken is N cycles" in p.stderr and not (tmp_path / "b.json").exists()
    p = run_bench(upswitch, "--set", "booksim", "--out", str(tmp_path / "b.json"))
    assert p.returncode == 2 and "--set booksim needs --booksim PATH" in p.stderr
    p = run_bench(upswitch, "--set", "booksim", "--booksim", str(tmp_path / "nope"), "--out", str(tmp_path / "b.json"))
    assert p.returncode == 2 and "not an executable file" in p.stderr


def test_ctrl_c_keeps_the_runs_finished(upswitch, tmp_path):
    exe, _ = fake_booksim(tmp_path, "Time taken is 50000 cycles", hang_on="packet_size = 4;")
    out = tmp_path / "bench.json"
    proc = subprocess.Popen([sys.executable, str(BENCH), "--bin", str(upswitch), "--set", "booksim", "--booksim",
                             str(exe), "--repeat", "1", "--cycles", "500", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 120
    while not out.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)  # the 1-flit pair is written before the 4-flit BookSim2 run hangs
    assert out.exists(), proc.communicate(timeout=5)
    kill_group(proc, signal.SIGINT)  # what a terminal sends on Ctrl-C
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "holds the 1 runs finished" in err and "Traceback" not in err
    result = json.loads(out.read_text())
    assert [r["scenario"] for r in result["runs"]] == ["booksim-vs-upswitch-sepif-vc4-p1-uniform-0.6"]
    assert len(result["targets"]) == 2


def test_an_interrupted_threads_set_keeps_the_runs_it_finished(monkeypatch):
    """Three one- and two-thread runs finish, the fourth is interrupted: the kept rows are the
    medians of what finished (1 thread: 100, 300 -> the lower median 100; 2 threads: 180), and the
    two-thread row's speed-up is against the one-thread median (1.8, efficiency 0.9)."""
    speeds = iter([100.0, 180.0, 300.0])
    monkeypatch.setattr(bench.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(bench, "THREADS_RUNS", [("rack", [], 1)])

    def fake_run(binary, name, sets, cycles, kernel, threads=None):
        v = next(speeds, None)
        if v is None:
            raise KeyboardInterrupt
        return {"scenario": name, "threads": threads, "cycles_per_second": v}

    monkeypatch.setattr(bench, "run_one", fake_run)
    kept = []
    with pytest.raises(KeyboardInterrupt):
        bench.run_threads("upswitch", 1000, 2, lambda *rows: kept.extend(rows))
    assert [(r["threads"], r["cycles_per_second"], r["repeats"]) for r in kept] == [(1, 100.0, 2), (2, 180.0, 1)]
    assert kept[1]["speedup"] == pytest.approx(1.8)
    assert kept[1]["parallel_efficiency"] == pytest.approx(0.9)
    # Interrupted before any one-thread run finished: no speed-up, and no efficiency to judge.
    rows = bench.summarize_threads({1: [], 2: [{"scenario": "nvl72-rack-0.25-threads2", "threads": 2,
                                                 "cycles_per_second": 5.0, "wall_seconds_per_simulated_ms": 9.0}]}, [1, 2])
    assert rows[0]["speedup"] is None and rows[0]["parallel_efficiency"] is None
    assert [t["target"] for t in bench.targets(rows)] == ["nvl72-rack-0.25 on 2 threads: wall time per simulated millisecond"]


FAKE_VALGRIND = """#!/usr/bin/env python3
import subprocess
import sys
args = sys.argv[1:]
log = next(a.split("=", 1)[1] for a in args if a.startswith("--log-file="))
assert "--tool=callgrind" in args
cmd = args[next(i for i, a in enumerate(args) if not a.startswith("--")):]  # valgrind's options come first
code = subprocess.run(cmd).returncode
with open(log, "w") as f:
    f.write("==1== Events    : Ir\\n==1== Collected : 1234567\\n==1==\\n==1== I   refs:      1,234,567\\n")
sys.exit(code)
"""


def test_the_instructions_set_reads_callgrinds_count_per_flit_and_per_cycle(upswitch, tmp_path, monkeypatch):
    """The set runs each point under callgrind (here a stand-in that runs the command and reports
    1,234,567 instructions) and divides by the run's delivered flits or, for a collective, cycles."""
    fake = tmp_path / "valgrind"
    fake.write_text(FAKE_VALGRIND)
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{bench.os.environ['PATH']}")
    monkeypatch.setattr(bench, "INSTRUCTION_RUNS", [
        ("instructions-tiny", ["run", "--preset", "tiny", "--kernel", "plain", "--set", "sim.warmup_cycles=100",
                               "--set", "sim.measure_cycles=400"]),
        ("instructions-coll", ["coll", "--preset", "tiny", "--ranks", "8", "--algo", "switch", "-b", "1K", "-e", "1K",
                               "--jobs", "1"]),
    ])
    rows = []
    bench.run_instructions(str(upswitch), lambda *r: rows.extend(r))
    run, coll = rows
    assert run["instructions"] == coll["instructions"] == 1234567
    assert run["flits_delivered"] > 0
    assert run["instructions_per_delivered_flit"] == pytest.approx(1234567 / run["flits_delivered"])
    assert run["instructions_per_cycle"] == pytest.approx(1234567 / run["simulated_cycles"])
    assert coll["simulated_cycles"] > 0 and "instructions_per_delivered_flit" not in coll
    assert coll["instructions_per_cycle"] == pytest.approx(1234567 / coll["simulated_cycles"])
    assert bench.targets(rows) == []  # counts, not bars
    monkeypatch.setenv("PATH", str(tmp_path / "none"))
    with pytest.raises(SystemExit, match="needs valgrind"):
        bench.run_instructions(str(upswitch), lambda *r: None)
