"""The report's perf section: a `ringbench perf` run compares snippets of code on one runtime (erlperf's
table: Code, || workers, QPS, its interval, Time per iteration, Rel %; a row per node under a snippet
measured with --nodes), never runtimes, so it gets a section of its own and no ring sections.

Every figure is written by the functions the table is (tables.qps_text, tables.time_text, the Rel % of
results.relative), so a finding and its table row cannot disagree.
"""

from __future__ import annotations

from ...results import modes
from ...results.model import Cell, Run
from ...results.relative import relatives
from .. import charts, draw_plotly, tables
from ..style import Style, cores_text
from . import cells as cell_tables
from .html import chart_box, e

SECTION = ("perf", "Perf")  # the section's element id and its name in the report's menu
_MODE = {
    "perf-continuous": "continuous",
    "perf-squeeze": "squeeze",
    "perf-timed": "timed (a fixed count of iterations)",
}


def is_perf(run: Run) -> bool:
    """Does the run compare snippets of code (`ringbench perf`), not runtimes?"""
    return bool(run.workload.subject)


def _what(run: Run) -> str:
    """'erlang/stock, all cores, continuous, on 2 nodes': what a perf run held fixed."""
    rts = sorted({c.runtime for c in run.cells})
    cores = sorted({c.cores for c in run.cells})
    nodes = sorted({int(c.params.get("nodes", 1)) for c in run.cells})
    parts = [", ".join(rts), ", ".join(cores_text(k) for k in cores), _MODE.get(run.options.mode, run.options.mode)]
    if nodes != [1]:
        parts.append(f"on {'/'.join(map(str, nodes))} BEAM nodes at once")
    return ", ".join(parts)


def _snippet(c: Cell) -> str:
    return f"<code>{e(tables.perf_code(c))}</code>"


def _figures(c: Cell) -> str:
    """'95 Mi QPS, 10 ns per iteration with 1 worker': the row's QPS, Time and ||."""
    f = modes.perf_figures(c)
    workers = "" if f.concurrency is None else f" with {f.concurrency} worker{'s' if f.concurrency != 1 else ''}"
    return f"{e(tables.qps_text(f.qps))} QPS, {e(tables.time_text(f.ns_per_iteration))} per iteration{workers}"


def finding(run: Run) -> str:
    """One line of the summary for a perf run: its snippets from the fastest, with their QPS, time per
    iteration and Rel % against the fastest (✓ significant, ≈ within noise, ? too few samples)."""
    ok = [c for c in run.cells if c.ok and modes.perf_figures(c).qps is not None]
    head = f"<b>Perf, run {run.run_id}</b> ({e(_what(run))}): "
    if not ok:
        return head + "no snippet measured."
    ranked = sorted(ok, key=lambda c: -(modes.perf_figures(c).qps or 0))
    rel = relatives(run.cells, None)
    by_cell = {id(run.cells[i]): r for i, r in rel.items()}
    if len(ranked) == 1:
        return head + f"{_snippet(ranked[0])}: {_figures(ranked[0])}."
    text = head + f"fastest {_snippet(ranked[0])} ({_figures(ranked[0])})"
    rest = []
    for c in ranked[1:5]:
        r = by_cell.get(id(c))
        pct = f"{tables.pct(r.rel_pct)} % of it {tables.SIG_MARK[r.significant]}, " if r and r.rel_pct else ""
        rest.append(f"{_snippet(c)} ({e(pct)}{_figures(c)})")
    more = f"; and {len(ranked) - 5} more in the table" if len(ranked) > 5 else ""
    return text + "; then " + "; ".join(rest) + more + "."


def _chart(run: Run, specs: list[tuple[str, dict]]) -> str:
    """A perf squeeze's QPS against workers, one line per snippet; else, for two snippets or more, each
    snippet's QPS side by side, the highest first ('' for one snippet: its row says it all)."""
    try:
        ch = charts.squeeze(run.cells)
    except charts.PlotError:
        if sum(c.ok for c in run.cells) < 2:
            return ""
        try:
            ch = charts.perf(run.cells)
        except charts.PlotError:
            return ""
    fid = f"chart-perf-{run.run_id}"
    specs.append((fid, draw_plotly.draw(ch)))
    return chart_box(fid, ch.title, e(ch.caption))


def section(runs: list[Run], commands: dict[int, str], st: dict[str, Style], specs: list[tuple[str, dict]]) -> str:
    """The perf section: per perf run what it measured, its squeeze chart, erlperf's table with a row per
    node under a snippet measured on several nodes, and every cell's samples on demand."""
    if not runs:
        return ""
    parts = [
        f"<section id='{SECTION[0]}'><h2>Perf: snippets of code</h2><p class='sub'>Each run times snippets of "
        "code in a tight loop on one runtime, as erlperf does: || = workers running the snippet at once, QPS = "
        "iterations per second of all of them together, Time = what one iteration takes one worker (workers / "
        "QPS), Rel % = QPS against the fastest snippet of the run. Click ▸ for a snippet's samples.</p>"
    ]
    for r in runs:
        parts.append(
            f"<h3>Run {r.run_id}: {e(_what(r))} — {e(r.status)}</h3>"
            f"<p><code>{e(commands.get(r.run_id, ''))}</code></p>"
            f"<p class='sub'>{e(r.mode_object.describe(r.options, r.workload))}.</p>"
            f"{_chart(r, specs)}{cell_tables.cell_table(r, st)}"
        )
    return "".join(parts) + "</section>"
