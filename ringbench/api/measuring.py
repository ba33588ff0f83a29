"""Measuring the runtimes: `measure` a workload over a grid, `resume` a stopped run."""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from ..harness import cluster, environment, runner
from ..harness.launch import run_driver
from ..harness.protocol import DriverFailed
from ..harness.spec import CellSpec
from ..results import noise
from ..results.model import Cell, Run, cell_key
from ..results.modes import ModeError, Options
from ..results.store import DEFAULT_DB
from .errors import InputError
from .lifecycle import RecordedRun
from .planning import check_baseline_of_plan, plan
from .stored import load


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
    tuned: bool = False,
    resume: int | None = None,
    budget_s: float | None = None,
    keep_refusals: bool = False,
    on_begin: Callable[[int], None] = lambda run_id: None,
    on_step: Callable[[CellSpec, str, int, int], None] = lambda s, what, i, n: None,
    on_done: Callable[[Cell], None] = lambda c: None,
    on_tick: Callable[[CellSpec, str], None] = lambda s, text: None,
    **options,
) -> Run:
    """Run a workload on runtimes over a parameter grid; store and return every cell.

    options are modes.Options fields (mode, repeat, processes, warmup, target_ms, timeout, order,
    clean_env, samples, sample_ms, cv, max_samples, squeeze_min, squeeze_max, threshold,
    runtime_stats); a field that belongs to another mode than `mode` is an InputError. `baseline`
    names the Rel % reference runtime (stored); `tuned` adds the tuned variants of the runtimes asked.
    `resume=RUN_ID` continues that run: cells it already finished are not run again.
    `on_begin(run_id)` once the run is stored (everything validated), `on_step(spec, "repeat 1–3 of 6", i,
    total)` before each driver process, `on_tick(spec, text)`
    and `on_done(cell)` report progress. `budget_s` stops cleanly (between groups of cells) once that
    many seconds have passed; resume later. A cell the named runtimes cannot serve (too large for this
    machine, a workload or feature they lack) makes the whole request an InputError, unless
    `keep_refusals` (sweeps, `all`): then it is stored and shown as refused, with the reason.
    """
    try:
        if options.get("hosts"):
            options["hosts"] = cluster.parse_hosts(options["hosts"])
    except cluster.ClusterError as e:
        raise InputError(str(e)) from None
    w, cells = plan(workload, runtimes, grid, params, cores, tuned, options.get("hosts") or ())
    given = {k for k, v in options.items() if v is not None}
    try:
        opts = Options(**{k: v for k, v in options.items() if v is not None})
        opts.mode_object.check(w, opts, given)
    except KeyError:
        raise InputError(f"unknown mode {options.get('mode')!r}") from None
    except (ModeError, TypeError) as e:
        raise InputError(str(e)) from None
    if opts.mode_object.searches and any(c.params.get("nodes", 1) > 1 for c in cells):
        raise InputError(
            "--squeeze raises the tokens of a ring on one node (as perf -q does): leave out --nodes and --hosts"
        )
    check_baseline_of_plan(baseline, cells)
    cluster.sweep_stale()  # the cookie files of runs killed before their own cleanup
    if opts.mode_object.takes_turns and opts.seed is None:  # the order of the cells in each round: drawn, stored
        opts = replace(opts, seed=random.SystemRandom().randrange(1 << 31))
    runner.describe_all(cells, opts.clean_env)
    refused = {i: why for i, c in enumerate(cells) if (why := runner.refusal(c) or runner.unsupported(c, opts))}
    if refused and not keep_refusals:
        raise InputError("; ".join(dict.fromkeys(refused.values())))
    if opts.hosts:
        _check_hosts([c for i, c in enumerate(cells) if i not in refused], opts)
    settings = {
        "workload": w.name,
        "runtimes": sorted({c.driver.name for c in cells}),
        "grid": sorted({json.dumps(c.params, sort_keys=True) for c in cells}),
        "cores": sorted({c.cores for c in cells}),
        "baseline": baseline,
        "tuned": tuned,
        **vars(opts),
    }
    with RecordedRun(db, command, settings, len(cells), baseline=baseline, on_cell=on_done) as rec:
        run_id = rec.begin(resume)
        done_keys = rec.store.cell_keys(run_id) if resume is not None else set()
        todo = [i for i, c in enumerate(cells) if _key(c, opts) not in done_keys]
        on_begin(run_id)
        total_steps = len(todo) * opts.mode_object.steps(opts)
        started = time.monotonic()
        steps_done = 0

        class _OutOfBudget(Exception):
            pass

        def before_group() -> None:
            if budget_s is not None and time.monotonic() - started > budget_s:
                raise _OutOfBudget

        def step(spec: CellSpec, what: str) -> None:
            nonlocal steps_done
            steps_done += 1
            on_step(spec, what, steps_done, total_steps)

        # A store that cannot be written (StoreError) leaves the run 'running' with its owner gone (abandoned).
        return rec.run(
            lambda: runner.measure_cells(
                [cells[i] for i in todo],
                opts,
                rec.sink,
                refused={k: refused[i] for k, i in enumerate(todo) if i in refused},
                on_step=step,
                on_tick=on_tick,
                before_group=before_group,
            ),
            {_OutOfBudget: "budget", KeyboardInterrupt: "interrupted"},
            failed_cells_fail=True,
        )


