"""Charts of stored runs: the data of each chart, one style per runtime, and matplotlib output (PNG or SVG).

The HTML report draws the same charts with Plotly from the same `Chart` objects (report.py), so a
runtime has the same colour and marker in every chart of the report and of `ringbench plot`.

Kinds, after the historic write-ups:
  hops-vs-n   ns per hop against N (log–log), one line per runtime and core setting
  time-vs-m   message-phase time against M at a fixed N (log–log)
  surface     3-D surface of run time over N × M for one runtime
  heatmap     run time over N × M, small multiples (one per runtime and core setting) on one colour scale
  spawn       spawn time per process against N (log–log)
  memory      bytes per idle process against N
  selective   selective receive: time per reply against N, arrival order and reverse order
  squeeze     throughput against concurrency (tokens circulating at once)
Every point is a median over its repeats; error bars are the 95 % bootstrap interval of that median
(squeeze: ± one standard deviation of the samples at that step).
"""

from __future__ import annotations

import colorsys
import math
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.container import ErrorbarContainer  # noqa: E402
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter  # noqa: E402

from ..catalogue.workloads import RSS_PER_PROC, RUNTIME_PER_PROC, SPAWN_US  # noqa: E402
from ..results import stats  # noqa: E402
from ..results.model import Cell  # noqa: E402
from . import PLOT_KINDS  # noqa: E402

KINDS = PLOT_KINDS


class PlotError(ValueError):
    pass


def default_kind(workload: str, mode: str) -> str:
    if mode == "squeeze":
        return "squeeze"
    return {"spawn": "spawn", "memory": "memory", "msgcost": "hops-vs-n", "selective": "selective"}.get(
        workload, "hops-vs-n"
    )


# -- units ------------------------------------------------------------------------
def fmt_ns(ns: float) -> str:
    """A duration in ns as a person reads it: 6.8 ns, 1.2 µs, 35 ms, 2.1 s."""
    if ns is None or not math.isfinite(ns):
        return "–"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if abs(ns) >= scale:
            return f"{_sig(ns / scale)} {unit}"
    return f"{_sig(ns)} ns"


def fmt_count(x: float) -> str:
    """1, 10, 100, 1k, 10k, 499.9k, 1M."""
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(x) >= scale:
            return f"{_sig(x / scale, 4)}{unit}"
    return f"{_sig(x, 4)}"


def fmt_bytes(b: float) -> str:
    """Bytes per process in decimal units, so that log-axis ticks read 1 kB, 2 kB, 5 kB: 312 B, 2.6 kB, 8.1 MB."""
    if b is None or not math.isfinite(b):
        return "–"
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if abs(b) >= scale:
            return f"{_sig(b / scale)} {unit}"
    return f"{_sig(b)} B"


def fmt_rate(x: float) -> str:
    """Per second: 12.3M/s."""
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(x) >= scale:
            return f"{_sig(x / scale)}{unit}/s"
    return f"{_sig(x)}/s"


def _sig(x: float, digits: int = 3) -> str:
    """Up to `digits` significant digits, no trailing zeros, thousands separated."""
    if x == 0:
        return "0"
    decimals = max(0, digits - 1 - int(math.floor(math.log10(abs(x)))))
    text = f"{x:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


FORMATTERS: dict[str, Callable[[float], str]] = {"ns": fmt_ns, "count": fmt_count, "bytes": fmt_bytes, "rate": fmt_rate}


def log_ticks(lo: float, hi: float) -> list[float]:
    """Tick values for a log axis from lo to hi: decades, with 2 and 5 between them on narrow ranges."""
    if not (lo > 0 and hi > 0):
        return []
    a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    subs = (1,) if b - a > 3 else (1, 2, 5) if b - a > 1 else (1, 1.5, 2, 3, 5, 7)
    ticks = [s * 10**e for e in range(a, b + 1) for s in subs]
    inside = [t for t in ticks if lo / 1.0001 <= t <= hi * 1.0001]
    if len(inside) >= 2:
        return inside
    return [t for t in ticks if lo / 10 <= t <= hi * 10]


