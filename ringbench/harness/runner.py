"""Running cells: planning them, refusing what cannot be measured, measuring each in its mode, handing each
finished cell to a sink (the API stores it at once; the harness never opens the store).

Order. The cells that a table ranks against each other (one grid point, one core setting) are measured
in turn — the first driver process of each, then the second of each, … (`order="interleaved"`, the
default) — so that a slow minute of a shared machine falls on every runtime alike; groups follow one
another. Within a round the cells do not keep one order: a seeded shuffle of the group (`Options.seed`,
stored with the run) is rotated by a share of the group each round (round r of R starts 1/R of the way
further along), so that over its processes every cell runs early, late and in between and no runtime
always runs first (the way the Benchmarks Game and JMH avoid tying position to a contestant). Each
cell stores its place in each round (`extra["round_positions"]`, 1 = first). `order="sequential"`
measures cell after cell. Every result record carries `launch`, the driver process's number in the run,
so the order is stored with the figures.

A cell is all or nothing: it is finished once its last driver process has finished, and the finished
cells of a group reach the sink together, in the order planned, when the group ends or is interrupted
(so the store and every table keep the plan's order, whatever order the rounds ran in; an interruption
loses the cells under way, at most one group's).
"""

from __future__ import annotations

import itertools
import os
import random
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial

from ..catalogue.drivers import Driver, build_record
from ..catalogue.workloads import SELECTIVE, Workload
from ..results.model import Cell
from ..results.modes import JIT_WARMUP_CAP_S, JIT_WARMUP_ITERATIONS, Options
from . import cluster, limits
from .environment import tuning_env
from .launch import describe, driver_process
from .measure import Measured, Step, jit_floor, steps
from .protocol import DriverFailed
from .spec import CellSpec

# How a driver's refusal is stored: a request it cannot honestly serve is not applicable, not a failure.
_STATUS_OF_KIND = {"timeout": "timeout", "limit": "refused", "unsupported": "refused", "unknown_workload": "refused"}


def plan(drivers: list[Driver], workload: Workload, grid: list[dict], cores: list[str]) -> list[CellSpec]:
    # A run with rings across nodes samples the cluster view of every continuous cell, the in-node ring's too.
    view = any(p.get("nodes", 1) > 1 for p in grid)
    return [CellSpec(d, workload, p, c, view) for p in grid for d in drivers for c in cores]


def refusal(cell: CellSpec) -> str | None:
    """Why this cell cannot fit this machine, checked before launch; None if it can."""
    return limits.check(cell.driver, cell.processes)


_describe_cache: dict[tuple[str, str, str, bool], dict] = {}


def describe_cached(d: Driver, cores: str = "all", clean_env: bool = False) -> dict:
    key = (str(d.folder), d.name, cores, clean_env)
    if key not in _describe_cache:
        _describe_cache[key] = describe(d, cores, clean_env)
    return _describe_cache[key]


def describe_all(cells: list[CellSpec], clean_env: bool = False) -> None:
    """Ask every (driver, core setting) of the plan to describe itself, a few at a time, before anything is
    measured: describes are short and independent, and a plan of many runtimes would otherwise wait for
    each in turn."""
    todo = list({(c.driver.name, c.cores): c for c in cells}.values())
    if len(todo) < 2:
        return

    def work() -> None:
        while todo:
            try:
                c = todo.pop()
            except IndexError:
                return
            try:
                describe_cached(c.driver, c.cores, clean_env)
            except DriverFailed:
                pass  # asked again, and reported, where the cell needs it

    # Plain threads: a pool would add nothing here (`launch.start` keeps a Ctrl-C that lands in a fork hook).
    workers = [threading.Thread(target=work, daemon=True) for _ in range(max(2, os.cpu_count() or 2))]
    for w in workers:
        w.start()
    for w in workers:
        w.join()


def workloads_of(d: Driver) -> list[str]:
    try:
        return describe_cached(d).get("workloads", [])
    except DriverFailed:
        return []


def features_of(d: Driver) -> list[str]:
    try:
        return describe_cached(d).get("features", [])
    except DriverFailed:
        return []


def unsupported(spec: CellSpec, opts: Options) -> str | None:
    """Why the driver cannot serve this cell, from what it describes of itself; None if it can. Answered
    before anything runs, so that an impossible request is refused without creating a run."""
    try:
        desc = describe_cached(spec.driver, spec.cores, opts.clean_env)
    except DriverFailed as e:
        return f"{spec.driver.name}: `describe` failed ({e})"
    w = spec.workload
    have, features = set(desc.get("workloads", [])), set(desc.get("features", []))
    if w.verb not in have:
        extra = " (no selective receive)" if w.verb == SELECTIVE.verb else ""
        return f"{spec.driver.name} does not implement {w.name}{extra}"
    if spec.params.get("tokens", 1) > 1 and "tokens" not in features:
        return f"{spec.driver.name} cannot run {spec.params['tokens']} tokens at once (tokens > 1 unsupported)"
    if spec.params.get("nodes", 1) > 1 and "nodes" not in features:
        return cluster.no_nodes(spec.driver.name, spec.params["nodes"])
    if (feature := opts.mode_object.feature) and feature not in features:
        return f"{spec.driver.name} has no {feature} mode"
    return None


