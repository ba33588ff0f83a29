"""Export a stored run as JSON, CSV or Markdown, and import a JSON export back into a store.

The JSON export is the full record: settings, environment, warnings, and every cell with its raw
driver records and samples; importing it into any store reproduces the same figures.
"""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from . import tables
from .api import RunResult
from .store import Cell, Store

EXPORT_FORMAT = 1


def to_json(run: RunResult, command: str = "") -> str:
    doc = {"ringbench_export": EXPORT_FORMAT, "run_id": run.run_id, "status": run.status, "command": command,
           "settings": run.settings, "environment": run.environment, "warnings": run.warnings,
           "cells": [{"runtime": c.runtime, "workload": c.workload.name, "params": c.params, "cores": c.cores,
                      "mode": c.mode, "status": c.status, "reason": c.reason, "runtime_version": c.version,
                      "extra": c.extra, "runtime_settings": c.runtime_settings, "records": c.records, "samples": c.samples} for c in run.cells]}
    return json.dumps(doc, indent=1, sort_keys=True)


def to_csv(run: RunResult) -> str:
    """One line per repeat (timed) or per sample (continuous), with the cell's identity on each."""
    buf = io.StringIO()
    fields = ["run_id", "runtime", "workload", "cores", "mode", "status", "params", "process", "iteration",
              "count", "setup_ns", "run_ns", "setup_cpu_ns", "run_cpu_ns", "rss_before", "rss_after",
              "tokens", "seq", "elapsed_ns"]
    w = csv.DictWriter(buf, fieldnames=fields, extrasaction="ignore")
    w.writeheader()
    for c in run.cells:
        base = {"run_id": run.run_id, "runtime": c.runtime, "workload": c.workload.name, "cores": c.cores,
                "mode": c.mode, "status": c.status, "params": json.dumps(c.params, sort_keys=True)}
        for rec in c.records or c.samples or [{}]:
            w.writerow({**base, **rec})
    return buf.getvalue()


def to_markdown(run: RunResult) -> str:
    env = run.environment
    head = (f"### ringbench run {run.run_id}: {run.workload.name} ({run.options.mode})\n\n"
            f"{env.get('cpu_model')} · {env.get('usable_cpus')} CPU(s) · Linux {env.get('kernel')} · "
            f"{env.get('date')} · ringbench {env.get('git_revision')}\n\n")
    body = tables.markdown(run.cells)
    for c in run.cells:
        if c.mode == "squeeze" and c.ok:
            body += (f"\nSqueeze {c.label}: peak at {c.extra.get('peak_concurrency')} tokens; "
                     f"{c.extra.get('stopped_because')}.\n\n| tokens | hops/s (mean) | sd | samples |\n|---:|---:|---:|---:|\n")
            body += "".join(f"| {h['concurrency']} | {h['hops_per_s']:,.0f} | {h['sd']:,.0f} | {h['samples']} |\n"
                            for h in c.extra.get("history", []))
    notes = "".join(f"\n> ⚠ {w}\n" for w in run.warnings)
    return head + body + notes


def import_json(path: Path, store: Store) -> int:
    """Store an exported run as a new run; returns its id."""
    doc = json.loads(Path(path).read_text())
    if doc.get("ringbench_export") != EXPORT_FORMAT:
        raise ValueError(f"{path} is not a ringbench JSON export (format {EXPORT_FORMAT})")
    run_id = store.begin_run(doc.get("command") or f"import {path}", doc["settings"], doc["environment"])
    for c in doc["cells"]:
        cell = Cell(runtime=c["runtime"], workload=c["workload"], params=c["params"], cores=c["cores"],
                    mode=c["mode"], isolation=doc["settings"].get("isolation", "process"),
                    warmup=doc["settings"].get("warmup", 0), status=c["status"], reason=c["reason"],
                    runtime_version=c["runtime_version"], extra=c["extra"],
                    runtime_settings=c.get("runtime_settings"))
        results = [(r.get("process", 1), r.get("iteration", i), r) for i, r in enumerate(c["records"], 1)]
        store.add_cell(run_id, cell, results, c["samples"])
    store.finish_run(run_id, doc["status"], doc["warnings"])
    return run_id
