"""Report plots of sweeps over `upswitch coll`, `p2p` and `workload` (report.py draws the `run`
plots and the page).  They read the merged tables (merge.table_records: the rows: of the sweep
file, defaults in commands.py) of the ok runs; several seeds of a point are averaged, with 95%
confidence intervals as error bars (stats.mean_ci).  Every curve is drawn (plotstyle)."""
from __future__ import annotations

from collections import OrderedDict
from pathlib import Path

from . import plotstyle
from .plan import format_value
from .stats import mean_ci

SIZE_TWO = (12, 5)  # two panels side by side -> 1200 x 500 px


def _num(v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return float(v)


def _point_label(data, rec, keys) -> list[str]:
    return [f"{k.split('.')[-1]}={format_value(rec[k])}" for k in keys]


def _series(data, records, x_col, y_col, curve_cols, exclude=()):
    """curve label -> [(x, mean, half)], x sorted: the records grouped by the varied keys (except
    `exclude`) and `curve_cols`, then by x; y averaged over the records of each x (the seeds,
    and whatever else is not a curve column) with its 95% CI."""
    params = [k for k in data.params if k not in exclude]
    curves: OrderedDict = OrderedDict()
    for rec in records:
        x = rec[x_col] if x_col in rec else None
        if x is None:
            continue
        lab = ", ".join([(f"{c}={format_value(rec[c])}" if _num(rec[c]) is not None else format_value(rec[c]))
                         for c in curve_cols if rec.get(c) not in (None, "", -1)]
                        + _point_label(data, rec, params)) or "all runs"
        curves.setdefault(lab, OrderedDict()).setdefault(x, []).append(rec.get(y_col))
    out: OrderedDict = OrderedDict()
    for lab, by_x in curves.items():
        pts = []
        for x in sorted(by_x, key=lambda v: (_num(v) is None, _num(v) or 0, format_value(v))):
            m, h, _ = mean_ci(by_x[x])
            if m is not None:
                pts.append((x, m, h))
        if pts:
            out[lab] = pts
    return out


def _panel(ax, series, sty_offset=0, sty=None, xpos=None):
    sty = sty or plotstyle.styles(len(series))
    for i, (lab, pts) in enumerate(series.items()):
        xs = [xpos(p[0]) if xpos else p[0] for p in pts]
        plotstyle.curve(ax, xs, [p[1] for p in pts], sty[i + sty_offset], lab, errs=[p[2] for p in pts])


def _finish(fig, axes, data, out: Path, name: str, foot: str | None = None):
    from .report import _save
    plotstyle.legend(fig, axes[-1], *axes[0].get_legend_handles_labels())
    if len(data.plan["seeds"]) > 1:
        foot = (foot + "; " if foot else "") + \
            f"mean over {len(data.plan['seeds'])} seeds, bars: 95% confidence interval (Student t)"
    if foot:
        fig.text(0.5, 0.01, foot, ha="center", fontsize=8)
    _save(fig, out / name)
    return [name]


def _two_panels(data):
    from .report import _plt
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=SIZE_TWO)
    fig.subplots_adjust(left=0.06, right=0.98, top=0.92, bottom=0.14, wspace=0.3)
    return fig, axes


def _table(data, name, title):
    recs = data.tables.get(name)
    if recs is None:
        return None, f"{title}: not drawn, the sweep's rows: has no table '{name}'"
    if not recs:
        return None, f"{title}: not drawn, no ok run has rows in table '{name}'"
    return recs, None


def _size_panels(data, recs, curve_cols, left, right, xlabel):
    """Two panels against message size, one curve per value of `curve_cols`: `left` and `right`
    are (column, y label) pairs. Returns the figure and its two axes."""
    series = [_series(data, recs, "bytes", col, curve_cols) for col, _ in (left, right)]
    fig, axes = _two_panels(data)
    sty = plotstyle.styles(len(series[0]))
    sizes = [_num(r["bytes"]) for r in recs]
    for ax, ser, (_, what) in zip(axes, series, (left, right)):
        _panel(ax, ser, sty=sty)
        plotstyle.log2_ticks(ax, sizes)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(what)
    return fig, axes


