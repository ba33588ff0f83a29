"""Turning cells into tables. One row builder (`rows`) feeds the terminal table, Markdown and HTML.

The compact table fits 100 columns with every runtime name whole: runtime, kind of hop, cores,
the workload's parameters, the headline median with its 95 % interval, spawn µs per process,
bytes per process, Rel %. `wide=True` adds spread, CPU/wall, the runtime's own memory figure,
p-value, count verified, runtime version and mode details.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich import box
from rich.markup import escape
from rich.table import Table

from ..catalogue.workloads import RSS_PER_PROC, SPAWN_US
from ..results import stats
from ..results.model import Cell
from ..results.relative import Relative, references, relatives

# Tables are ruled with ASCII only: a line of box-drawing characters is three bytes a column, and
# tools that count bytes (awk, mail, some CI logs) would see a 100-column table as 300 wide.
HEAD_RULE = box.Box("    \n    \n -- \n    \n    \n    \n    \n    \n")

HOP_SHORT = {"mailbox": "mbox", "channel": "chan", "rendezvous": "rdv", "handoff": "hand", "floor": "floor"}
SIG_MARK = {True: "✓", False: "≈", None: "?"}


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
    for div, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if x >= div:
            v = x / div
            return f"{v:.0f}{unit}" if v >= 100 or v == int(v) else f"{v:.1f}{unit}"
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
    """The workload's parameters, leaving out tokens and placement when they never differ from the default."""
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
    if c.is_floor:
        return "floor"
    if r is None:
        return "–"
    if r.is_reference:
        return "100 ref"
    return f"{pct(r.rel_pct)} {SIG_MARK[r.significant]}"


def rows(
    cells: list[Cell], baseline: str | None = None, wide: bool = False
) -> tuple[list[Column], list[list[str]], list[str]]:
    """(columns, text rows, notes under the table): the one place a table's content is decided."""
    if not cells:
        return [Column("nothing measured", False)], [], []
    w = cells[0].workload
    mode = cells[0].mode_object
    rel = relatives(cells, baseline)
    params = _param_columns(cells)
    head = mode.headline_label(w)
    show_spawn = mode.name == "timed" and SPAWN_US in w.metrics and w.headline is not SPAWN_US
    show_mem = mode.name == "timed" and RSS_PER_PROC in w.metrics and w.headline is not RSS_PER_PROC
    cols = [
        Column("Runtime", False),
        Column("hop", False),
        Column("Cores"),
        *(Column(_param_header(p)) for p in params),
        Column(head),
        Column("±95%"),
    ]
    if show_spawn:
        cols.append(Column("spawn\nµs"))
    if show_mem:
        cols.append(Column("B/proc"))
    cols.append(Column("Rel %"))
    extra_metrics = [m for m in mode.metrics(w)[1:] if m not in (SPAWN_US, RSS_PER_PROC)] if wide else []
    if wide:
        cols += [
            Column("min–max"),
            *(Column(m.label) for m in extra_metrics),
            Column("p"),
            Column("count"),
            Column("details", False),
            Column("version", False),
        ]
    out = []
    for i, c in enumerate(cells):
        hand_written = c.mailbox == "hand-written" and not c.is_floor
        hop = HOP_SHORT.get(c.hop, c.hop) + ("*" if hand_written else "")
        row = [c.runtime, hop, c.cores, *(_param_text(p, c.used_params.get(p)) for p in params)]
        if not c.ok:
            label = "n/a" if c.status == "refused" else c.status
            reason = (c.reason or "").splitlines()[0] if c.reason else ""
            row += [label, reason[:60]] + [""] * (len(cols) - len(row) - 2)
            out.append(row)
            continue
        vals = c.values()
        if not vals:  # continuous: no lap completed within a sample
            row += ["–", mode_details(c)[:60]] + [""] * (len(cols) - len(row) - 2)
            out.append(row)
            continue
        hl = stats.summarize(vals)
        headline = _memory_text(c) if w.headline is RSS_PER_PROC and mode.name == "timed" else fmt(hl.median)
        row += [headline, _ci_text(vals, hl.median)]
        summaries = c.summaries()
        if show_spawn:
            row.append(fmt(summaries[SPAWN_US.name].median) if SPAWN_US.name in summaries else "–")
        if show_mem:
            row.append(_memory_text(c))
        r = rel.get(i)
        row.append(_rel_text(c, r))
        if wide:
            row += [
                f"{fmt(hl.low)}–{fmt(hl.high)}",
                *(fmt(summaries[m.name].median) if m.name in summaries else "–" for m in extra_metrics),
                "–" if r is None or r.p_value is None else f"{r.p_value:.3f}",
                f"{c.records[0]['count']:,} ×{len(c.records)}" if c.records else f"{len(c.samples)} samples",
                mode_details(c),
                c.version or "",
            ]
        out.append(row)
    return cols, out, notes(cells, rel, show_mem)


def mode_details(c: Cell) -> str:
    x = c.extra
    if c.mode == "timed":
        cal = x.get("calibrated")
        return (f"m calibrated to {x.get('target_ms', 0):g} ms" if cal else "") + (
            f"; {c.processes} process(es)" if c.records else ""
        )
    parts = [f"{x.get('hops_per_sample_mean', 0):,.0f} hops/sample", f"CV {x.get('cv', 0) * 100:.1f} %"]
    if x.get("slower_than_one_sample"):
        parts.append("a lap > a sample")
    if "converged" in x:
        parts.append(
            f"converged over the last {x['window']} of {x['all_samples']} samples"
            if x["converged"]
            else f"not converged in {x['all_samples']} samples"
        )
    if c.mode == "squeeze":
        parts.insert(0, f"peak K = {x.get('peak_concurrency')}")
    return "; ".join(parts)


