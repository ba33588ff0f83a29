"""Turning cells into tables. One row builder (`rows`) feeds the terminal table, Markdown and HTML.

The compact table fits 100 columns with every runtime name whole: runtime, kind of hop, cores,
the workload's parameters, the headline median with its 95 % interval, spawn µs per process,
bytes per process, Rel %. The wide figures (spread, CPU/wall, the runtime's own memory figure,
p-value, count verified, warm-ups, runtime version) come as a second block keyed by runtime and
cores (`wide_block`), so that no row loses its name on a narrow terminal; `rows(wide=True)` gives
them as extra columns of the one table, for HTML and Markdown, which have room.

A cell that was not measured (failed, refused, timed out) shows its status in the figure column and
a note number; its reason is the note under the table, never inside a figure column.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from ..catalogue.drivers import DriverError, discover
from ..catalogue.workloads import CPU_NS_PER_HOP, CPU_PER_WALL, RSS_PER_PROC, Metric
from ..results import modes, nodes, stats
from ..results.model import Cell
from ..results.relative import Relative, ordered, own_comparison, ranked, references, relatives

HOP_SHORT = {"mailbox": "mbox", "channel": "chan", "rendezvous": "rdv", "handoff": "hand", "floor": "floor"}
SIG_MARK = {True: "✓", False: "≈", None: "?"}
ONE_THREAD = "all:1t"  # the Cores cell of a single-threaded runtime offered all cores


def fmt(x: float | None) -> str:
    if x is None:
        return "–"
    if abs(x) >= 100:
        return f"{x:,.0f}"
    if abs(x) >= 1:
        return f"{x:,.2f}"
    return f"{x:.3g}"


def count(x: int | None) -> str:
    """A count in at most 6 characters: 12,345 or 100k, 2.5M."""
    if x is None:
        return ""
    if x < 100_000:
        return f"{x:,}"
    return short_count(x)


def short_count(x: int) -> str:
    """A count without thousands separators, so that lists of counts can be joined with commas: 1000 → 1k."""
    for div, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if x >= div:
            v = x / div
            return f"{v:.0f}{unit}" if v >= 100 or v == int(v) else f"{v:.3g}{unit}"
    return str(x)


def pct(x: float | None) -> str:
    """A percentage with enough digits to tell 0.04 % from 0.4 %."""
    if x is None:
        return "–"
    return f"{x:.1f}" if x >= 1 else f"{x:.2g}"


@dataclass(frozen=True)
class Column:
    header: str
    right: bool = True


def _param_columns(cells: list[Cell]) -> list[str]:
    """The workload's parameters, leaving out those with a single default that never differ from it."""
    w = cells[0].workload
    out = []
    for p in w.params:
        vals = {c.used_params.get(p.name) for c in cells}
        if p.default and len(p.default) == 1 and vals <= {p.default[0], None}:
            continue
        out.append(p.name)
    return out


def params_text(c: Cell) -> str:
    """The cell's parameters in a few characters, leaving out single-valued defaults (tokens=1, spread)."""
    defaults = {p.name: p.default[0] for p in c.workload.params if p.default and len(p.default) == 1}
    return " ".join(f"{_param_header(k)}={_param_text(k, v)}" for k, v in c.used_params.items() if defaults.get(k) != v)


def _param_header(name: str) -> str:
    return {"n": "N", "m": "M", "burst": "placement", "node_placement": "layout"}.get(name, name)


def _param_text(name: str, v: int | None) -> str:
    if name == "burst":
        return {0: "spread", 1: "burst"}.get(v, "") if v is not None else ""
    if name == "node_placement":
        return {0: "contig", 1: "inter"}.get(v if v is not None else 0, "")
    if name == "nodes":
        return str(v if v is not None else 1)
    return count(v)


def _cell_param(c: Cell, name: str) -> str:
    """A parameter of a cell as its column shows it (a ring on one node has no node layout)."""
    if name == "node_placement" and not nodes.distributed(c):
        return "–"
    return _param_text(name, c.used_params.get(name))