def x_ticks(values: list[float], log: bool) -> list[float]:
    """The measured values themselves when there are few (N = 100, 1k, 10k; K = 1 … 8), else log_ticks."""
    distinct = sorted({v for v in values if v > 0})
    if 0 < len(distinct) <= 10:
        return distinct
    return log_ticks(distinct[0], distinct[-1]) if log and distinct else linear_ticks(max(values, default=1))


def linear_ticks(hi: float, count: int = 6) -> list[float]:
    """0 and a few round steps up to hi (1, 2, 2.5 or 5 × a power of ten)."""
    if not hi > 0:
        return [0.0]
    raw = hi / count
    p = 10 ** math.floor(math.log10(raw))
    step = next(s * p for s in (1, 2, 2.5, 5, 10) if s * p >= raw)
    return [i * step for i in range(int(hi / step) + 2)]


# -- one style per runtime ----------------------------------------------------------
# Colours chosen to stay apart from each other (after Kelly's colours of maximum contrast and
# Tableau's), all dark enough to read on white. Grey is kept for the floor.
PALETTE = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#ff7f0e",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#bcbd22",
    "#0b3d91",
    "#7f0000",
    "#006d5b",
    "#b8860b",
    "#4b0082",
    "#ff1493",
    "#556b2f",
    "#00a2ff",
    "#c04000",
    "#6a5acd",
    "#3cb371",
    "#b03060",
    "#008b8b",
    "#a0522d",
    "#9932cc",
    "#808000",
    "#e9967a",
)
FLOOR_COLOUR = "#555555"
# Today's runtimes keep the colour they have always had here; runtimes added later take a free
# colour chosen from their name (see styles), so no existing runtime changes colour when one is added.
PINNED = {
    "erlang": 1,
    "go": 0,
    "c-pthreads": 3,
    "rust-threads": 8,
    "rust-tokio": 4,
    "java-threads": 5,
    "java-virtual": 6,
    "python-threads": 9,
    "python-greenlet": 2,
    "python-asyncio": 7,
    "c-coro": 10,
    "fake": 11,
}
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h", "p", "*")
_PLOTLY_SYMBOL = {
    "o": "circle",
    "s": "square",
    "^": "triangle-up",
    "D": "diamond",
    "v": "triangle-down",
    "P": "cross",
    "X": "x",
    "<": "triangle-left",
    ">": "triangle-right",
    "h": "hexagon",
    "p": "pentagon",
    "*": "star",
}
_VARIANT_LIGHTNESS = (0.0, 0.22, -0.18, 0.34, -0.3, 0.12)  # variants share their family's hue


@dataclass(frozen=True)
class Style:
    colour: str
    marker: str  # matplotlib marker
    floor: bool  # a stackless state machine, not a runtime: drawn as a dashed reference line

    @property
    def symbol(self) -> str:
        return _PLOTLY_SYMBOL[self.marker]


def base(runtime: str) -> str:
    return runtime.split("/")[0]


def _crc(text: str) -> int:
    return zlib.crc32(text.encode())  # not hash(): Python salts that per process


def cell_floors(cells: Iterable[Cell]) -> set[str]:
    """Runtimes whose stored cells say their hop is the floor (older stores: none; _floors covers c-coro)."""
    return {c.runtime for c in cells if getattr(c, "is_floor", False)}


def _floors() -> set[str]:
    """Drivers whose manifest declares their hop a floor, and c-coro (the floor before manifests said so)."""
    out = {"c-coro"}
    try:
        from ..catalogue.drivers import discover

        out |= {d.name for d in discover().values() if getattr(d, "is_floor", False)}
    except Exception:  # a broken manifest elsewhere must not stop a chart from being drawn
        pass
    return out


def _known() -> set[str]:
    try:
        from ..catalogue.drivers import discover

        return set(discover())
    except Exception:
        return set()


