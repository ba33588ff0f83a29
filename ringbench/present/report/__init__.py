"""One self-contained HTML report of stored runs: findings first, then charts, tables and warnings.

Order, as a reader wants it:
  1. a summary (summary.py) made from analysis.Findings: the machine and its state, the best runtime of
     every like-for-like comparison, how cost grows with N, which differences are significant; every
     figure quoted from its row in the tables, with the N, M and cores it compares;
  2. interactive charts (draw_plotly; Plotly's script is inlined, so the file needs no network), in the
     order of the chart registry (charts.KINDS); then and now (thennow.py): the seeds' and the skynet
     tree's published figures beside today's, labelled historical;
  3. compact sortable tables, one per run, with every cell's raw repeats on demand (cells.py);
  4. warnings, one line per kind with the cells it applies to (warnings.py); the environment of every run.

    from ringbench.present import report
    html_text = report.render([(run, run.command) for run in runs])
"""

from __future__ import annotations

import datetime as dt
import json

from ...results import analysis
from ...results.model import Run
from .. import charts, draw_plotly
from ..style import Style, floors, fmt_count, styles
from . import cells as cell_tables
from . import perf, summary, thennow, warnings
from .html import Quote, asset, chart_box, e, json_script, plotly_js


def _charts(cells) -> dict[str, charts.Chart]:
    """Every chart of the report's kinds that the cells can show, in the report's order."""
    out = {}
    for kind in charts.report_kinds():
        try:
            out[kind.key] = charts.build(cells, kind.key, panels=4)
        except charts.PlotError:
            pass
    return out


def _lede(results: list[Run], latest: analysis.Latest) -> str:
    cells = latest.cells
    dates = sorted(r.environment.get("date", "")[:10] for r in results if r.environment.get("date"))
    runtimes = sorted({c.runtime for c in cells})
    ns = sorted({c.params["n"] for c in cells if "n" in c.params})
    return (
        f"Run{'s' if len(results) > 1 else ''} {', '.join(str(r.run_id) for r in results)}"
        f"{' · ' + (dates[0] if dates[0] == dates[-1] else f'{dates[0]} to {dates[-1]}') if dates else ''} · "
        f"{', '.join(sorted({c.workload.name for c in cells}))} · {len(runtimes)} runtime"
        f"{'s' if len(runtimes) != 1 else ''}"
        + (f" · N from {fmt_count(ns[0])} to {fmt_count(ns[-1])}" if len(ns) > 1 else "")
        + (
            f" · {latest.replaced} cells measured again in a later run: the later figures are used"
            if latest.replaced
            else ""
        )
    )


def _charts_section(drawn: dict[str, charts.Chart], st: dict[str, Style], specs: list[tuple[str, dict]]) -> str:
    parts = [
        "<section id='charts'><h2>Charts</h2><p class='sub'>Lines only across N (or M, tokens, nodes); where "
        "a run has one N, a chart is a row per runtime and core setting, the best at the top. Hover a point "
        "for its value and interval; click a legend entry to hide or show that runtime (double-click: only "
        "that one); switch a line chart's y axis between log and linear with the buttons above it.</p>"
    ]
    for key, ch in drawn.items():
        fid = f"chart-{charts.KINDS[key].anchor or key}"
        specs.append((fid, draw_plotly.draw(ch, st)))
        legend = f" {e(ch.legend())}" if ch.shape in ("lines", "dots") else ""
        parts.append(chart_box(fid, ch.title, e(ch.caption) + legend))
    if not drawn:
        parts.append("<p>No chart fits these runs.</p>")
    return "".join(parts) + "</section>"


def _environment(results: list[Run]) -> str:
    parts = ["<section id='environment'><h2>Environment and settings</h2>"]
    for r in results:
        env_rows = "".join(
            f"<tr><td>{e(k)}</td><td>{e(json.dumps(v) if isinstance(v, (list, dict)) else v)}</td></tr>"
            for k, v in r.environment.items()
        )
        set_rows = "".join(
            f"<tr><td>{e(k)}</td><td>{e(json.dumps(v))}</td></tr>" for k, v in r.settings.items() if k != "grid"
        )
        parts.append(
            f"<details><summary>Run {r.run_id}</summary><div class='twocol'><table><thead><tr><th>fact</th>"
            f"<th>value</th></tr></thead><tbody>{env_rows}</tbody></table><table><thead><tr><th>setting</th>"
            f"<th>value</th></tr></thead><tbody>{set_rows}</tbody></table></div></details>"
        )
    written = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    return "".join(parts) + f"<p class='sub'>Report written {written}.</p></section>"


_SEEDED = ("hops-vs-n", "spawn", "tree")  # the charts the seeds' published figures are drawn beside


def render(runs: list[tuple[Run, str]]) -> str:
    results = [r for r, _ in runs]
    commands = {r.run_id: cmd for r, cmd in runs}
    latest = analysis.latest(results)
    cells = latest.cells
    # A perf run compares snippets of code, not runtimes: it gets the perf section, never the ring sections.
    perf_runs = [r for r in results if perf.is_perf(r)]
    ring_runs = [r for r in results if not perf.is_perf(r)]
    ring = [c for c in cells if not c.workload.subject]
    known_floors = floors() | {c.runtime for c in ring if c.is_floor}
    st = styles({c.runtime for c in cells}, known_floors)
    drawn = _charts(ring)
    groups = warnings.group(results, cells)
    seeded = ring and any(k in drawn for k in _SEEDED)
    nav = [("perf", "Perf")] if perf_runs else []
    if ring_runs:
        nav += [("charts", "Charts")] + ([("then-and-now", "Then and now")] if seeded else []) + [("tables", "Tables")]
    nav += [("warnings", "Warnings"), ("environment", "Environment")]
    specs: list[tuple[str, dict]] = []
    body = (
        summary.section(
            results,
            _lede(results, latest),
            cells,
            analysis.summarize(ring, known_floors),
            [g for g in groups if g["cells"]],
            st,
            Quote(latest.run_of),
            more=[perf.finding(r) for r in perf_runs],
            nav=nav,
        )
        + perf.section(perf_runs, commands, st, specs)
        + (_charts_section(drawn, st, specs) if ring_runs else "")
        + (thennow.section(drawn, ring, st, specs) if seeded else "")
        + (cell_tables.section(ring_runs, commands, st) if ring_runs else "")
        + f"<section id='warnings'><h2>Warnings</h2>{warnings.html(groups)}</section>"
        + _environment(results)
    )
    data = "".join(json_script(fid, fig) for fid, fig in specs)
    lib = f"<script>{plotly_js()}</script>" if specs else ""
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>ringbench report: runs {', '.join(str(r.run_id) for r in results)}</title>"
        f"<style>{asset('report.css')}</style></head><body>{body}{data}{lib}<script>{asset('report.js')}</script>"
        "</body></html>"
    )
