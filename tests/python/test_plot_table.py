"""scripts/plot_table.py on a real `upswitch table` run: a PNG with one panel per collective and
one for the p2p round trips, every measured point and every fit drawn; bad input is one line and
exit status 2."""
from __future__ import annotations

import json
import subprocess
import sys

import matplotlib.image as mpimg
import numpy as np

from conftest import REPO, SCRIPTS

PLOT_TABLE = SCRIPTS / "plot_table.py"
sys.path.insert(0, str(SCRIPTS))
import plot_table  # noqa: E402


def run_plot_table(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(PLOT_TABLE), *map(str, args)], capture_output=True, text=True, cwd=REPO)


def test_points_and_fits_of_a_real_table(tmp_path, upswitch):
    out = tmp_path / "table"
    r = subprocess.run([str(upswitch), "table", "--preset", "tiny", "--coll", "all_reduce,all_gather", "--ranks", "2,4",
                        "-b", "4K", "-e", "64K", "--p2p-max-bytes", "4096", "--loaded-sizes", "256", "--moe-tokens", "8",
                        "--moe-skews", "0", "--jobs", "1", "--quiet", "--out", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    table = json.loads((out / "table.json").read_text())
    groups = dict(plot_table.panels(table))
    assert set(groups) == {"all_reduce", "all_gather", "p2p round trip"}
    # Every coll row and every read/write/writefull p2p row is a point; every series has its fit.
    drawn = sum(len(s["points"]) for title, series in groups.items() if title != "p2p round trip" for s in series)
    assert drawn == len(table["coll"]["rows"])
    p2p = [row for row in table["p2p"]["rows"] if row["op"] in ("read", "write", "writefull")]
    assert sum(len(s["points"]) for s in groups["p2p round trip"]) == len(p2p)
    assert all(s["fits"] for series in groups.values() for s in series)
    # table's default --algo auto,all: the auto rows are one series per group, whatever each size picked.
    assert {s["name"] for s in groups["all_reduce"]} >= {"auto 2 ranks", "auto 4 ranks", "ring 2 ranks"}
    # Each point lies in some piece's range, and that piece's line passes within its reported
    # error of it.
    for series in groups.values():
        for s in series:
            for x, y in s["points"]:
                pieces = [f for f in s["fits"] if f["min_bytes"] <= x <= f["max_bytes"]]
                assert pieces, (s["name"], x)
                for f in pieces:
                    fit = f["alpha_us"] + (x / (f["beta_gbytes_per_s"] * 1000) if f["beta_gbytes_per_s"] else 0)
                    assert abs(fit - y) / y <= f["max_rel_error"] + 2e-4, (s["name"], x)
    p = run_plot_table(out)
    assert p.returncode == 0, p.stderr
    img = mpimg.imread(out / "table_fits.png")
    assert img.shape[0] > 300 and img.shape[1] > 600
    assert float(np.std(img[..., :3])) > 0.01, "blank plot"


def test_bad_input_is_one_line_and_exit_2(tmp_path):
    r = run_plot_table(tmp_path)  # no table.json
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    (tmp_path / "table.json").write_text("{not json")
    r = run_plot_table(tmp_path)
    assert r.returncode == 2 and "not JSON" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    (tmp_path / "table.json").write_text(json.dumps({"interrupted": True, "coll": {"rows": []}, "p2p": {"rows": []}}))
    r = run_plot_table(tmp_path)
    assert r.returncode == 2 and "no fits" in r.stderr, r.stderr
    assert not (tmp_path / "table_fits.png").exists()
    assert run_plot_table().returncode == 2