def plot_coll(data, out: Path):
    title = "collective bus bandwidth"
    recs, note = _table(data, "coll", title)
    if recs is None:
        return [], note
    fig, axes = _size_panels(data, recs, ("collective", "algorithm", "ranks"),
                             ("busbw_gbytes_per_s", "bus bandwidth (GB/s)"), ("time_us", "time (us)"),
                             "message size (bytes)")
    axes[0].set_ylim(bottom=0)
    axes[1].set_yscale("log")
    from matplotlib.ticker import FormatStrFormatter
    axes[1].yaxis.set_major_formatter(FormatStrFormatter("%g"))
    axes[1].yaxis.set_minor_formatter(FormatStrFormatter("%g"))
    axes[0].set_title("bus bandwidth vs size")
    axes[1].set_title("time vs size")
    return _finish(fig, axes, data, out, "coll_busbw.png"), None


def plot_p2p(data, out: Path):
    title = "point-to-point latency and bandwidth"
    recs, note = _table(data, "p2p", title)
    if recs is None:
        return [], note
    fig, axes = _size_panels(data, recs, ("op",), ("latency_ns", "zero-load round trip (ns)"),
                             ("pair_gbytes_per_s", "pair bandwidth (GB/s)"), "transfer size (bytes)")
    for ax in axes:
        ax.set_ylim(bottom=0)
    axes[0].set_title("latency vs size (op, point)")
    axes[1].set_title("pair-stream bandwidth vs size")
    return _finish(fig, axes, data, out, "p2p_latency_bandwidth.png"), None


def _per_run(recs, group_cols, value):
    """One record per run and group: `value` summed over the group's rows of the run and averaged
    over its steps (a step's time, or a phase's time within a step)."""
    acc: OrderedDict = OrderedDict()
    for r in recs:
        v = _num(r.get(value))
        if v is None:
            continue
        k = (r["run_id"],) + tuple(format_value(r.get(c)) for c in group_cols)
        a = acc.setdefault(k, {"rec": r, "sum": 0.0, "steps": set()})
        a["sum"] += v
        a["steps"].add(format_value(r.get("step")))
    out = []
    for a in acc.values():
        rec = dict(a["rec"])
        rec[value] = a["sum"] / max(1, len(a["steps"]))
        out.append(rec)
    return out


def plot_workload(data, out: Path):
    title = "workload step time"
    recs, note = _table(data, "steps", title)
    if recs is None:
        return [], note
    from .report import SIZE_ONE, _plt
    phases = data.tables.get("phases") or []
    files = []
    steps = _per_run(recs, ("workload", "group"), "time_us")
    per_phase = _per_run(phases, ("workload", "phase", "group"), "time_us")
    for axis in data.axes:
        key = axis[0]
        vals = data.values(key)
        if len(vals) < 2:
            continue
        numeric = data.numeric(key)
        pos = {format_value(v): (_num(v) if numeric else i) for i, v in enumerate(vals)}
        slug = key.replace(".", "_")
        for what, src, cols, name, ylabel in (
                ("step time", steps, ("workload", "group"), f"workload_step_time_vs_{slug}.png", "step time (us)"),
                ("per-phase time", per_phase, ("workload", "phase", "group"), f"workload_phase_time_vs_{slug}.png",
                 "phase time per step, summed over layers (us)")):
            series = _series(data, src, key, "time_us", cols, exclude=set(axis))
            if not series:
                continue
            fig, ax = _plt().subplots(figsize=SIZE_ONE)
            fig.subplots_adjust(left=0.1, right=0.97, top=0.92, bottom=0.12)
            _panel(ax, series, xpos=lambda v: pos[format_value(v)])
            if not numeric:
                ax.set_xticks(list(range(len(vals))))
                ax.set_xticklabels([format_value(v) for v in vals])
            ax.set_xlabel(key + (f" ({', '.join(axis[1:])})" if len(axis) > 1 else ""))
            ax.set_ylabel(ylabel)
            ax.set_ylim(bottom=0)
            ax.set_title(f"{what} vs {key} ({', '.join(cols)}, point)")
            files += _finish(fig, [ax], data, out, name)
    if not files:
        return [], f"{title}: not drawn, no varied key has two values"
    return files, None


# name, function, the commands it applies to (after report.PLOTS)
PLOTS = [
    ("Collective bus bandwidth vs message size", plot_coll, ("coll",)),
    ("Point-to-point latency and bandwidth vs size", plot_p2p, ("p2p",)),
    ("Workload step time", plot_workload, ("workload",)),
]
