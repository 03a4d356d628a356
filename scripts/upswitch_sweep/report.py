"""Plots (matplotlib, Agg) and a Markdown + HTML report of a finished (or partial) sweep.

Every plot is an entry of PLOTS: a function (data, out_dir) -> (list of PNG names, note), and
the commands it applies to (the plots of `coll`, `p2p` and `workload` sweeps are in
report_cmds.py).  A plot that does not apply to the sweep (no load axis, no histogram, ...)
makes no file and returns a note saying why; the report lists those notes.  Every curve is
drawn, each in its own (colour, line style, marker), with a legend beside the axes
(plotstyle.py); several seeds give 95% confidence intervals as error bars (stats.py).

Plot sizes are fixed (figure inches x DPI, never bbox_inches='tight'), so a report looks the
same from one sweep to the next and tests can check the dimensions.
"""
from __future__ import annotations

import csv
import html
import json
import math
import os
from collections import OrderedDict
from pathlib import Path

from . import plotstyle
from .merge import _MISSING, plan_tables, pointer_get, rows, table_records
from .plan import format_value
from .stats import mean_ci
from .store import Store

DPI = 100
SIZE_WIDE = (12, 5)  # latency vs load: mean and p99 side by side -> 1200 x 500 px
SIZE_ONE = (8, 5)  # one panel -> 800 x 500 px
SIZE_HEAT = (10, 6)  # heat map -> 1000 x 600 px
MAX_HEAT_ROWS = 48
LOAD_KEYS = ("traffic.rate",)
HISTOGRAM_FILES = ("latency_hist.csv", "latency_histogram.csv")
UTIL_COLUMNS = ("xbar_utilisation", "xbar_utilization", "crossbar_utilisation", "crossbar_utilization",
                "xbar_util", "utilisation", "utilization")


class ReportError(Exception):
    pass


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({"font.size": 9, "axes.grid": True, "grid.alpha": 0.3, "savefig.dpi": DPI})
    return plt


def _save(fig, path: Path):
    fig.savefig(path, dpi=DPI, format="png", metadata={"Software": None})
    import matplotlib.pyplot as plt
    plt.close(fig)


def _num(v):
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        return float(v) if math.isfinite(v) else None
    return None


def _mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


class Data:
    """The sweep's plan, merged rows and per-run summaries."""

    def __init__(self, d: Path):
        self.store = Store(d)
        try:
            self.plan = self.store.read_plan()
        except FileNotFoundError as e:
            raise ReportError(str(e))
        except ValueError as e:
            raise ReportError(f"{d}/plan.json is not valid JSON: {e}")
        self.summaries = {}
        self.rows = rows(self.plan, self.store, summaries=self.summaries)
        self.params = list(self.plan["params"])
        self.command = self.plan.get("command", "run")
        self.ok = [r for r in self.rows if r["run_id"] in self.summaries]
        # name -> the table's ok rows (flat dicts), as in the merged CSV
        self.tables = {name: [x for x in table_records(self.plan, t, self.rows, self.summaries) if x["status"] == "ok"]
                       for name, t in plan_tables(self.plan).items()}
        self.axes = [list(a["keys"]) for a in self.plan.get("axes", [])] or [[k] for k in self.params]

    def axis_of(self, key) -> list:
        """The keys that move with `key` (a zip group), `key` first."""
        for a in self.axes:
            if key in a:
                return [key] + [k for k in a if k != key]
        return [key]

    def get(self, row, pointer):
        v = pointer_get(self.summaries.get(row["run_id"]), pointer)
        return None if v is _MISSING else v

    def run_dir(self, row) -> Path:
        return self.store.run_dir(row["run_id"])

    def numeric(self, key) -> bool:
        return all(_num(r["params"][key]) is not None for r in self.rows)

    def values(self, key) -> list:
        out = []
        for r in self.rows:
            v = r["params"][key]
            if v not in out:
                out.append(v)
        return sorted(out) if self.numeric(key) else out

    def groups(self, exclude) -> "OrderedDict[tuple, list]":
        """Rows of the ok runs grouped by the varied keys not in `exclude` (plan order)."""
        keys = [k for k in self.params if k not in exclude]
        g: OrderedDict = OrderedDict()
        for r in self.ok:
            g.setdefault(tuple((k, format_value(r["params"][k])) for k in keys), []).append(r)
        return g