def cores_text(c: Cell) -> str:
    return ONE_THREAD if c.cores == "all" and c.single_threaded else c.cores


def _ci_text(c: Cell, median: float) -> str:
    if len(c.values()) < 2 or not median:
        return "–"
    lo, hi = c.interval()
    half = max(hi - median, median - lo) / median * 100
    return f"{half:.1f}%" if half < 10 else f"{half:.0f}%"


def _memory_text(c: Cell) -> str:
    fig, _ = c.memory_per_process()
    return fmt(fig) if fig is not None else "–"


def _rel_text(c: Cell, r: Relative | None) -> str:
    if own_comparison(c):  # the ratio row / reference with its interval (versus: driver/program)
        if r is None or r.ratio is None or r.ratio_ci is None:
            return "–"
        if r.is_reference:
            return "ref"
        return f"{r.ratio:.2f} ({r.ratio_ci[0]:.2f}–{r.ratio_ci[1]:.2f}) {SIG_MARK[r.significant]}"
    if c.is_floor:
        return "floor"
    if not ranked(c):
        return "apart"
    if r is None:
        return "–"
    if r.is_reference:
        return "100 ref"
    return f"{pct(r.rel_pct)} {SIG_MARK[r.significant]}"


def _status_text(c: Cell) -> str:
    return "n/a" if c.status == "refused" else c.status


def reason_line(c: Cell) -> str:
    """A cell's reason for not being measured, on one line (its first; a driver's stderr follows it)."""
    return (c.reason or "").splitlines()[0] if c.reason else c.status


def rank_metric(cells: list[Cell], rank: str) -> Metric | None:
    """The figure Rel % ranks by: None for the headline (wall time), CPU ns/hop for `--rank cpu`.
    ValueError when the cells have no such figure."""
    if rank == "wall":
        return None
    if rank != "cpu":
        raise ValueError(f"--rank is wall or cpu, not {rank!r}")
    if cells and CPU_NS_PER_HOP not in cells[0].mode_object.metrics(cells[0].workload):
        raise ValueError(f"--rank cpu: a {cells[0].workload.name} run has no CPU ns/hop to rank by")
    return CPU_NS_PER_HOP


# CPU/wall above this in the message phase: the process kept more than one core busy on average. Judged
# only on phases of at least MIN_PHASE_FOR_CPU_NS: a process CPU clock ticks in microseconds at best, so a
# shorter phase's CPU/wall is mostly rounding.
MORE_THAN_ONE_CORE = 1.05
MIN_PHASE_FOR_CPU_NS = 1_000_000
MORE_THAN_ONE_CORE_MARK = "⁺"
# After a figure of a cell one of whose processes hit the warm-up cap unsettled.
NOT_SETTLED_MARK = "~"


def more_than_one_core(c: Cell) -> bool:
    """Whether the cell's message phases took more than one core's worth of CPU time (median CPU/wall)."""
    long_enough = [r for r in c.records if r.get("run_ns", 0) >= MIN_PHASE_FOR_CPU_NS]
    ratios = [v for v in map(CPU_PER_WALL.of, long_enough) if v is not None]
    return bool(ratios) and stats.summarize(ratios).median > MORE_THAN_ONE_CORE


def _cpu_text(c: Cell, summaries: dict) -> str:
    """CPU ns/hop, marked where the message phase took more than one core's worth of CPU time."""
    if CPU_NS_PER_HOP.name not in summaries:
        return "–"
    return fmt(summaries[CPU_NS_PER_HOP.name].median) + (MORE_THAN_ONE_CORE_MARK if more_than_one_core(c) else "")


