"""Export a stored run as JSON, CSV or Markdown, and import a JSON export back into a store.

The JSON export is the full record: command, settings (the Rel % baseline among them), environment,
warnings, and every cell with its raw driver records and samples; importing it into any store
reproduces the same figures, and `show` of the import prints what `run` printed.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from ..results import noise
from ..results.model import Run
from ..results.store import Cell, Store
from . import tables

EXPORT_FORMAT = 1


def to_json(run: Run) -> str:
    doc = {
        "ringbench_export": EXPORT_FORMAT,
        "run_id": run.run_id,
        "status": run.status,
        "command": run.command,
        "baseline": run.baseline,
        "settings": run.settings,
        "environment": run.environment,
        "warnings": run.warnings,
        "cells": [
            {
                "runtime": c.runtime,
                "workload": c.workload.name,
                "params": c.params,
                "cores": c.cores,
                "mode": c.mode,
                "status": c.status,
                "reason": c.reason,
                "runtime_version": c.version,
                "extra": c.extra,
                "runtime_settings": c.settings,
                "records": c.records,
                "samples": c.samples,
            }
            for c in run.cells
        ],
    }
    return json.dumps(doc, indent=1, sort_keys=True)


def to_csv(run: Run) -> str:
    """One line per repeat (timed) or per sample (continuous), with the cell's identity on each."""
    buf = io.StringIO()
    fields = [
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
        "iteration",
        "count",
        "ready",
        "setup_ns",
        "run_ns",
        "setup_cpu_ns",
        "run_cpu_ns",
        "rss_before",
        "rss_after",
        "kernel_stack_before",
        "kernel_stack_after",
        "tokens",
        "seq",
        "elapsed_ns",
    ]
    w = csv.DictWriter(buf, fieldnames=fields, extrasaction="ignore")
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
        for rec in c.records or c.samples or [{}]:
            w.writerow({**base, **rec})
    return buf.getvalue()


def to_markdown(run: Run) -> str:
    env = run.environment
    head = (
        f"### ringbench run {run.run_id}: {run.workload.name} ({run.options.mode})\n\n"
        f"{env.get('cpu_model')} · {env.get('usable_cpus')} CPU(s) · Linux {env.get('kernel')} · "
        f"{env.get('date')} · ringbench {env.get('git_revision')}\n\n`{run.command}`\n\n"
    )
    body = tables.markdown(run.cells, run.baseline)
    for c in run.cells:
        if c.mode == "squeeze" and c.ok:
            body += (
                f"\nSqueeze {c.label}: peak at {c.extra.get('peak_concurrency')} tokens; "
                f"{c.extra.get('stopped_because')}.\n\n| tokens | hops/s (mean) | sd | samples |\n"
                "|---:|---:|---:|---:|\n"
            )
            body += "".join(
                f"| {h['concurrency']} | {h['hops_per_s']:,.0f} | {h['sd']:,.0f} | {h['samples']} |\n"
                for h in c.extra.get("history", [])
            )
    notes = "".join(f"\n> ⚠ {w}\n" for w in noise.grouped(run.warnings, most=None))
    return head + body + notes


def read_json(path: Path) -> dict:
    """A JSON export's document, or ValueError saying why it is not one."""
    try:
        doc = json.loads(Path(path).read_text())
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"not JSON ({e})") from None
    if not isinstance(doc, dict) or doc.get("ringbench_export") != EXPORT_FORMAT:
        raise ValueError(f"not a ringbench JSON export (format {EXPORT_FORMAT})")
    for key in ("settings", "environment", "cells", "status", "warnings"):
        if key not in doc:
            raise ValueError(f"the export has no {key!r}")
    return doc


def import_doc(doc: dict, store: Store, path: Path) -> int:
    """Store an exported run as a new run; returns its id."""
    settings = doc["settings"]
    run_id = store.begin_run(
        doc.get("command") or f"import {path}",
        settings,
        doc["environment"],
        planned=len(doc["cells"]),
        baseline=doc.get("baseline") or settings.get("baseline"),
    )
    for c in doc["cells"]:
        cell = Cell(
            runtime=c["runtime"],
            workload=c["workload"],
            params=c["params"],
            cores=c["cores"],
            mode=c["mode"],
            isolation=settings.get("isolation", "process"),
            warmup=settings.get("warmup", 0),
            status=c["status"],
            reason=c["reason"],
            runtime_version=c["runtime_version"],
            extra=c["extra"],
            runtime_settings=c.get("runtime_settings"),
        )
        results = [(r.get("process", 1), r.get("iteration", i), r) for i, r in enumerate(c["records"], 1)]
        store.add_cell(run_id, cell, results, c["samples"])
    store.finish_run(run_id, doc["status"], doc["warnings"])
    return run_id
