"""The report's tables: one per run, the terminal's columns (tables.rows), every cell's raw repeats and
the wide table's further columns on demand."""

from __future__ import annotations

import json

from ...catalogue.workloads import CPU_PER_WALL, SWITCHES_PER_HOP
from ...results.model import Cell, Run
from .. import tables
from ..style import Style
from .html import cell_id, e, swatch


def _per_cell(cells: list[Cell], body: list[list[str]]) -> list[list[list[str]]]:
    """The rows of a table, grouped by the cell they belong to: one row a cell, and below a perf cell measured
    on K nodes (perf --nodes) its K node rows (tables.perf_nodes), in the order the table gives them."""
    out, i = [], 0
    for c in cells:
        k = 1 + (len(tables.perf_nodes(c)) if c.workload.subject else 0)
        out.append(body[i : i + k])
        i += k
    return out


def table_rows(
    cells: list[Cell], baseline: str | None = None
) -> tuple[list[str], list[list[list[str]]], list[str], list[list[dict[str, str]]]]:
    """The one place the report asks for table rows: the terminal's compact table as text, grouped per cell
    (a cell's own row first, then its node rows), the notes printed under it, and per row the wide
    table's further columns (shown with the row's details)."""
    cols, body, notes = tables.rows(cells, baseline)
    wide_cols, wide_body, _ = tables.rows(cells, baseline, wide=True)
    header = [c.header for c in cols]
    wide_header = [c.header for c in wide_cols]
    # The report has room for what the terminal keeps to --wide: CPU/wall and context switches per hop
    # (where recorded) stand beside ns/hop and CPU ns/hop, not only in a row's details.
    shown = [
        h for h in PROMOTED if h in wide_header and any(row[wide_header.index(h)] not in ("", "–") for row in wide_body)
    ]
    at = [wide_header.index(h) for h in shown]
    cut = header.index("Rel %") if "Rel %" in header else len(header)  # the figures before Rel %
    header = header[:cut] + shown + header[cut:]
    body = [row[:cut] + [wide[i] for i in at] + row[cut:] for row, wide in zip(body, wide_body, strict=True)]
    more = [
        [{col.header: v for col, v in zip(wide_cols, row, strict=False) if col.header not in header and v} for row in g]
        for g in _per_cell(cells, wide_body)
    ]
    return header, _per_cell(cells, body), notes, more


# The wide table's columns the report's table shows (as the wide table heads them).
PROMOTED = (CPU_PER_WALL.header, SWITCHES_PER_HOP.header)


def details(c: Cell) -> str:
    parts = []
    if not c.ok:
        parts.append(f"<p><b>{e(c.status)}</b>: {e(c.reason or '')}</p>")
    s = c.summaries() if c.ok else {}
    if s:
        parts.append(
            "<table class='mini'><thead><tr><th>figure</th><th>median</th><th>min</th><th>max</th>"
            "<th>repeats</th></tr></thead><tbody>"
            + "".join(
                f"<tr><td>{e(k)}</td><td>{tables.fmt(v.median)}</td><td>{tables.fmt(v.low)}</td>"
                f"<td>{tables.fmt(v.high)}</td><td>{v.count}</td></tr>"
                for k, v in s.items()
            )
            + "</tbody></table>"
        )
    if c.records:
        wanted = ["process", "iteration", "count", "ready", "setup_ns", "run_ns", "run_cpu_ns"]
        wanted += ["rss_before", "rss_after", "rss_peak"]
        cols = [k for k in wanted if any(k in r for r in c.records)]
        body = "".join(
            "<tr>"
            + "".join(f"<td>{e(f'{r[k]:,}' if isinstance(r.get(k), int) else r.get(k, ''))}</td>" for k in cols)
            + "</tr>"
            for r in c.records
        )
        parts.append(
            "<table class='mini'><caption>raw records, one per repeat (as the driver printed them)</caption>"
            "<thead><tr>" + "".join(f"<th>{k}</th>" for k in cols) + f"</tr></thead><tbody>{body}</tbody></table>"
        )
    hist = c.extra.get("history") if c.extra else None
    if hist:
        peak = c.extra.get("peak_concurrency")
        perf = bool(c.workload.subject)  # a perf squeeze adds workers and counts iterations
        rate = tables.qps_text if perf else (lambda x: f"{x:,.0f}")
        parts.append(
            f"<table class='mini'><caption>squeeze steps</caption><thead><tr><th>{'workers' if perf else 'tokens'}"
            f"</th><th>{'QPS' if perf else 'hops/s'}</th><th>sd</th><th>samples</th><th></th></tr></thead><tbody>"
            + "".join(
                f"<tr><td>{h['concurrency']}</td><td>{rate(h['hops_per_s'])}</td><td>{rate(h['sd'])}</td>"
                f"<td>{h['samples']}</td><td>{'← peak' if h['concurrency'] == peak else ''}</td></tr>"
                for h in hist
            )
            + "</tbody></table>"
        )
    other = {k: v for k, v in (c.extra or {}).items() if k != "history"}
    if other:
        parts.append(f"<p class='sub'>{e(json.dumps(other))}</p>")
    return "".join(parts) or "<p>no details</p>"