def cell_settings(spec: CellSpec, opts: Options) -> dict:
    """Every setting of the driver process that can move a result, stored with the cell."""
    how = driver_process(spec.driver, spec.cores, spec.processes, opts.clean_env)
    try:
        collector = describe_cached(spec.driver, spec.cores, opts.clean_env).get("collector")
    except DriverFailed:
        collector = None
    d = spec.driver
    return {
        "argv": how.argv,
        "env": how.manifest_env,
        # what the user's environment adds; the manifest's own variables are the variant's settings, not that
        "inherited_tuning_env": {}
        if opts.clean_env
        else tuning_env({k: v for k, v in how.env.items() if k not in how.manifest_env}),
        "clean_env": opts.clean_env,
        "cores": spec.cores,
        "schedulers": 1 if d.single_threaded else how.schedulers,
        "pinned_cpu": how.cpu,
        "hop": d.hop,
        "mailbox": d.mailbox,
        "tuned": d.tuned,
        "ranked": d.ranked,
        # what the driver's build kept of the variables that change a build (`ringbench build --keep-env`)
        "build_env_kept": build_record(d).get("kept", {}),
        "single_threaded": d.single_threaded,
        "collector": collector,
        # the JIT floor before the settle window: hops and spawned processes in timed phases (0 without a
        # JIT or with --warmup N), or iterations, or its cap in seconds after the process's first iteration
        "jit_warmup_hops": jit_floor(d) if opts.warmup is None else 0,
        "jit_warmup_iterations": JIT_WARMUP_ITERATIONS if d.jit and opts.warmup is None else 0,
        "jit_warmup_cap_s": JIT_WARMUP_CAP_S if d.jit and opts.warmup is None else 0,
        "limits_raised": how.limits_raised,
    }


@dataclass
class _Job:
    spec: CellSpec
    steps: list[Step]
    measured: Measured
    failure: DriverFailed | None = None
    done: int = 0

    @property
    def finished(self) -> bool:
        return self.failure is not None or self.done == len(self.steps)


Progress = Callable[[CellSpec, str], None]


def measure_cells(
    cells: list[CellSpec],
    opts: Options,
    sink: Callable[[Cell], None],
    *,
    refused: dict[int, str] | None = None,
    on_step: Progress = lambda spec, what: None,
    on_tick: Progress = lambda spec, text: None,
    before_group: Callable[[], None] = lambda: None,
) -> None:
    """Measure `cells` in `opts.order` and hand each finished cell to `sink`, one at a time.

    `refused` maps a cell's index to why it is not measured (stored as refused). `on_step(spec, what)`
    is called before each driver process, `on_tick(spec, text)` as a process reports what it does,
    `before_group()` before each group of comparable cells (where a time budget may stop the run).
    """
    refused = refused or {}
    launches: Iterator[int] = itertools.count(1)
    groups: dict[str, list[int]] = {}
    for i, spec in enumerate(cells):
        key = (
            repr((spec.params, spec.cores)) if opts.order == "interleaved" and opts.mode_object.takes_turns else str(i)
        )
        groups.setdefault(key, []).append(i)
    for key, members in groups.items():
        before_group()
        jobs = []
        finished: dict[int, Cell] = {}  # by place in the plan: the group's cells reach the sink in plan order
        try:
            for i in members:
                spec = cells[i]
                why = refused.get(i) or refusal(spec)
                if why:
                    finished[i] = _cell(spec, opts, "refused", why, Measured())
                    continue
                jobs.append((i, _Job(spec, steps(spec, opts, launches), Measured())))
            order = {id(job): i for i, job in jobs}
            base = _shuffled([job for _, job in jobs], opts.seed, key)
            rounds = max((len(j.steps) for j in base), default=0)
            for r in range(rounds):
                for place, job in enumerate([j for j in _rotated(base, r, rounds) if not j.finished], 1):
                    job.measured.extra.setdefault("round_positions", []).append(place)
                    step = job.steps[job.done]
                    on_step(job.spec, step.what)
                    try:
                        step.run(job.measured, partial(on_tick, job.spec))
                        job.done += 1
                    except DriverFailed as e:
                        job.failure = e
                    if job.finished:
                        finished[order[id(job)]] = _finished(job, opts)
        finally:  # an interruption keeps the cells already finished
            for i in sorted(finished):
                sink(finished[i])


def _shuffled(jobs: list[_Job], seed: int | None, group: str) -> list[_Job]:
    """The group's cells in the seeded random order of its first round (each group its own, from the run's
    seed and the group's key); as planned when there is no seed."""
    out = list(jobs)
    if seed is not None:
        random.Random(f"{seed}/{group}").shuffle(out)
    return out


def _rotated(base: list[_Job], r: int, rounds: int) -> list[_Job]:
    """Round r's order: `base` rotated by r/rounds of its length, so that each cell's places over the rounds
    spread over the whole round (with as many rounds as cells, each cell is first once)."""
    k = len(base)
    shift = r * k // rounds if rounds else 0
    return base[shift:] + base[:shift]


def _finished(job: _Job, opts: Options) -> Cell:
    e = job.failure
    if e is None:
        return _cell(job.spec, opts, "ok", None, job.measured)
    reason = e.message + (f"\n{e.stderr_tail}" if e.stderr_tail else "")
    return _cell(job.spec, opts, _STATUS_OF_KIND.get(e.kind, "failed"), f"{e.kind}: {reason}", Measured())


def _cell(spec: CellSpec, opts: Options, status: str, reason: str | None, m: Measured) -> Cell:
    try:
        version = describe_cached(spec.driver, spec.cores, opts.clean_env).get("version")
    except DriverFailed:
        version = None
    return Cell(
        spec.driver.name,
        spec.workload,
        spec.params,
        spec.cores,
        opts.mode,
        status,
        reason,
        m.records,
        m.samples,
        m.extra,
        version,
        cell_settings(spec, opts),
    )