def label(group_key) -> str:
    return ", ".join(f"{k.split('.')[-1]}={v}" for k, v in group_key) or "all runs"


# ---------------------------------------------------------------------------- plots
def plot_latency_vs_load(data: Data, out: Path):
    x_key = data.plan.get("report", {}).get("x")
    if x_key is None:
        x_key = next((k for k in LOAD_KEYS if k in data.params), None)
    if x_key is None or not data.numeric(x_key):
        return [], "latency vs offered load: skipped, the sweep does not vary traffic.rate (or report.x)"
    if len(data.values(x_key)) < 2:
        return [], f"latency vs offered load: skipped, {x_key} has a single value"
    groups = data.groups(set(data.axis_of(x_key)))
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=SIZE_WIDE)
    fig.subplots_adjust(left=0.06, right=0.98, top=0.92, bottom=0.14, wspace=0.18)
    any_sat = False
    sty = plotstyle.styles(len(groups))
    row_step = min(0.035, 0.9 / max(1, len(groups)))  # saturation marks: one row per configuration
    for gi, (gk, rs) in enumerate(groups.items()):
        color = sty[gi][0]
        by_x: OrderedDict = OrderedDict()
        for r in rs:
            by_x.setdefault(_num(r["params"][x_key]), []).append(r)
        pts = []
        for xv in sorted(by_x):
            runs = by_x[xv]
            offered = _mean([_num(data.get(r, "/throughput/offered")) for r in runs])
            sat = any(data.get(r, "/saturated") is True for r in runs)
            mean = mean_ci([_num(data.get(r, "/latency/packet/mean")) for r in runs])
            p99 = mean_ci([_num(data.get(r, "/latency/packet/p99")) for r in runs])
            pts.append((offered if offered is not None else xv, sat, mean[0], p99[0], mean[1], p99[1]))
        for ax, idx, what in ((axes[0], 2, "mean"), (axes[1], 3, "p99")):
            keep = [p for p in pts if not p[1] and p[idx] is not None]
            plotstyle.curve(ax, [p[0] for p in keep], [p[idx] for p in keep], sty[gi], label(gk),
                            errs=[p[idx + 2] for p in keep])
            sat_x = [p[0] for p in pts if p[1]]
            if sat_x:
                any_sat = True
                ax.axvline(min(sat_x), color=color, linestyle=":", linewidth=1)
                # on the top edge, one row per configuration so coinciding loads stay visible
                ax.plot(sat_x, [0.98 - row_step * gi] * len(sat_x), "x", color=color,
                        transform=ax.get_xaxis_transform(), clip_on=False, markersize=7)
    for ax, what in ((axes[0], "mean"), (axes[1], "p99")):
        ax.set_xlabel("offered load (flits/port/cycle)")
        ax.set_ylabel(f"{what} packet latency (cycles)")
        ax.set_title(f"{what} packet latency vs offered load")
        ys = [y for line in ax.get_lines() for y in line.get_ydata()
              if line.get_transform() == ax.transData and isinstance(y, (int, float)) and y > 0]
        if ys and max(ys) / min(ys) > 20:  # a knee far above zero-load latency: log scale
            ax.set_yscale("log")
        else:
            ax.set_ylim(bottom=0)
    plotstyle.legend(fig, axes[1], *axes[0].get_legend_handles_labels())
    foot = []
    if any_sat:
        foot.append("x near the top and dotted line: saturated (latency not defined)")
    if len(data.plan["seeds"]) > 1:
        foot.append(f"mean of {len(data.plan['seeds'])} seeds, bars: 95% confidence interval")
    if foot:
        fig.text(0.5, 0.01, "; ".join(foot), ha="center", fontsize=8)
    _save(fig, out / "latency_vs_load.png")
    return ["latency_vs_load.png"], None


