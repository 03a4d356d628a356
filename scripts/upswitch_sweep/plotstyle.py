"""Curve styles, legends and confidence intervals shared by every plot of a report.

Any number of curves is drawn: curve i gets a (colour, line style, marker) combination no other
curve of the plot has (styles()), and the legend goes to the right of the axes, in as many
columns as it needs, its font shrinking with the number of entries (legend()).
"""
from __future__ import annotations

import colorsys
import math

COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
          "#bcbd22", "#17becf")  # matplotlib's tab10
LINESTYLES = ("-", "--", "-.", ":")
MARKERS = ("o", "s", "^", "v", "D", "P", "X", "*", "<", ">", "h", "p")
MAX_LABEL = 70  # characters of a legend entry


def styles(n: int) -> list[tuple[str, str, str]]:
    """n distinct (colour, line style, marker) triples.

    Up to 480 curves: colour i % 10, line style (i // 10) % 4, marker (i + i // 40) % 12;
    i = 40q + r gives the marker (41q + r) % 12 = (5q + r) % 12, a bijection of q in 0..11 for each r, so no two
    curves share all three (and the first 40 curves differ in marker too, not only in colour).
    More: curves come in blocks of 48 (4 line styles x 12 markers), each block one hue of a
    colour wheel divided into as many hues as there are blocks."""
    nc, nl, nm = len(COLORS), len(LINESTYLES), len(MARKERS)
    if n <= nc * nl * nm:
        return [(COLORS[i % nc], LINESTYLES[(i // nc) % nl], MARKERS[(i + i // (nc * nl)) % nm])
                for i in range(n)]
    block = nl * nm
    hues = -(-n // block)
    out = []
    for i in range(n):
        r, g, b = colorsys.hsv_to_rgb((i // block) / hues, 0.85, 0.8 if (i // block) % 2 else 0.6)
        out.append((f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}",
                    LINESTYLES[(i // nm) % nl], MARKERS[i % nm]))
    return out


def short(label: str) -> str:
    return label if len(label) <= MAX_LABEL else label[:MAX_LABEL - 3] + "..."


def curve(ax, xs, ys, style, label, errs=None, band=False, **kw):
    """One curve; errs (half-widths, None where unknown) as error bars, or a shaded band."""
    color, ls, marker = style
    if errs is not None and any(e for e in errs if e):
        if band:
            lo = [y - (e or 0) for y, e in zip(ys, errs)]
            hi = [y + (e or 0) for y, e in zip(ys, errs)]
            ax.fill_between(xs, lo, hi, color=color, alpha=0.15, linewidth=0)
        else:
            ax.errorbar(xs, ys, yerr=[e or 0 for e in errs], fmt="none", ecolor=color, elinewidth=0.8,
                        capsize=2, alpha=0.8)
    return ax.plot(xs, ys, color=color, linestyle=ls, marker=marker, label=short(label),
                   markersize=kw.pop("markersize", 4), linewidth=kw.pop("linewidth", 1.2), **kw)[0]


def legend(fig, ax, handles=None, labels=None, min_right: float = 0.97):
    """A legend right of the axes `ax` (the rightmost panel), for any number of entries: the font
    shrinks with the count (8 pt up to 8 entries, down to 4 pt), entries fill columns of the
    axes' height, and the panels are narrowed (fig.subplots_adjust(right=...)) to make room.
    The figure keeps its size."""
    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    n = len(handles)
    if n == 0:
        return None
    fs = 8 if n <= 8 else 7 if n <= 16 else 6 if n <= 32 else 5 if n <= 64 else 4
    height_pt = ax.get_position().height * fig.get_figheight() * 72
    per_col = max(1, int(height_pt // (fs * 1.45)))
    ncol = math.ceil(n / per_col)
    leg = fig.legend(handles, [short(x) for x in labels], loc="upper right", bbox_to_anchor=(0.995, 0.98),
                     fontsize=fs, ncol=ncol, frameon=False, borderaxespad=0.2, handlelength=2.6,
                     columnspacing=1.0, title=f"{n} curves" if n > 12 else None, title_fontsize=fs)
    fig.canvas.draw()  # measure the legend to narrow the axes by its width
    width = leg.get_window_extent(fig.canvas.get_renderer()).width / (fig.get_figwidth() * fig.dpi)
    right = max(0.35, min(min_right, 0.99 - width - 0.01))
    fig.subplots_adjust(right=right)
    return leg


def log2_ticks(ax, values):
    """Size axis on a log2 scale with byte labels (4K, 1M, ...)."""
    ax.set_xscale("log", base=2)
    vs = sorted({v for v in values if v and v > 0})
    if 0 < len(vs) <= 16:
        ax.set_xticks(vs)
        ax.set_xticklabels([human_bytes(v) for v in vs], fontsize=7)
        ax.minorticks_off()


def human_bytes(v: float) -> str:
    for unit, f in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if v >= f and v % f == 0:
            return f"{int(v // f)}{unit}"
    return f"{v:g}"
