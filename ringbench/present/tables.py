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

from dataclasses import dataclass

from ..catalogue.workloads import RSS_PER_PROC
from ..results import modes, stats
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
    return {"n": "N", "m": "M", "tokens": "K", "burst": "placement"}.get(name, name)


def _param_text(name: str, v: int | None) -> str:
    if name == "burst":
        return {0: "spread", 1: "burst"}.get(v, "") if v is not None else ""
    return count(v)


def cores_text(c: Cell) -> str:
    return ONE_THREAD if c.cores == "all" and c.single_threaded else c.cores


def _ci_text(values: list[float], median: float) -> str:
    if len(values) < 2 or not median:
        return "–"
    lo, hi = stats.bootstrap_median_ci(values)
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


def rows(
    cells: list[Cell], baseline: str | None = None, wide: bool = False
) -> tuple[list[Column], list[list[str]], list[str]]:
    """(columns, text rows, notes under the table): the one place a table's content is decided. Rows come
    in the order of `cells` (`relative.ordered` puts each group's reference first, as tables print them)."""
    if not cells:
        return [Column("nothing measured", False)], [], []
    w = cells[0].workload
    mode = cells[0].mode_object
    rel = relatives(cells, baseline)
    params = _param_columns(cells)
    head = mode.headline(w).label
    timed = mode.settles
    own = own_comparison(cells[0])
    beside = mode.beside(w)
    show_mem = RSS_PER_PROC in beside or (timed and w.headline is RSS_PER_PROC)
    cols = [
        Column("Runtime", False),
        Column("hop", False),
        Column("Cores"),
        *(Column(_param_header(p)) for p in params),
        Column(head),
        Column("±95%"),
        *(Column(m.header) for m in beside),
        Column(own.comparison_header if own else "Rel %"),
    ]
    extra_cols = _wide_columns(cells) if wide else []
    cols += extra_cols
    out = []
    failed: list[Cell] = []
    for i, c in enumerate(cells):
        row = [c.runtime, hop_text(c), cores_text(c), *(_param_text(p, c.used_params.get(p)) for p in params)]
        vals = c.values() if c.ok else []
        if not vals:
            failed.append(c)
            label = _status_text(c) if not c.ok else "–"
            row += [label, f"[{len(failed)}]"] + [""] * (len(cols) - len(row) - 2)
            out.append(row)
            continue
        hl = stats.summarize(vals)
        headline = _memory_text(c) if w.headline is RSS_PER_PROC and timed else fmt(hl.median)
        row += [headline, _ci_text(vals, hl.median)]
        summaries = c.summaries()
        row += [
            _memory_text(c) if m is RSS_PER_PROC else fmt(summaries[m.name].median) if m.name in summaries else "–"
            for m in beside
        ]
        row.append(_rel_text(c, rel.get(i)))
        if wide:
            row += _wide_values(c, rel.get(i), extra_cols)
        out.append(row)
    return cols, out, notes(cells, rel, show_mem, failed)


def _wide_metrics(cells: list[Cell]) -> list:
    mode = cells[0].mode_object
    beside = mode.beside(cells[0].workload)
    return [m for m in mode.metrics(cells[0].workload)[1:] if m not in (RSS_PER_PROC, *beside)]


def _wide_columns(cells: list[Cell]) -> list[Column]:
    return [
        Column("min–max"),
        *(Column(m.label) for m in _wide_metrics(cells)),
        Column("p"),
        Column("count"),
        Column("details", False),
        Column("version", False),
    ]


def _wide_values(c: Cell, r: Relative | None, cols: list[Column]) -> list[str]:
    vals = c.values()
    if not vals:
        return [""] * len(cols)
    hl = stats.summarize(vals)
    summaries = c.summaries()
    return [
        f"{fmt(hl.low)}–{fmt(hl.high)}",
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
    rel = relatives(cells, baseline)
    params = _param_columns(cells)
    extra = _wide_columns(cells)
    cols = [Column("Runtime", False), Column("Cores"), *(Column(_param_header(p)) for p in params), *extra]
    body = [
        [c.runtime, cores_text(c), *(_param_text(p, c.used_params.get(p)) for p in params)]
        + _wide_values(c, rel.get(i), extra)
        for i, c in enumerate(cells)
        if c.ok
    ]
    return cols, body


def hop_text(c: Cell) -> str:
    hand_written = c.mailbox == "hand-written" and not c.is_floor
    return HOP_SHORT.get(c.hop, c.hop) + ("*" if hand_written else "")


def notes(cells: list[Cell], rel: dict[int, Relative], show_mem: bool, failed: list[Cell] | None = None) -> list[str]:
    out = []
    for k, c in enumerate(failed or [], 1):
        out.append(f"[{k}] {c.label.strip()}: {reason_line(c)}")
    refs = references(cells, rel)
    own = own_comparison(cells[0]) if cells else None
    if own and rel:
        out.append(own.comparison_note())
    elif refs:
        out.append(
            f"Rel % = throughput against {'; '.join(refs)} (the ref row of each group), among rows that "
            f"differ in the runtime alone; – a row with nothing to compare. ✓ significant difference "
            f"(Mann-Whitney U, p < 0.05), ≈ none, ? too few repeats to tell (a test needs "
            f"{stats.MIN_REPEATS_FOR_TEST} a side)."
        )
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
    lines = [
        # The terminal's two-line headers ("spawn\nµs") on one line: a newline would end the table.
        "| " + " | ".join(c.header.replace("\n", " ") for c in cols) + " |",
        "|" + "|".join("---:" if c.right else "---" for c in cols) + "|",
    ]
    lines += ["| " + " | ".join(r) + " |" for r in body]
    return "\n".join(lines) + "\n" + "".join(f"\n{n}\n" for n in foot)


def squeeze_rows(cell: Cell) -> tuple[list[str], list[list[str]]]:
    """The squeeze search as a table: one row per step, the peak marked."""
    head = ["tokens K", "hops/s (mean)", "sd", "samples", ""]
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
