"""What the measurements say, as data: the best runtime of each like-for-like comparison, how message cost
grows with N, and the findings a report's summary is made of.

Every figure here is a cell's figure exactly as its table row shows it (`figure`: the median over the
repeats, bytes per process from `Cell.memory_per_process`), never a chart's, so a summary, the tables and
the charts of one report cannot disagree. Rows are compared only within a like-for-like group, as the
tables' Rel % does (results.relative): one workload, the same parameters as asked, one core setting, one
mode, one kind of hop (mailboxes and channels are message passing; a hand-off, a rendezvous and the floor
are each ranked apart). Every object names the parameters it compares.

Imports only results/ and catalogue/.

    from ringbench.results import analysis
    found = analysis.summarize(cells)
    for column in found.message:                 # message cost, one core setting and M at a time
        for lead in column.leads:
            print(column.cores, column.fixed, lead.n, lead.best.runtime, lead.best.value)
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from ..catalogue.drivers import hop_group
from ..catalogue.workloads import (
    CPU_NS_PER_HOP,
    NS_PER_HOP,
    NS_PER_REPLY,
    PEAK_PER_PROC,
    RSS_PER_PROC,
    SPAWN_US,
    TREE_MS,
    WORKLOADS,
    Metric,
    Workload,
)
from . import stats
from .difference import difference
from .model import Cell, Run

MESSAGE = hop_group("mailbox")  # the hop group of mailboxes and channels: message passing
TUNED = "tuned"
FLOOR = hop_group("floor")


def family(runtime: str) -> str:
    """A runtime's family, the part of its id before the `/`: erlang/tuned → erlang, go/stock → go."""
    return runtime.split("/")[0]


def per_repeat(c: Cell) -> bool:
    """Is the cell's every figure one per repeat (timed mode, raw result records), not per sample interval?"""
    return bool(c.records)


def is_floor(c: Cell, floors: Collection[str] = ()) -> bool:
    """Is the cell's runtime the floor (a stackless state machine, not a runtime)? Its stored hop says so;
    `floors` names more (runtimes known as floors, for stores written before the hop was stored)."""
    return c.is_floor or c.runtime in floors or family(c.runtime) in floors


def group_of(c: Cell, floors: Collection[str] = ()) -> str:
    """The group a cell is compared within: message, handoff, rendezvous, the floor, or tuned (message
    passing with the settings its community recommends, ranked among tuned variants only)."""
    if is_floor(c, floors):
        return FLOOR
    return TUNED if c.tuned and c.hop_group == MESSAGE else c.hop_group


def squeezed(c: Cell) -> bool:
    """Does the cell hold a squeeze's steps (its figure is the peak step's, not a fixed setting's)?"""
    return bool(c.extra.get("history"))


# -- which cells ---------------------------------------------------------------------------
@dataclass
class Latest:
    """Every cell of some runs, the later run's where runs measured the same cell."""

    cells: list[Cell]
    replaced: int  # cells measured again in a later run
    run_of: dict[int, int]  # id(cell) -> the run it belongs to

    def run_id(self, c: Cell) -> int:
        return self.run_of[id(c)]


def latest(runs: Iterable[Run]) -> Latest:
    chosen: dict[tuple[str, str], tuple[int, Cell]] = {}
    replaced = 0
    for run in sorted(runs, key=lambda r: r.run_id):
        for c in run.cells:
            k = (c.key, c.mode)
            if k in chosen and c.ok:
                replaced += 1
            if k not in chosen or c.ok:
                chosen[k] = (run.run_id, c)
    return Latest([c for _, c in chosen.values()], replaced, {id(c): rid for rid, c in chosen.values()})


# -- one cell's figure -----------------------------------------------------------------------
@dataclass(frozen=True)
class Figure:
    """One cell's figure for one metric, as its table row shows it, with the repeats behind it."""

    cell: Cell
    metric: Metric
    value: float
    values: tuple[float, ...]

    @property
    def runtime(self) -> str:
        return self.cell.runtime


def first_of_each_process(c: Cell) -> list[dict]:
    seen: dict[int, dict] = {}
    for r in c.records:
        seen.setdefault(r.get("process", 1), r)
    return list(seen.values())