def _shade(colour: str, amount: float) -> str:
    r, g, b = (int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    h, lum, s = colorsys.rgb_to_hls(r, g, b)
    lum = min(0.85, max(0.12, lum + amount))
    return "#" + "".join(f"{round(c * 255):02x}" for c in colorsys.hls_to_rgb(h, lum, s))


def styles(names: Iterable[str], floors: Iterable[str] = ()) -> dict[str, Style]:
    """A style for every runtime named, decided by the runtime's name alone wherever colours do not collide.

    Pinned runtimes keep their colour. Any other runtime family starts at the free colour its name
    hashes to and takes the next free one if that is taken; the families considered are every
    discovered driver plus the names given, in name order, so the report and `ringbench plot` of the
    same runs agree. Variants (`rust-tokio/multi-thread`) share their family's hue in lighter or
    darker shades and differ by marker.
    """
    names = set(names)
    floors = _floors() | set(floors)
    universe = sorted(names | _known())
    families = sorted({base(n) for n in universe})
    slot: dict[str, int] = {f: PINNED[f] for f in families if f in PINNED}
    taken = set(PINNED.values())
    free = [i for i in range(len(PALETTE)) if i not in taken]
    for f in families:
        if f in slot:
            continue
        pool = [i for i in free if i not in slot.values()] or list(range(len(PALETTE)))
        wanted = free[_crc(f) % len(free)] if free else _crc(f) % len(PALETTE)
        # the first free colour at or after the one the name hashes to
        slot[f] = min(pool, key=lambda i: (i - wanted) % len(PALETTE))
    out: dict[str, Style] = {}
    for f in families:
        members = sorted(n for n in universe if base(n) == f)
        marker0 = PINNED[f] % len(MARKERS) if f in PINNED else _crc(f + "/marker") % len(MARKERS)
        for k, n in enumerate(members):
            is_floor = n in floors or f in floors
            colour = FLOOR_COLOUR if is_floor else PALETTE[slot[f]]
            if k and not is_floor:
                colour = _shade(colour, _VARIANT_LIGHTNESS[k % len(_VARIANT_LIGHTNESS)])
            out[n] = Style(colour, MARKERS[(marker0 + k) % len(MARKERS)], is_floor)
    return {n: out[n] for n in sorted(names)}


# -- what a chart shows ----------------------------------------------------------------
@dataclass
class Point:
    x: float
    y: float
    lo: float
    hi: float
    note: str = ""  # what a hover shows besides x and y: N, M, repeats, interval
    values: tuple[float, ...] = ()  # the repeats behind the median (chart units), for significance tests


@dataclass
class Series:
    runtime: str
    cores: str
    points: list[Point]
    variant: str = ""  # e.g. "arrival" / "reverse" in the selective chart
    floor: bool = False  # the floor, not a runtime: drawn first, as a dashed reference
    group: str = "message"  # hop group (message passing, handoff, rendezvous, floor): like is compared with like

    @property
    def label(self) -> str:
        cores = "1 core" if self.cores == "1" else "all cores" if self.cores == "all" else self.cores
        return " · ".join(x for x in (self.runtime, cores, self.variant) if x)


@dataclass
class Panel:
    title: str
    series: list[Series]


@dataclass
class Chart:
    key: str  # the plot kind
    title: str
    xlabel: str
    ylabel: str
    xunit: str  # a FORMATTERS key
    yunit: str
    panels: list[Panel]
    caption: str = ""
    xlog: bool = True
    ylog: bool = True
    interval: str = "95 % interval of the median"

    @property
    def series(self) -> list[Series]:
        return [s for p in self.panels for s in p.series]

    def runtimes(self) -> set[str]:
        return {s.runtime for s in self.series}


@dataclass
class Grid:
    """Run time over N × M for each runtime and core setting (the original ring benchmark's surface)."""

    ns: list[int]
    ms: list[int]
    panels: list[tuple[str, str, list[list[float | None]]]]  # runtime, cores, z[m index][n index] in ns
    per_hop: dict = field(default_factory=dict)  # (runtime, cores, n, m) -> ns per hop


def _point(x: float, values: list[float], scale: float = 1.0, note: str = "") -> Point:
    vals = [v * scale for v in values]
    med = stats.summarize(vals).median
    lo, hi = stats.bootstrap_median_ci(vals) if len(vals) > 1 else (med, med)
    return Point(x, med, lo, hi, note, tuple(vals))


def _order(series: list[Series]) -> list[Series]:
    """Floors first (they are the reference), then by runtime, one core before all."""
    fl = _floors()
    for s in series:
        s.floor = s.floor or s.runtime in fl or base(s.runtime) in fl
    return sorted(series, key=lambda s: (not s.floor, s.runtime, s.cores != "1", s.variant))


def _series(rt: str, cores: str, group: list[Cell], pts: list[Point], variant: str = "") -> Series:
    return Series(
        rt,
        cores,
        pts,
        variant,
        floor=any(getattr(c, "is_floor", False) for c in group),
        group=getattr(group[0], "hop_group", "message") if group else "message",
    )


def _used(c: Cell) -> dict:
    """The parameters the driver ran (a calibrated M included); `params` are those asked for."""
    return getattr(c, "used_params", None) or c.params


def _group(cells: list[Cell]) -> dict[tuple[str, str], list[Cell]]:
    out: dict[tuple[str, str], list[Cell]] = {}
    for c in cells:
        out.setdefault((c.runtime, c.cores), []).append(c)
    return out


def _hops(c: Cell) -> int:
    p = _used(c)
    if "hops" in p:
        return p["hops"]
    return p.get("n", 1) * p.get("m", 1) * p.get("tokens", 1)


def _ring_cells(cells: list[Cell]) -> list[Cell]:
    """Cells whose headline is ns per hop of a one-token ring (ring in any mode but squeeze, msgcost)."""
    return [
        c
        for c in cells
        if c.ok
        and c.mode != "squeeze"
        and c.workload.name in ("ring", "msgcost")
        and c.params.get("tokens", 1) == 1
        and "n" in c.params
    ]


def _repeats(c: Cell) -> str:
    k = len(c.values())
    return f"{k} {'repeat' if c.mode == 'timed' else 'sample'}{'s' if k != 1 else ''}"


def hops_vs_n(cells: list[Cell], fixed_m: int | None = None) -> Chart:
    ring = _ring_cells(cells)
    if not ring:
        raise PlotError("no ring or msgcost cells to plot against N")
    ns = sorted({c.params["n"] for c in ring})
    with_m = [c for c in ring if "m" in c.params and c.workload.name == "ring"]
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
            how = "at each N the cell with the most hops"
    best: dict[tuple[str, str, int], Cell] = {}
    for c in ring:
        k = (c.runtime, c.cores, c.params["n"])
        if k not in best or _hops(c) > _hops(best[k]):
            best[k] = c
    series = []
    for (rt, cores), group in _group(list(best.values())).items():
        pts = [_point(c.params["n"], c.values(), note=_note(c)) for c in sorted(group, key=lambda c: c.params["n"])]
        series.append(_series(rt, cores, group, pts))
    return Chart(
        "hops-vs-n",
        f"Message cost against N ({how})",
        "N (processes in the ring)",
        "time per hop",
        "count",
        "ns",
        [Panel("", _order(series))],
        caption="Median ns per hop over the repeats; bars: 95 % bootstrap interval. Lower is better. "
        "The dashed grey line is the floor: a stackless state machine, not a runtime.",
    )


def _note(c: Cell) -> str:
    p = ", ".join(f"{k.upper() if len(k) == 1 else k} = {v:,}" for k, v in _used(c).items())
    return f"{p} · {_repeats(c)}"


def time_vs_m(cells: list[Cell], fixed_n: int | None = None, panels: int = 1) -> Chart:
    ring = [c for c in _ring_cells(cells) if c.workload.name == "ring" and "m" in c.params and c.records]
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
    cells: list[Cell],
    values_of,
    scale: float,
    key: str,
    title: str,
    ylabel: str,
    yunit: str,
    caption: str,
    prefer: tuple[str, ...],
) -> Chart:
    usable = [c for c in cells if c.ok and c.mode == "timed" and "n" in c.params and values_of(c)]
    if not usable:
        raise PlotError(f"no cells with {ylabel} in this run")
    # One workload per chart, the first of `prefer` that has cells: a ring run with a warm-up reuses memory,
    # so its RSS per process is not the memory workload's and the two are never drawn as one line.
    present = {c.workload.name for c in usable}
    workload = next((w for w in prefer if w in present), sorted(present)[0])
    best: dict[tuple[str, str, int], Cell] = {}
    for c in usable:
        if c.workload.name != workload:
            continue
        k = (c.runtime, c.cores, c.params["n"])
        if k not in best or _hops(c) > _hops(best[k]):
            best[k] = c
    series = []
    for (rt, cores), group in _group(list(best.values())).items():
        pts = [
            _point(c.params["n"], values_of(c), scale, note=f"{c.workload.name}: {_note(c)}")
            for c in sorted(group, key=lambda c: c.params["n"])
        ]
        series.append(_series(rt, cores, group, pts))
    return Chart(
        key,
        title,
        "N (processes)",
        ylabel,
        "count",
        yunit,
        [Panel("", _order(series))],
        caption=caption + f" From the {workload} workload.",
    )


