"""The one JSON shape of a run: what `run --json`, `show --json` and `export --format json` print and
what `import` reads back.

    {"ringbench_export": 2, "run_id": 7, "status": "complete", "command": "...", "baseline": null,
     "started_at": "...", "finished_at": "...", "planned": 4, "settings": {...}, "environment": {...},
     "warnings": [{"kind": "noisy", "what": "...", "advice": "...", "cell": "...", "detail": "..."}],
     "cells": [{"runtime": "go/stock", "workload": "ring", "params": {...}, "cores": "1", "mode": "timed",
                "status": "ok", "reason": null, "runtime_version": "go1.26", "runtime_settings": {...},
                "extra": {...}, "records": [...], "samples": [...], "summary": {...}}]}

`warnings` and each cell's `summary` are derived (from the records, as every figure is) and ignored
on import. Format 1 (before warnings were derived) is read too.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..catalogue import workloads
from . import relative
from .model import RUN_STATUSES, Cell, Run
from .modes import MODES, Options

EXPORT_FORMAT = 2
READABLE_FORMATS = (1, 2)
CELL_STATUSES = ("ok", "failed", "refused", "timeout", "interrupted")


def run_to_json(run: Run, indent: int | None = 1) -> str:
    """The run as the one JSON document (`run --json`, `show --json`, `export --format json`)."""
    return json.dumps(run_to_doc(run), indent=indent, sort_keys=True, default=str)


def run_to_doc(run: Run) -> dict:
    rel = relative.relatives(run.cells, run.baseline)
    return {
        "ringbench_export": EXPORT_FORMAT,
        "run_id": run.run_id,
        "status": run.status,
        "command": run.command,
        "baseline": run.baseline,
        "started_at": run.started_at,
        "finished_at": run.finished_at,
        "planned": run.planned,
        "settings": run.settings,
        "environment": run.environment,
        "warnings": [
            {"kind": w.kind, "what": w.what, "advice": w.advice, "cell": w.cell, "detail": w.detail}
            for w in run.warnings
        ],
        "cells": [_cell_doc(c, rel.get(i)) for i, c in enumerate(run.cells)],
    }


def _cell_doc(c: Cell, r: relative.Relative | None) -> dict:
    doc: dict = {
        "runtime": c.runtime,
        "workload": c.workload.name,
        "params": c.params,
        "used_params": c.used_params,
        "cores": c.cores,
        "mode": c.mode,
        "status": c.status,
        "reason": c.reason,
        "runtime_version": c.version,
        "hop": c.hop,
        "mailbox": c.mailbox,
        "runtime_settings": c.settings,
        "extra": c.extra,
        "records": c.records,
        "samples": c.samples,
    }
    if c.ok:
        summary: dict[str, object] = {k: vars(v) for k, v in c.summaries().items()}
        vals = c.values()
        if len(vals) > 1:
            summary["headline_ci95"] = c.interval()
        fig, why = c.memory_per_process()
        summary["bytes_per_process"] = fig if fig is not None else why
        if r is not None:
            summary["relative"] = vars(r)
        doc["summary"] = summary
    return doc


class DocumentError(ValueError):
    """The file is not a ringbench run document, or a part of it is broken (says which)."""


def run_from_doc(doc: object, db: Path, run_id: int = 0) -> Run:
    """The run a document holds, every part checked first: a broken record is a DocumentError naming it,
    never a half-read run."""
    if not isinstance(doc, dict) or doc.get("ringbench_export") not in READABLE_FORMATS:
        raise DocumentError(f"not a ringbench JSON export (format {' or '.join(map(str, READABLE_FORMATS))})")
    for key, kind in (("settings", dict), ("environment", dict), ("cells", list), ("status", str)):
        if not isinstance(doc.get(key), kind):
            raise DocumentError(f"the export has no {key!r} ({kind.__name__})")
    if doc["status"] not in RUN_STATUSES:
        raise DocumentError(f"the export's status {doc['status']!r} is not a run status")
    settings = doc["settings"]
    try:
        workload = workloads.get(settings.get("workload", ""))
        options = Options.from_settings(settings)
    except (workloads.ParamError, TypeError) as e:
        raise DocumentError(f"the export's settings are broken: {e}") from None
    cells = [_cell_from_doc(i, c) for i, c in enumerate(doc["cells"], 1)]
    return Run(
        run_id,
        doc["status"],
        workload,
        options,
        settings,
        doc["environment"],
        cells,
        db,
        str(doc.get("command") or ""),
        doc.get("baseline") or settings.get("baseline"),
        str(doc.get("started_at") or doc["environment"].get("date") or ""),
        doc.get("finished_at"),
        doc.get("planned") if isinstance(doc.get("planned"), int) else len(cells),
    )


_RESULT_INTS = ("count", "setup_ns", "run_ns", "setup_cpu_ns", "run_cpu_ns", "rss_before", "rss_after")
_SAMPLE_INTS = ("process", "tokens", "seq", "elapsed_ns", "count")


def _cell_from_doc(i: int, c: object) -> Cell:
    where = f"cell {i}"
    if not isinstance(c, dict):
        raise DocumentError(f"{where} is not an object")
    for key, kind in (("runtime", str), ("workload", str), ("params", dict), ("cores", str), ("mode", str),
                      ("status", str), ("records", list), ("samples", list)):  # fmt: skip
        if not isinstance(c.get(key), kind):
            raise DocumentError(f"{where} has no {key!r} ({kind.__name__})")
    where = f"cell {i} ({c['runtime']} [{c['cores']}])"
    if c["status"] not in CELL_STATUSES or c["mode"] not in MODES:
        raise DocumentError(f"{where}: status {c['status']!r} or mode {c['mode']!r} is not one ringbench writes")
    try:
        w = workloads.get(c["workload"])
    except workloads.ParamError as e:
        raise DocumentError(f"{where}: {e}") from None
    for j, r in enumerate(c["records"], 1):
        missing = [k for k in _RESULT_INTS if not isinstance(r, dict) or not _is_int(r.get(k))]
        if missing:
            raise DocumentError(f"{where}, record {j}: {', '.join(missing)} missing or not an integer")
    for j, s in enumerate(c["samples"], 1):
        missing = [k for k in _SAMPLE_INTS if not isinstance(s, dict) or not _is_int(s.get(k))]
        if missing:
            raise DocumentError(f"{where}, sample {j}: {', '.join(missing)} missing or not an integer")
    settings = c.get("runtime_settings") or {}
    extra = c.get("extra") or {}
    if not isinstance(settings, dict) or not isinstance(extra, dict):
        raise DocumentError(f"{where}: runtime_settings and extra must be objects")
    return Cell(
        c["runtime"],
        w,
        c["params"],
        c["cores"],
        c["mode"],
        c["status"],
        c.get("reason"),
        [{"process": 1, **r} for r in c["records"]],
        c["samples"],
        extra,
        c.get("runtime_version"),
        settings,
    )


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)
