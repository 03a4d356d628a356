"""scripts/plot_nccl.py on a real `upswitch coll` run of the dgx-h100 preset: every row is a point
of its series, the auto rows one series whatever each size picked, the measured 8 x H100 points
are drawn on the all_reduce panel and only there, and the PNG is not blank; bad input is one line
and exit status 2, with no PNG."""
from __future__ import annotations

import json
import subprocess
import sys

import matplotlib.image as mpimg
import numpy as np

from conftest import REPO, SCRIPTS

PLOT_NCCL = SCRIPTS / "plot_nccl.py"
sys.path.insert(0, str(SCRIPTS))
import plot_nccl  # noqa: E402


def run_plot(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(PLOT_NCCL), *map(str, args)], capture_output=True, text=True, cwd=REPO)


def test_every_row_and_the_measured_points(tmp_path, upswitch):
    out = tmp_path / "coll"
    r = subprocess.run([str(upswitch), "coll", "--preset", "dgx-h100", "--ranks", "8", "--coll", "all_reduce,all_gather",
                        "-b", "64K", "-e", "256K", "-f", "4", "--algo", "auto,ring", "--protocol", "ll",
                        "--set", "coll.data=timing", "--quiet", "--out", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    coll = json.loads((out / "coll.json").read_text())
    panels = plot_nccl.series(coll)
    assert set(panels) == {("all_reduce", 8), ("all_gather", 8)}
    assert sum(len(points) for panel in panels.values() for points in panel.values()) == len(coll["rows"])
    assert set(panels[("all_reduce", 8)]) == {"auto", "ring/ll"}
    measured = plot_nccl.MEASURED["dgx-h100"]
    assert ("all_reduce", 8) in measured and ("all_gather", 8) not in measured
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots()
    plot_nccl.draw(ax, "dgx-h100", ("all_reduce", 8), panels[("all_reduce", 8)])
    labels = [t.get_text() for t in ax.legend().get_texts()]
    assert "measured: 8xH100 NVLS" in labels and any(lab.startswith("NCCL: LL ring") for lab in labels), labels
    plt.close(fig)
    p = run_plot(out, "dgx-h100")
    assert p.returncode == 0, p.stderr
    img = mpimg.imread(out / "nccl_busbw.png")
    assert img.shape[0] > 300 and img.shape[1] > 600
    assert float(np.std(img[..., :3])) > 0.01, "blank plot"


def test_bad_input_is_one_line_and_exit_2(tmp_path):
    r = run_plot(tmp_path, "dgx-h100")  # no coll.json
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    (tmp_path / "coll.json").write_text("{not json")
    r = run_plot(tmp_path, "dgx-h100")
    assert r.returncode == 2 and "not JSON" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    (tmp_path / "coll.json").write_text(json.dumps({"rows": [{"collective": "all_reduce"}]}))
    r = run_plot(tmp_path, "dgx-h100")
    assert r.returncode == 2 and "lacks" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    r = run_plot(tmp_path, "dgx-a100")
    assert r.returncode == 2 and "dgx-a100" in r.stderr and "nvl72-rack" in r.stderr, r.stderr
    assert not (tmp_path / "nccl_busbw.png").exists()
    assert run_plot().returncode == 2
