"""A chart drawn with matplotlib (PNG or SVG for `ringbench plot`): `draw(chart)` returns the figure.

Lines follow style.line_of, colours and markers style.styles, as the report's Plotly charts do.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.container import ErrorbarContainer  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter  # noqa: E402

from .charts import Chart, Grid, PlotError  # noqa: E402
from .style import (  # noqa: E402
    FORMATTERS,
    Style,
    cores_text,
    fmt_count,
    fmt_ns,
    line_of,
    log_span,
    log_ticks,
    styles,
    x_ticks,
)

_LINESTYLE = {"solid": "-", "dot": ":", "dash": "--", "dashdot": "-."}


def draw(ch: Chart, floors: Iterable[str] = ()) -> Figure:
    """The figure of any chart: lines, small-multiple heatmaps or a 3-D surface, by its shape."""
    if ch.shape == "heatmap":
        return _heatmaps(ch)
    if ch.shape == "surface":
        return _surface(ch)
    st = styles(ch.runtimes(), set(floors) | ch.floors())
    return _dots(ch, st) if ch.shape == "dots" else _lines(ch, st)


def close(fig: Figure) -> None:
    plt.close(fig)


def _axis(ax, which: str, unit: str, log: bool, values: list[float]) -> None:
    fmt = FORMATTERS[unit]
    pos = [v for v in values if v > 0]
    axis = ax.xaxis if which == "x" else ax.yaxis
    if log and pos:
        getattr(ax, f"set_{which}scale")("log")
        axis.set_minor_formatter(NullFormatter())
    if pos and (log or which == "x"):
        axis.set_major_locator(FixedLocator(x_ticks(pos, log) if which == "x" else log_ticks(min(pos), max(pos))))
    axis.set_major_formatter(FuncFormatter(lambda v, _pos: fmt(v)))


def _lines(ch: Chart, st: dict[str, Style]) -> Figure:
    """One axes per panel (sharing y when the panels share a unit), legend outside the data on the right."""
    n = len(ch.panels)
    shared = len({ch.panel_unit(p)[1] for p in ch.panels}) == 1
    fig, axes = plt.subplots(1, n, figsize=(4.2 * n + 3.2 if n > 1 else 9, 5.2), squeeze=False, sharey=shared)
    handles: dict[str, ErrorbarContainer] = {}
    for i, (ax, panel) in enumerate(zip(axes[0], ch.panels, strict=True)):
        ylabel, yunit = ch.panel_unit(panel)
        xs, ys = [], []
        for s in panel.series:
            sty = s.style or st[s.runtime]
            pts = sorted(s.points, key=lambda p: p.x)
            if not pts:
                continue
            x = [p.x for p in pts]
            y = [p.y for p in pts]
            err = [[p.y - p.lo for p in pts], [p.hi - p.y for p in pts]]
            line = line_of(s.cores, sty.floor or s.floor, s.contrast, s.historical)
            h = ax.errorbar(
                x,
                y,
                yerr=err,
                color=sty.colour,
                marker=sty.marker,
                linestyle=_LINESTYLE[line.dash],
                capsize=2.5,
                markersize=6,
                linewidth=1.4 if sty.floor or s.historical else 1.6,
                markerfacecolor="white" if line.hollow else sty.colour,
                markeredgewidth=1.3,
                alpha=0.95,
                label=s.label,
            )
            handles.setdefault(s.label, h)
            xs += x
            ys += [p.lo for p in pts] + [p.hi for p in pts]
        _axis(ax, "x", ch.xunit, ch.xlog, xs)
        _axis(ax, "y", yunit, ch.ylog, ys)
        if not ch.ylog:
            ax.set_ylim(bottom=0)
        ax.grid(True, which="major", alpha=0.3)
        ax.set_xlabel(ch.xlabel)
        if i == 0 or not shared:
            ax.set_ylabel(ylabel)
        if panel.title:
            ax.set_title(panel.title, fontsize="medium")
    if not handles:
        plt.close(fig)
        raise PlotError("no measured cells fit this plot")
    fig.suptitle(ch.title, fontsize="large")
    # matplotlib's stubs take Artist handles only; legend() also takes a tuple of artists such as an
    # ErrorbarContainer (drawn by its HandlerErrorbar), which is what errorbar() returns.
    fig.legend(  # type: ignore[call-overload]
        list(handles.values()),
        list(handles),
        loc="upper left",
        bbox_to_anchor=(1.0, 0.93),
        fontsize="small",
        frameon=False,
        ncol=1 + len(handles) // 28,
    )
    fig.tight_layout()
    return fig


def _dots(ch: Chart, st: dict[str, Style]) -> Figure:
    """One x (one N): a row per series, best at the top, its median and interval on a horizontal value axis;
    panels one above the other. The rows name themselves: no legend."""
    panels = [p for p in ch.panels if p.series]
    if not panels:
        raise PlotError("no measured cells fit this plot")
    tall = [0.6 + 0.26 * len(p.series) for p in panels]
    fig, axes = plt.subplots(
        len(panels), 1, figsize=(9, sum(tall) + 0.9 * len(panels)), squeeze=False, height_ratios=tall
    )
    for ax, panel in zip(axes[:, 0], panels, strict=True):
        ylabel, unit = ch.panel_unit(panel)
        rows = panel.series[::-1]  # the first (best) at the top
        for i, s in enumerate(rows):
            sty = s.style or st[s.runtime]
            line = line_of(s.cores, sty.floor or s.floor, s.contrast, s.historical)
            p = s.points[0]
            ax.errorbar(
                [p.y],
                [i],
                xerr=[[p.y - p.lo], [p.hi - p.y]],
                color=sty.colour,
                marker=sty.marker,
                linestyle="none",
                capsize=2.5,
                markersize=7,
                markerfacecolor="white" if line.hollow else sty.colour,
                markeredgewidth=1.3,
            )
        ax.set_yticks(range(len(rows)), [s.label for s in rows], fontsize="small")
        ax.set_ylim(-0.7, len(rows) - 0.3)
        vals = [v for s in rows for p in s.points for v in (p.lo, p.y, p.hi)]
        fmt = FORMATTERS[unit]
        if ch.ylog:
            ticks, lo, hi = log_span(vals)
            ax.set_xscale("log")
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.xaxis.set_major_locator(FixedLocator(ticks))
            ax.set_xlim(lo, hi)
        else:
            ax.set_xlim(left=0)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos, fmt=fmt: fmt(v)))
        ax.grid(True, axis="x", which="major", alpha=0.3)
        ax.set_xlabel(ylabel)
        if panel.title:
            ax.set_title(panel.title, fontsize="medium")
    fig.suptitle(ch.title, fontsize="large")
    fig.tight_layout()
    return fig


def _grid(ch: Chart) -> Grid:
    if ch.grid is None:
        raise PlotError(f"the {ch.key} chart has no N × M grid")
    return ch.grid


def _heatmaps(ch: Chart) -> Figure:
    import numpy as np
    from matplotlib.colors import LogNorm

    g = _grid(ch)
    k = len(g.panels)
    cols = min(4, k)
    rows = math.ceil(k / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.4 * cols + 1.4, 2.9 * rows + 0.8), squeeze=False)
    vals = [v for _, _, z in g.panels for row in z for v in row if v]
    norm = LogNorm(vmin=min(vals), vmax=max(vals))
    im = None
    for ax, (rt, cores, z) in zip(axes.flat, g.panels, strict=False):  # spare axes are hidden below
        a = np.array([[np.nan if v is None else v for v in row] for row in z], dtype=float)
        im = ax.imshow(a, origin="lower", aspect="auto", cmap="viridis", norm=norm)
        ax.set_xticks(range(len(g.ns)), [fmt_count(n) for n in g.ns], fontsize="small")
        ax.set_yticks(range(len(g.ms)), [fmt_count(m) for m in g.ms], fontsize="small")
        for (i, j), v in np.ndenumerate(a):
            if not np.isnan(v):
                light = norm(v) > 0.6
                ax.text(
                    j, i, fmt_ns(v), ha="center", va="center", fontsize="x-small", color="black" if light else "white"
                )
        ax.set_title(f"{rt} · {cores_text(cores)}", fontsize="small")
    for ax in list(axes.flat)[k:]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel(ch.ylabel)
    for ax in axes[-1, :]:
        ax.set_xlabel(ch.xlabel)
    fig.suptitle(f"{ch.title} (one colour scale for all)")
    fig.tight_layout(rect=(0, 0, 0.9, 0.97))
    if im is None:  # not reached: a grid has a panel (and vals above a value)
        raise PlotError("no panel to draw")
    cb = fig.colorbar(im, ax=axes.ravel().tolist(), shrink=min(0.9, 3.0 / rows), fraction=0.04)
    ticks = log_ticks(min(vals), max(vals))
    cb.set_ticks(ticks)
    cb.set_ticklabels([fmt_ns(t) for t in ticks])
    cb.set_label("message-phase time")
    return fig


def _surface(ch: Chart) -> Figure:
    import numpy as np

    g = _grid(ch)
    _rt, _cores, z = g.panels[0]
    fig = plt.figure(figsize=(8, 6))
    ax = fig.add_subplot(projection="3d")
    X, Y = np.meshgrid(np.log10(g.ns), np.log10(g.ms))
    Z = np.array([[np.nan if v is None else math.log10(v) for v in row] for row in z], dtype=float)
    ax.plot_surface(X, Y, Z, cmap="viridis", edgecolor="k", linewidth=0.3)
    ax.set_xticks(np.log10(g.ns), [fmt_count(n) for n in g.ns])
    ax.set_yticks(np.log10(g.ms), [fmt_count(m) for m in g.ms])
    zt = list(log_ticks(np.nanmin(10**Z), np.nanmax(10**Z)))
    ax.set_zticks([math.log10(t) for t in zt], [fmt_ns(t) for t in zt])
    ax.set_xlabel(ch.xlabel)
    ax.set_ylabel(ch.ylabel)
    ax.set_zlabel("message-phase time")
    ax.set_title(ch.title, fontsize="medium")
    return fig