def figure(c: Cell, metric: Metric) -> Figure | None:
    """The cell's figure for `metric` (None where its table row shows none: failed, not measured, too few
    processes for a memory figure)."""
    if not c.ok:
        return None
    if metric is RSS_PER_PROC:
        if not per_repeat(c) or RSS_PER_PROC not in c.workload.metrics:
            return None
        value, _why = c.memory_per_process()
        if value is None:
            return None
        vals = [v for v in map(RSS_PER_PROC.of, first_of_each_process(c)) if v is not None]
        return Figure(c, metric, value, tuple(vals))
    summary = c.summaries().get(metric.name)
    if summary is None:
        return None
    return Figure(c, metric, summary.median, tuple(c.values(metric)))


def preferred_workload(cells: Iterable[Cell], metric: Metric) -> Workload | None:
    """The workload a metric is read from when several give it: the one whose figure it is first (spawn
    time from the spawn workload, memory from the memory workload), then in catalogue order. A ring run
    with a warm-up reuses memory, so figures of two workloads are never drawn or ranked as one."""
    order = list(WORKLOADS)
    found = {c.workload.name: c.workload for c in cells if per_repeat(c) and figure(c, metric)}
    if not found:
        return None
    return min(
        found.values(),
        key=lambda w: (w.metrics.index(metric), order.index(w.name) if w.name in order else len(order)),
    )


def without(params: dict, *names: str) -> dict:
    return {k: v for k, v in params.items() if k not in names}


# -- like-for-like comparisons ---------------------------------------------------------------------
@dataclass(frozen=True)
class Lead:
    """The runtimes of one like-for-like group ranked on one metric, best first."""

    metric: Metric
    workload: Workload
    params: dict  # the parameters the group shares, as asked (N, M, …; a calibrated M is absent)
    cores: str
    mode: str
    group: str  # the hop group: message, handoff, rendezvous
    ranked: tuple[Figure, ...]
    floor: Figure | None  # the floor at the same parameters, shown beside, never ranked
    diff: stats.Difference | None  # the best against the runner-up (None: no runner-up or one value a side)

    @property
    def n(self) -> int | None:
        return self.params.get("n")

    @property
    def best(self) -> Figure:
        return self.ranked[0]

    @property
    def runner_up(self) -> Figure | None:
        return self.ranked[1] if len(self.ranked) > 1 else None

    @property
    def worst(self) -> Figure:
        return self.ranked[-1]

    @property
    def factor(self) -> float:
        """How many times better the best is than the runner-up (≥ 1; nan without a runner-up)."""
        second = self.runner_up
        return ratio(self.best.value, second.value) if second else math.nan

    @property
    def significant(self) -> bool | None:
        return self.diff.significant if self.diff else None


def _difference(a: Figure, b: Figure) -> stats.Difference:
    """The tables' test (results.difference: the fresh driver process as the unit where both cells' values
    come from fresh processes), so a finding's "significant" is its rows' ✓. Bytes per process are one
    value per process already (the first spawn of each): the same test, each process its own value."""
    if a.metric is RSS_PER_PROC:
        return stats.compare_processes([[v] for v in a.values], [[v] for v in b.values])
    return difference(a.cell, b.cell, a.metric)


def ratio(a: float, b: float) -> float:
    """The larger of two positive figures over the smaller."""
    lo, hi = sorted((a, b))
    return hi / lo if lo > 0 else math.inf


def _group_key(c: Cell) -> str:
    """Like for like: the same workload, parameters as asked, cores and mode, and stock among stock,
    tuned among tuned (a tuned variant is never ranked beside the runtimes as they come)."""
    return json.dumps([c.workload.name, c.params, c.cores, c.mode, c.tuned], sort_keys=True)


def comparisons(
    cells: Iterable[Cell], metric: Metric, workload: Workload | None = None, floors: Collection[str] = ()
) -> list[Lead]:
    """Every like-for-like group with a real runtime in it, ranked on `metric` (lower first where lower is
    better); from `workload` only when given. Squeeze cells are left out: their figure is a search's."""
    groups: dict[str, dict[str, list[Figure]]] = {}
    for c in cells:
        if (workload is not None and c.workload.name != workload.name) or squeezed(c):
            continue
        f = figure(c, metric)
        if f is not None:
            groups.setdefault(_group_key(c), {}).setdefault(group_of(c, floors), []).append(f)
    out = []
    for by_group in groups.values():
        floor = by_group.get(FLOOR, [None])[0]
        for group, figs in sorted(by_group.items()):
            if group == FLOOR:
                continue
            ranked = tuple(sorted(figs, key=lambda f: f.value if metric.lower_is_better else -f.value))
            diff = None
            if len(ranked) > 1 and len(ranked[0].values) > 1 and len(ranked[1].values) > 1:
                diff = _difference(ranked[0], ranked[1])
            c0 = ranked[0].cell
            out.append(Lead(metric, c0.workload, dict(c0.params), c0.cores, c0.mode, group, ranked, floor, diff))
    return out