def rows(
    cells: list[Cell], baseline: str | None = None, wide: bool = False, rank: Metric | None = None
) -> tuple[list[Column], list[list[str]], list[str]]:
    """(columns, text rows, notes under the table): the one place a table's content is decided. Rows come
    in the order of `cells` (`relative.ordered` puts each group's reference first, as tables print them).
    `rank`: the figure Rel % ranks by (`rank_metric`), the headline when None."""
    if not cells:
        return [Column("nothing measured", False)], [], []
    if cells[0].workload.subject:  # rows that compare snippets of code: erlperf's table
        return perf_rows(cells, baseline, wide)
    w = cells[0].workload
    mode = cells[0].mode_object
    rel = relatives(cells, baseline, rank)
    params = _param_columns(cells)
    head = mode.headline(w).label
    timed = mode.settles
    own = own_comparison(cells[0])
    beside = mode.beside(w, cells)
    show_mem = RSS_PER_PROC in beside or (timed and w.headline is RSS_PER_PROC)
    cols = [
        Column("Runtime", False),
        Column("hop", False),
        Column("Cores"),
        *(Column(_param_header(p)) for p in params),
        Column(head),
        Column("±95%"),
        *(Column(m.header) for m in beside),
        Column(own.comparison_header if own else "Rel %" if rank is None else "Rel %\nCPU"),
    ]
    extra_cols = _wide_columns(cells) if wide else []
    cols += extra_cols
    out = []
    failed: list[Cell] = []
    for i, c in enumerate(cells):
        row = [c.runtime, hop_text(c), cores_text(c), *(_cell_param(c, p) for p in params)]
        vals = c.values() if c.ok else []
        if not vals:
            failed.append(c)
            label = _status_text(c) if not c.ok else "–"
            row += [label, f"[{len(failed)}]"] + [""] * (len(cols) - len(row) - 2)
            out.append(row)
            continue
        hl = stats.summarize(vals)
        headline = _memory_text(c) if w.headline is RSS_PER_PROC and timed else fmt(hl.median)
        if timed and not modes.settled(c):
            headline += NOT_SETTLED_MARK
        row += [headline, _ci_text(c, hl.median)]
        summaries = c.summaries()
        row += [
            _memory_text(c)
            if m is RSS_PER_PROC
            else _cpu_text(c, summaries)
            if m is CPU_NS_PER_HOP
            else fmt(summaries[m.name].median)
            if m.name in summaries
            else "–"
            for m in beside
        ]
        row.append(_rel_text(c, rel.get(i)))
        if wide:
            row += _wide_values(c, rel.get(i), extra_cols)
        out.append(row)
    return cols, out, notes(cells, rel, show_mem, failed, rank)


def _wide_metrics(cells: list[Cell]) -> list:
    """The figures the wide block adds: the mode's other metrics that some cell has (records of an older
    contract lack context switches)."""
    mode = cells[0].mode_object
    beside = mode.beside(cells[0].workload, cells)
    return [
        m
        for m in mode.metrics(cells[0].workload)[1:]
        if m not in (RSS_PER_PROC, *beside) and any(c.ok and c.values(m) for c in cells)
    ]


def _wide_columns(cells: list[Cell]) -> list[Column]:
    return [
        Column("process\nspread"),
        *(Column(m.header) for m in _wide_metrics(cells)),
        Column("p"),
        Column("count"),
        Column("details", False),
        Column("version", False),
    ]


def _wide_values(c: Cell, r: Relative | None, cols: list[Column]) -> list[str]:
    vals = c.values()
    if not vals:
        return [""] * len(cols)
    summaries = c.summaries()
    spread = c.process_spread()
    return [
        "–" if spread is None else f"{spread * 100:.1f}%",
        *(fmt(summaries[m.name].median) if m.name in summaries else "–" for m in _wide_metrics([c])),
        "–" if r is None or r.p_value is None else f"{r.p_value:.3f}",
        f"{c.records[0]['count']:,} ×{len(c.records)}" if c.records else f"{len(c.samples)} samples",
        c.mode_object.details(c),
        c.version or "",
    ]