def spawn(cells: list[Cell]) -> Chart:
    return _metric_vs_n(
        cells,
        lambda c: c.values(SPAWN_US),
        1e3,
        "spawn",
        "Spawn cost against N",
        "spawn time per process",
        "ns",
        "Time from the first spawn until every process is ready, per process; median with its "
        "95 % interval. Lower is better.",
        ("spawn", "memory", "ring", "msgcost"),
    )


def memory_values(c: Cell) -> list[float]:
    """Bytes per process from the first spawn of each driver process (contract 2: a later spawn in the same
    process reuses freed memory), where the cell can say so; none where it gives no figure (too few
    processes, recorded before contract 2, memory fell)."""
    if hasattr(c, "memory_per_process"):
        figure, _why = c.memory_per_process()
        if figure is None:
            return []
        first: dict[int, dict] = {}
        for r in c.records:
            first.setdefault(r.get("process", 1), r)
        return [v for v in map(RSS_PER_PROC.of, first.values()) if v is not None]
    return c.values(RSS_PER_PROC)


def memory(cells: list[Cell]) -> Chart:
    chart = _metric_vs_n(
        cells,
        memory_values,
        1.0,
        "memory",
        "Memory per process against N",
        "RSS growth per process",
        "bytes",
        "Resident memory added per idle process by the first spawn in each driver process "
        "(RSS after spawning N, minus before, divided by N); median with its 95 % interval. Lower "
        "is better.",
        ("memory", "spawn", "ring", "msgcost"),
    )
    for s in chart.series:  # a process can cost less than nothing when the runtime returns memory meanwhile
        s.points = [p for p in s.points if p.y > 0]
    own = [c for c in cells if c.ok and c.mode == "timed" and "n" in c.params and c.values(RUNTIME_PER_PROC)]
    if own:
        chart.caption += " The runtimes that account for their own memory give it in the tables."
    return chart


