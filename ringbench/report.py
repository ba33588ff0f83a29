"""One self-contained HTML report of stored runs: environment, tables, plots (embedded), warnings.

No network is needed to read it: images are inline data: URIs, styles are inline.
"""
from __future__ import annotations

import base64
import html
import json
import tempfile
from pathlib import Path

from . import plots, tables
from .api import RunResult

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
th { background: #f2f2f2; }
.warn { background: #fff4d6; border-left: 4px solid #e0a800; padding: 0.4em 0.8em; margin: 0.3em 0; }
figure { margin: 1em 0; } img { max-width: 100%; border: 1px solid #ddd; }
code { background: #f4f4f4; padding: 0 0.2em; }
"""


def _table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(x))}</td>" for x in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _plots_for(run: RunResult) -> list[tuple[str, bytes]]:
    """Every plot kind that fits the run, as PNG bytes (kinds that do not fit are skipped)."""
    cells = [c for c in run.cells if c.ok]
    wanted: list[tuple[str, str, list]] = []  # (kind, caption, cells)
    ns = {c.params.get("n") for c in cells}
    ms = {c.params.get("m") for c in cells}
    name = run.workload.name
    if run.options.mode == "squeeze":
        wanted.append(("squeeze", "throughput against concurrency", cells))
    elif name in ("ring", "msgcost"):
        if len(ns) > 1:
            wanted.append(("hops-vs-n", "ns per hop against N", cells))
        if name == "ring" and len(ms) > 1:
            wanted.append(("time-vs-m", "time against M", cells))
        if name == "ring" and len(ns) > 1 and len(ms) > 1:
            for runtime, cores in sorted({(c.runtime, c.cores) for c in cells}):
                one = [c for c in cells if (c.runtime, c.cores) == (runtime, cores)]
                wanted.append(("heatmap", f"run time over N × M: {runtime} ({cores} cores)", one))
    elif name in ("spawn", "memory"):
        wanted += [("spawn", "spawn µs per process against N", cells), ("memory", "bytes per process", cells)]
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (kind, caption, subset) in enumerate(wanted):
            path = Path(tmp) / f"{i}.png"
            try:
                plots.plot(subset, kind, path)
            except plots.PlotError:
                continue
            out.append((caption, path.read_bytes()))
    return out


def _run_section(run: RunResult, command: str) -> str:
    env = run.environment
    env_rows = [[k, json.dumps(v) if isinstance(v, (list, dict)) else str(v)] for k, v in env.items()]
    settings_rows = [[k, json.dumps(v)] for k, v in run.settings.items() if k != "grid"]
    header, rows = tables.plain_rows(run.cells)
    parts = [f"<h2>Run {run.run_id}: {html.escape(run.workload.name)} ({html.escape(run.options.mode)}) — "
             f"{html.escape(run.status)}</h2>",
             f"<p><code>{html.escape(command)}</code></p>",
             _table(header, rows)]
    parts += [f'<div class="warn">⚠ {html.escape(w)}</div>' for w in run.warnings]
    for c in run.cells:
        if c.mode == "squeeze" and c.ok:
            hist = [[str(h["concurrency"]), f"{h['hops_per_s']:,.0f}", f"{h['sd']:,.0f}", str(h["samples"])]
                    for h in c.extra.get("history", [])]
            parts.append(f"<h3>squeeze: {html.escape(c.label)} — peak at {c.extra.get('peak_concurrency')}</h3>")
            parts.append(_table(["concurrency", "hops/s", "sd", "samples"], hist))
    for title, png in _plots_for(run):
        data = base64.b64encode(png).decode()
        parts.append(f'<figure><img alt="{html.escape(title)}" src="data:image/png;base64,{data}">'
                     f"<figcaption>{html.escape(title)}</figcaption></figure>")
    parts.append("<details><summary>Environment and settings</summary>" + _table(["fact", "value"], env_rows) +
                 _table(["setting", "value"], settings_rows) + "</details>")
    return "\n".join(parts)


def render(runs: list[tuple[RunResult, str]]) -> str:
    sections = "\n<hr>\n".join(_run_section(r, cmd) for r, cmd in runs)
    return (f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>ringbench report</title>"
            f"<style>{_STYLE}</style></head><body><h1>ringbench report</h1>"
            "<p>Medians over repeats; 95 % intervals by bootstrap; Rel % is throughput against the fastest row; "
            "significant = the medians' intervals do not overlap. Every count was verified by its driver.</p>"
            f"{sections}</body></html>")