def wide_block(cells: list[Cell], baseline: str | None = None) -> tuple[list[Column], list[list[str]]]:
    """The wide figures as a table of their own, each row named by runtime, cores and parameters."""
    if not cells or not any(c.ok for c in cells):
        return [], []
    if cells[0].workload.subject:
        cols, body, _ = perf_rows(cells, baseline, wide=True)
        return cols, [row for row, c in zip(body, cells, strict=True) if c.ok]
    rel = relatives(cells, baseline)
    params = _param_columns(cells)
    extra = _wide_columns(cells)
    cols = [Column("Runtime", False), Column("Cores"), *(Column(_param_header(p)) for p in params), *extra]
    body = [
        [c.runtime, cores_text(c), *(_cell_param(c, p) for p in params)] + _wide_values(c, rel.get(i), extra)
        for i, c in enumerate(cells)
        if c.ok
    ]
    return cols, body


def hop_text(c: Cell) -> str:
    hand_written = c.mailbox == "hand-written" and not c.is_floor
    return HOP_SHORT.get(c.hop, c.hop) + ("*" if hand_written else "")


def _significance_note(cells: list[Cell]) -> str:
    if cells and cells[0].mode_object.unit == "process":
        return (
            f"✓ significant difference (Welch's t-test on the log of each fresh driver process's median, "
            f"p < 0.05: the process is the unit), ≈ none, ? too few processes to tell (a test needs "
            f"{stats.MIN_PROCESSES_FOR_TEST} a side)."
        )
    return (
        f"✓ significant difference (Mann-Whitney U over the samples of one process, p < 0.05), ≈ none, "
        f"? too few samples to tell (a test needs {stats.MIN_REPEATS_FOR_TEST} a side)."
    )


def notes(
    cells: list[Cell],
    rel: dict[int, Relative],
    show_mem: bool,
    failed: list[Cell] | None = None,
    rank: Metric | None = None,
) -> list[str]:
    out = []
    for k, c in enumerate(failed or [], 1):
        out.append(f"[{k}] {c.label.strip()}: {reason_line(c)}")
    refs = references(cells, rel)
    own = own_comparison(cells[0]) if cells else None
    if own and rel:
        out.append(own.comparison_note())
    elif refs:
        what = "throughput" if rank is None else "CPU time per hop (ranked by CPU cost, --rank cpu),"
        out.append(
            f"Rel % = {what} against {'; '.join(refs)} (the ref row of each group), among rows that "
            f"differ in the runtime alone; – a row with nothing to compare. " + _significance_note(cells)
        )
    if any(CPU_NS_PER_HOP in c.mode_object.beside(c.workload, cells) for c in cells[:1]):
        out.append(
            "CPU ns/hop = CPU time of the whole driver process over the message phase, per hop; "
            f"{MORE_THAN_ONE_CORE_MARK} = more than one core's worth (CPU/wall > {MORE_THAN_ONE_CORE:g}: "
            "idle workers spinning or work spread over cores)."
        )
    if any(c.ok and c.mode_object.settles and not modes.settled(c) for c in cells):
        out.append(
            f"{NOT_SETTLED_MARK} = not settled: a driver process reached the warm-up cap while its last "
            "iterations still drifted or alternated, or its figure moved after its settle window "
            "(the warnings name it)."
        )
    if any(c.ranked_with for c in cells):
        out.append("Variants with a mailbox of the driver's own where the runtime's library has one are ranked apart.")
    kinds = sorted({c.hop for c in cells if not ranked(c)})
    if kinds:
        out.append(
            f"Not message passing, shown apart and not ranked: {', '.join(kinds)} "
            "(rdv = rendezvous, hand = hand-off: the value written into the next process's slot, "
            "floor = a stackless state machine, not a runtime)."
        )
    if any(c.tuned for c in cells):
        out.append("Tuned variants are ranked among themselves, never beside the runtimes as they come.")
    if any(c.mailbox == "hand-written" for c in cells):
        out.append(
            "hop: mbox = mailbox, chan = channel, hand = hand-off; * = the driver's own mailbox or slot, "
            "not the runtime's stock one."
        )
    if any(cores_text(c) == ONE_THREAD for c in cells):
        out.append(f"{ONE_THREAD} = all cores offered, but this runtime runs every process on one thread.")
    if show_mem:
        missing = sorted({why for c in cells if c.ok for fig, why in [c.memory_per_process()] if fig is None})
        out.append(
            "B/proc = memory grown over the first spawn of each fresh driver process, after one collection, "
            "per process (thread kernel stacks included)" + (f"; – : {'; '.join(missing)}" if missing else "") + "."
        )
    return out