@dataclass(frozen=True)
class Column:
    """The leads of one metric over N, everything else fixed: one column of the leaders table."""

    metric: Metric
    workload: Workload
    cores: str
    mode: str
    group: str
    fixed: dict  # the parameters other than N, as asked
    calibrated: tuple[str, ...]  # parameters chosen per runtime by calibration (M), absent from `fixed`
    leads: tuple[Lead, ...]  # by N

    def at(self, n: int | None) -> Lead | None:
        return next((ld for ld in self.leads if ld.n == n), None)

    @property
    def last(self) -> Lead:
        """The lead at the largest N."""
        return self.leads[-1]


def _order_key(cores: str, fixed: dict, workload: Workload) -> tuple:
    """One core first, then the plainest conditions (one node, one token), then the parameters' values."""
    return (cores != "1", cores, workload.departures(fixed), sorted(fixed.items()))


def columns(leads: Iterable[Lead]) -> list[Column]:
    by: dict[str, list[Lead]] = {}
    for ld in leads:
        k = json.dumps(
            [ld.metric.name, ld.workload.name, ld.cores, ld.mode, ld.group, without(ld.params, "n")], sort_keys=True
        )
        by.setdefault(k, []).append(ld)
    out = []
    for group in by.values():
        ld = group[0]
        w = ld.workload
        # calibrated: a parameter absent from those asked that a calibration chose (a continuous ring has no M)
        chosen = any(w.calibrates in f.cell.extra.get("calibrated", {}) for x in group for f in x.ranked)
        calibrated = (w.calibrates,) if w.calibrates and w.calibrates not in ld.params and chosen else ()
        out.append(
            Column(
                ld.metric,
                w,
                ld.cores,
                ld.mode,
                ld.group,
                without(ld.params, "n"),
                calibrated,
                tuple(sorted(group, key=lambda x: x.n or 0)),
            )
        )
    return sorted(
        out,
        key=lambda col: (
            col.group != MESSAGE,
            col.group,
            col.workload.name,
            *_order_key(col.cores, col.fixed, col.workload),
        ),
    )


def pick(cols: Iterable[Column]) -> Column | None:
    """The column a one-line finding speaks of: one core where measured, then the plainest conditions (one
    node, one token: Workload.departures), then the largest N, then the most runtimes."""
    cols = list(cols)
    if not cols:
        return None
    return max(cols, key=lambda c: (c.cores == "1", -c.workload.departures(c.fixed), c.last.n or 0, len(c.last.ranked)))


# -- growth with N -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Growth:
    """How one runtime's message cost changes from its smallest to its largest N, everything else fixed."""

    runtime: str
    cores: str
    group: str
    floor: bool
    fixed: dict  # the parameters other than N, as asked
    first: Figure
    last: Figure
    significant: bool | None  # the repeats at the two ends differ (None: too few to test)

    @property
    def ratio(self) -> float:
        return self.last.value / self.first.value if self.first.value else math.nan

    @property
    def ns(self) -> tuple[int, int]:
        return self.first.cell.params["n"], self.last.cell.params["n"]


def growth(cells: Iterable[Cell], metric: Metric = NS_PER_HOP, floors: Collection[str] = ()) -> list[Growth]:
    by: dict[str, list[Figure]] = {}
    for c in cells:
        if "n" not in c.params or squeezed(c):
            continue
        f = figure(c, metric)
        if f is not None:
            k = json.dumps([c.runtime, c.workload.name, c.cores, c.mode, without(c.params, "n")], sort_keys=True)
            by.setdefault(k, []).append(f)
    out = []
    for figs in by.values():
        if len({f.cell.params["n"] for f in figs}) < 2:
            continue
        figs.sort(key=lambda f: f.cell.params["n"])
        a, b = figs[0], figs[-1]
        sig = _difference(a, b).significant if len(a.values) > 1 and len(b.values) > 1 else None
        c = a.cell
        group = group_of(c, floors)
        out.append(Growth(c.runtime, c.cores, group, group == FLOOR, without(c.params, "n"), a, b, sig))
    return sorted(out, key=lambda g: (*_order_key(g.cores, g.fixed, g.first.cell.workload), g.floor, g.ratio))


