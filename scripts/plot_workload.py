#!/usr/bin/python3
"""Timeline plot of an `upswitch workload` run: one row per chain (MoE; each TP group), one bar
per collective from its start to its end, coloured by phase; the gaps are compute.

    plot_workload.py DIR            # reads DIR/workload_phases.csv, writes DIR/workload.png
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from upswitch_sweep import plotstyle  # noqa: E402

COLOURS = {"dispatch": "tab:blue", "combine": "tab:cyan", "all_reduce": "tab:orange",
           "all_gather": "tab:green", "reduce_scatter": "tab:red"}


def figure(rows):
    """The timeline's figure and axes for the rows of workload_phases.csv, the legend right of the
    axes as the sweep plots place theirs (inside, it covered the last chain's bars)."""
    chains = []
    for r in rows:
        name = "MoE" if r["workload"] == "moe" else f"TP group {r['group']}"
        if name not in chains:
            chains.append(name)
    ghz = None
    fig, ax = plt.subplots(figsize=(10, 0.45 * len(chains) + 1.5))
    seen = set()
    for r in rows:
        name = "MoE" if r["workload"] == "moe" else f"TP group {r['group']}"
        start, end, time_us = int(r["start_cycle"]), int(r["end_cycle"]), float(r["time_us"])
        if ghz is None and end > start:
            ghz = (end - start) / (time_us * 1000.0)
        us = 1.0 / ((ghz or 1.0) * 1000.0)
        phase = r["phase"]
        ax.barh(chains.index(name), (end - start) * us, left=start * us, height=0.6,
                color=COLOURS.get(phase, "tab:gray"), label=None if phase in seen else phase)
        seen.add(phase)
    ax.set_yticks(range(len(chains)))
    ax.set_yticklabels(chains)
    ax.invert_yaxis()
    ax.set_xlabel("time (us)")
    ax.set_title("upswitch workload: collectives per chain (gaps are compute)")
    fig.tight_layout()
    plotstyle.legend(fig, ax)
    return fig, ax


def main(argv):
    if len(argv) != 1:
        print("usage: plot_workload.py DIR", file=sys.stderr)
        return 2
    src = os.path.join(argv[0], "workload_phases.csv")
    try:
        with open(src, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        print(f"plot_workload.py: error: {src}: {e.strerror}", file=sys.stderr)
        return 2
    fig, _ = figure(rows)
    out = os.path.join(argv[0], "workload.png")
    fig.savefig(out, dpi=100)
    print(f"wrote {out}")
    return 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