def markdown(cells: list[Cell], baseline: str | None = None, wide: bool = True) -> str:
    """A Markdown table (ready for a blog post), with the same notes as the terminal's."""
    cols, body, foot = rows(ordered(cells, baseline), baseline, wide)

    def cell(text: str) -> str:  # a | of the text (perf's || column, Erlang's [X || X <- L]) would split the row
        return text.replace("|", "\\|")

    lines = [
        # The terminal's two-line headers ("spawn\nµs") on one line: a newline would end the table.
        "| " + " | ".join(cell(c.header.replace("\n", " ")) for c in cols) + " |",
        "|" + "|".join("---:" if c.right else "---" for c in cols) + "|",
    ]
    lines += ["| " + " | ".join(map(cell, r)) + " |" for r in body]
    return "\n".join(lines) + "\n" + "".join(f"\n{n}\n" for n in foot)


def squeeze_rows(cell: Cell) -> tuple[list[str], list[list[str]]]:
    """The squeeze search as a table: one row per step, the peak marked."""
    head = ["tokens", "hops/s (mean)", "sd", "samples", ""]
    body = [
        [str(h["concurrency"]), f"{h['hops_per_s']:,.0f}", f"{h['sd']:,.0f}", str(h["samples"]), "← peak" * h["peak"]]
        for h in modes.squeeze_history(cell)
    ]
    return head, body


def runtime_stats_rows(cells: list[Cell]) -> list[list[str]]:
    """Runtime, cores, repeat, the runtime's own statistics of that repeat."""
    out = []
    for c in cells:
        for r in c.records:
            st = r.get("runtime_stats")
            if not st:
                continue
            shown = ", ".join(
                f"{k}={v:,}" if isinstance(v, int) else f"{k}={v}"
                for k, v in st.items()
                if k not in ("workload", "iteration")
            )
            out.append([c.runtime, c.cores, str(r.get("iteration", "")), shown])
    return out


def compact_rows(
    cells: list[Cell], baseline: str | None = None, wide: bool = False
) -> tuple[list[str], list[list[str]]]:
    """Headers and text rows of the compact (or wide) table, for the HTML report."""
    cols, body, _ = rows(cells, baseline, wide)
    return [c.header for c in cols], body


# -- a ring across nodes (results.nodes) -----------------------------------------------------------------
def _transports(runtimes: Iterable[str]) -> str:
    """What carries each runtime's cross-node hops, as its manifest's [nodes] table says: "erlang: Erlang
    distribution; pekko: Pekko Artery (TCP)"; the runtime alone where the manifest does not say."""
    try:
        found = discover()
    except DriverError:
        found = {}
    said = {}
    for rt in dict.fromkeys(runtimes):
        d = found.get(rt)
        transport = d.remoting.transport if d is not None and d.remoting is not None else ""
        said[rt.split("/")[0].split("@")[0]] = transport
    return "; ".join(f"{rt}: {t}" if t else rt for rt, t in said.items())


