"""Running cells: one (runtime, workload, parameters, cores) each, in one of three modes.

- timed: R repeats, by default each in a fresh driver process (like a fresh VM, pyperf's
  way); `in_process` runs all repeats in one process (JIT and caches warm).
- continuous: the ring runs without end; the driver reports its running hop count every
  sample period (erlperf's sampling); the first sample is a warm-up and is not counted.
- squeeze: continuous runs with 1, 2, 3… tokens until throughput stops growing.

Every cell is stored as soon as it finishes, so an interruption loses only the cell under way.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Callable

from . import limits, modes
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
    """Every setting of a measurement; stored with the run, defaults filled in."""
    mode: str = "timed"             # timed | continuous | squeeze
    repeat: int = 3                 # timed: measured repeats per cell
    warmup: int = 1                 # timed: unreported iterations first, in each driver process
    in_process: bool = False        # timed: all repeats in one driver process
    timeout: float | None = None    # seconds per driver process; None: derived from the size
    samples: int = 3                # continuous: counted samples (after one warm-up sample)
    sample_ms: int = 1000           # continuous: sample period
    cv: float | None = None         # continuous: sample until the last `samples` have CV below this
    max_samples: int = 30           # continuous with cv: give up after this many samples
    squeeze_min: int = 1
    squeeze_max: int = 64
    threshold: int = 3              # squeeze: steps that must fall short of the peak to stop
    runtime_stats: bool = False     # ask drivers for runtime statistics records

    @property
    def isolation(self) -> str:
        return "in-process" if self.in_process or self.mode != "timed" else "process"


@dataclass
class Outcome:
    spec: CellSpec
    status: str                     # ok, failed, refused, timeout
    reason: str | None = None
    records: list[dict] = field(default_factory=list)   # timed: result records (with "process")
    samples: list[dict] = field(default_factory=list)   # continuous/squeeze: sample records (with "process", "tokens")
    extra: dict = field(default_factory=dict)           # mode details: convergence, squeeze history
    version: str | None = None
    stderr_tail: str = ""


def plan(drivers: list[Driver], workload: Workload, grid: list[dict], cores: list[str]) -> list[CellSpec]:
    return [CellSpec(d, workload, p, c) for p in grid for d in drivers for c in cores]


def refusal(cell: CellSpec) -> str | None:
    """Why this cell cannot fit this machine, checked before launch; None if it can.

    (A workload the runtime cannot serve, such as selective receive, is the driver's to refuse:
    it answers `unsupported` with its own reason, stored as a refused cell.)"""
    return limits.check(cell.driver, cell.workload.to_driver(cell.params).get("n", 2))


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


def timeout_for(spec: CellSpec, iterations: int, opts: Options) -> float:
    if opts.timeout:
        return opts.timeout
    p = spec.workload.to_driver(spec.params)
    per_iteration = spec.workload.expected(p) * _TIMEOUT_PER_HOP_S + p.get("n", 2) * _TIMEOUT_PER_PROCESS_S
    return _TIMEOUT_BASE_S + iterations * per_iteration


def _common_args(spec: CellSpec, p: dict, opts: Options) -> list[str]:
    return ["run", spec.workload.verb, *(f"{k}={v}" for k, v in p.items()),
            f"cores={cores_value(spec.cores)}", *(["stats=1"] if opts.runtime_stats else [])]


def _timed(spec: CellSpec, opts: Options) -> Outcome:
    w = spec.workload
    p = w.to_driver(spec.params)
    want = Expectation(w.verb, p, w.expected(p), w.hops(p))
    processes = 1 if opts.in_process else opts.repeat
    per_process = opts.repeat if opts.in_process else 1
    args = _common_args(spec, p, opts) + [f"repeats={per_process}", f"warmup={opts.warmup}"]
    records: list[dict] = []
    for proc_no in range(1, processes + 1):
        launch = run_driver(spec.driver, args, cores=spec.cores, n=p.get("n", 2),
                            timeout=timeout_for(spec, opts.warmup + per_process, opts))
        got = []
        for rec in launch.records:
            if rec["type"] == "result":
                got.append({**check_result(rec, want), "process": proc_no})
            elif rec["type"] == "stats" and got:
                got[-1]["runtime_stats"] = {k: v for k, v in rec.items() if k != "type"}
        if len(got) != per_process:
            raise DriverFailed("garbled", f"asked for {per_process} result record(s), got {len(got)}",
                               launch.stderr_tail)
        records += got
    return Outcome(spec, "ok", records=records)


def _sample_run(spec: CellSpec, tokens: int, opts: Options, step: int) -> tuple[list[dict], bool]:
    """One continuous driver process; returns its sample records and whether --cv converged."""
    p = {**spec.workload.to_driver(spec.params), "tokens": tokens}
    budget = (opts.max_samples if opts.cv else opts.samples) + 1  # +1: the warm-up sample
    args = _common_args(spec, p, opts) + [f"sample_ms={opts.sample_ms}", f"samples={budget}"]
    samples: list[dict] = []
    converged = False

    def seen(rec: dict) -> bool:
        nonlocal converged
        if rec["type"] != "sample":
            return False
        samples.append({**rec, "process": step, "tokens": tokens})
        if opts.cv is not None:
            rates = modes.rates(samples)
            converged = len(rates) >= opts.samples and modes.converged(rates[-opts.samples:], opts.cv)
            return converged
        return False

    timeout = opts.timeout or _TIMEOUT_BASE_S + budget * opts.sample_ms / 1e3 * 2 + p["n"] * _TIMEOUT_PER_PROCESS_S
    run_driver(spec.driver, args, cores=spec.cores, n=p["n"], timeout=timeout, on_record=seen)
    modes.check_samples(samples, p["n"], budget if not converged else len(samples))
    return samples, converged


def _continuous(spec: CellSpec, opts: Options) -> Outcome:
    samples, converged = _sample_run(spec, spec.params.get("tokens", 1), opts, 1)
    extra = modes.describe_samples(samples)
    if opts.cv is not None:
        extra["cv_target"] = opts.cv
        extra["converged"] = converged
    return Outcome(spec, "ok", samples=samples, extra=extra)


def _squeeze(spec: CellSpec, opts: Options) -> Outcome:
    n = spec.params["n"]
    search = modes.Squeeze(opts.threshold)
    samples: list[dict] = []
    for step, k in enumerate(range(opts.squeeze_min, min(opts.squeeze_max, n) + 1), 1):
        got, _ = _sample_run(spec, k, opts, step)
        samples += got
        if search.add(k, modes.rates(got)):
            break
    return Outcome(spec, "ok", samples=samples, extra=search.report())


def run_cell(spec: CellSpec, opts: Options) -> Outcome:
    """Measure one cell; never raises DriverFailed (a failure is an Outcome)."""
    try:
        version = describe_cached(spec.driver).get("version")
        out = {"timed": _timed, "continuous": _continuous, "squeeze": _squeeze}[opts.mode](spec, opts)
    except DriverFailed as e:
        status = {"timeout": "timeout", "limit": "refused", "unsupported": "refused",
                  "unknown_workload": "refused"}.get(e.kind, "failed")
        return Outcome(spec, status, str(e), stderr_tail=e.stderr_tail)
    out.version = version
    return out


def store_outcome(store: Store, run_id: int, out: Outcome, opts: Options) -> int:
    spec = out.spec
    argv, overrides, _ = settings(spec.driver, spec.cores, spec.workload.to_driver(spec.params).get("n", 2))
    reason = out.reason and out.reason + (f"\n{out.stderr_tail}" if out.stderr_tail else "")
    cell = Cell(runtime=spec.driver.name, workload=spec.workload.name, params=spec.params, cores=spec.cores,
                mode=opts.mode, isolation=opts.isolation, warmup=opts.warmup, status=out.status, reason=reason,
                runtime_version=out.version, extra=out.extra,
                runtime_settings={"argv": argv, "env": overrides, "cores": spec.cores,
                                  "schedulers": cores_value(spec.cores),
                                  "pinned_cpu": max(os.sched_getaffinity(0)) if spec.cores != "all" else None})
    results = [(r["process"], r.get("iteration", i), r) for i, r in enumerate(out.records, 1)]
    return store.add_cell(run_id, cell, results, out.samples)


def run_cells(store: Store, run_id: int, cells: list[CellSpec], opts: Options,
              on_start: Callable[[CellSpec], None] = lambda c: None,
              on_done: Callable[[Outcome], None] = lambda o: None,
              skip: Callable[[CellSpec], bool] = lambda c: False) -> list[Outcome]:
    """Run and store each cell as soon as it finishes; `skip` leaves out cells already stored."""
    outcomes = []
    for spec in cells:
        if skip(spec):
            continue
        on_start(spec)
        why = refusal(spec)
        out = Outcome(spec, "refused", why) if why else run_cell(spec, opts)
        store_outcome(store, run_id, out, opts)
        outcomes.append(out)
        on_done(out)
    return outcomes


def options_for(mode: str, **kw) -> Options:
    return replace(Options(mode=mode), **{k: v for k, v in kw.items() if v is not None})