def selective(cells: list[Cell]) -> Chart:
    sel = [c for c in cells if c.ok and c.workload.name == "selective" and "reverse" in c.params]
    if not sel:
        raise PlotError("no selective-receive cells in this run (ringbench sweep selective)")
    series = []
    for (rt, cores), group in _group(sel).items():
        for rev, name in ((0, "arrival order"), (1, "reverse order")):
            pts = [
                _point(c.params["n"], c.values(), note=_note(c))
                for c in sorted(group, key=lambda c: c.params["n"])
                if c.params["reverse"] == rev
            ]
            if pts:
                series.append(_series(rt, cores, group, pts, name))
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


def squeeze(cells: list[Cell]) -> Chart:
    series = []
    for c in cells:
        hist = c.extra.get("history", []) if c.ok and c.mode == "squeeze" else []
        if hist:
            pts = [
                Point(
                    h["concurrency"],
                    h["hops_per_s"],
                    max(0.0, h["hops_per_s"] - h["sd"]),
                    h["hops_per_s"] + h["sd"],
                    f"{h['samples']} samples"
                    + (" · peak" if h["concurrency"] == c.extra.get("peak_concurrency") else ""),
                )
                for h in hist
            ]
            series.append(_series(c.runtime, c.cores, [c], pts, f"N = {fmt_count(c.params.get('n', 0))}"))
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
    )


