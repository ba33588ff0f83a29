"""The Python API: the one facade every command of the CLI uses. Runs any workload in any mode and
returns plain result objects (ringbench.results); reads the store; lists runtimes; traces; compares.

Example (runnable after `make setup`):

    import ringbench
    result = ringbench.measure("ring", runtimes="go,erlang", params={"n": 1000, "m": 100}, repeat=5)
    for cell in result.cells:
        print(cell.runtime, cell.cores, cell.status, cell.headline.median if cell.ok else cell.reason)
    print(result.warnings)

`measure` validates everything first and raises `InputError` (nothing run, nothing stored) on bad
input; a store that cannot be used raises `StoreError` (its `exit_code` says bad input or failure).
Otherwise every finished cell is in the store (`db`, default results/ringbench.db in the checkout)
before `measure` returns, even if it is interrupted (`result.status == "interrupted"`) or stopped by
its time budget (`"budget"`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from .catalogue import workloads
from .catalogue.drivers import Driver, DriverError, discover, select
from .harness import environment, runner
from .harness.launch import run_driver
from .harness.modes import ModeError, Options
from .harness.protocol import DriverFailed
from .harness.spec import CellSpec, Outcome
from .results import noise, stats
from .results.model import Cell, Run
from .results.relative import BaselineError, check_baseline
from .results.store import DEFAULT_DB, Store, StoreError

__all__ = [
    "InputError",
    "StoreError",
    "measure",
    "resume",
    "load",
    "history",
    "runtimes",
    "trace",
    "compare",
    "Cell",
    "Run",
]


class InputError(ValueError):
    """Bad input: reported as one line, exit status 2, nothing stored."""


def plan(
    workload: str,
    runtimes: str,
    grid: list[dict] | None = None,
    params: dict | None = None,
    cores: list[str] | str = "all",
) -> tuple[workloads.Workload, list[CellSpec]]:
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


def _cell(o: Outcome, mode: str) -> Cell:
    s = o.spec
    return Cell(
        s.driver.name,
        s.workload,
        s.params,
        s.cores,
        mode,
        o.status,
        o.reason,
        o.records,
        o.samples,
        o.extra,
        o.version,
        runner.cell_settings(s),
    )


def measure(
    workload: str,
    runtimes: str = "all",
    *,
    params: dict | None = None,
    grid: list[dict] | None = None,
    cores: list[str] | str = "all",
    db: Path | str = DEFAULT_DB,
    command: str = "ringbench (api)",
    baseline: str | None = None,
    resume: int | None = None,
    budget_s: float | None = None,
    keep_refusals: bool = False,
    on_start: Callable[[CellSpec, int, int], None] = lambda s, i, n: None,
    on_done: Callable[[Cell], None] = lambda c: None,
    on_tick: Callable[[CellSpec, str], None] = lambda s, text: None,
    **options,
) -> Run:
    """Run a workload on runtimes over a parameter grid; store and return every cell.

    options are modes.Options fields (mode, repeat, processes, warmup, target_ms, timeout, samples,
    sample_ms, cv, max_samples, squeeze_min, squeeze_max, threshold, runtime_stats); a field that belongs
    to another mode than `mode` is an InputError. `baseline` names the Rel % reference runtime (stored).
    `resume=RUN_ID` continues that run: cells it already finished are not run again.
    `on_start(spec, i, total)`, `on_tick(spec, "repeat 2 of 5")` and `on_done(cell)` report progress.
    `budget_s` stops cleanly (between cells) once that many seconds have passed; resume later.
    A cell too large for this machine makes the whole request an InputError, unless `keep_refusals`
    (sweeps): then it is stored and shown as refused, with the limit that refused it.
    """
    w, cells = plan(workload, runtimes, grid, params, cores)
    given = {k for k, v in options.items() if v is not None}
    try:
        opts = Options(**{k: v for k, v in options.items() if v is not None})
        opts.mode_object.check(w, opts, given)
        check_baseline(baseline, [c.driver.name for c in cells])
    except KeyError:
        raise InputError(f"unknown mode {options.get('mode')!r}") from None
    except (ModeError, BaselineError, TypeError) as e:
        raise InputError(str(e)) from None
    refused = runner.refusals(cells)
    if refused and not keep_refusals:
        raise InputError("; ".join(refused))
    settings = {
        "workload": w.name,
        "runtimes": sorted({c.driver.name for c in cells}),
        "grid": sorted({json.dumps(c.params, sort_keys=True) for c in cells}),
        "cores": sorted({c.cores for c in cells}),
        "baseline": baseline,
        **vars(opts),
    }
    env = environment.collect()
    warnings = noise.environment(env)
    with Store(db) as store:
        if resume is not None:
            row = store.run(resume)
            if row is None:
                raise InputError(f"no run {resume} in {db} (see `ringbench history --db {db}`)")
            store.claim(resume)
            run_id = resume
            done_keys = {
                json.dumps([c["runtime"], c["workload"], json.loads(c["params"]), c["cores"]], sort_keys=True)
                for c in store.cells(run_id)
                if c["status"] in ("ok", "refused")
            }
        else:
            run_id = store.begin_run(command, settings, env, planned=len(cells), baseline=baseline)
            done_keys = set()
        todo = [
            c for c in cells if json.dumps([c.driver.name, w.name, c.params, c.cores], sort_keys=True) not in done_keys
        ]
        results: list[Cell] = []
        status = "complete"
        started = time.monotonic()

        class _OutOfBudget(Exception):
            pass

        def start(spec: CellSpec) -> None:
            if budget_s is not None and time.monotonic() - started > budget_s:
                raise _OutOfBudget
            on_start(spec, len(results) + 1, len(todo))

        def done(o: Outcome) -> None:
            c = _cell(o, opts.mode)
            results.append(c)
            if c.ok:
                warnings.extend(c.mode_object.warnings(c, opts))
                if len(c.values()) > 1:
                    warnings.extend(noise.cell(c.label, stats.cv(c.values())))
            on_done(c)

        try:
            runner.run_cells(store, run_id, todo, opts, start, done, on_tick)
        except _OutOfBudget:
            status = "budget"
            warnings.append(
                f"time budget of {budget_s:g} s used up: {len(results)} of {len(todo)} cells run; "
                f"continue with `ringbench sweep --resume {run_id}`"
            )
        except KeyboardInterrupt:
            status = "interrupted"
            warnings.append(
                f"interrupted: {len(results)} of {len(todo)} cells finished and stored (the repeats "
                f"of the cell under way are not kept: a cell is all or nothing); continue with "
                f"`ringbench sweep --resume {run_id}`"
            )
        finally:
            if status == "complete" and any(c.status not in ("ok", "refused") for c in results):
                status = "failed"
            store.finish_run(run_id, status, warnings)
    return (
        load(run_id, db)
        if resume is not None
        else Run(run_id, status, w, opts, settings, env, results, warnings, Path(db), command, baseline)
    )


def resume(run_id: int, db: Path | str = DEFAULT_DB, **kw) -> Run:
    """Continue an interrupted, budget-stopped or abandoned run with its stored settings; finished cells
    are not run again. A run another live process is measuring is refused (StoreError)."""
    with Store(db, create=False) as store:
        row = store.run(run_id)
    if row is None:
        raise InputError(f"no run {run_id} in {db} (see `ringbench history --db {db}`)")
    s = json.loads(row["settings"])
    opts = {k: v for k, v in vars(Options.from_settings(s)).items() if v != getattr(Options(), k) or k == "mode"}
    return measure(
        s["workload"],
        ",".join(s["runtimes"]),
        grid=[json.loads(g) for g in s["grid"]],
        cores=s["cores"],
        db=db,
        command=row["command"],
        resume=run_id,
        keep_refusals=True,
        baseline=s.get("baseline"),
        **opts,
        **kw,
    )


def load(run_id: int, db: Path | str = DEFAULT_DB) -> Run:
    """A stored run as result objects (every figure recomputed from the raw records)."""
    with Store(db, create=False) as store:
        row = store.run(run_id)
        if row is None:
            raise InputError(f"no run {run_id} in {db} (see `ringbench history --db {db}`)")
        s = json.loads(row["settings"])
        cells = [
            Cell(
                c["runtime"],
                workloads.get(c["workload"]),
                json.loads(c["params"]),
                c["cores"],
                c["mode"],
                c["status"],
                c["reason"],
                store.results(c["id"]),
                store.samples(c["id"]),
                json.loads(c["extra"]),
                c["runtime_version"],
                json.loads(c["runtime_settings"] or "{}"),
            )
            for c in store.cells(run_id)
        ]
    return Run(
        run_id,
        row["status"],
        workloads.get(s["workload"]),
        Options.from_settings(s),
        s,
        json.loads(row["environment"]),
        cells,
        json.loads(row["warnings"]),
        Path(db),
        row["command"],
        row.get("baseline") or s.get("baseline"),
    )


def history(db: Path | str = DEFAULT_DB) -> list[dict]:
    """The stored runs, oldest first: id, started_at, status (abandoned when its owner is gone), done,
    planned, ok, command, and the settings (workload, runtimes, grid, cores, mode)."""
    with Store(db, create=False) as store:
        return [{**r, "settings": json.loads(r["settings"])} for r in store.runs()]


# -- runtimes and trace ------------------------------------------------------------------------------
def runtimes() -> list[dict]:
    """Every driver found under drivers/: built or not, version, workloads, features, kind of hop."""
    rows = []
    for d in discover().values():
        info = {
            "runtime": d.name,
            "language": d.language,
            "description": d.description,
            "hop": d.hop,
            "mailbox": d.mailbox,
            "built": d.is_built(),
            "missing": d.missing_tools(),
            "version": None,
            "workloads": [],
            "features": [],
            "problem": None,
        }
        if info["built"] and not info["missing"]:
            try:
                desc = runner.describe_cached(d)
                info.update(
                    version=desc.get("version"), workloads=desc.get("workloads", []), features=desc.get("features", [])
                )
            except DriverFailed as e:
                info["problem"] = str(e)
        rows.append(info)
    return rows


def trace_drivers(runtime: str, n: object, m: object) -> tuple[list[Driver], int, int]:
    """Validate a trace request: (drivers, n, m), or InputError."""
    try:
        params = workloads.TRACE.validate({"n": n, "m": m})
        drivers = select(runtime)
    except workloads.ParamError as e:
        raise InputError(f"{e} (trace prints every hop; for larger rings use `ringbench run ring`)") from None
    except DriverError as e:
        raise InputError(str(e)) from None
    for d in drivers:
        if "trace" not in runner.workloads_of(d):
            raise InputError(f"{d.name} does not implement trace")
    return drivers, params["n"], params["m"]


def trace(d: Driver, n: int, m: int, on_hop: Callable[[dict], None], timeout: float = 60) -> str | None:
    """Run one driver's trace, calling `on_hop` as each hop is printed; None if every hop followed the
    ring's rule, else what was wrong."""
    seen: list[dict] = []

    def hop(rec: dict) -> None:
        if rec["type"] == "hop":
            seen.append(rec)
            on_hop(rec)

    try:
        launch = run_driver(d, ["run", "trace", f"n={n}", f"m={m}"], n=n, timeout=timeout, on_record=hop)
    except DriverFailed as e:
        return str(e)
    return workloads.check_trace(seen, n, m, launch.records)