@dataclass(frozen=True)
class GrowthSpread:
    """The least and the most growth among message-passing runtimes at one core setting and fixed parameters."""

    cores: str
    fixed: dict
    entries: tuple[Growth, ...]  # least growth first

    @property
    def median(self) -> float:
        return stats.summarize([g.ratio for g in self.entries]).median


def growth_spread(grown: Iterable[Growth]) -> GrowthSpread | None:
    message = [g for g in grown if not g.floor and g.group == MESSAGE]
    if not message:
        return None
    sets: dict[str, list[Growth]] = {}
    for g in message:
        sets.setdefault(json.dumps([g.cores, g.fixed], sort_keys=True), []).append(g)
    best = max(
        sets.values(),
        key=lambda gs: (
            gs[0].cores == "1",
            -gs[0].first.cell.workload.departures(gs[0].fixed),
            len(gs),
            max(g.ns[1] for g in gs),
            sorted(gs[0].fixed.items()),
        ),
    )
    return GrowthSpread(best[0].cores, best[0].fixed, tuple(sorted(best, key=lambda g: g.ratio)))


# -- the other findings ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Extremes:
    """The cheapest and the dearest message-passing runtime at the largest N of a column, and the runtimes
    of other kinds of hop at the same parameters (not ranked with them)."""

    column: Column
    lead: Lead
    apart: tuple[Lead, ...]


def extremes(leads: list[Lead]) -> Extremes | None:
    cols = columns(leads)
    col = pick(c for c in cols if c.group == MESSAGE)
    if col is None:
        return None
    lead = col.last
    apart = tuple(
        ld
        for ld in leads
        if ld.group != MESSAGE and ld.cores == lead.cores and ld.params == lead.params and ld.mode == lead.mode
    )
    return Extremes(col, lead, apart)


@dataclass(frozen=True)
class OrderCost:
    """Selective receive: replies taken in reverse order against arrival order, at the largest N with both."""

    runtime: str
    cores: str
    n: int
    reverse: Figure
    arrival: Figure

    @property
    def ratio(self) -> float:
        return self.reverse.value / self.arrival.value if self.arrival.value else math.nan


def order_costs(cells: Iterable[Cell], floors: Collection[str] = ()) -> list[OrderCost]:
    by: dict[str, dict[int, dict[int, Figure]]] = {}
    for c in cells:
        if "reverse" not in c.params or "n" not in c.params or is_floor(c, floors):
            continue
        f = figure(c, c.workload.headline)
        if f is not None:
            k = json.dumps([c.runtime, c.cores, c.mode, without(c.params, "n", "reverse")], sort_keys=True)
            by.setdefault(k, {}).setdefault(c.params["n"], {})[c.params["reverse"]] = f
    out = []
    for at in by.values():
        both = sorted(n for n, orders in at.items() if {0, 1} <= set(orders))
        if both:
            n = both[-1]
            rev, arr = at[n][1], at[n][0]
            out.append(OrderCost(rev.runtime, rev.cell.cores, n, rev, arr))
    return sorted(out, key=lambda o: (o.runtime, o.cores != "1"))


@dataclass(frozen=True)
class Peak:
    """A squeeze: the concurrency at which throughput peaked."""

    runtime: str
    cores: str
    n: int | None
    tokens: int
    hops_per_s: float


def squeeze_peaks(cells: Iterable[Cell]) -> list[Peak]:
    out = []
    for c in cells:
        hist = c.extra.get("history", []) if c.ok else []
        if hist:
            top = max(hist, key=lambda h: h["hops_per_s"])
            out.append(Peak(c.runtime, c.cores, c.params.get("n"), top["concurrency"], top["hops_per_s"]))
    return out


@dataclass(frozen=True)
class Significance:
    """How many leads of the leaders table are significant over their runner-up."""

    tested: tuple[Lead, ...]
    untested: tuple[Lead, ...]  # a runner-up, but too few repeats to test

    @property
    def significant(self) -> tuple[Lead, ...]:
        return tuple(ld for ld in self.tested if ld.significant)

    @property
    def within_noise(self) -> tuple[Lead, ...]:
        return tuple(ld for ld in self.tested if not ld.significant)


def significance(cols: Iterable[Column]) -> Significance:
    leads = [ld for col in cols for ld in col.leads if ld.diff is not None]
    return Significance(
        tuple(ld for ld in leads if ld.significant is not None), tuple(ld for ld in leads if ld.significant is None)
    )