def nodes_rows(cells: list[Cell]) -> tuple[list[Column], list[list[str]], list[str]]:
    """The rings across nodes beside their in-node ring: the share of cross-node hops, ns/hop of both, and ns
    per cross-node hop derived from them (marked with the significance of the difference); ([], [], []) when
    the cells have none. With notes, as `rows`."""
    found = nodes.cross_hops(cells)
    if not found:
        return [], [], []
    cols = [
        Column("Runtime", False),
        Column("Cores"),
        Column("N"),
        Column("tokens"),
        Column("nodes"),
        Column("layout", False),
        Column("cross\nhops %"),
        Column("ns/hop"),
        Column("in-node\nns/hop"),
        Column("ns/cross\nhop"),
        Column("×\nin-node"),
    ]
    body = []
    for x in found:
        p = x.cell.used_params
        # A derived figure at or below zero (the ring across nodes no slower than the in-node ring) is shown as such.
        below = x.ns_per_cross_hop is not None and x.ns_per_cross_hop <= 0
        cross = (
            "–"
            if x.ns_per_cross_hop is None
            else "≤ 0 ≈"
            if below
            else f"{fmt(x.ns_per_cross_hop)} {SIG_MARK[x.significant]}"
        )
        body.append(
            [
                x.cell.runtime,
                cores_text(x.cell),
                count(p.get("n")),
                count(p.get("tokens", 1)),
                str(nodes.nodes_of(x.cell)),
                nodes.placement(x.cell),
                pct(x.share * 100) if x.share is not None else "–",
                fmt(x.ns_per_hop),
                fmt(x.in_node_ns),
                cross,
                f"{x.ratio:.1f}" if x.ratio is not None and not below else "–",
            ]
        )
    notes_ = [
        f"A ring across nodes ({_transports(x.cell.runtime for x in found)}), beside the same ring on one node "
        "measured in the same run (in-node). cross hops % = hops whose sender is on another node, as the driver proved "
        "them. ns/cross hop = (ns/hop − (1 − share) × in-node ns/hop) / share: what one cross-node hop costs "
        "if every other hop costs what it does on one node; ✓ the two rings differ significantly "
        "(Mann-Whitney U, p < 0.05), ≈ they do not (the derived figure is then noise, magnified 1/share "
        "times), ? too few repeats. One machine: loopback, no network between the nodes."
    ]
    if any(x.reference is None for x in found):
        notes_.append("– : the run has no in-node ring of that cell to derive against.")
    if any(x.ns_per_cross_hop is not None and x.ns_per_cross_hop <= 0 for x in found):
        notes_.append("≤ 0: the ring across nodes was no slower than the in-node ring, so no cross-node cost shows.")
    return cols, body, notes_


def view_rows(cell: Cell) -> tuple[list[str], list[list[str]]]:
    """The cluster view of a continuous cell, one row per node and a total: ring hops handled per second,
    distribution packets in and out per second, scheduler utilisation, CPU/wall, memory, processes."""
    rows_ = nodes.view(cell)
    head = [
        "node",
        "ring\nprocs",
        "hops/s",
        "dist in/s",
        "dist out/s",
        "sched\nutil %",
        "CPU/wall",
        "memory MB",
        "procs",
    ]
    if not rows_:
        return head, []

    def util(x: float | None) -> str:
        return f"{x * 100:.0f}" if x is not None else "–"

    body = [
        [
            str(r.node),
            count(r.processes_in_ring),
            f"{r.hops_per_s:,.0f}",
            f"{r.dist_in_per_s:,.0f}",
            f"{r.dist_out_per_s:,.0f}",
            util(r.scheduler_utilisation),
            fmt(r.cpu_per_wall),
            f"{r.memory / 2**20:,.1f}",
            f"{r.processes:,}",
        ]
        for r in rows_
    ]
    if len(rows_) > 1:
        body.append(
            [
                "all",
                count(sum(r.processes_in_ring for r in rows_)),
                f"{sum(r.hops_per_s for r in rows_):,.0f}",
                f"{sum(r.dist_in_per_s for r in rows_):,.0f}",
                f"{sum(r.dist_out_per_s for r in rows_):,.0f}",
                "",
                fmt(sum(r.cpu_per_wall or 0 for r in rows_)),
                f"{sum(r.memory for r in rows_) / 2**20:,.1f}",
                f"{sum(r.processes for r in rows_):,}",
            ]
        )
    return head, body


# -- perf: erlperf's table ------------------------------------------------------------------------
# One row per snippet: Code, || (workers), QPS in erlperf's units (Ki, Mi…), the ±95% interval, the time one
# iteration takes one worker, Rel % against the fastest snippet; `wide` adds the samples, the spread, the
# p-value, the iterations in all and the mode's details. The code is whole here: the terminal cuts it to
# its column with …, Markdown and HTML show it whole.
CODE_HEADER = "Code"