def _check_hosts(cells: list[CellSpec], opts: Options) -> None:
    """Before a run over other hosts: the cookie, then the smallest ring over them, once per driver, so that
    an unreachable node, a cookie or OTP mismatch is bad input (one line, exit 2) and nothing is stored. A
    driver that starts every node itself (manifest `[nodes] hosts = false`) is refused first, in one line."""
    try:
        drivers = {c.driver.name: c.driver for c in cells if c.params.get("nodes", 1) > 1}.values()
        for d in drivers:
            if why := cluster.no_hosts(d):
                raise InputError(why)
        if any(cluster.uses_cookie(d) for d in drivers):
            cluster.cookie(opts.cookie_file)
    except cluster.ClusterError as e:
        raise InputError(str(e)) from None
    k = cluster.nodes_of(opts.hosts)
    for d in {c.driver.name: c.driver for c in cells if c.params.get("nodes", 1) > 1}.values():
        try:
            with cluster.cluster_file(opts.hosts, opts.cookie_file, d) as path:
                run_driver(
                    d, ["run", "ring", f"n={k}", "m=1", f"nodes={k}"], n=k, timeout=120, clean_env=opts.clean_env,
                    cluster=path,
                )  # fmt: skip
        except DriverFailed as e:
            if e.kind in ("bad_param", "unsupported"):
                raise InputError(f"--hosts {','.join(opts.hosts)}: {e.message}") from None
            raise InputError(f"--hosts {','.join(opts.hosts)}: {d.name} could not run a ring over them ({e})") from None


def _key(spec: CellSpec, opts: Options) -> str:
    return cell_key(spec.driver.name, spec.workload.name, spec.params, spec.cores, opts.mode)


def resume(run_id: int, db: Path | str = DEFAULT_DB, **kw) -> Run:
    """Continue an interrupted, budget-stopped, failed or abandoned run with its stored settings; finished
    cells are not run again. A complete run is returned as it is (nothing to do); an imported run is
    an InputError (it was measured elsewhere); a run another live process is measuring is refused
    (StoreError)."""
    stored = load(run_id, db)
    if stored.status == "complete":
        return stored
    if not stored.mode_object.resumable:
        raise InputError(
            f"run {run_id} is a {stored.options.mode} run: it is measured again whole; "
            f"`{stored.hint('show')}` prints its command"
        )
    if stored.status == "imported":
        raise InputError(
            f"run {run_id} was imported: it can be shown, compared, exported and reported, not resumed here"
        )
    s = stored.settings
    defaults = Options()
    opts = {k: v for k, v in vars(stored.options).items() if v != getattr(defaults, k) or k == "mode"}
    with _recorded_tuning_env(stored):
        return measure(
            s["workload"],
            ",".join(s["runtimes"]),
            grid=[json.loads(g) for g in s["grid"]],
            cores=s["cores"],
            db=db,
            command=stored.command,
            resume=run_id,
            keep_refusals=True,
            baseline=s.get("baseline"),
            tuned=True,  # the runtimes are named exactly, tuned variants among them
            **opts,
            **kw,
        )


def resume_env_changes(run: Run) -> dict[str, tuple[str | None, str | None]]:
    """The variables that tune a runtime which differ between a stored run's start and this process, as
    {name: (recorded, now)} (None: unset): what `resume` sets back for the run's drivers. Empty when the run
    started its drivers without them (--clean-env) or recorded no environment."""
    recorded = run.environment.get("tuning_env")
    if run.options.clean_env or not isinstance(recorded, dict):
        return {}
    now = environment.tuning_env()
    return {k: (recorded.get(k), now.get(k)) for k in sorted({*recorded, *now}) if recorded.get(k) != now.get(k)}


@contextmanager
def _recorded_tuning_env(run: Run) -> Iterator[None]:
    """While a run is resumed, its drivers get the variables that tuned its runtimes when it began (those
    recorded set again, those added since removed); every other variable is as now. Restored afterwards."""
    changes = resume_env_changes(run)
    try:
        for k, (recorded, _) in changes.items():
            if recorded is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = str(recorded)
        yield
    finally:
        for k, (_, now) in changes.items():
            if now is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = now


def wait_until_idle(on_wait: Callable[[float], None] = lambda busy: None, most_s: float = 60.0) -> float | None:
    """Before a default comparison: wait (at most `most_s`) for the CPUs to fall idle, so that the load a
    set-up or build left behind is not measured; returns the busy share at the end."""
    return environment.wait_until_idle(noise.BUSY_LIMIT, most_s, on_wait)