# Metrics with findings of their own; a workload whose headline is none of these gets a line of leads.
OWN_FINDINGS = (NS_PER_HOP, SPAWN_US, RSS_PER_PROC, NS_PER_REPLY, TREE_MS)


@dataclass(frozen=True)
class Findings:
    """Everything a summary says, as data. Columns and leads are message passing unless named otherwise."""

    message: tuple[Column, ...]  # message cost (ns per hop), one column per core setting and fixed parameters
    idioms: tuple[Column, ...]  # message cost of hand-offs and rendezvous: ranked apart
    floor: tuple[Figure, ...]  # the floor's cost per hop
    spawn: Extremes | None
    memory: Extremes | None
    tree: tuple[Lead, ...]  # the tree's time: per core setting, the lead at its largest tree
    tree_memory: tuple[Lead, ...]  # the tree's peak bytes per process, likewise
    leaders: tuple[Column, ...]  # the leaders table: message cost, spawn, memory
    growth: tuple[Growth, ...]  # every runtime's message cost over N
    growth_spread: GrowthSpread | None
    significance: Significance
    selective: tuple[OrderCost, ...]
    others: tuple[tuple[Workload, tuple[Lead, ...]], ...]  # workloads without a finding of their own
    squeeze: tuple[Peak, ...]
    # CPU time per hop (the process's CPU time over the message phase, per hop), message passing, columned as
    # `message` is: the cheapest runtime per hop of CPU beside the fastest per hop of wall time
    cpu: tuple[Column, ...] = ()


def _last_per_cores(leads: list[Lead]) -> tuple[Lead, ...]:
    out = []
    for cores in sorted({ld.cores for ld in leads}, key=lambda k: (k != "1", k)):
        col = pick(c for c in columns(leads) if c.cores == cores and c.group == MESSAGE)
        if col:
            out.append(col.last)
    return tuple(out)


def summarize(cells: list[Cell], floors: Collection[str] = ()) -> Findings:
    """The findings of some cells; `floors`: runtimes known as the floor besides those whose hop says so.
    Cells of a mode that is not summarised (a driver against a program) are left to their own table."""
    cells = [c for c in cells if c.mode_object.summarised]
    msg_cols = columns(comparisons(cells, NS_PER_HOP, floors=floors))
    message = tuple(c for c in msg_cols if c.group == MESSAGE)
    spawn_leads = comparisons(cells, SPAWN_US, preferred_workload(cells, SPAWN_US), floors)
    memory_leads = comparisons(cells, RSS_PER_PROC, preferred_workload(cells, RSS_PER_PROC), floors)
    leaders = (
        message
        + tuple(c for c in columns(spawn_leads) if c.group == MESSAGE)
        + tuple(c for c in columns(memory_leads) if c.group == MESSAGE)
    )
    floor = tuple(f for c in cells if is_floor(c, floors) and not squeezed(c) for f in [figure(c, NS_PER_HOP)] if f)
    tree_w = preferred_workload(cells, TREE_MS)
    grown = growth(cells, floors=floors)
    others = []
    for w in sorted({c.workload.name: c.workload for c in cells}.values(), key=lambda w: w.name):
        if w.headline not in OWN_FINDINGS:
            leads = [ld for ld in comparisons(cells, w.headline, w, floors) if ld.group == MESSAGE]
            if leads:
                others.append(
                    (w, tuple(sorted(leads, key=lambda ld: (*_order_key(ld.cores, {}, w), sorted(ld.params.items())))))
                )
    return Findings(
        message=message,
        idioms=tuple(c for c in msg_cols if c.group != MESSAGE),
        floor=floor,
        spawn=extremes(spawn_leads),
        memory=extremes(memory_leads),
        tree=_last_per_cores(comparisons(cells, TREE_MS, tree_w, floors)) if tree_w else (),
        tree_memory=_last_per_cores(comparisons(cells, PEAK_PER_PROC, tree_w, floors)) if tree_w else (),
        leaders=leaders,
        growth=tuple(grown),
        growth_spread=growth_spread(grown),
        significance=significance(leaders),
        selective=tuple(order_costs(cells, floors)),
        others=tuple(others),
        squeeze=tuple(squeeze_peaks(cells)),
        cpu=tuple(c for c in columns(comparisons(cells, CPU_NS_PER_HOP, floors=floors)) if c.group == MESSAGE),
    )
