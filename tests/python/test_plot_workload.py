"""scripts/plot_workload.py (the picture scripts/run.sh draws): one row per chain, the legend
outside the axes so that it covers no bar (issue 58 item 5), and bad input is one line and exit
status 2."""
from __future__ import annotations

import csv
import subprocess
import sys

from conftest import REPO, SCRIPTS

PLOT_WORKLOAD = SCRIPTS / "plot_workload.py"
sys.path.insert(0, str(SCRIPTS))
import plot_workload  # noqa: E402

FIELDS = ["workload", "group", "phase", "start_cycle", "end_cycle", "time_us"]


def rows_like_the_default_run():
    """MoE and nine TP groups whose all-reduces end at the right edge, as in scripts/run.sh's
    default run: the case where the legend used to sit on the last group's bar."""
    rows = [{"workload": "moe", "group": "-1", "phase": "dispatch", "start_cycle": "0", "end_cycle": "37000",
             "time_us": "23.125"},
            {"workload": "moe", "group": "-1", "phase": "combine", "start_cycle": "45000", "end_cycle": "87000",
             "time_us": "26.25"}]
    for g in range(9):
        for start, end in ((8000, 115000), (123000, 184000 + 100 * g)):
            rows.append({"workload": "tp", "group": str(g), "phase": "all_reduce", "start_cycle": str(start),
                         "end_cycle": str(end), "time_us": str((end - start) / 1600.0)})
    return rows


def test_the_legend_covers_no_bar():
    fig, ax = plot_workload.figure(rows_like_the_default_run())
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legend = fig.legends[0] if fig.legends else ax.get_legend()
    assert legend is not None
    assert [t.get_text() for t in legend.get_texts()] == ["dispatch", "combine", "all_reduce"]
    box = legend.get_window_extent(renderer)
    assert not box.overlaps(ax.get_window_extent(renderer)), "the legend lies on the axes"
    for bar in ax.patches:
        assert not box.overlaps(bar.get_window_extent(renderer))
    assert 0 <= box.x0 and box.x1 <= fig.bbox.x1, "the legend leaves the figure"
    assert len(ax.get_yticklabels()) == 10 and len(ax.patches) == 2 + 18


def test_writes_the_png_and_refuses_a_missing_table(tmp_path):
    with open(tmp_path / "workload_phases.csv", "w", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        w.writeheader()
        w.writerows(rows_like_the_default_run())
    r = subprocess.run([sys.executable, str(PLOT_WORKLOAD), str(tmp_path)], capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "workload.png").stat().st_size > 10000
    r = subprocess.run([sys.executable, str(PLOT_WORKLOAD), str(tmp_path / "none")], capture_output=True, text=True,
                       cwd=REPO)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "workload_phases.csv" in r.stderr