def qps_text(x: float | None) -> str:
    """erlperf's numbers: 17266 Ki, 123 Mi (decimal thousands, as erlperf writes them)."""
    if x is None:
        return "–"
    n = round(x)
    for limit, div, unit in ((10**14, 10**12, "Ti"), (10**11, 10**9, "Gi"), (10**8, 10**6, "Mi"), (10**5, 10**3, "Ki")):
        if n > limit:
            return f"{round(n / div)} {unit}"
    return f"{n}"


def time_text(ns: float | None) -> str:
    """A time per iteration: 57 ns, 554 ns, 3604 ns, 2001 µs, 12 s (erlperf's steps)."""
    if ns is None:
        return "inf"
    steps = ((6 * 10**12, 6 * 10**10, "min"), (10**11, 10**9, "s"), (10**8, 10**6, "ms"), (10**5, 10**3, "µs"))
    for limit, div, unit in steps:
        if ns > limit:
            return f"{round(ns / div)} {unit}"
    return f"{ns:.0f} ns" if ns >= 10 else f"{ns:.2g} ns"


def perf_code(c: Cell) -> str:
    """A snippet's code on one line (or its label), whole."""
    p = c.params
    return str(p.get("label") or (f"{p['file']}" if p.get("file") else " ".join(str(p.get("code", "")).split())))


def perf_nodes(c: Cell) -> list[tuple[int, str, Cell]]:
    """A perf cell measured on K nodes (perf --nodes), node by node: (index, name, the cell as that node alone
    measured it: its own samples or timed samples, its workers, its total), read from the node records kept
    with the cell (extra: node_samples, node_records, node_totals; each a record with its node index). [] for a
    cell on one node."""
    x = c.extra
    if not c.ok or int(c.params.get("nodes", 1)) < 2 or "node_totals" not in x:
        return []
    names = x.get("node_names") or []
    params = {k: v for k, v in c.params.items() if k != "nodes"}
    keep = {k: v for k, v in x.items() if not k.startswith("node") and k not in ("total", "unfinished")}
    out = []
    for t in sorted(x["node_totals"], key=lambda t: t["node"]):
        j = t["node"]
        samples = [{k: v for k, v in s.items() if k != "node"} for s in x.get("node_samples", []) if s["node"] == j]
        records = [r for r in x.get("node_records", []) if r["node"] == j]
        own = {"total": t["count"], "unfinished": t.get("unfinished", 0)}
        one = replace(c, params=params, samples=samples, records=records, extra={**keep, **own})
        out.append((j, names[j] if j < len(names) else "", one))
    return out


def _perf_rel_text(c: Cell, r: Relative | None) -> str:
    if not c.ok:
        return ""
    if r is None:
        return "–"
    if r.is_reference:
        return "100 ref"
    return f"{pct(r.rel_pct)} {SIG_MARK[r.significant]}"


def perf_rows(
    cells: list[Cell], baseline: str | None = None, wide: bool = False
) -> tuple[list[Column], list[list[str]], list[str]]:
    rel = relatives(cells, None)
    ranked_rows = len(rel)
    cols = [Column(CODE_HEADER, False), Column("||"), Column("QPS"), Column("±95%"), Column("Time")]
    if ranked_rows > 1:
        cols.append(Column("Rel %"))
    if wide:
        cols += [Column("samples"), Column("min–max QPS"), Column("CV"), Column("p"), Column("iterations"),
                 Column("details", False)]  # fmt: skip
    out: list[list[str]] = []
    failed: list[Cell] = []
    for i, c in enumerate(cells):
        f = modes.perf_figures(c)
        row = [perf_code(c), "" if f.concurrency is None else str(f.concurrency)]
        if f.qps is None:
            failed.append(c)
            row += [_status_text(c) if not c.ok else "–", f"[{len(failed)}]"]
            out.append(row + [""] * (len(cols) - len(row)))
            continue
        row += [qps_text(f.qps), _ci_text(c, f.qps), time_text(f.ns_per_iteration)]
        if ranked_rows > 1:
            row.append(_perf_rel_text(c, rel.get(i)))
        if wide:
            vals = c.values()
            hl = stats.summarize(vals)
            r = rel.get(i)
            row += [
                str(f.values),
                f"{qps_text(hl.low)}–{qps_text(hl.high)}",
                f"{stats.cv(vals) * 100:.1f}%" if len(vals) > 1 else "–",
                "–" if r is None or r.p_value is None else f"{r.p_value:.3f}",
                "–" if (done := modes.perf_iterations(c)) is None else f"{done:,}",
                c.mode_object.details(c),
            ]
        out.append(row)
        out += _perf_node_rows(c, len(cols), ranked_rows > 1, wide)
    return cols, out, perf_notes(cells, rel, failed)


