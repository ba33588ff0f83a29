"""The Python API: run any workload in any mode and get result objects back. The CLI is built on it.

Example (runnable after `make setup`):

    import ringbench
    result = ringbench.measure("ring", runtimes="go,erlang", params={"n": 1000, "m": 100}, repeat=5)
    for cell in result.cells:
        print(cell.runtime, cell.cores, cell.status, cell.headline.median if cell.ok else cell.reason)
    print(result.warnings)

`measure` validates everything first and raises `InputError` (nothing run, nothing stored) on bad
input; otherwise every finished cell is in the store (`db`, default results/ringbench.db) before
`measure` returns, even if it is interrupted (then `result.status == "interrupted"`).
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from . import environment, noise, runner, stats, workloads
from .drivers import DriverError, select
from .store import DEFAULT_DB, Store, StoreError


class InputError(ValueError):
    """Bad input: reported as one line, exit status 2, nothing stored."""


@dataclass
class CellResult:
    runtime: str
    workload: workloads.Workload
    params: dict
    cores: str
    mode: str
    status: str
    reason: str | None = None
    records: list[dict] = field(default_factory=list)
    samples: list[dict] = field(default_factory=list)
    extra: dict = field(default_factory=dict)
    version: str | None = None
    runtime_settings: dict = field(default_factory=dict)  # argv, environment, schedulers, pinned CPU

    @property
    def ok(self) -> bool:
        return self.status == "ok" and bool(self.records or self.samples)

    def values(self, metric: workloads.Metric | None = None) -> list[float]:
        """The headline (or given) metric per repeat; in continuous modes, ns per hop per interval."""
        if self.mode != "timed":
            from .modes import intervals
            samples = self.samples
            if self.mode == "squeeze":  # the figures of the peak step
                samples = [s for s in samples if s.get("tokens") == self.extra.get("peak_concurrency")]
            return [ns / h for h, ns in intervals(samples) if h > 0]
        metric = metric or self.workload.headline
        return [v for v in map(metric.of, self.records) if v is not None]

    def summaries(self) -> dict[str, stats.Summary]:
        if self.mode != "timed":
            vals = self.values()
            return {"ns_per_hop": stats.summarize(vals)} if vals else {}
        out = {}
        for metric in self.workload.metrics:
            vals = self.values(metric)
            if vals:
                out[metric.name] = stats.summarize(vals)
        return out

    @property
    def headline(self) -> stats.Summary | None:
        s = self.summaries()
        return s.get("ns_per_hop" if self.mode != "timed" else self.workload.headline.name)

    @property
    def label(self) -> str:
        return f"{self.runtime} [{self.cores}] " + " ".join(f"{k}={v}" for k, v in self.params.items())


@dataclass
class RunResult:
    run_id: int
    status: str           # complete, failed (some cell failed), interrupted
    workload: workloads.Workload
    options: runner.Options
    settings: dict
    environment: dict
    cells: list[CellResult]
    warnings: list[str]
    db: Path


def _cell_result(o: runner.Outcome, mode: str) -> CellResult:
    s = o.spec
    return CellResult(s.driver.name, s.workload, s.params, s.cores, mode, o.status, o.reason, o.records,
                      o.samples, o.extra, o.version)


def plan(workload: str, runtimes: str, grid: list[dict] | None = None, params: dict | None = None,
         cores: list[str] | str = "all") -> tuple[workloads.Workload, list[runner.CellSpec]]:
    """Validate and expand a request into cells, or raise InputError. Nothing runs."""
    try:
        w = workloads.get(workload)
        grid = [w.validate(p) for p in grid] if grid is not None else w.grid(params or {})
        drivers = select(runtimes)
    except (workloads.ParamError, DriverError) as e:
        raise InputError(str(e)) from None
    cores = [c.strip() for c in cores.split(",")] if isinstance(cores, str) else list(cores)
    bad = [c for c in cores if c not in ("1", "all")] or ([] if cores else ["(none)"])
    if bad:
        raise InputError(f"cores must be 1 or all (or both: 1,all), got {','.join(cores)}")
    return w, runner.plan(drivers, w, grid, list(dict.fromkeys(cores)))


def _check_mode(w: workloads.Workload, opts: runner.Options) -> None:
    if opts.mode not in ("timed", "continuous", "squeeze"):
        raise InputError(f"unknown mode {opts.mode!r}")
    if opts.mode != "timed" and w.verb != "ring":
        raise InputError(f"{opts.mode} mode runs the ring (workloads ring and msgcost), not {w.name}")
    if opts.mode == "squeeze" and not 1 <= opts.squeeze_min <= opts.squeeze_max:
        raise InputError("squeeze needs 1 ≤ --min ≤ --max")
    if opts.cv is not None and not 0 < opts.cv < 1:
        raise InputError("--cv is a fraction between 0 and 1 (e.g. 0.02 for 2 %)")


def measure(workload: str, runtimes: str = "all", *, params: dict | None = None, grid: list[dict] | None = None,
            cores: list[str] | str = "all", db: Path | str = DEFAULT_DB, command: str = "ringbench (api)",
            resume: int | None = None, budget_s: float | None = None, keep_refusals: bool = False,
            on_start: Callable[[runner.CellSpec, int, int], None] = lambda s, i, n: None,
            on_done: Callable[[CellResult], None] = lambda c: None, **options) -> RunResult:
    """Run a workload on runtimes over a parameter grid; store and return every cell.

    options are runner.Options fields (mode, repeat, warmup, in_process, timeout, samples, sample_ms,
    cv, max_samples, squeeze_min, squeeze_max, threshold, runtime_stats).
    `resume=RUN_ID` continues that run: cells it already finished are not run again.
    `budget_s` stops cleanly (between cells) once that many seconds have passed; resume later.
    A cell too large for this machine makes the whole request an InputError, unless `keep_refusals`
    (sweeps): then it is stored and shown as refused, with the limit that refused it.
    """
    w, cells = plan(workload, runtimes, grid, params, cores)
    if options.get("warmup") is None:
        options["warmup"] = w.default_warmup
    opts = runner.Options(**options)
    _check_mode(w, opts)
    refused = runner.refusals(cells)
    if refused and not keep_refusals:
        raise InputError("; ".join(refused))
    try:
        store = Store(db)
    except (StoreError, Exception) as e:  # sqlite3.DatabaseError for a file that is not SQLite
        raise InputError(f"cannot use store {db}: {e}") from None
    settings = {"workload": w.name, "runtimes": sorted({c.driver.name for c in cells}),
                "grid": sorted({json.dumps(c.params, sort_keys=True) for c in cells}),
                "cores": sorted({c.cores for c in cells}), **vars(opts)}
    env = environment.collect()
    warnings = noise.environment(env) + noise.repeats(opts.mode, opts.repeat, opts.samples)
    done_keys: set[str] = set()
    if resume is not None:
        row = store.run(resume)
        if row is None:
            store.close()
            raise InputError(f"no run {resume} in {db}")
        run_id = resume
        done_keys = {_key(c["runtime"], c["workload"], json.loads(c["params"]), c["cores"])
                     for c in store.cells(run_id) if c["status"] in ("ok", "refused")}
        store.reopen_run(run_id)
    else:
        run_id = store.begin_run(command, settings, env)
    results: list[CellResult] = []
    status = "complete"
    started = time.monotonic()
    todo = [c for c in cells if _key(c.driver.name, w.name, c.params, c.cores) not in done_keys]

    class _OutOfBudget(Exception):
        pass

    def start(spec: runner.CellSpec) -> None:
        if budget_s is not None and time.monotonic() - started > budget_s:
            raise _OutOfBudget
        on_start(spec, len(results) + 1, len(todo))

    def done(o: runner.Outcome) -> None:
        c = _cell_result(o, opts.mode)
        results.append(c)
        if c.ok and len(c.values()) > 1:
            warnings.extend(noise.cell(c.label, stats.cv(c.values())))
        on_done(c)

    try:
        runner.run_cells(store, run_id, todo, opts, start, done)
    except _OutOfBudget:
        status = "interrupted"
        warnings.append(f"time budget of {budget_s:g} s used up: {len(results)} of {len(todo)} cells run; "
                        f"continue with --resume {run_id}")
    except KeyboardInterrupt:
        status = "interrupted"
        warnings.append(f"interrupted: {len(results)} of {len(todo)} cells finished and stored; "
                        f"continue with --resume {run_id}")
    finally:
        if status == "complete" and any(c.status not in ("ok", "refused") for c in results):
            status = "failed"
        store.finish_run(run_id, status, warnings)
        store.close()
    return RunResult(run_id, status, w, opts, settings, env, results, warnings, Path(db))


def _key(runtime: str, workload: str, params: dict, cores: str) -> str:
    return json.dumps([runtime, workload, params, cores], sort_keys=True)


def resume(run_id: int, db: Path | str = DEFAULT_DB, **kw) -> RunResult:
    """Continue an interrupted run with its stored settings; finished cells are not run again."""
    try:
        store = Store(db)
        row = store.run(run_id)
        store.close()
    except (StoreError, Exception) as e:
        raise InputError(f"cannot use store {db}: {e}") from None
    if row is None:
        raise InputError(f"no run {run_id} in {db}")
    s = json.loads(row["settings"])
    opts = {k: s[k] for k in runner.Options.__dataclass_fields__ if k in s}
    return measure(s["workload"], ",".join(s["runtimes"]), grid=[json.loads(g) for g in s["grid"]],
                   cores=s["cores"], db=db, command=row["command"], resume=run_id, keep_refusals=True, **opts, **kw)


def load(run_id: int, db: Path | str = DEFAULT_DB) -> RunResult:
    """A stored run as result objects (every figure recomputed from the raw records)."""
    try:
        store = Store(db)
    except (StoreError, Exception) as e:
        raise InputError(f"cannot use store {db}: {e}") from None
    try:
        row = store.run(run_id)
        if row is None:
            raise InputError(f"no run {run_id} in {db} (see `ringbench history`)")
        s = json.loads(row["settings"])
        cells = []
        for c in store.cells(run_id):
            cells.append(CellResult(
                c["runtime"], workloads.get(c["workload"]), json.loads(c["params"]), c["cores"], c["mode"],
                c["status"], c["reason"], store.results(c["id"]), store.samples(c["id"]), json.loads(c["extra"]),
                c["runtime_version"], json.loads(c["runtime_settings"] or "{}")))
    finally:
        store.close()
    opts = runner.Options(**{k: s[k] for k in runner.Options.__dataclass_fields__ if k in s})
    return RunResult(run_id, row["status"], workloads.get(s["workload"]), opts, s, json.loads(row["environment"]),
                     cells, json.loads(row["warnings"]), Path(db))
