"""Plots of stored runs (matplotlib; PNG or SVG by the file's suffix).

Kinds, after the historic write-ups:
  hops-vs-n   ns per hop against N at a fixed M, one line per runtime (log x)
  time-vs-m   message-phase time against M at a fixed N, one line per runtime
  surface     3-D surface of run time over N × M for one runtime
  heatmap     the same as a heat map
  spawn       spawn µs per process against N, one line per runtime
  memory      bytes per idle process per runtime (bars)
  squeeze     throughput against concurrency, one line per runtime
Every point is a median over its repeats; error bars are the 95 % bootstrap interval.
"""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from . import stats  # noqa: E402
from .api import CellResult  # noqa: E402
from .workloads import RSS_PER_PROC, RUNTIME_PER_PROC, SPAWN_US  # noqa: E402

KINDS = ("hops-vs-n", "time-vs-m", "surface", "heatmap", "spawn", "memory", "squeeze")


class PlotError(ValueError):
    pass


def default_kind(workload: str, mode: str) -> str:
    if mode == "squeeze":
        return "squeeze"
    return {"spawn": "spawn", "memory": "memory", "msgcost": "hops-vs-n"}.get(workload, "hops-vs-n")


def _series_label(c: CellResult) -> str:
    return f"{c.runtime} ({c.cores} core{'s' if c.cores != '1' else ''})"


def _point(values: list[float]) -> tuple[float, float, float]:
    med = stats.summarize(values).median
    lo, hi = stats.bootstrap_median_ci(values) if len(values) > 1 else (med, med)
    return med, med - lo, hi - med


def _lines(ax, cells: list[CellResult], x_of, y_values) -> None:
    series: dict[str, list[tuple[float, float, float, float]]] = defaultdict(list)
    for c in cells:
        vals = y_values(c)
        if vals:
            series[_series_label(c)].append((x_of(c), *_point(vals)))
    if not series:
        raise PlotError("no measured cells fit this plot")
    for label, pts in sorted(series.items()):
        pts.sort()
        xs, ys, lo, hi = zip(*pts)
        ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3, label=label)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")