def grid(cells: list[Cell]) -> Grid:
    ring = [c for c in _ring_cells(cells) if c.workload.name == "ring" and "m" in c.params and c.records]
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
                head = c.headline
                if head is not None:  # always, for an ok ring cell with records
                    per_hop[(c.runtime, c.cores, c.params["n"], c.params["m"])] = head.median
        panels.append((s.runtime, s.cores, z))
    return Grid(ns, ms, panels, per_hop)


def chart(
    cells: list[Cell], kind: str, fixed_n: int | None = None, fixed_m: int | None = None, panels: int = 1
) -> Chart:
    if kind == "hops-vs-n":
        return hops_vs_n(cells, fixed_m)
    if kind == "time-vs-m":
        return time_vs_m(cells, fixed_n, panels)
    if kind == "spawn":
        return spawn(cells)
    if kind == "memory":
        return memory(cells)
    if kind == "selective":
        return selective(cells)
    if kind == "squeeze":
        return squeeze(cells)
    raise PlotError(f"unknown plot kind {kind!r}; kinds: {', '.join(KINDS)}")


# -- matplotlib ---------------------------------------------------------------------
def plot(
    cells: list[Cell],
    kind: str,
    out: Path,
    runtime: str | None = None,
    fixed_n: int | None = None,
    fixed_m: int | None = None,
) -> Path:
    cells = [c for c in cells if c.ok]
    if runtime:
        cells = [c for c in cells if c.runtime == runtime or base(c.runtime) == runtime]
    if not cells:
        raise PlotError("no measured cells to plot" + (f" for {runtime}" if runtime else ""))
    if kind not in KINDS:
        raise PlotError(f"unknown plot kind {kind!r}; kinds: {', '.join(KINDS)}")
    if kind == "surface":
        runtimes = sorted({(c.runtime, c.cores) for c in cells})
        if len(runtimes) != 1:
            raise PlotError(
                "a 3-D surface shows one runtime at one core setting: pick one with --runtime "
                f"(the run has {', '.join(f'{r} [{k}]' for r, k in runtimes)}); "
                "--kind heatmap shows them all side by side"
            )
        fig = _draw_surface(grid(cells))
    elif kind == "heatmap":
        fig = _draw_heatmaps(grid(cells))
    else:
        fig = draw(chart(cells, kind, fixed_n, fixed_m), cell_floors(cells))
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(out, dpi=110, bbox_inches="tight")
    finally:
        plt.close(fig)
    return out


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


