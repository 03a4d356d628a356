#!/usr/bin/python3
"""The model's collective bus bandwidth against the published measurements of a real system: one
panel per collective of an `upswitch coll` run (busbw against message size, log-log; one line per
forced algorithm/protocol, the `--algo auto` rows as black markers, each labelled with its pick
where the pick changes), with the measured points of the named system drawn over the panels
they belong to (doc/nccl.md, "The measured systems"; sources in the facts sheet §2.5, §2.7,
§2.8):

  dgx-h100    8 x H100 (all_reduce, 8 ranks): ring busbw 365-370 GB/s and NVLS 480 GB/s at
              2-4 GB [N11][N12]; NCCL runs the ring with LL to about 1 MB and NVLS from 2 MB
              [N28] (a shaded band)
  nvl72-rack  GB200 NVL72 (all_reduce, 72 ranks): 577-586, 681-724, 758-774, 835-839 and
              835-847 GB/s at 512 MiB, 1, 2, 4 and 8 GiB [N26]

    plot_nccl.py DIR SYSTEM     # reads DIR/coll.json, writes DIR/nccl_busbw.png
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

GIB = 1 << 30
# (collective, ranks) -> [(label, bytes, low GB/s, high GB/s)]; a band over sizes where bytes is a pair.
MEASURED = {
    "dgx-h100": {
        ("all_reduce", 8): [("8xH100 ring (NCCL_ALGO=Ring)", (2 * GIB, 4 * GIB), 365.0, 370.0),
                            ("8xH100 NVLS", (2 * GIB, 4 * GIB), 480.0, 480.0)],
    },
    "nvl72-rack": {
        ("all_reduce", 72): [("GB200 NVL72", 512 << 20, 577.0, 586.0), ("", 1 * GIB, 681.0, 724.0),
                             ("", 2 * GIB, 758.0, 774.0), ("", 4 * GIB, 835.0, 839.0), ("", 8 * GIB, 835.0, 847.0)],
    },
}
# NCCL's switch from the LL ring to NVLS on 8 x H100 (bytes): shaded on the dgx-h100 all_reduce panel.
CROSSOVER = {"dgx-h100": ((1 << 20), (2 << 20))}
COLOURS = {"ring/simple": "tab:blue", "ring/ll128": "tab:cyan", "ring/ll": "tab:purple", "switch/simple": "tab:green",
           "oneshot/simple": "tab:orange"}


def series(coll):
    """{(collective, ranks): {name: [(bytes, busbw, pick)]}}; auto rows are the series "auto"."""
    out = {}
    for r in coll["rows"]:
        pick = f"{r['algorithm']}/{r['protocol']}"
        name = "auto" if r.get("selection") == "auto" else pick
        out.setdefault((r["collective"], r["ranks"]), {}).setdefault(name, []).append(
            (r["bytes"], r["busbw_gbytes_per_s"], pick))
    for panel in out.values():
        for points in panel.values():
            points.sort()
    return out


def draw(ax, system, key, panel):
    for name, points in sorted(panel.items()):
        xs = [p[0] for p in points]
        ys = [p[1] for p in points]
        if name == "auto":
            ax.plot(xs, ys, "ko", markersize=5, fillstyle="none", label="auto (the model's pick)")
            last = None
            for x, y, pick in points:
                if pick != last:
                    ax.annotate(pick, (x, y), textcoords="offset points", xytext=(3, -10), fontsize=6)
                last = pick
        else:
            ax.plot(xs, ys, "-", marker=".", color=COLOURS.get(name, "grey"), label=name)
    for i, (label, size, lo, hi) in enumerate(MEASURED.get(system, {}).get(key, [])):
        if isinstance(size, tuple):
            colour = ("red", "darkred")[i % 2]
            ax.fill_between(list(size), [lo, lo], [max(hi, lo * 1.005)] * 2, color=colour, alpha=0.35)
            ax.plot(list(size), [hi, hi], "-", color=colour, linewidth=2, label=f"measured: {label}")
        else:
            ax.errorbar([size], [(lo + hi) / 2], yerr=[[(hi - lo) / 2], [(hi - lo) / 2]], fmt="rs", markersize=5,
                        capsize=3, label=f"measured: {label}" if label else None)
    span = CROSSOVER.get(system)
    if span and key[0] == "all_reduce":
        ax.axvspan(span[0], span[1], color="grey", alpha=0.2, label="NCCL: LL ring -> NVLS (8xH100)")


def main(argv):
    if len(argv) != 2:
        print("usage: plot_nccl.py DIR SYSTEM (SYSTEM: " + ", ".join(MEASURED) + ")", file=sys.stderr)
        return 2
    src, system = os.path.join(argv[0], "coll.json"), argv[1]
    if system not in MEASURED:
        print(f"plot_nccl.py: error: system '{system}': expected one of {', '.join(MEASURED)}", file=sys.stderr)
        return 2
    try:
        with open(src) as f:
            coll = json.load(f)
    except OSError as e:
        print(f"plot_nccl.py: error: {src}: {e.strerror}", file=sys.stderr)
        return 2
    except ValueError as e:
        print(f"plot_nccl.py: error: {src}: not JSON ({e})", file=sys.stderr)
        return 2
    if not isinstance(coll, dict) or not isinstance(coll.get("rows"), list) or not coll["rows"]:
        print(f"plot_nccl.py: error: {src}: no rows (an interrupted run, or not upswitch coll's coll.json)",
              file=sys.stderr)
        return 2
    try:
        panels = series(coll)
    except (KeyError, TypeError) as e:
        print(f"plot_nccl.py: error: {src}: a row lacks {e} (not upswitch coll's coll.json)", file=sys.stderr)
        return 2
    keys = sorted(panels)
    cols = min(2, len(keys))
    rows = (len(keys) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(6.5 * cols, 4.6 * rows), squeeze=False)
    for ax, key in zip(axes.flat, keys):
        draw(ax, system, key, panels[key])
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(f"{key[0]}, {key[1]} ranks")
        ax.set_xlabel("bytes")
        ax.set_ylabel("busbw (GB/s)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6)
    for ax in list(axes.flat)[len(keys):]:
        ax.set_visible(False)
    fig.suptitle(f"upswitch coll --preset {coll.get('meta', {}).get('preset') or 'default'} against {system}'s published measurements")
    fig.tight_layout()
    dst = os.path.join(argv[0], "nccl_busbw.png")
    fig.savefig(dst, dpi=110)
    print(f"wrote {dst}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