# -- compare ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Change:
    """One cell present in both runs: how its headline moved."""

    before: Cell
    after: Cell
    diff: stats.Difference
    lower_is_better: bool

    @property
    def slower_pct(self) -> float:
        """How much slower (worse) the after cell is, in % (negative: faster)."""
        r = self.diff.ratio if self.lower_is_better else 1 / self.diff.ratio
        return (r - 1) * 100

    def regression(self, fail_above: float) -> bool:
        return bool(self.diff.significant) and self.slower_pct > fail_above


def compare(run_a: int, run_b: int, db: Path | str = DEFAULT_DB) -> tuple[Run, Run, list[Change]]:
    """Every cell of run B that run A has too (same runtime, workload, parameters, cores, mode)."""
    a, b = load(run_a, db), load(run_b, db)
    before = {(c.key(), c.mode): c for c in a.cells if c.ok}
    changes = []
    for c in b.cells:
        old = before.get((c.key(), c.mode))
        if old and c.ok:
            lower = c.mode != "timed" or c.workload.headline.lower_is_better
            changes.append(Change(old, c, stats.compare(old.values(), c.values()), lower))
    if not changes:
        raise InputError(
            f"runs {run_a} and {run_b} have no cell in common (same runtime, workload, parameters, cores and mode)"
        )
    return a, b, changes


def with_baseline(run: Run, baseline: str | None) -> Run:
    """The run with another Rel % reference (InputError if it is not one of the run's runtimes)."""
    if baseline is None:
        return run
    try:
        check_baseline(baseline, [c.runtime for c in run.cells])
    except BaselineError as e:
        raise InputError(str(e)) from None
    return replace(run, baseline=baseline)
