"""What each chart shows, as data, and the registry of chart kinds: `ringbench plot --kind`, the report's
chart order and both drawing backends (draw_mpl for PNG and SVG, draw_plotly for the report) read it.

Kinds, after the historic write-ups:
  hops-vs-n   ns per hop against N (log–log), one line per runtime and core setting
  time-vs-m   message-phase time against M at a fixed N (log–log)
  surface     3-D surface of run time over N × M for one runtime
  heatmap     run time over N × M, small multiples (one per runtime and core setting) on one colour scale
  spawn       spawn time per process against N (log–log)
  memory      bytes per idle process against N
  selective   selective receive: time per reply against N, arrival order and reverse order
  squeeze     throughput against concurrency (tokens circulating at once)
  tree        the skynet tree: time per tree and peak bytes per process against N (leaves)
  nodes       a ring across nodes: ns per hop against the number of nodes, and ns per cross-node hop
  cluster     the cluster view of continuous runs: ring hops handled per second on each node, over time
Every point is a median over its repeats (analysis.figure, the tables' figure); error bars are the 95 %
bootstrap interval of that median (squeeze: ± one standard deviation of the samples at that step).

    from ringbench.present import charts, draw_mpl
    ch = charts.build(cells, "hops-vs-n")
    draw_mpl.draw(ch).savefig("hops.png")
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ..catalogue.workloads import (
    NS_PER_HOP,
    NS_PER_REPLY,
    PEAK_PER_PROC,
    QPS,
    RSS_PER_PROC,
    RUNTIME_PER_PROC,
    SPAWN_US,
    TREE_MS,
    Metric,
)
from ..results import analysis, modes, nodes, stats
from ..results.analysis import per_repeat, squeezed
from ..results.model import Cell
from .style import MARKERS, PALETTE, Style, base, cores_text, floors, fmt_count, legend_text, line_of
from .tables import perf_code


class PlotError(ValueError):
    """The cells hold nothing this chart can show (bad input for `ringbench plot`, exit 2)."""


# -- what a chart shows ----------------------------------------------------------------
@dataclass
class Point:
    x: float
    y: float
    lo: float
    hi: float
    note: str = ""  # what a hover shows besides x and y: N, M, repeats, interval
    values: tuple[float, ...] = ()  # the repeats behind the median (chart units)


@dataclass
class Series:
    runtime: str
    cores: str
    points: list[Point]
    variant: str = ""  # e.g. "arrival order" / "reverse order" in the selective chart
    floor: bool = False  # the floor, not a runtime: drawn first, as a dashed reference
    group: str = analysis.MESSAGE  # hop group (message passing, handoff, rendezvous, floor)
    contrast: bool = False  # the second of a pair (reverse order beside arrival order): dash-dot, open markers
    historical: bool = False  # published figures from other machines, never this report's data
    style: Style | None = None  # a style of its own (historical series), else the runtime's
    in_cores_panel: bool = False  # drawn in a panel of its core setting: the panel's title names the cores

    @property
    def label(self) -> str:
        cores = cores_text(self.cores) if self.cores and not self.in_cores_panel else ""
        return " · ".join(x for x in (self.runtime, cores, self.variant) if x)


@dataclass
class Panel:
    title: str
    series: list[Series]
    ylabel: str = ""  # a panel's own y axis when its unit differs from the chart's
    yunit: str = ""


@dataclass
class Grid:
    """Run time over N × M for each runtime and core setting (the original ring benchmark's surface)."""

    ns: list[int]
    ms: list[int]
    panels: list[tuple[str, str, list[list[float | None]]]]  # runtime, cores, z[m index][n index] in ns
    per_hop: dict = field(default_factory=dict)  # (runtime, cores, n, m) -> ns per hop


@dataclass
class Chart:
    key: str  # the kind
    title: str
    xlabel: str
    ylabel: str
    xunit: str  # a style.FORMATTERS key
    yunit: str
    panels: list[Panel]
    caption: str = ""
    xlog: bool = True
    ylog: bool = True
    interval: str = "95 % interval of the median"
    shape: str = "lines"  # lines; dots (one x: a dot per series, sorted); heatmap (small multiples of `grid`)
    # or surface (one panel of `grid`, 3-D)
    grid: Grid | None = None
    higher_better: bool = False  # throughput: a dot chart puts the highest first

    @property
    def series(self) -> list[Series]:
        return [s for p in self.panels for s in p.series]

    def runtimes(self) -> set[str]:
        return {s.runtime for s in self.series if not s.historical}

    def floors(self) -> set[str]:
        return {s.runtime for s in self.series if s.floor}

    def panel_unit(self, p: Panel) -> tuple[str, str]:
        return (p.ylabel or self.ylabel, p.yunit or self.yunit)

    def legend(self, now: str = "") -> str:
        """What the chart's kinds of line mean, in words made from the rule both backends draw by
        (style.line_of); `now` names today's series beside published ones ("measured here")."""
        lines = []
        for s in self.series:
            ln = line_of(s.cores, s.floor, s.contrast, s.historical)
            meaning = s.variant if s.contrast else ln.meaning
            lines.append((ln, f"{now}, {meaning}" if now and not s.historical else meaning))
        if self.shape == "dots":  # no lines: the markers alone say one core or all, grey the floor
            meant: dict[bool, dict[str, None]] = {False: {}, True: {}}
            for s in self.series:
                hollow = line_of(s.cores, s.floor, s.contrast, s.historical).hollow
                meant[hollow][s.variant if s.contrast else "one core" if s.cores == "1" else "all cores"] = None
            parts = [f"{'open' if h else 'filled'} markers: {' or '.join(ws)}" for h, ws in meant.items() if ws]
            if any(s.floor for s in self.series) and "floor" not in self.caption:  # else the caption says it
                parts.append("grey: the floor (a stackless state machine, not a runtime)")
            text = "; ".join(parts)
            return text[:1].upper() + text[1:] + "." if text else ""
        return legend_text(lines)

    @property
    def values_axis(self) -> str:
        """The axis the measured values are on: y for lines, x for a dot chart (rows are the series)."""
        return "x" if self.shape == "dots" else "y"


# -- helpers ---------------------------------------------------------------------------------
def _point(x: float, values: list[float] | tuple[float, ...], scale: float = 1.0, note: str = "") -> Point:
    vals = [v * scale for v in values]
    med = stats.summarize(vals).median
    lo, hi = stats.bootstrap_median_ci(vals) if len(vals) > 1 else (med, med)
    return Point(x, med, lo, hi, note, tuple(vals))


def _order(series: list[Series]) -> list[Series]:
    """Floors first (they are the reference), then by runtime, one core before all."""
    fl = floors()
    for s in series:
        s.floor = s.floor or s.runtime in fl or base(s.runtime) in fl
    return sorted(series, key=lambda s: (not s.floor, s.runtime, s.cores != "1", s.variant))


def _series(rt: str, cores: str, group: list[Cell], pts: list[Point], variant: str = "", contrast=False) -> Series:
    return Series(
        rt,
        cores,
        pts,
        variant,
        floor=any(c.is_floor for c in group),
        group=group[0].hop_group if group else analysis.MESSAGE,
        contrast=contrast,
    )


def _group(cells: list[Cell]) -> dict[tuple[str, str], list[Cell]]:
    out: dict[tuple[str, str], list[Cell]] = {}
    for c in cells:
        out.setdefault((c.runtime, c.cores), []).append(c)
    return out


def _layout(c: Cell) -> str:
    """'' for a ring on one node, '2 nodes, interleaved' for one across nodes: a series of its own."""
    if not nodes.distributed(c):
        return ""
    return f"{nodes.nodes_of(c)} nodes, {nodes.placement(c)}"


def _hops(c: Cell) -> int:
    p = c.used_params
    if "hops" in p:
        return p["hops"]
    return p.get("n", 1) * p.get("m", 1) * p.get("tokens", 1)


def _ring_cells(cells: list[Cell]) -> list[Cell]:
    """Cells whose headline is ns per hop of a one-token ring at a setting (ring, msgcost; any mode but squeeze)."""
    return [
        c
        for c in cells
        if c.ok
        and not squeezed(c)
        and c.workload.headline is NS_PER_HOP
        and c.params.get("tokens", 1) == 1
        and "n" in c.params
        and not nodes.distributed(c)  # a ring across nodes has its own chart (nodes)
    ]


def _repeats(c: Cell) -> str:
    k = len(c.values())
    return f"{k} {'repeat' if per_repeat(c) else 'sample'}{'s' if k != 1 else ''}"


def _note(c: Cell) -> str:
    p = ", ".join(f"{k.upper() if len(k) == 1 else k} = {v:,}" for k, v in c.used_params.items())
    return f"{p} · {_repeats(c)}"


def _values(c: Cell, metric: Metric) -> tuple[float, ...]:
    f = analysis.figure(c, metric)
    return f.values if f else ()


# -- the kinds -----------------------------------------------------------------------------------
def hops_vs_n(cells: list[Cell], fixed_m: int | None = None) -> Chart:
    ring = _ring_cells(cells)
    if not ring:
        raise PlotError("no ring or msgcost cells to plot against N")
    # One way of measuring a chart: repeats of a fixed or calibrated M (timed) where there are any, else
    # a continuous ring's sample intervals; a continuous run beside a timed one is in the tables.
    timed = [c for c in ring if per_repeat(c)]
    sampled = not timed
    ring = timed or ring
    ns = sorted({c.params["n"] for c in ring})
    with_m = [c for c in ring if "m" in c.params]
    if fixed_m is not None:
        ring = [c for c in with_m if c.params["m"] == fixed_m]
        if not ring:
            raise PlotError(f"no cells at m = {fixed_m}; the run has m in {sorted({c.params['m'] for c in with_m})}")
        how = f"M = {fixed_m:,}"
    else:
        complete = sorted(
            m
            for m in {c.params["m"] for c in with_m}
            if {c.params["n"] for c in with_m if c.params["m"] == m} == set(ns)
        )
        if complete and len(with_m) == len(ring):
            m = complete[len(complete) // 2]
            ring = [c for c in ring if c.params["m"] == m]
            how = f"M = {m:,}"
        else:
            how = "continuous, sampled while the ring runs" if sampled else "at each N the cell with the most hops"
    best: dict[tuple[str, str, int], Cell] = {}
    for c in ring:
        k = (c.runtime, c.cores, c.params["n"])
        if k not in best or _hops(c) > _hops(best[k]):
            best[k] = c
    series = []
    for (rt, cores), group in _group(list(best.values())).items():
        pts = [
            _point(c.params["n"], _values(c, NS_PER_HOP), note=_note(c))
            for c in sorted(group, key=lambda c: c.params["n"])
        ]
        series.append(_series(rt, cores, group, pts))
    return Chart(
        "hops-vs-n",
        f"Message cost against N ({how})",
        "N (processes in the ring)",
        "time per hop",
        "count",
        "ns",
        [Panel("", _order(series))],
        caption=f"Median ns per hop over the {'sample intervals' if sampled else 'repeats'}; bars: 95 % bootstrap "
        "interval. Lower is better. The dashed grey line is the floor: a stackless state machine, not a runtime."
        + (" Continuous runs are in the tables." if len(timed) < len(_ring_cells(cells)) and timed else ""),
    )


def _ring_with_m(cells: list[Cell]) -> list[Cell]:
    return [c for c in _ring_cells(cells) if "m" in c.params and c.records]


def time_vs_m(cells: list[Cell], fixed_n: int | None = None, panels: int = 1) -> Chart:
    ring = _ring_with_m(cells)
    by_n: dict[int, set[int]] = {}
    for c in ring:
        by_n.setdefault(c.params["n"], set()).add(c.params["m"])
    if fixed_n is not None:
        if fixed_n not in by_n:
            raise PlotError(f"no cells at n = {fixed_n}; the run has n in {sorted(by_n)}")
        chosen = [fixed_n]
    else:
        swept = sorted(n for n, ms in by_n.items() if len(ms) > 1)
        if not swept:
            raise PlotError("time against M needs at least two values of M at one N (a sweep: -m a,b)")
        if panels == 1:
            chosen = [swept[len(swept) // 2]]
        else:  # spread over the range of N, smallest and largest included
            k = min(panels, len(swept))
            idx = sorted({round(i * (len(swept) - 1) / max(1, k - 1)) for i in range(k)})
            chosen = [swept[i] for i in idx]
    out = []
    for n in chosen:
        series = []
        for (rt, cores), group in _group([c for c in ring if c.params["n"] == n]).items():
            pts = [
                _point(c.params["m"], [r["run_ns"] for r in c.records], note=_note(c))
                for c in sorted(group, key=lambda c: c.params["m"])
            ]
            series.append(_series(rt, cores, group, pts))
        out.append(Panel(f"N = {fmt_count(n)}", _order(series)))
    title = (
        f"Message-phase time against M (N = {chosen[0]:,})"
        if len(chosen) == 1
        else "Message-phase time against M, at fixed N"
    )
    return Chart(
        "time-vs-m",
        title,
        "M (laps of the ring)",
        "message-phase time",
        "count",
        "ns",
        out,
        caption="Whole message phase (N × M hops), median over the repeats with its 95 % interval. "
        "A line of slope 1 means each lap costs the same.",
    )


def _metric_vs_n(
    cells: list[Cell], metric: Metric, scale: float, key: str, title: str, ylabel: str, yunit: str, caption: str
) -> Chart:
    usable = [c for c in cells if per_repeat(c) and "n" in c.params and _values(c, metric)]
    if not usable:
        raise PlotError(f"no cells with {ylabel} in this run")
    # One workload per chart (analysis.preferred_workload): a ring run with a warm-up reuses memory, so its
    # RSS per process is not the memory workload's and the two are never drawn as one line.
    workload = analysis.preferred_workload(usable, metric)
    # A line per layout: spawning a ring over K nodes is not spawning it on one, so the cell with the most
    # hops at each N is chosen among cells of one layout only.
    best: dict[tuple[str, str, str, int], Cell] = {}
    for c in usable:
        if workload is None or c.workload.name != workload.name:
            continue
        k = (c.runtime, c.cores, _layout(c), c.params["n"])
        if k not in best or _hops(c) > _hops(best[k]):
            best[k] = c
    lines: dict[tuple[str, str, str], list[Cell]] = {}
    for (rt, cores, layout, _n), c in best.items():
        lines.setdefault((rt, cores, layout), []).append(c)
    series = []
    for (rt, cores, layout), group in lines.items():
        pts = [
            _point(c.params["n"], _values(c, metric), scale, note=f"{c.workload.name}: {_note(c)}")
            for c in sorted(group, key=lambda c: c.params["n"])
        ]
        series.append(_series(rt, cores, group, pts, layout, contrast=bool(layout)))
    return Chart(
        key,
        title,
        "N (processes)",
        ylabel,
        "count",
        yunit,
        [Panel("", _order(series))],
        caption=caption + (f" From the {workload.name} workload." if workload else ""),
    )


def spawn(cells: list[Cell]) -> Chart:
    return _metric_vs_n(
        cells,
        SPAWN_US,
        1e3,
        "spawn",
        "Spawn cost against N",
        "spawn time per process",
        "ns",
        "Time from the first spawn until every process is ready, per process; median with its "
        "95 % interval. Lower is better.",
    )


def memory(cells: list[Cell]) -> Chart:
    chart = _metric_vs_n(
        cells,
        RSS_PER_PROC,
        1.0,
        "memory",
        "Memory per process against N",
        "RSS growth per process",
        "bytes",
        "Resident memory added per idle process by the first spawn in each driver process "
        "(RSS after spawning N, minus before, divided by N); median with its 95 % interval. Lower "
        "is better.",
    )
    for s in chart.series:  # a process can cost less than nothing when the runtime returns memory meanwhile
        s.points = [p for p in s.points if p.y > 0]
    if any(per_repeat(c) and "n" in c.params and _values(c, RUNTIME_PER_PROC) for c in cells):
        chart.caption += " The runtimes that account for their own memory give it in the tables."
    return chart


def selective(cells: list[Cell]) -> Chart:
    sel = [c for c in cells if c.ok and "reverse" in c.params and "n" in c.params]
    if not sel:
        raise PlotError("no selective-receive cells in this run (ringbench sweep selective)")
    series = []
    for (rt, cores), group in _group(sel).items():
        for rev, name in ((0, "arrival order"), (1, "reverse order")):
            pts = [
                _point(c.params["n"], _values(c, c.workload.headline), note=_note(c))
                for c in sorted(group, key=lambda c: c.params["n"])
                if c.params["reverse"] == rev and _values(c, c.workload.headline)
            ]
            if pts:
                series.append(_series(rt, cores, group, pts, name, contrast=bool(rev)))
    return Chart(
        "selective",
        "Selective receive: replies taken in arrival order and in reverse",
        "N (workers)",
        "time per reply",
        "count",
        "ns",
        [Panel("", _order(series))],
        caption="A collector takes one reply from each of N workers by selective receive. In reverse "
        "order every receive scans the mailbox past the replies not yet wanted, so the cost per "
        "reply grows with N (quadratic in total); in arrival order it stays flat.",
    )


def _squeeze_points(c: Cell) -> list[Point]:
    peak = c.extra.get("peak_concurrency")
    return [
        Point(
            h["concurrency"],
            h["hops_per_s"],
            max(0.0, h["hops_per_s"] - h["sd"]),
            h["hops_per_s"] + h["sd"],
            f"{h['samples']} samples" + (" · peak" if h["concurrency"] == peak else ""),
        )
        for h in c.extra.get("history", [])
    ]


def squeeze(cells: list[Cell]) -> Chart:
    """Throughput against concurrency: a ring's hops per second against tokens, one line per runtime, core
    setting and N; a perf squeeze's QPS against workers, one line (and colour) per snippet."""
    done = [c for c in cells if c.ok and c.extra.get("history")]
    perf = [c for c in done if c.workload.subject]
    if perf:
        return _perf_squeeze(perf)
    series = [
        _series(c.runtime, c.cores, [c], _squeeze_points(c), f"N = {fmt_count(c.params.get('n', 0))}") for c in done
    ]
    if not series:
        raise PlotError("no squeeze history in this run (use a run made with --squeeze)")
    return Chart(
        "squeeze",
        "Throughput against concurrency (squeeze)",
        "tokens circulating at once",
        "hops per second",
        "count",
        "rate",
        [Panel("", _order(series))],
        ylog=False,
        caption="Each step adds tokens until throughput stops growing; mean hops per second with ± one "
        "standard deviation of the samples. Higher is better.",
        interval="± one standard deviation",
        higher_better=True,
    )


def _perf_squeeze(cells: list[Cell]) -> Chart:
    """erlperf's squeeze: QPS of each snippet against the workers running it at once."""
    series = []
    several = len({c.runtime for c in cells}) > 1
    for j, c in enumerate(cells):
        s = Series(perf_code(c), c.cores if several else "", _squeeze_points(c), c.runtime if several else "")
        s.style = Style(PALETTE[j % len(PALETTE)], MARKERS[j % len(MARKERS)], False)
        series.append(s)
    workers = cells[0].extra.get("workers") or "workers"
    return Chart(
        "squeeze",
        "QPS against workers (perf squeeze)",
        f"workers running the snippet at once ({workers})",
        "QPS (iterations per second)",
        "count",
        "qps",
        [Panel("", series)],
        xlog=False,
        ylog=False,
        caption="Each step adds a worker until QPS stops growing (erlperf's squeeze); mean QPS of the step's "
        "samples with ± one standard deviation. Higher is better; the table's figure is the peak step's.",
        interval="± one standard deviation",
        higher_better=True,
    )


def perf(cells: list[Cell]) -> Chart:
    """A perf run's snippets side by side: each snippet's QPS (the table's figure: the median with its 95 %
    interval), a row each, the highest first; its workers in the hover."""
    done = [(c, modes.perf_figures(c)) for c in cells if c.ok and c.workload.subject]
    done = [(c, f) for c, f in done if f.qps]
    if not done:
        raise PlotError("no measured perf snippet in these runs (ringbench perf)")
    several = len({c.runtime for c, _ in done}) > 1
    series = []
    for j, (c, f) in enumerate(sorted(done, key=lambda cf: -(cf[1].qps or 0))):
        qps = f.qps or 0.0
        lo, hi = f.qps_ci or (qps, qps)
        workers = f.concurrency or 1
        note = f"{workers} worker{'s' if workers != 1 else ''} · {f.values} {c.mode_object.value_name}"
        s = Series(perf_code(c), c.cores if several else "", [Point(workers, qps, lo, hi, note)])
        s.variant = c.runtime if several else ""
        s.style = Style(PALETTE[j % len(PALETTE)], MARKERS[j % len(MARKERS)], False)
        s.in_cores_panel = not several
        series.append(s)
    return Chart(
        "perf",
        "QPS of each snippet (perf)",
        "workers",
        "QPS (iterations per second)",
        "count",
        "qps",
        [Panel("", series)],
        caption="Iterations per second of all the workers together: the median with its 95 % interval, as the "
        "table gives it. Higher is better.",
        shape="dots",
        higher_better=True,
    )


def tree(cells: list[Cell]) -> Chart:
    """The skynet tree: time per tree and peak bytes per process, against the tree's leaves."""
    usable = [c for c in cells if per_repeat(c) and "n" in c.params and _values(c, TREE_MS)]
    if not usable:
        raise PlotError("no tree cells in this run (ringbench run tree)")
    fanouts = sorted({c.params.get("fanout") for c in usable}, key=lambda f: f or 0)
    panels = []
    for metric, scale, title, ylabel, unit in (
        (TREE_MS, 1e6, "time per tree", "time per tree", "ns"),
        (PEAK_PER_PROC, 1.0, "peak memory per process", "peak bytes per process", "bytes"),
    ):
        series = []
        for (rt, cores), group in _group(usable).items():
            for f in fanouts:
                at = sorted((c for c in group if c.params.get("fanout") == f), key=lambda c: c.params["n"])
                pts = [_point(c.params["n"], _values(c, metric), scale, _note(c)) for c in at if _values(c, metric)]
                if pts:
                    series.append(_series(rt, cores, at, pts, f"fanout {f}" if len(fanouts) > 1 else ""))
        if series:
            panels.append(Panel(title, _order(series), ylabel, unit))
    only = f" (fanout {fanouts[0]})" if len(fanouts) == 1 and fanouts[0] else ""
    return Chart(
        "tree",
        f"The skynet tree: time and peak memory against N{only}",
        "N (leaves of the tree)",
        panels[0].ylabel,
        "count",
        panels[0].yunit,
        panels,
        caption="Every process of the tree spawns its children, sums what they send and sends the sum up; the "
        "time is one phase (spawn, messages, exits), the memory the peak resident memory over the tree per "
        "process (leaves and inner processes). Median with its 95 % interval; lower is better.",
    )


def across_nodes(cells: list[Cell]) -> Chart:
    """ns per hop against the number of nodes (the in-node ring at 1), one line per runtime, core setting,
    layout and N (results.nodes; the tables give ns per cross-node hop derived from these)."""
    found = nodes.cross_hops(cells)
    if not found:
        raise PlotError("no ring across nodes in these runs (ringbench run ring --nodes 1,2,4)")
    lines: dict[tuple, list[nodes.CrossHop]] = {}
    for x in found:
        p = x.cell.params
        key = (x.cell.runtime, x.cell.cores, nodes.placement(x.cell), p["n"], p.get("tokens", 1))
        lines.setdefault(key, []).append(x)
    series = []
    for (rt, cores, layout, n, tokens), xs in sorted(lines.items()):
        xs = sorted(xs, key=lambda x: nodes.nodes_of(x.cell))
        tok = f", K = {fmt_count(tokens)}" if tokens > 1 else ""
        pts = []
        ref = xs[0].reference
        if ref is not None:
            pts.append(_point(1, _values(ref, NS_PER_HOP), note=f"in-node ring · {_note(ref)}"))
        pts += [_point(nodes.nodes_of(x.cell), _values(x.cell, NS_PER_HOP), note=_note(x.cell)) for x in xs]
        variant = f"{layout}, N = {fmt_count(n)}{tok}"
        series.append(_series(rt, cores, [x.cell for x in xs], pts, variant, contrast=layout == "interleaved"))
    return Chart(
        "nodes",
        "A ring across nodes: cost per hop against the number of nodes",
        "nodes (Erlang distribution, one machine)",
        "time per hop",
        "count",
        "ns",
        [Panel("", _order(series))],
        caption="Median ns per hop with its 95 % interval; at 1 node the same ring on one node, measured in the "
        "same run. Contiguous blocks: K of the N hops of a lap cross a node; interleaved (dash-dot, open "
        "markers): every hop. The tables derive ns per cross-node hop from these. Lower is better.",
    )


def cluster(cells: list[Cell], most: int = 4) -> Chart:
    """erlperf's cluster view of continuous runs: ring hops handled per second on each node, over time; one
    panel per cell (at most `most`, the ones with the most nodes first)."""
    viewed = [c for c in cells if c.ok and nodes.node_records(c)]
    if not viewed:
        raise PlotError("no cluster view in these runs (ringbench run ring --continuous --nodes 2)")
    viewed = sorted(viewed, key=lambda c: -nodes.nodes_of(c))[:most]
    panels = []
    for c in viewed:
        series = []
        for j, pts in nodes.view_series(c).items():
            if pts:
                s = Series(c.runtime, c.cores, [Point(x, y, y, y, f"node {j}") for x, y in pts], f"node {j}")
                s.style = Style(PALETTE[j % len(PALETTE)], MARKERS[j % len(MARKERS)], False)
                series.append(s)
        if series:
            panels.append(Panel(c.label.strip(), series, "hops per second", "rate"))
    if not panels:
        raise PlotError("the cluster views in these runs have fewer than two samples")
    return Chart(
        "cluster",
        "Cluster view: ring hops handled per second on each node, while the ring runs",
        "sample (one each --sample-ms)",
        "hops per second",
        "count",
        "rate",
        panels,
        caption="Continuous mode: each node's ring processes' receipts (the node's laps × its processes) per "
        "sample interval, sampled with the ring's own samples; sample 1 ends the warm-up interval. The tables "
        "give scheduler utilisation, distribution packets, memory and processes per node.",
        xlog=False,
        ylog=False,
        interval="none (one value per sample interval)",
    )


def grid(cells: list[Cell]) -> Grid:
    ring = _ring_with_m(cells)
    ns = sorted({c.params["n"] for c in ring})
    ms = sorted({c.params["m"] for c in ring})
    if len(ns) < 2 or len(ms) < 2:
        raise PlotError("a surface needs at least two values of N and of M (a sweep: -n a,b -m c,d)")
    panels, per_hop = [], {}
    order = _order([Series(rt, cores, []) for rt, cores in _group(ring)])
    for s in order:
        z: list[list[float | None]] = [[None] * len(ns) for _ in ms]
        for c in ring:
            if (c.runtime, c.cores) == (s.runtime, s.cores):
                z[ms.index(c.params["m"])][ns.index(c.params["n"])] = stats.summarize(
                    [r["run_ns"] for r in c.records]
                ).median
                head = analysis.figure(c, NS_PER_HOP)
                if head is not None:  # always, for an ok ring cell with records
                    per_hop[(c.runtime, c.cores, c.params["n"], c.params["m"])] = head.value
        panels.append((s.runtime, s.cores, z))
    return Grid(ns, ms, panels, per_hop)


def heatmap(cells: list[Cell]) -> Chart:
    return Chart(
        "heatmap",
        "Message-phase time over N × M, one panel per runtime",
        "N (processes)",
        "M (laps)",
        "count",
        "ns",
        [],
        caption="The original ring benchmark's surface as small multiples, all on one (log) colour scale: the "
        "same colour is the same time in every panel. Hover for the time per hop.",
        shape="heatmap",
        grid=grid(cells),
    )


def surface(cells: list[Cell]) -> Chart:
    runtimes = sorted({(c.runtime, c.cores) for c in _ring_with_m(cells)})
    if len(runtimes) > 1:
        raise PlotError(
            "a 3-D surface shows one runtime at one core setting: pick one with --runtime "
            f"(the run has {', '.join(f'{r} [{k}]' for r, k in runtimes)}); "
            "--kind heatmap shows them all side by side"
        )
    g = grid(cells)
    rt, cores, _ = g.panels[0]
    return Chart(
        "surface",
        f"{rt} · {cores_text(cores)}: message-phase time over N × M",
        "N (processes)",
        "M (laps)",
        "count",
        "ns",
        [],
        shape="surface",
        grid=g,
    )


# -- the registry ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Kind:
    key: str
    build: Callable[[list[Cell], int | None, int | None, int], Chart]  # cells, fixed N, fixed M, panels
    report: int | None  # the chart's place in the report's charts section (None: `ringbench plot` only)
    anchor: str = ""  # the report's element id, chart-<anchor> (default: the key)
    metric: Metric | None = None  # the workload headline it draws: `plot --kind auto` picks the kind by it


KINDS: dict[str, Kind] = {
    k.key: k
    for k in (
        Kind("hops-vs-n", lambda cells, n, m, p: hops_vs_n(cells, m), 0, metric=NS_PER_HOP),
        Kind("time-vs-m", lambda cells, n, m, p: time_vs_m(cells, n, p), 2),
        Kind("surface", lambda cells, n, m, p: surface(cells), None),
        Kind("heatmap", lambda cells, n, m, p: heatmap(cells), 3, anchor="surface"),
        Kind("spawn", lambda cells, n, m, p: spawn(cells), 1, metric=SPAWN_US),
        Kind("memory", lambda cells, n, m, p: memory(cells), 4, metric=RSS_PER_PROC),
        Kind("selective", lambda cells, n, m, p: selective(cells), 5, metric=NS_PER_REPLY),
        Kind("squeeze", lambda cells, n, m, p: squeeze(cells), 6),
        Kind("tree", lambda cells, n, m, p: tree(cells), 7, metric=TREE_MS),
        Kind("nodes", lambda cells, n, m, p: across_nodes(cells), 8),
        Kind("cluster", lambda cells, n, m, p: cluster(cells, max(p, 1)), 9),
        Kind("perf", lambda cells, n, m, p: perf(cells), None, metric=QPS),
    )
}


# More series than this in one panel of lines, over several core settings: a panel per core setting, so the
# legend names each runtime once (clicking it hides the runtime in every panel).
MOST_SERIES_IN_ONE_PANEL = 16


def _by_cores(ch: Chart) -> Chart:
    """One panel of many lines at several core settings as a panel per core setting, side by side."""
    if ch.shape != "lines" or len(ch.panels) != 1 or len(ch.series) <= MOST_SERIES_IN_ONE_PANEL:
        return ch
    settings = sorted({s.cores for s in ch.series}, key=lambda k: (k != "1", k))
    if len(settings) < 2:
        return ch
    p = ch.panels[0]
    ch.panels = [
        Panel(cores_text(k), [replace(s, in_cores_panel=True) for s in p.series if s.cores == k], p.ylabel, p.yunit)
        for k in settings
    ]
    return ch


def fit(ch: Chart) -> Chart:
    """Lines only across x: a chart whose every series has one point, all at one x (one N), is a dot chart,
    a row per series sorted by its value (best first), titled at that x ('Spawn cost at N = 1k') instead
    of against it. A line through one point draws nothing but a strip of overlapping markers. Lines of
    many runtimes at several core settings get a panel per core setting (_by_cores): a legend of runtimes."""
    if ch.shape != "lines" or not ch.series:
        return ch
    xs = {p.x for s in ch.series for p in s.points}
    if len(xs) != 1 or any(len(s.points) > 1 for s in ch.series):
        return _by_cores(ch)
    x = xs.pop()
    name = ch.xlabel.split(" (")[0]
    at = f"{name} = {fmt_count(x)}"
    title = ch.title.replace(f" against {name}", f" at {at}") if f" against {name}" in ch.title else ch.title
    if title == ch.title:
        title = f"{ch.title} ({at})"
    for panel in ch.panels:
        panel.series = sorted(
            (s for s in panel.series if s.points),
            key=lambda s: -s.points[0].y if ch.higher_better else s.points[0].y,
        )
    ch.shape, ch.title = "dots", title
    ch.caption = ch.caption.replace("The dashed grey line is the floor", "The grey dot is the floor")
    return ch


def build(cells: list[Cell], kind: str, fixed_n: int | None = None, fixed_m: int | None = None, panels: int = 1):
    """The chart of one kind (PlotError when the cells hold nothing it can show), as lines across x or, where
    every series has one point at one x, as a dot chart (fit)."""
    if kind not in KINDS:
        raise PlotError(f"unknown plot kind {kind!r}; kinds: {', '.join(KINDS)}")
    return fit(KINDS[kind].build(cells, fixed_n, fixed_m, panels))


def report_kinds() -> list[Kind]:
    """The kinds the report draws, in its order."""
    return sorted((k for k in KINDS.values() if k.report is not None), key=lambda k: k.report or 0)


def default_kind(cells: list[Cell]) -> str:
    """The kind that shows a run best: the squeeze's steps, else the chart of its workload's headline."""
    if any(squeezed(c) for c in cells):
        return "squeeze"
    headlines = {c.workload.headline.name for c in cells}
    return next((k.key for k in KINDS.values() if k.metric and k.metric.name in headlines), "hops-vs-n")