NODE_MARK = "└ node"


def _perf_node_rows(c: Cell, width: int, rel_column: bool, wide: bool) -> list[list[str]]:
    """Below a cell measured on K nodes: a row per node (its workers, its QPS, its time per iteration)."""
    rows = []
    for j, name, one in perf_nodes(c):
        f = modes.perf_figures(one)
        vals = one.values()
        row = [
            f"{NODE_MARK} {j}" + (f" {name}" if wide and name else ""),
            "" if f.concurrency is None else str(f.concurrency),
        ]
        row += [qps_text(f.qps), _ci_text(one, f.qps) if f.qps else "–", time_text(f.ns_per_iteration)]
        if rel_column:
            row.append("")
        if wide and vals:
            hl = stats.summarize(vals)
            row += [str(f.values), f"{qps_text(hl.low)}–{qps_text(hl.high)}",
                    f"{stats.cv(vals) * 100:.1f}%" if len(vals) > 1 else "–", "–",
                    f"{modes.perf_iterations(one) or 0:,}", one.mode_object.details(one)]  # fmt: skip
        rows.append(row + [""] * (width - len(row)))
    return rows


def perf_notes(cells: list[Cell], rel: dict[int, Relative], failed: list[Cell]) -> list[str]:
    out = [f"[{k}] {perf_code(c)}: {reason_line(c)}" for k, c in enumerate(failed, 1)]
    if not cells:
        return out
    x = cells[0].extra
    out.append(f"|| = workers running the snippet at once: {x.get('workers', 'the runtime’s own')}.")
    if len(rel) > 1:
        out.append(
            "Rel % = QPS against the fastest snippet (ref); ✓ significant difference (Mann-Whitney U, p < 0.05), "
            f"≈ none, ? too few samples to tell (a test needs {stats.MIN_REPEATS_FOR_TEST} a side: -s "
            f"{stats.MIN_REPEATS_FOR_TEST})."
        )
    slow = [perf_code(c) for c in cells if c.ok and modes.perf_figures(c).qps == 0]
    if slow:
        out.append(
            f"{', '.join(slow)}: no iteration within a sample (the runner is slower than the sample period): 0 QPS, "
            "as erlperf says; a longer -d/--sample-ms measures it."
        )
    hooks = []
    for c in cells:
        given = [f"--{h} {c.params[h]!r}" for h in ("init", "init_runner", "done") if c.params.get(h) is not None]
        if given:
            hooks.append(f"{perf_code(c)}: {' '.join(given)}")
    if hooks:
        out.append("Hooks: " + "; ".join(hooks) + ".")
    across = sorted({int(c.params.get("nodes", 1)) for c in cells if perf_nodes(c)})
    if across:
        out.append(
            f"On {'/'.join(map(str, across))} BEAM nodes at once (--nodes): a snippet's row is the sum over its nodes "
            "(|| every node's workers; QPS the median of the nodes' QPS added sample by sample, which need not "
            "equal the node rows' medians added; Time = workers / QPS; Rel % on the sum); "
            f"each '{NODE_MARK} j' row is node j alone (its workers, its QPS on its own clock). Init and done ran "
            "once on each node (their value that node's), init_runner in each worker."
        )
    isolated = any(c.extra.get("isolated") for c in cells)
    out.append(
        "Each snippet in a fresh runtime process (-i)."
        if isolated
        else "Snippets measured one after another in one runtime process, never two at once."
    )
    return out
