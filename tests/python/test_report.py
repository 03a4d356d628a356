"""Plots and report, mostly from the stored result set tests/python/fixtures/tiny-load/ (made
by make_fixture.py with the real simulator); only the last test runs the simulator."""
from __future__ import annotations

import json
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, PLOT, REPO, run_sweep

FIXTURE = FIXTURES / "tiny-load"
PNG_SIG = b"\x89PNG\r\n\x1a\n"


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == PNG_SIG, f"{path.name} is not a PNG"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def check_png(path: Path, size: tuple[int, int]):
    assert path.is_file(), f"{path.name} missing"
    assert path.stat().st_size > 5000, f"{path.name} is suspiciously small"
    assert png_size(path) == size
    import matplotlib.image as mpimg
    import numpy as np
    img = mpimg.imread(path)  # decodes the whole file: a truncated PNG raises
    assert img.shape[:2] == (size[1], size[0])
    assert float(np.std(img[..., :3])) > 0.01, f"{path.name} is blank"


def run_plot(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(PLOT), *map(str, args)], capture_output=True, text=True, cwd=REPO)


def test_fixture_comes_from_the_real_simulator():
    plan = json.loads((FIXTURE / "plan.json").read_text())
    assert "fake" not in plan["simulator"]["version"], "regenerate with tests/python/make_fixture.py"
    assert len(plan["runs"]) == 6
    for r in plan["runs"]:
        assert (FIXTURE / "runs" / r["run_id"] / "summary.json").exists()
        assert (FIXTURE / "runs" / r["run_id"] / "ports.csv").exists()


def test_plot_command_makes_the_expected_pngs(tmp_path):
    out = tmp_path / "report"
    r = run_plot(FIXTURE, "--out", out)
    assert r.returncode == 0, r.stderr
    expected = {
        "latency_vs_load.png": (1200, 500),
        "throughput_vs_switch_queueing.png": (800, 500),
        "throughput_vs_traffic_rate.png": (800, 500),
        "port_heatmap.png": (1000, 600),
    }
    # the simulator writes latency_hist.csv next to summary.json
    assert all((d / "latency_hist.csv").exists() for d in (FIXTURE / "runs").iterdir())
    expected["latency_cdf.png"] = (800, 500)
    for name, size in expected.items():
        check_png(out / name, size)
    assert sorted(p.name for p in out.glob("*.png")) == sorted(expected)
    md = (out / "report.md").read_text()
    html = (out / "index.html").read_text()
    for name in expected:
        assert f"]({name})" in md and f'src="{name}"' in html
    notes = json.loads((out / "notes.json").read_text())
    joined = " ".join(notes)
    assert "latency CDF: 2 saturated run(s) left out" in joined  # fifo and voq at 0.8
    # the coll / p2p / workload plots belong to sweeps of those commands: no note for a run sweep
    assert "bus bandwidth" not in joined and "step time" not in joined
    assert "6 ok, 0 failed" in md
    # the fixture is not modified by reporting elsewhere
    assert not (FIXTURE / "report").exists()


def test_report_subcommand_and_default_location(tmp_path):
    d = tmp_path / "sweep"
    shutil.copytree(FIXTURE, d)
    r = run_sweep("report", d, check=0)
    assert "report written to" in r.stderr
    check_png(d / "report" / "latency_vs_load.png", (1200, 500))


def test_latency_cdf_skipped_with_a_note_without_histograms(tmp_path):
    d = tmp_path / "sweep"
    shutil.copytree(FIXTURE, d)
    for f in (d / "runs").glob("*/latency_hist.csv"):
        f.unlink()
    r = run_plot(d, "--out", d / "rep")
    assert r.returncode == 0, r.stderr
    assert not (d / "rep" / "latency_cdf.png").exists()
    assert any(n.startswith("latency CDF: skipped, no run directory holds a latency histogram")
               for n in json.loads((d / "rep" / "notes.json").read_text()))
    assert "## Not drawn" in (d / "rep" / "report.md").read_text()
    check_png(d / "rep" / "latency_vs_load.png", (1200, 500))


def test_report_marks_failed_and_pending_runs(tmp_path):
    d = tmp_path / "sweep"
    shutil.copytree(FIXTURE, d)
    plan = json.loads((d / "plan.json").read_text())
    gone, failed = plan["runs"][0]["run_id"], plan["runs"][1]["run_id"]
    shutil.rmtree(d / "runs" / gone)
    res = json.loads((d / "runs" / failed / "result.json").read_text())
    res.update(status="failed", exit_code=2, error="switch.vcs: invalid value")
    (d / "runs" / failed / "result.json").write_text(json.dumps(res))
    r = run_plot(d, "--out", d / "rep")
    assert r.returncode == 0, r.stderr
    md = (d / "rep" / "report.md").read_text()
    assert "4 ok, 1 failed, 1 not run" in md
    assert "## Failed runs" in md and "switch.vcs: invalid value" in md
    check_png(d / "rep" / "latency_vs_load.png", (1200, 500))


def test_report_of_a_directory_without_plan_exits_2(tmp_path):
    r = run_plot(tmp_path)
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "plan.json" in r.stderr


def test_report_of_a_zipped_axis_without_load(tmp_path, upswitch):
    """A fresh sweep with a zip group and no load axis: one throughput plot per axis (the zip
    group plotted against its first key), no latency-vs-load plot, a note saying why."""
    from conftest import write_sweep
    sweep = write_sweep(tmp_path / "zip.yaml", """
name: zip
base: {preset: tiny}
set: {traffic.rate: 0.6, sim.warmup_cycles: 300, sim.measure_cycles: 1500}
vary:
  - zip: {switch.vcs: [1, 2], switch.vc_buffer_flits: [16, 8]}
  - switch.allocator: [islip, wavefront]
""")
    out = tmp_path / "out"
    run_sweep("run", sweep, "--out", out, "--upswitch", upswitch, check=0)
    r = run_plot(out, "--out", out / "rep")
    assert r.returncode == 0, r.stderr
    pngs = sorted(p.name for p in (out / "rep").glob("*.png"))
    assert pngs == ["latency_cdf.png", "port_heatmap.png", "throughput_vs_switch_allocator.png",
                    "throughput_vs_switch_vcs.png"]
    for name in ("throughput_vs_switch_allocator.png", "throughput_vs_switch_vcs.png"):
        check_png(out / "rep" / name, (800, 500))
    notes = json.loads((out / "rep" / "notes.json").read_text())
    assert any(n.startswith("latency vs offered load: skipped") for n in notes)