def _wide(extra: dict[str, str]) -> str:
    """The wide table's columns for one row (spread, p, count, mode details, version) as a small list."""
    if not extra:
        return ""
    items = "".join(f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in extra.items())
    return f"<table class='mini'><tbody>{items}</tbody></table>"


def _tds(c: Cell, row: list[str], st: dict[str, Style]) -> str:
    perf = bool(c.workload.subject)  # a snippet's row: its code first, no runtime swatch
    first = f"{swatch(st[c.runtime])}{e(row[0])}" if c.runtime in st and not perf else e(row[0])
    cols = list(row[1:])
    span = 1
    while not c.ok and len(cols) > 1 and cols[-1] == "":
        cols.pop()  # a failed cell's reason runs across the columns it has no figures for
        span += 1
    return (
        f"<td{' class=code' if perf else ''}>{first}</td>"
        + "".join(_td(x) for x in cols[:-1])
        + (f"<td colspan='{span}' class='reason'>{e(cols[-1])}</td>" if span > 1 else f"<td>{e(cols[-1])}</td>")
    )


def _td(x: str) -> str:
    """A figure's cell; CPU ns/hop marked as more than one core's worth is set apart, its mark explained."""
    if x.endswith(tables.MORE_THAN_ONE_CORE_MARK):
        return (
            "<td class='over' title=\"more than one core's worth of CPU time in the message phase (CPU/wall > "
            f'{tables.MORE_THAN_ONE_CORE:g})">{e(x)}</td>'
        )
    return f"<td>{e(x)}</td>"


def cell_table(run: Run, st: dict[str, Style]) -> str:
    header, rows, notes, more = table_rows(run.cells, run.baseline)
    if not rows:
        return "<p>nothing measured</p>"
    head = "<th class='x'></th>" + "".join(f"<th>{e(h).replace(chr(10), '<br>')}</th>" for h in header)
    bodies = []
    for c, group, extra in zip(run.cells, rows, more, strict=True):
        cls = "" if c.ok else " class='bad'"
        node_rows = "".join(
            f"<tr class='node'><td class='x'></td>{_tds(c, row, st)}</tr>" for row in group[1:]
        )  # perf --nodes: each node alone, under the snippet's sum
        bodies.append(
            f"<tbody{cls} data-cell='{e(cell_id(run.run_id, c))}'><tr class='row'><td class='x'>"
            "<button aria-label='details' title='details'>▸</button>"
            f"</td>{_tds(c, group[0], st)}</tr><tr class='det' hidden><td colspan='{len(header) + 1}'>"
            f"{_wide(extra[0])}{details(c)}</td></tr>{node_rows}"
            "</tbody>"
        )
    return (
        f"<div class='scroll'><table class='cells sortable'><thead><tr>{head}</tr></thead>{''.join(bodies)}"
        "</table></div>" + "".join(f"<p class='sub'>{e(n)}</p>" for n in notes) + _nodes(run)
    )


def _plain(head: list[str], rows: list[list[str]]) -> str:
    return (
        "<div class='scroll'><table class='mini'><thead><tr>"
        + "".join(f"<th>{e(h)}</th>" for h in head)
        + "</tr></thead><tbody>"
        + "".join("<tr>" + "".join(f"<td>{e(x)}</td>" for x in r) + "</tr>" for r in rows)
        + "</tbody></table></div>"
    )


def _nodes(run: Run) -> str:
    """Rings across nodes beside their in-node ring, and each continuous cell's cluster view."""
    parts = []
    cols, rows, notes = tables.nodes_rows(run.cells)
    if rows:
        parts.append("<h4>Across nodes: ns per cross-node hop, against the in-node ring of this run</h4>")
        parts.append(_plain([c.header for c in cols], rows) + "".join(f"<p class='sub'>{e(n)}</p>" for n in notes))
    for c in run.cells:
        head, view = tables.view_rows(c) if c.ok else ([], [])
        if view:
            parts.append(f"<h4>Cluster view: {e(c.label.strip())}</h4>" + _plain(head, view))
    return "".join(parts)


def section(runs: list[Run], commands: dict[int, str], st: dict[str, Style]) -> str:
    parts = [
        "<section id='tables'><h2>Tables</h2><p class='sub'>One table per run, the terminal's columns. "
        "Click a heading to sort; click ▸ for a cell's raw repeats and every figure.</p>"
    ]
    for r in runs:
        parts.append(
            f"<h3>Run {r.run_id}: {e(r.workload.name)} ({e(r.options.mode)}) — {e(r.status)}</h3>"
            f"<p><code>{e(commands.get(r.run_id, ''))}</code></p>{cell_table(r, st)}"
        )
    parts.append("</section>")
    return "".join(parts)
