#!/usr/bin/python3
"""The α-β fits of an `upswitch table` run against the points they were fitted to: one panel per
collective (time against message size, one colour per algorithm, one line style per group size)
and one for the point-to-point round trips (reads, writes, writefulls), log-log, the measured
points as markers and each fit, time = α + bytes / β, as a line over the sizes it holds for (a
group fitted piecewise has one line per piece).

    plot_table.py DIR            # reads DIR/table.json, writes DIR/table_fits.png
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLOURS = {"ring": "tab:blue", "oneshot": "tab:orange", "switch": "tab:green", "auto": "black",
           "read": "tab:blue", "write": "tab:red", "writefull": "tab:purple"}
STYLES = ["-", "--", ":", "-."]
P2P_OPS = ("read", "write", "writefull")


def fit_line(fit):
    """Sizes across the fit's range and the times the fit gives there (us)."""
    lo, hi = fit["min_bytes"], fit["max_bytes"]
    xs = [lo * (hi / lo) ** (i / 63) for i in range(64)] if lo > 0 else [hi * i / 63 for i in range(64)]
    beta = fit["beta_gbytes_per_s"]
    return xs, [fit["alpha_us"] + (x / (beta * 1000.0) if beta else 0.0) for x in xs]


def label(fits):
    if len(fits) > 1:
        return f"{len(fits)} pieces, err ≤ {100 * max(f['max_rel_error'] for f in fits):.1f}%"
    fit = fits[0]
    beta = "-" if fit["beta_gbytes_per_s"] is None else f"{fit['beta_gbytes_per_s']:.1f} GB/s"
    return f"α {fit['alpha_us']:.3g} us, β {beta}, err {100 * fit['max_rel_error']:.1f}%"


def panels(table):
    """[(title, [series: name, colour, style, points [(bytes, us)], fits (its pieces, in size order)])]."""
    fits = {}
    for f in table["fits"]["rows"]:
        fits.setdefault((f["kind"], f["operation"], f["algorithm"], f["ranks"], f["elem_bytes"]), []).append(f)
    out = {}
    ranks = sorted({r["ranks"] for r in table["coll"]["rows"]})
    for r in table["coll"]["rows"]:
        # --algo auto rows are one series, "auto", whatever each size picked (as their fits are).
        algo = "auto" if r.get("selection") == "auto" else r["algorithm"]
        key = ("coll", r["collective"], algo, r["ranks"], 0)
        series = out.setdefault(r["collective"], {}).setdefault(key, {
            "name": f"{algo} {r['ranks']} ranks", "colour": COLOURS.get(algo, "black"),
            "style": STYLES[ranks.index(r["ranks"]) % len(STYLES)], "points": [], "fits": fits.get(key, [])})
        series["points"].append((r["bytes"], r["time_us"]))
    for r in table["p2p"]["rows"]:
        if r["op"] not in P2P_OPS:
            continue
        key = ("p2p", r["op"], "", 2, 0)
        series = out.setdefault("p2p round trip", {}).setdefault(key, {
            "name": r["op"], "colour": COLOURS[r["op"]], "style": "-", "points": [], "fits": fits.get(key, [])})
        series["points"].append((r["bytes"], r["latency_ns"] / 1000.0))
    return [(title, list(s.values())) for title, s in out.items()]


def main(argv):
    if len(argv) != 1:
        print("usage: plot_table.py DIR", file=sys.stderr)
        return 2
    src = os.path.join(argv[0], "table.json")
    try:
        with open(src) as f:
            table = json.load(f)
    except OSError as e:
        print(f"plot_table.py: error: {src}: {e.strerror}", file=sys.stderr)
        return 2
    except ValueError as e:
        print(f"plot_table.py: error: {src}: not JSON ({e})", file=sys.stderr)
        return 2
    if not isinstance(table, dict) or "fits" not in table or "coll" not in table or "p2p" not in table:
        print(f"plot_table.py: error: {src}: no fits (an interrupted run, or not upswitch table's table.json)",
              file=sys.stderr)
        return 2
    groups = panels(table)
    if not groups:
        print(f"plot_table.py: error: {src}: no rows to plot", file=sys.stderr)
        return 2
    cols = min(3, len(groups))
    rows = (len(groups) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5.5 * cols, 4.2 * rows), squeeze=False)
    for ax, (title, series) in zip(axes.flat, groups):
        for s in series:
            xs, ys = zip(*s["points"])
            ax.plot(xs, ys, "o", color=s["colour"], markersize=4)
            legend = s["name"]
            for fit in s["fits"]:
                fx, fy = fit_line(fit)
                ax.plot(fx, fy, s["style"], color=s["colour"], linewidth=1)
            if s["fits"]:
                legend += ": " + label(s["fits"])
            ax.plot([], [], s["style"] + "o", color=s["colour"], markersize=4, label=legend)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(title)
        ax.set_xlabel("bytes")
        ax.set_ylabel("time (us)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6)
    for ax in list(axes.flat)[len(groups):]:
        ax.set_visible(False)
    fig.suptitle(f"upswitch table {table.get('config_hash', '')}: points and α-β fits (time = α + bytes / β)")
    fig.tight_layout()
    dst = os.path.join(argv[0], "table_fits.png")
    fig.savefig(dst, dpi=110)
    print(f"wrote {dst}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