def _fixed(cells: list[CellResult], key: str, value: int | None) -> tuple[list[CellResult], int]:
    values = sorted({c.params[key] for c in cells if key in c.params})
    if not values:
        raise PlotError(f"the run has no {key} parameter")
    chosen = value if value is not None else values[len(values) // 2]
    if chosen not in values:
        raise PlotError(f"no cells at {key} = {chosen}; the run has {key} in {values}")
    return [c for c in cells if c.params.get(key) == chosen], chosen


def plot(cells: list[CellResult], kind: str, out: Path, runtime: str | None = None,
         fixed_n: int | None = None, fixed_m: int | None = None) -> Path:
    cells = [c for c in cells if c.ok]
    if runtime:
        cells = [c for c in cells if c.runtime == runtime or c.runtime.split("/")[0] == runtime]
    if not cells:
        raise PlotError("no measured cells to plot" + (f" for {runtime}" if runtime else ""))
    if kind not in KINDS:
        raise PlotError(f"unknown plot kind {kind!r}; kinds: {', '.join(KINDS)}")
    fig = plt.figure(figsize=(8, 5.5))
    try:
        if kind in ("surface", "heatmap"):
            _grid_plot(fig, cells, kind)
        else:
            ax = fig.add_subplot()
            _draw(ax, cells, kind, fixed_n, fixed_m)
        fig.tight_layout()
        out.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(out, dpi=110)
    finally:
        plt.close(fig)
    return out


def _draw(ax, cells: list[CellResult], kind: str, fixed_n: int | None, fixed_m: int | None) -> None:
    if kind == "hops-vs-n":
        if cells[0].workload.name == "ring" and any("m" in c.params for c in cells):
            cells, m = _fixed(cells, "m", fixed_m)
            ax.set_title(f"ns per hop against N (M = {m:,})")
        else:
            ax.set_title("ns per hop against N (fixed total hops)")
        _lines(ax, cells, lambda c: c.params["n"], lambda c: c.values())
        ax.set_xscale("log")
        ax.set_xlabel("N (processes)")
        ax.set_ylabel("ns per hop")
    elif kind == "time-vs-m":
        cells, n = _fixed(cells, "n", fixed_n)
        _lines(ax, cells, lambda c: c.params["m"], lambda c: [r["run_ns"] / 1e9 for r in c.records])
        ax.set_xscale("log")
        ax.set_title(f"message-phase time against M (N = {n:,})")
        ax.set_xlabel("M (laps)")
        ax.set_ylabel("seconds")
    elif kind == "spawn":
        _lines(ax, cells, lambda c: c.params["n"], lambda c: c.values(SPAWN_US))
        ax.set_xscale("log")
        ax.set_title("spawn time per process against N")
        ax.set_xlabel("N (processes)")
        ax.set_ylabel("µs per process")
    elif kind == "memory":
        _bars(ax, cells)
    elif kind == "squeeze":
        for c in cells:
            hist = c.extra.get("history", [])
            if hist:
                ax.errorbar([h["concurrency"] for h in hist], [h["hops_per_s"] / 1e6 for h in hist],
                            yerr=[h["sd"] / 1e6 for h in hist], marker="o", capsize=3, label=_series_label(c))
        if not ax.lines:
            raise PlotError("no squeeze history in this run (use a run made with --squeeze)")
        ax.set_title("throughput against concurrency (squeeze)")
        ax.set_xlabel("tokens circulating at once")
        ax.set_ylabel("million hops per second")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")


def _bars(ax, cells: list[CellResult]) -> None:
    labels, rss, own = [], [], []
    for c in sorted(cells, key=lambda c: (c.params.get("n", 0), c.runtime)):
        r = c.values(RSS_PER_PROC)
        if not r:
            continue
        labels.append(f"{_series_label(c)}\nN={c.params.get('n', 0):,}")
        rss.append(stats.summarize(r).median)
        o = c.values(RUNTIME_PER_PROC)
        own.append(stats.summarize(o).median if o else 0)
    if not labels:
        raise PlotError("no memory figures in this run")
    xs = range(len(labels))
    ax.bar([x - 0.2 for x in xs], rss, width=0.4, label="RSS")
    ax.bar([x + 0.2 for x in xs], own, width=0.4, label="runtime's own accounting")
    ax.set_xticks(list(xs), labels, rotation=30, ha="right", fontsize="small")
    ax.set_ylabel("bytes per process")
    ax.set_title("memory per idle process")
    ax.legend(fontsize="small")


def _grid_plot(fig, cells: list[CellResult], kind: str) -> None:
    runtimes = sorted({(c.runtime, c.cores) for c in cells})
    if len(runtimes) != 1:
        raise PlotError("a surface or heat map shows one runtime at one core setting: pick one with --runtime "
                        f"(the run has {', '.join(f'{r} [{k}]' for r, k in runtimes)})")
    ns = sorted({c.params["n"] for c in cells if "n" in c.params})
    ms = sorted({c.params["m"] for c in cells if "m" in c.params})
    if len(ns) < 2 or len(ms) < 2:
        raise PlotError("a surface needs at least two values of N and of M (a sweep: -n a,b -m c,d)")
    import numpy as np

    z = np.full((len(ms), len(ns)), np.nan)
    for c in cells:
        times = [r["run_ns"] / 1e9 for r in c.records]
        if times and c.params.get("n") in ns and c.params.get("m") in ms:
            z[ms.index(c.params["m"]), ns.index(c.params["n"])] = stats.summarize(times).median
    title = f"{runtimes[0][0]} ({runtimes[0][1]} cores): message-phase seconds over N × M"
    if kind == "heatmap":
        ax = fig.add_subplot()
        im = ax.imshow(z, origin="lower", aspect="auto", cmap="viridis")
        ax.set_xticks(range(len(ns)), [f"{n:,}" for n in ns], rotation=30)
        ax.set_yticks(range(len(ms)), [f"{m:,}" for m in ms])
        for (i, j), v in np.ndenumerate(z):
            if not np.isnan(v):
                ax.text(j, i, f"{v:.3g}", ha="center", va="center", color="w", fontsize="small")
        fig.colorbar(im, ax=ax, label="seconds")
        ax.set_xlabel("N (processes)")
        ax.set_ylabel("M (laps)")
    else:
        ax = fig.add_subplot(projection="3d")
        X, Y = np.meshgrid(np.log10(ns), np.log10(ms))
        ax.plot_surface(X, Y, z, cmap="viridis", edgecolor="k", linewidth=0.3)
        ax.set_xlabel("log10 N")
        ax.set_ylabel("log10 M")
        ax.set_zlabel("seconds")
    ax.set_title(title, fontsize="medium")
