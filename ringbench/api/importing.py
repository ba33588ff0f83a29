"""Importing a JSON export as a run, its records checked as a live run's are."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from ..catalogue import workloads
from ..harness.protocol import DriverFailed, Expectation, check_result, check_samples
from ..results import document
from ..results.model import Cell
from ..results.store import DEFAULT_DB, Store
from .errors import InputError


def import_run(path: Path | str, db: Path | str = DEFAULT_DB) -> int:
    """Import a JSON export as a new run (status 'imported'), all or nothing; returns its id. A file
    that is not a ringbench export, or one with a broken part, is an InputError naming the part."""
    try:
        doc = json.loads(Path(path).read_text())
    except UnicodeDecodeError as e:
        raise InputError(f"cannot import {path}: not text ({e.reason})") from None
    except json.JSONDecodeError as e:
        raise InputError(f"cannot import {path}: not JSON ({e})") from None
    try:
        run = document.run_from_doc(doc, Path(db))
    except document.DocumentError as e:
        raise InputError(f"cannot import {path}: {e}") from None
    for i, c in enumerate(run.cells, 1):
        try:
            _check_imported_cell(c)
        except DriverFailed as e:
            raise InputError(f"cannot import {path}: cell {i} ({c.label.strip()}): {e}; nothing imported") from None
    with Store(db) as store:
        return store.import_run(run)


def _check_imported_cell(c: Cell) -> None:
    """The record checks of a live run, on a cell read from an export (DriverFailed naming the record or
    sample): each result record against the workload's expectation as the harness builds it, each driver
    process's samples through check_samples. Only cells with a figure (status ok) are checked."""
    if c.status != "ok":
        return
    w = c.workload
    if w.name == workloads.PERF.name:
        _check_imported_perf(c)
        return
    if c.mode_object.two_sided:
        records = [r for r in c.records if c.settings.get("side") == "driver"]
    else:
        records = c.records
    if records:
        p = w.to_driver(c.used_params)
        want = Expectation(w.verb, p, w.expected(p), w.hops(p), w.ready(p) if w.ready else None, w.proves(p))
        for j, rec in enumerate(records, 1):
            _checked(f"record {j}", check_result, rec, want)
    for j, rec in enumerate(r for r in c.records if c.mode_object.two_sided):
        for f in ("wall_m1_ns", "wall_m2_ns"):
            if not isinstance(rec.get(f), int) or isinstance(rec.get(f), bool) or rec[f] <= 0:
                raise DriverFailed("absurd", f"record {j + 1}: {f} is {rec.get(f)!r}, not a positive integer")
    n = int(c.used_params.get("n", 1))
    for k, group in _sample_groups(c.samples).items():
        _checked(f"driver process {k}'s samples", check_samples, group, n, len(group))


def _check_imported_perf(c: Cell) -> None:
    """A perf cell: a timed sample is `loop` iterations on each node; sample counts and times never go back."""
    loop = c.params.get("loop")
    for j, rec in enumerate(c.records, 1):
        if isinstance(loop, int):
            want = Expectation(workloads.PERF.verb, {"loop": loop}, loop * int(c.params.get("nodes", 1)), 0)
            _checked(f"record {j}", check_result, rec, want)
    for k, group in _sample_groups(c.samples).items():
        for a, b in zip(group, group[1:], strict=False):
            if b["count"] < a["count"] or b["elapsed_ns"] < a["elapsed_ns"]:
                raise DriverFailed("absurd", f"process {k}'s samples went backwards: {a} then {b}")


def _sample_groups(samples: list[dict]) -> dict[object, list[dict]]:
    """Samples by the driver process (a squeeze step) and node that took them, in order."""
    groups: dict[object, list[dict]] = {}
    for s in samples:
        key = s.get("process") if s.get("node") is None else f"{s.get('process')}, node {s.get('node')}"
        groups.setdefault(key, []).append(s)
    return groups


def _checked(what: str, check: Callable[..., object], *args: object) -> None:
    try:
        check(*args)
    except DriverFailed as e:
        raise DriverFailed(e.kind, f"{what}: {e.message}") from None