def draw(ch: Chart, floors: Iterable[str] = ()):
    """A matplotlib figure of a chart: one axes per panel, legend outside the data on the right."""
    st = styles(ch.runtimes(), set(floors) | {s.runtime for s in ch.series if s.floor})
    n = len(ch.panels)
    fig, axes = plt.subplots(1, n, figsize=(4.2 * n + 3.2 if n > 1 else 9, 5.2), squeeze=False, sharey=True)
    handles: dict[str, ErrorbarContainer] = {}
    for ax, panel in zip(axes[0], ch.panels, strict=True):
        xs, ys = [], []
        for s in panel.series:
            sty = st[s.runtime]
            pts = sorted(s.points, key=lambda p: p.x)
            if not pts:
                continue
            x = [p.x for p in pts]
            y = [p.y for p in pts]
            err = [[p.y - p.lo for p in pts], [p.hi - p.y for p in pts]]
            hollow = s.cores != "1"
            ls = "-." if "reverse" in s.variant else "--" if sty.floor else ":" if hollow else "-"
            hollow = hollow or "reverse" in s.variant
            h = ax.errorbar(
                x,
                y,
                yerr=err,
                color=sty.colour,
                marker=sty.marker,
                linestyle=ls,
                capsize=2.5,
                markersize=6,
                linewidth=1.6 if not sty.floor else 1.4,
                markerfacecolor="white" if hollow else sty.colour,
                markeredgewidth=1.3,
                alpha=0.95,
                label=s.label,
            )
            handles.setdefault(s.label, h)
            xs += x
            ys += [p.lo for p in pts] + [p.hi for p in pts]
        _axis(ax, "x", ch.xunit, ch.xlog, xs)
        _axis(ax, "y", ch.yunit, ch.ylog, ys)
        if not ch.ylog:
            ax.set_ylim(bottom=0)
        ax.grid(True, which="major", alpha=0.3)
        ax.set_xlabel(ch.xlabel)
        if panel.title:
            ax.set_title(panel.title, fontsize="medium")
    if not handles:
        raise PlotError("no measured cells fit this plot")
    axes[0][0].set_ylabel(ch.ylabel)
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


def _colour_ticks(lo: float, hi: float) -> list[float]:
    return log_ticks(lo, hi)


def _draw_heatmaps(g: Grid):
    import numpy as np
    from matplotlib.colors import LogNorm

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
        ax.set_title(f"{rt} · {'1 core' if cores == '1' else 'all cores'}", fontsize="small")
    for ax in list(axes.flat)[k:]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel("M (laps)")
    for ax in axes[-1, :]:
        ax.set_xlabel("N (processes)")
    fig.suptitle("Message-phase time over N × M (one colour scale for all)")
    fig.tight_layout(rect=(0, 0, 0.9, 0.97))
    if im is None:  # not reached: a grid has a panel (and vals above a value)
        raise PlotError("no panel to draw")
    cb = fig.colorbar(im, ax=axes.ravel().tolist(), shrink=min(0.9, 3.0 / rows), fraction=0.04)
    ticks = _colour_ticks(min(vals), max(vals))
    cb.set_ticks(ticks)
    cb.set_ticklabels([fmt_ns(t) for t in ticks])
    cb.set_label("message-phase time")
    return fig


def _draw_surface(g: Grid):
    import numpy as np

    rt, cores, z = g.panels[0]
    fig = plt.figure(figsize=(8, 6))
    ax = fig.add_subplot(projection="3d")
    X, Y = np.meshgrid(np.log10(g.ns), np.log10(g.ms))
    Z = np.array([[np.nan if v is None else math.log10(v) for v in row] for row in z], dtype=float)
    ax.plot_surface(X, Y, Z, cmap="viridis", edgecolor="k", linewidth=0.3)
    ax.set_xticks(np.log10(g.ns), [fmt_count(n) for n in g.ns])
    ax.set_yticks(np.log10(g.ms), [fmt_count(m) for m in g.ms])
    zt = [t for t in log_ticks(np.nanmin(10**Z), np.nanmax(10**Z))]
    ax.set_zticks([math.log10(t) for t in zt], [fmt_ns(t) for t in zt])
    ax.set_xlabel("N (processes)")
    ax.set_ylabel("M (laps)")
    ax.set_zlabel("message-phase time")
    ax.set_title(
        f"{rt} · {'1 core' if cores == '1' else 'all cores'}: message-phase time over N × M", fontsize="medium"
    )
    return fig