def notes(cells: list[Cell], rel: dict[int, Relative], show_mem: bool) -> list[str]:
    out = []
    refs = references(cells, rel)
    if refs:
        out.append(
            f"Rel % = throughput against {', '.join(refs)} (ref), among rows that differ in the runtime "
            f"alone. ✓ significant difference (Mann-Whitney U, p < 0.05), ≈ none, ? too few repeats to "
            f"tell (a test needs {stats.MIN_REPEATS_FOR_TEST} a side)."
        )
    kinds = sorted({c.hop for c in cells if c.hop_group != "message"})
    if kinds:
        out.append(
            f"Not message passing, shown apart and not ranked: {', '.join(kinds)} "
            "(rdv = rendezvous, hand = hand-off: the value written into the next process's slot, "
            "floor = a stackless state machine, not a runtime)."
        )
    if any(c.mailbox == "hand-written" for c in cells):
        out.append(
            "hop: mbox = mailbox, chan = channel, hand = hand-off; * = the driver's own mailbox or slot, "
            "not the runtime's stock one."
        )
    if show_mem:
        missing = sorted({why for c in cells if c.ok for fig, why in [c.memory_per_process()] if fig is None})
        out.append(
            "B/proc = memory grown over the first spawn of each fresh driver process, after one collection, "
            "per process (thread kernel stacks included)" + (f"; – : {'; '.join(missing)}" if missing else "") + "."
        )
    return out


def table(cells: list[Cell], title: str, baseline: str | None = None, wide: bool = False) -> tuple[Table, list[str]]:
    cols, body, foot = rows(cells, baseline, wide)
    t = Table(
        title=escape(title),
        title_justify="left",
        box=HEAD_RULE,
        pad_edge=False,
        padding=(0, 1),
        collapse_padding=True,
    )
    for col in cols:
        t.add_column(col.header, justify="right" if col.right else "left", no_wrap=not wide or col.right)
    for r in body:
        t.add_row(*map(escape, r))
    return t, foot


def markdown(cells: list[Cell], baseline: str | None = None, wide: bool = True) -> str:
    """A Markdown table (ready for a blog post), with the same notes as the terminal's."""
    cols, body, foot = rows(cells, baseline, wide)
    lines = [
        # The terminal's two-line headers ("spawn\nµs") on one line: a newline would end the table.
        "| " + " | ".join(c.header.replace("\n", " ") for c in cols) + " |",
        "|" + "|".join("---:" if c.right else "---" for c in cols) + "|",
    ]
    lines += ["| " + " | ".join(r) + " |" for r in body]
    return "\n".join(lines) + "\n" + "".join(f"\n{n}\n" for n in foot)


def squeeze_history(cell: Cell) -> Table:
    t = Table(
        title=escape(f"squeeze: {cell.label} — {cell.extra.get('stopped_because', '')}"),
        title_justify="left",
        box=HEAD_RULE,
    )
    for col in ("tokens K", "hops/s (mean)", "sd", "samples", ""):
        t.add_column(col, justify="right")
    peak = cell.extra.get("peak_concurrency")
    for h in cell.extra.get("history", []):
        t.add_row(
            str(h["concurrency"]),
            f"{h['hops_per_s']:,.0f}",
            f"{h['sd']:,.0f}",
            str(h["samples"]),
            "← peak" if h["concurrency"] == peak else "",
        )
    return t


def runtime_stats(cells: list[Cell]) -> Table | None:
    rows_ = [(c, r["runtime_stats"]) for c in cells for r in c.records if "runtime_stats" in r]
    if not rows_:
        return None
    t = Table(title="runtime statistics (per repeat, as the runtime reports them)", title_justify="left", box=HEAD_RULE)
    for col in ("Runtime", "Cores", "repeat", "statistics"):
        t.add_column(col)
    for c, st in rows_:
        shown = ", ".join(
            f"{k}={v:,}" if isinstance(v, int) else f"{k}={v}"
            for k, v in st.items()
            if k not in ("workload", "iteration")
        )
        t.add_row(c.runtime, c.cores, str(st.get("iteration", "")), shown)
    return t


def as_json(cells: list[Cell], baseline: str | None = None) -> list[dict]:
    rel = relatives(cells, baseline)
    out = []
    for i, c in enumerate(cells):
        item: dict[str, object] = {
            "runtime": c.runtime,
            "cores": c.cores,
            "params": c.params,
            "used_params": c.used_params,
            "mode": c.mode,
            "status": c.status,
            "reason": c.reason,
            "runtime_version": c.version,
            "hop": c.hop,
            "mailbox": c.mailbox,
            # messages per repeat's run phase (timed; continuous modes count hops per sample)
            "hops": c.workload.hops(c.workload.to_driver(c.used_params)) if c.ok and c.records else None,
            "repeats": c.records,
            "samples": c.samples,
            "extra": c.extra,
        }
        if c.ok:
            summary: dict[str, object] = {k: vars(v) for k, v in c.summaries().items()}
            vals = c.values()
            if len(vals) > 1:
                summary["headline_ci95"] = stats.bootstrap_median_ci(vals)
            fig, why = c.memory_per_process()
            summary["bytes_per_process"] = fig if fig is not None else why
            if i in rel:
                summary["relative"] = vars(rel[i])
            item["summary"] = summary
        out.append(item)
    return out


def compact_rows(
    cells: list[Cell], baseline: str | None = None, wide: bool = False
) -> tuple[list[str], list[list[str]]]:
    """Headers and text rows of the compact (or wide) table, for the HTML report."""
    cols, body, _ = rows(cells, baseline, wide)
    return [c.header for c in cols], body
