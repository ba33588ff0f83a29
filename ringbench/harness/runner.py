"""Running cells: planning them, refusing what cannot fit, measuring each in its mode, storing each at once.

Every cell is stored as soon as it finishes (one transaction), so an interruption loses only the
cell under way — including any repeats of that cell already finished: a cell is all or nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from ..catalogue.drivers import Driver
from ..catalogue.workloads import Workload
from ..results.store import Cell, Store
from . import limits
from .launch import cores_value, describe, pin_cpu, settings
from .modes import Options, Tick
from .protocol import DriverFailed
from .spec import CellSpec, Outcome

# How a driver's refusal is stored: a request it cannot honestly serve is not applicable, not a failure.
_STATUS_OF_KIND = {"timeout": "timeout", "limit": "refused", "unsupported": "refused", "unknown_workload": "refused"}


def plan(drivers: list[Driver], workload: Workload, grid: list[dict], cores: list[str]) -> list[CellSpec]:
    return [CellSpec(d, workload, p, c) for p in grid for d in drivers for c in cores]


def refusal(cell: CellSpec) -> str | None:
    """Why this cell cannot fit this machine, checked before launch; None if it can.

    (A workload the runtime cannot serve, such as selective receive, is the driver's to refuse:
    it answers `unsupported` with its own reason, stored as a refused cell.)"""
    return limits.check(cell.driver, cell.processes)


def refusals(cells: list[CellSpec]) -> list[str]:
    return list(dict.fromkeys(r for r in map(refusal, cells) if r))


_describe_cache: dict[str, dict] = {}


def describe_cached(d: Driver) -> dict:
    key = f"{d.folder}:{d.name}"
    if key not in _describe_cache:
        _describe_cache[key] = describe(d)
    return _describe_cache[key]


def workloads_of(d: Driver) -> list[str]:
    try:
        return describe_cached(d).get("workloads", [])
    except DriverFailed:
        return []


def run_cell(spec: CellSpec, opts: Options, tick: Tick = lambda text: None) -> Outcome:
    """Measure one cell; never raises DriverFailed (a failure is an Outcome)."""
    try:
        version = describe_cached(spec.driver).get("version")
        out = opts.mode_object.run(spec, opts, tick)
    except DriverFailed as e:
        return Outcome(spec, _STATUS_OF_KIND.get(e.kind, "failed"), str(e), stderr_tail=e.stderr_tail)
    out.version = version
    return out


def cell_settings(spec: CellSpec) -> dict:
    """Every setting of the driver process that can move a result, stored with the cell."""
    argv, overrides, _ = settings(spec.driver, spec.cores, spec.processes)
    return {
        "argv": argv,
        "env": overrides,
        "cores": spec.cores,
        "schedulers": cores_value(spec.cores),
        "pinned_cpu": pin_cpu() if spec.cores != "all" else None,
        "hop": spec.driver.hop,
        "mailbox": spec.driver.mailbox,
    }


def store_outcome(store: Store, run_id: int, out: Outcome, opts: Options) -> int:
    spec = out.spec
    reason = out.reason and out.reason + (f"\n{out.stderr_tail}" if out.stderr_tail else "")
    cell = Cell(
        runtime=spec.driver.name,
        workload=spec.workload.name,
        params=spec.params,
        cores=spec.cores,
        mode=opts.mode,
        isolation=opts.isolation,
        warmup=opts.warmup,
        status=out.status,
        reason=reason,
        runtime_version=out.version,
        extra=out.extra,
        runtime_settings=cell_settings(spec),
    )
    results = [(r["process"], r.get("iteration", i), r) for i, r in enumerate(out.records, 1)]
    return store.add_cell(run_id, cell, results, out.samples)


def run_cells(
    store: Store,
    run_id: int,
    cells: list[CellSpec],
    opts: Options,
    on_start: Callable[[CellSpec], None] = lambda c: None,
    on_done: Callable[[Outcome], None] = lambda o: None,
    on_tick: Callable[[CellSpec, str], None] = lambda c, text: None,
) -> list[Outcome]:
    """Run and store each cell as soon as it finishes."""
    outcomes = []
    for spec in cells:
        on_start(spec)
        why = refusal(spec)
        out = Outcome(spec, "refused", why) if why else run_cell(spec, opts, partial(on_tick, spec))
        store_outcome(store, run_id, out, opts)
        outcomes.append(out)
        on_done(out)
    return outcomes