def plot_throughput(data: Data, out: Path):
    files, notes = [], []
    plt = _plt()
    for axis in data.axes:
        key = axis[0]  # a zip group is plotted against its first key, labelled with all
        vals = data.values(key)
        if len(vals) < 2:
            continue
        groups = data.groups(set(axis))
        numeric = data.numeric(key)
        fig, ax = plt.subplots(figsize=SIZE_ONE)
        fig.subplots_adjust(left=0.1, right=0.97, top=0.92, bottom=0.14 if len(axis) > 1 else 0.11)
        pos = {format_value(v): (_num(v) if numeric else i) for i, v in enumerate(vals)}
        sty = plotstyle.styles(len(groups))
        for gi, (gk, rs) in enumerate(groups.items()):
            by: OrderedDict = OrderedDict()
            for r in rs:
                by.setdefault(format_value(r["params"][key]), []).append(r)
            xs = sorted(by, key=lambda t: pos[t])
            st = [mean_ci([_num(data.get(r, "/throughput/accepted")) for r in by[t]]) for t in xs]
            keep = [(pos[t], m, h) for t, (m, h, _) in zip(xs, st) if m is not None]
            plotstyle.curve(ax, [k[0] for k in keep], [k[1] for k in keep], sty[gi], label(gk),
                            errs=[k[2] for k in keep])
        if key in LOAD_KEYS and numeric:
            lo, hi = min(pos.values()), max(pos.values())
            ax.plot([lo, hi], [lo, hi], "--", color="grey", linewidth=1, label="accepted = offered")
        if not numeric:
            ax.set_xticks(list(range(len(vals))))
            ax.set_xticklabels([format_value(v) for v in vals])
        if len(axis) > 1:
            partner = {format_value(r["params"][key]): ", ".join(format_value(r["params"][k]) for k in axis[1:])
                       for r in data.rows}
            ax.set_xticks([pos[format_value(v)] for v in vals])
            ax.set_xticklabels([f"{format_value(v)}\n({partner[format_value(v)]})" for v in vals])
            ax.set_xlabel(f"{key} ({', '.join(axis[1:])})")
        else:
            ax.set_xlabel(key)
        ax.set_ylabel("accepted throughput (flits/port/cycle)")
        ax.set_title(f"throughput vs {key}")
        ax.set_ylim(bottom=0)
        plotstyle.legend(fig, ax)
        name = f"throughput_vs_{key.replace('.', '_')}.png"
        _save(fig, out / name)
        files.append(name)
    if not files and not notes:
        notes.append("throughput vs parameter: skipped, no varied key has two values")
    return files, "; ".join(notes) or None


def _read_histogram(path: Path):
    """(latency, count) pairs from a CSV whose columns include count and a latency/bin column."""
    with open(path, newline="") as f:
        rd = csv.DictReader(f)
        cols = rd.fieldnames or []
        ccol = next((c for c in ("packet_count", "count", "packets") if c in cols), None)
        lcol = next((c for c in cols if c != ccol and any(w in c.lower() for w in ("latency", "bin", "cycles", "lo"))), None)
        if ccol is None or lcol is None:
            return None
        pts = []
        for row in rd:
            try:
                pts.append((float(row[lcol]), float(row[ccol])))
            except (TypeError, ValueError):
                continue
    return sorted(pts)


