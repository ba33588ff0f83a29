"""Exporting a run as text: one function per format, registered in EXPORTERS (which `ringbench export
--format` offers). Adding a format is one function here with `@exporter("name")`.

    json      the one JSON shape of a run (results.document): everything, re-importable
    csv       one line per repeat (timed), per sample (continuous) or per round (versus), the cell's identity on each
    markdown  the table with its notes, squeeze histories and warnings, ready for a blog post
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable

from ..results import noise
from ..results.document import run_to_json
from ..results.model import Run
from ..results.relative import ordered
from . import tables
from .text import printable

EXPORTERS: dict[str, Callable[[Run], str]] = {}


def exporter(name: str) -> Callable[[Callable[[Run], str]], Callable[[Run], str]]:
    def register(f: Callable[[Run], str]) -> Callable[[Run], str]:
        EXPORTERS[name] = f
        return f

    return register


@exporter("json")
def to_json(run: Run) -> str:
    return run_to_json(run)


_CSV_FIELDS = [
    "run_id",
    "runtime",
    "hop",
    "workload",
    "cores",
    "mode",
    "status",
    "params",
    "runtime_version",
    "process",
    "launch",
    "iteration",
    "warmups",
    "settled",  # false: the process reached the warm-up cap or moved after its window (tables mark "~")
    "count",
    "ready",
    "setup_ns",
    "run_ns",
    "setup_cpu_ns",
    "run_cpu_ns",
    "rss_before",
    "rss_after",
    "rss_peak",
    "threads_before",
    "threads_after",
    "tokens",
    "seq",
    "elapsed_ns",
    # perf across nodes (perf --nodes): a line per node's sample or timed sample, after the cell's (their sum)
    "node",
    # versus: one line per round of one side, with the whole-process wall times its figure comes from
    "side",
    "round",
    "m1",
    "wall_m1_ns",
    "wall_m2_ns",
    "launch_m1",
    "launch_m2",
]


@exporter("csv")
def to_csv(run: Run) -> str:
    """One line per repeat (timed), per sample (continuous) or per round (versus), the cell's identity on each."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=_CSV_FIELDS, extrasaction="ignore")
    w.writeheader()
    for c in run.cells:
        base = {
            "run_id": run.run_id,
            "runtime": c.runtime,
            "hop": c.hop,
            "workload": c.workload.name,
            "cores": c.cores,
            "mode": c.mode,
            "status": c.status,
            "runtime_version": c.version,
            "params": json.dumps(c.used_params, sort_keys=True),
        }
        if c.workload.subject and "nodes" in c.params:  # perf on K nodes: K in the identity, each node's lines
            base["params"] = json.dumps({**c.used_params, "nodes": c.params["nodes"]}, sort_keys=True)
        for rec in c.records or c.samples or [{}]:
            w.writerow(_printable_row({**base, **rec}))
        for rec in (c.extra.get("node_records") or c.extra.get("node_samples") or []) if c.ok else []:
            w.writerow(_printable_row({**base, **rec}))
    return buf.getvalue()


def _printable_row(row: dict) -> dict:
    """Each stored text of a CSV row with its control characters escaped (the rows' own line ends stay)."""
    return {k: printable(v) if isinstance(v, str) else v for k, v in row.items()}


def _md_table(head: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(h.replace("\n", " ") for h in head) + " |", "|" + "|".join("---:" for _ in head) + "|"]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows]) + "\n"


def _markdown_nodes(run: Run) -> str:
    """Rings across nodes beside their in-node ring, and each continuous cell's cluster view."""
    out = ""
    cols, rows, notes = tables.nodes_rows(run.cells)
    if rows:
        out += "\nAcross nodes: ns per cross-node hop, against the in-node ring of this run.\n\n"
        out += _md_table([c.header for c in cols], rows) + "".join(f"\n{n}\n" for n in notes)
    for c in ordered(run.cells, run.baseline):
        head, view = tables.view_rows(c) if c.ok else ([], [])
        if view:
            out += f"\nCluster view, {c.label.strip()} (per node, over the counted samples):\n\n"
            out += _md_table(head, view)
    return out


@exporter("markdown")
def to_markdown(run: Run) -> str:
    env = run.environment
    head = (
        f"### ringbench run {run.run_id}: {run.workload.name} ({run.options.mode})\n\n"
        f"{env.get('cpu_model')} · {env.get('usable_cpus')} CPU(s) · Linux {env.get('kernel')} · "
        f"{env.get('date')} · ringbench {env.get('git_revision')}\n\n`{run.command}`\n\n"
    )
    body = tables.markdown(run.cells, run.baseline)
    for c in ordered(run.cells, run.baseline):
        if c.ok and c.extra.get("history"):
            cols, rows = tables.squeeze_rows(c)
            body += f"\nSqueeze {c.label}: peak at {c.extra.get('peak_concurrency')} tokens; "
            body += f"{c.extra.get('stopped_because')}.\n\n| " + " | ".join(cols[:4]) + " |\n|---:|---:|---:|---:|\n"
            body += "".join("| " + " | ".join(r[:4]) + " |\n" for r in rows)
    body += _markdown_nodes(run)
    notes = "".join(f"\n> ⚠ {w}\n" for w in noise.grouped(run.warnings, most=None))
    return printable(head + body + notes)  # no terminal escape from a stored text reaches a terminal
