"""Running cells: one (runtime, workload, parameters, cores) each, R repeats, stored when finished.

By default every repeat runs in a fresh driver process (like a fresh VM, pyperf's
way); `in_process` runs all repeats in one process (JIT and caches warm).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from . import limits
from .drivers import Driver
from .launch import cores_value, describe, run_driver, settings
from .protocol import DriverFailed, Expectation, check_result
from .store import Cell, Store
from .workloads import Workload

# Generous per-hop and per-spawn allowances for the default timeout: a guard against hangs,
# not an expectation (the slowest driver here, Python threads, is ~20 µs per hop).
_TIMEOUT_BASE_S = 60.0
_TIMEOUT_PER_HOP_S = 50e-6
_TIMEOUT_PER_PROCESS_S = 500e-6


@dataclass(frozen=True)
class CellSpec:
    driver: Driver
    workload: Workload
    params: dict
    cores: str  # "1" or "all"

    @property
    def label(self) -> str:
        ps = " ".join(f"{k}={v:,}" for k, v in self.params.items())
        return f"{self.driver.name} [{self.cores} core{'s' if self.cores != '1' else ''}] {self.workload.name} {ps}"


@dataclass(frozen=True)
class Options:
    repeat: int = 3
    warmup: int = 1
    in_process: bool = False
    timeout: float | None = None  # seconds per driver process; None: derived from the size

    @property
    def isolation(self) -> str:
        return "in-process" if self.in_process else "process"


@dataclass
class Outcome:
    spec: CellSpec
    status: str                     # ok, failed, refused, timeout, interrupted
    reason: str | None = None
    records: list[dict] = field(default_factory=list)
    version: str | None = None
    stderr_tail: str = ""


def plan(drivers: list[Driver], workload: Workload, grid: list[dict], cores: list[str]) -> list[CellSpec]:
    return [CellSpec(d, workload, p, c) for p in grid for d in drivers for c in cores]


def refusals(cells: list[CellSpec]) -> list[str]:
    """Reasons, one line each, why some cells cannot run here (checked before anything runs)."""
    out = []
    for cell in cells:
        if cell.workload.verb not in _workloads_of(cell.driver):
            out.append(f"{cell.driver.name} does not implement workload {cell.workload.name!r}")
            continue
        why = limits.check(cell.driver, cell.params.get("n", 2))
        if why and why not in out:
            out.append(why)
    return out


_describe_cache: dict[str, dict] = {}


def describe_cached(d: Driver) -> dict:
    if d.name not in _describe_cache:
        _describe_cache[d.name] = describe(d)
    return _describe_cache[d.name]


def _workloads_of(d: Driver) -> list[str]:
    try:
        return describe_cached(d).get("workloads", [])
    except DriverFailed:
        return []


def timeout_for(spec: CellSpec, iterations: int, opts: Options) -> float:
    if opts.timeout:
        return opts.timeout
    p = spec.workload.to_driver(spec.params)
    per_iteration = spec.workload.expected(p) * _TIMEOUT_PER_HOP_S + p.get("n", 2) * _TIMEOUT_PER_PROCESS_S
    return _TIMEOUT_BASE_S + iterations * per_iteration


def run_cell(spec: CellSpec, opts: Options) -> Outcome:
    """Measure one cell; never raises DriverFailed (a failure is an Outcome)."""
    d, w = spec.driver, spec.workload
    p = w.to_driver(spec.params)
    want = Expectation(w.verb, p, w.expected(p), w.hops(p))
    processes = 1 if opts.in_process else opts.repeat
    per_process = opts.repeat if opts.in_process else 1
    args = ["run", w.verb, *(f"{k}={v}" for k, v in p.items()),
            f"repeats={per_process}", f"warmup={opts.warmup}", f"cores={cores_value(spec.cores)}"]
    records: list[dict] = []
    try:
        version = describe_cached(d).get("version")
        for proc_no in range(1, processes + 1):
            launch = run_driver(d, args, cores=spec.cores, n=p.get("n", 2),
                                timeout=timeout_for(spec, opts.warmup + per_process, opts))
            results = [r for r in launch.records if r["type"] == "result"]
            if len(results) != per_process:
                raise DriverFailed("garbled", f"asked for {per_process} result record(s), got {len(results)}",
                                   launch.stderr_tail)
            for rec in results:
                records.append({**check_result(rec, want), "process": proc_no})
    except DriverFailed as e:
        status = {"timeout": "timeout", "limit": "refused", "unsupported": "refused"}.get(e.kind, "failed")
        return Outcome(spec, status, str(e), [], None, e.stderr_tail)
    return Outcome(spec, "ok", None, records, version)


def store_outcome(store: Store, run_id: int, out: Outcome, opts: Options) -> int:
    spec = out.spec
    argv, overrides, _ = settings(spec.driver, spec.cores, spec.params.get("n", 2))
    cell = Cell(runtime=spec.driver.name, workload=spec.workload.name, params=spec.params, cores=spec.cores,
                isolation=opts.isolation, warmup=opts.warmup, status=out.status,
                reason=(out.reason + (f"\n{out.stderr_tail}" if out.stderr_tail else "")) if out.reason else None,
                runtime_version=out.version,
                runtime_settings={"argv": argv, "env": overrides, "cores": spec.cores,
                                  "schedulers": cores_value(spec.cores)})
    results = [(r["process"], r.get("iteration", i), r) for i, r in enumerate(out.records, 1)]
    return store.add_cell(run_id, cell, results)


def run_cells(store: Store, run_id: int, cells: list[CellSpec], opts: Options,
              on_start: Callable[[CellSpec], None] = lambda c: None,
              on_done: Callable[[Outcome], None] = lambda o: None) -> list[Outcome]:
    """Run and store each cell as soon as it finishes, so an interruption loses only the cell under way."""
    outcomes = []
    for spec in cells:
        on_start(spec)
        out = run_cell(spec, opts)
        store_outcome(store, run_id, out, opts)
        outcomes.append(out)
        on_done(out)
    return outcomes