def plot_latency_cdf(data: Data, out: Path):
    found, saturated = [], 0
    for r in data.ok:
        if data.get(r, "/saturated") is True:  # latency is not defined: the queue grows without bound
            saturated += 1
            continue
        for name in HISTOGRAM_FILES:
            p = data.run_dir(r) / name
            if p.exists():
                found.append((r, p))
                break
    if not found and saturated == len(data.ok):
        return [], "latency CDF: skipped, every run is saturated"
    if not found:
        return [], ("latency CDF: skipped, no run directory holds a latency histogram "
                    f"({' or '.join(HISTOGRAM_FILES)}); the simulator does not write one yet")
    # one curve per configuration: its first seed
    seen, curves = set(), []
    for r, p in found:
        key = tuple((k, format_value(r["params"][k])) for k in data.params)
        if key in seen:
            continue
        seen.add(key)
        h = _read_histogram(p)
        if h:
            curves.append((key, h))
    if not curves:
        return [], "latency CDF: skipped, the histogram files have no 'count' and latency/bin columns"
    plt = _plt()
    fig, ax = plt.subplots(figsize=SIZE_ONE)
    fig.subplots_adjust(left=0.1, right=0.97, top=0.92, bottom=0.11)
    sty = plotstyle.styles(len(curves))
    for i, (key, h) in enumerate(curves):
        total = sum(c for _, c in h) or 1.0
        acc, xs, ys = 0.0, [], []
        for lat, c in h:
            acc += c
            xs.append(lat)
            ys.append(acc / total)
        color, ls, marker = sty[i]
        ax.step(xs, ys, where="post", color=color, linestyle=ls, label=plotstyle.short(label(key)))
        ax.plot(xs[len(xs) // 2:len(xs) // 2 + 1], ys[len(ys) // 2:len(ys) // 2 + 1], marker, color=color,
                markersize=4)  # one marker per curve: its style is (colour, line style, marker) as elsewhere
    ax.set_xlabel("packet latency (cycles)")
    ax.set_ylabel("fraction of packets")
    ax.set_ylim(0, 1.02)
    ax.set_title("packet latency CDF (first seed of each unsaturated point)")
    plotstyle.legend(fig, ax)
    _save(fig, out / "latency_cdf.png")
    notes = []
    if saturated:
        notes.append(f"latency CDF: {saturated} saturated run(s) left out")
    if len(found) + saturated < len(data.ok):
        notes.append(f"latency CDF: {len(data.ok) - len(found) - saturated} run(s) had no histogram")
    return ["latency_cdf.png"], "; ".join(notes) or None


def _read_ports(path: Path):
    with open(path, newline="") as f:
        rd = csv.DictReader(f)
        cols = rd.fieldnames or []
        ucol = next((c for c in UTIL_COLUMNS if c in cols), None)
        if ucol is None:
            ucol = next((c for c in cols if "util" in c.lower()), None)
        if ucol is None:
            return None, None
        pcol = "port" if "port" in cols else cols[0]
        vals = []
        for row in rd:
            try:
                vals.append((int(row[pcol]), float(row[ucol])))
            except (TypeError, ValueError):
                continue
    return ucol, [v for _, v in sorted(vals)]


def plot_port_heatmap(data: Data, out: Path):
    rows_, col = [], None
    seen = set()
    for r in data.ok:
        key = tuple((k, format_value(r["params"][k])) for k in data.params)
        if key in seen:  # first seed of each point
            continue
        p = data.run_dir(r) / "ports.csv"
        if not p.exists():
            continue
        c, vals = _read_ports(p)
        if c is None or not vals:
            continue
        seen.add(key)
        col = col or c
        rows_.append((key, vals))
    if not rows_:
        return [], "port heat map: skipped, no run directory holds a ports.csv with a utilisation column"
    note = None
    if len(rows_) > MAX_HEAT_ROWS:
        note = f"port heat map: showing the first {MAX_HEAT_ROWS} of {len(rows_)} points"
        rows_ = rows_[:MAX_HEAT_ROWS]
    width = max(len(v) for _, v in rows_)
    grid = [v + [float("nan")] * (width - len(v)) for _, v in rows_]
    plt = _plt()
    fig, ax = plt.subplots(figsize=SIZE_HEAT)
    im = ax.imshow(grid, aspect="auto", interpolation="nearest", cmap="viridis", vmin=0,
                   vmax=max(1.0, max(x for row in grid for x in row if x == x)))
    ax.set_xlabel("port")
    ax.set_ylabel("point (first seed)")
    ax.set_yticks(list(range(len(rows_))))
    fs = 7 if len(rows_) <= 24 else 5
    ax.set_yticklabels([label(k) for k, _ in rows_], fontsize=fs)
    ax.grid(False)
    ax.set_title(f"per-port {col} (ports.csv)")
    fig.colorbar(im, ax=ax, label=col)
    fig.subplots_adjust(left=0.3, right=0.98, top=0.93, bottom=0.09)
    _save(fig, out / "port_heatmap.png")
    return ["port_heatmap.png"], note


# name, function, the commands it applies to: the order of the report
PLOTS = [
    ("Latency vs offered load", plot_latency_vs_load, ("run",)),
    ("Throughput vs swept parameters", plot_throughput, ("run",)),
    ("Latency CDF", plot_latency_cdf, ("run",)),
    ("Per-port utilisation", plot_port_heatmap, ("run",)),
]


def _plots():
    from .report_cmds import PLOTS as CMD_PLOTS
    return PLOTS + CMD_PLOTS


# ---------------------------------------------------------------------------- report
def _table(header, body):
    md = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    md += ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in body]
    h = ["<table>", "<tr>" + "".join(f"<th>{html.escape(str(c))}</th>" for c in header) + "</tr>"]
    h += ["<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in body]
    h.append("</table>")
    return "\n".join(md), "\n".join(h)


def _fmt(v):
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.4g}"
    return format_value(v)


