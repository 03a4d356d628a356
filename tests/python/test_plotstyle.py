"""Plots draw every curve, each in its own (colour, line style, marker), with a legend that holds
them all (issue 23: report.py used to skip plots past 12 lines, repeating colours).  The sweeps
here are written by hand (plan.json and run directories), no simulator needed."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from upswitch_sweep import plan as planmod
from upswitch_sweep import plotstyle, report
from upswitch_sweep import spec as specmod
from upswitch_sweep.store import Store, result_doc

VERSION = "upswitch 0.0.0 (hand-made)"


def make_sweep(d: Path, text: str, summary) -> Store:
    """A finished sweep whose run i has summary(i, run) as its summary file."""
    s = specmod.parse(yaml.safe_load(text), d / "s.yaml")
    runs = planmod.expand(s, VERSION)
    store = Store(d)
    store.ensure()
    store.write_plan(planmod.plan_document(s, "/x/upswitch", VERSION, runs))
    for r in runs:
        tmp = store.new_tmp(r.run_id)
        name = planmod.COMMANDS[s.command].summary
        (tmp / name).write_text(json.dumps(summary(r.index, r)))
        store.commit(tmp, r.run_id, result_doc(r.to_json(), VERSION, "ok", 0, ""))
    return store


@pytest.fixture
def figures(monkeypatch):
    """The figures the report saves, kept open for inspection."""
    got = {}

    def save(fig, path):
        got[Path(path).name] = fig
        fig.savefig(path, dpi=report.DPI)
    monkeypatch.setattr(report, "_save", save)
    yield got
    import matplotlib.pyplot as plt
    plt.close("all")


def line_styles(ax) -> list[tuple]:
    from matplotlib.colors import to_hex
    return [(to_hex(l.get_color()), l.get_linestyle(), l.get_marker()) for l in ax.get_lines()
            if not l.get_label().startswith("_")]


@pytest.mark.parametrize("n", [1, 12, 20, 40, 41, 480, 481, 5000])
def test_styles_are_distinct_for_any_count(n):
    s = plotstyle.styles(n)
    assert len(s) == n and len(set(s)) == n


def test_coll_plot_with_20_curves_draws_all_in_20_styles(tmp_path, figures):
    # one run, 20 (algorithm, ranks) curves of 3 sizes each
    combos = [(a, n) for a in ("ring", "oneshot", "switch", "tree", "direct") for n in (2, 4, 8, 16)]
    rows = [{"collective": "all_reduce", "algorithm": a, "ranks": n, "bytes": b, "time_us": 1.0 + b / 1e4,
             "algbw_gbytes_per_s": b / 1e3, "busbw_gbytes_per_s": b / 1e3 + n, "cycles": 1, "wrong": 0}
            for a, n in combos for b in (4096, 16384, 65536)]
    make_sweep(tmp_path / "sw", "command: coll\nvary: {link.latency_cycles: [4]}\n",
               lambda i, r: {"meta": {"interrupted": False}, "rows": rows})
    report.make_report(tmp_path / "sw", tmp_path / "rep")
    fig = figures["coll_busbw.png"]
    left, right = fig.axes[:2]
    styles = line_styles(left)
    assert len(styles) == 20 and len(set(styles)) == 20
    assert line_styles(right) == styles  # the time panel: the same curve, the same style
    texts = [t.get_text() for leg in fig.legends for t in leg.get_texts()]
    assert len(texts) == 20 and len(set(texts)) == 20
    leg_box = fig.legends[0].get_window_extent(fig.canvas.get_renderer())
    ax_box = right.get_window_extent(fig.canvas.get_renderer())
    assert leg_box.x0 >= ax_box.x1 - 1, "the legend covers the plot"
    assert leg_box.x1 <= fig.get_figwidth() * fig.dpi + 1 and leg_box.y0 >= -1, "the legend is cut off"


def test_latency_and_throughput_plots_draw_more_than_12_configurations(tmp_path, figures):
    # 15 allocator settings x 3 loads: once skipped ("more than 12 lines")
    text = "vary:\n  - switch.vc_buffer_flits: {start: 1, stop: 15, step: 1}\n  - traffic.rate: [0.2, 0.5, 0.8]\n"

    def summary(i, r):
        rate, depth = r.params["traffic.rate"], r.params["switch.vc_buffer_flits"]
        sat = rate == 0.8 and depth < 5
        lat = None if sat else {"mean": 10 + depth + 20 * rate, "p99": 30 + depth + 40 * rate}
        return {"throughput": {"offered": rate, "accepted": rate if not sat else 0.6}, "saturated": sat,
                "latency": {"packet": lat}, "sim": {"cycles": 100}}
    make_sweep(tmp_path / "sw", text, summary)
    report.make_report(tmp_path / "sw", tmp_path / "rep")
    notes = json.loads((tmp_path / "rep" / "notes.json").read_text())
    assert not any("more than" in n for n in notes), notes
    fig = figures["latency_vs_load.png"]
    curves = line_styles(fig.axes[0])
    assert len(curves) == 15 and len(set(curves)) == 15
    # saturated points are marked: an x per saturated (configuration, load), and a dotted line
    xs = [l for l in fig.axes[0].get_lines() if l.get_marker() == "x"]
    assert len(xs) == 4
    assert len([t for leg in fig.legends for t in leg.get_texts()]) == 15
    tp = figures["throughput_vs_traffic_rate.png"]
    assert len(set(line_styles(tp.axes[0]))) == 15 + 1  # and the accepted = offered diagonal