def make_report(d: Path, out: Path | None = None) -> Path:
    data = Data(d)
    out = out or (d / "report")
    out.mkdir(parents=True, exist_ok=True)
    plan = data.plan
    counts = {"ok": 0, "failed": 0, "pending": 0}
    for r in data.rows:
        counts[r["status"]] += 1
    md, hp = [], []
    title = plan.get("report", {}).get("title") or f"Sweep {plan['name']}"
    md.append(f"# {title}\n")
    hp.append(f"<h1>{html.escape(title)}</h1>")
    args = plan.get("args") or {}
    facts = [("description", plan.get("description") or ""),
             ("command", f"upswitch {data.command}" + "".join(f" --{k} {format_value(v)}" for k, v in args.items())),
             ("simulator", plan["simulator"]["version"]),
             ("base", plan["base"]["preset"] or plan["base"]["config"] or "simulator defaults"),
             ("fixed", ", ".join(f"{k}={format_value(v)}" for k, v in plan.get("set", {}).items()) or "none"),
             ("varied", ", ".join(data.params)),
             ("seeds", ", ".join(str(s) for s in plan["seeds"])),
             ("runs", f"{len(data.rows)}: {counts['ok']} ok, {counts['failed']} failed, {counts['pending']} not run")]
    tm, th = _table(["", ""], [(k, v) for k, v in facts if v != ""])
    md += [tm, ""]
    hp.append(th)
    notes = []
    plots = [(t, fn) for t, fn, cmds in _plots() if data.command in cmds]
    if not plots:
        notes.append(f"no plots for `upswitch {data.command}` sweeps: the results are in results.csv")
    for title_, fn in plots:
        if not data.ok:
            notes.append(f"{title_}: skipped, no successful run")
            continue
        files, note = fn(data, out)
        if note:
            notes.append(note)
        if files:
            md.append(f"## {title_}\n")
            hp.append(f"<h2>{html.escape(title_)}</h2>")
            for f in files:
                md.append(f"![{f}]({f})\n")
                hp.append(f'<p><img src="{html.escape(f)}" alt="{html.escape(f)}"></p>')
    if notes:
        md.append("## Not drawn\n")
        hp.append("<h2>Not drawn</h2><ul>")
        for n in notes:
            md.append(f"- {n}")
            hp.append(f"<li>{html.escape(n)}</li>")
        md.append("")
        hp.append("</ul>")
    failed = [r for r in data.rows if r["status"] == "failed"]
    if failed:
        tm, th = _table(["index", "run id"] + data.params + ["seed", "exit", "error"],
                        [[r["index"], r["run_id"]] + [_fmt(r["params"][k]) for k in data.params] +
                         [r["seed"], _fmt(r["exit_code"]), r["error"] or ""] for r in failed])
        md += ["## Failed runs\n", tm, ""]
        hp += ["<h2>Failed runs</h2>", th]
    outs = list(plan["outputs"])
    tm, th = _table(["index"] + data.params + ["seed", "status"] + outs,
                    [[r["index"]] + [_fmt(r["params"][k]) for k in data.params] + [r["seed"], r["status"]] +
                     [_fmt(r["outputs"].get(k)) for k in outs] for r in data.rows[:500]])
    files = ["results.csv"] + [f"results_{n}.csv" for n in list(plan_tables(plan))[1:]]
    if len(plan["seeds"]) > 1:
        files += [f.replace(".csv", "_agg.csv") for f in files]
    where = ", ".join(f"`{os.path.join(str(d), f)}`" for f in files)
    md += ["## Results\n", f"All columns: {where}.\n", tm, ""]
    hp += ["<h2>Results</h2>", th]
    (out / "report.md").write_text("\n".join(md) + "\n")
    page = ("<!doctype html><html><head><meta charset='utf-8'><title>" + html.escape(title) + "</title>"
            "<style>body{font-family:sans-serif;max-width:1250px;margin:2em auto}table{border-collapse:collapse;"
            "font-size:12px}td,th{border:1px solid #ccc;padding:2px 6px}img{max-width:100%}</style></head><body>\n"
            + "\n".join(hp) + "\n</body></html>\n")
    (out / "index.html").write_text(page)
    (out / "notes.json").write_text(json.dumps(notes, indent=1) + "\n")
    return out / "index.html"
