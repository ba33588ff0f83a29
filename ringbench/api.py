"""The Python API: the one facade every command of the CLI uses. Runs any workload in any mode and
returns plain result objects (ringbench.results); reads, imports and compares stored runs; lists
runtimes; traces.

Example (runnable after `make setup`):

    import ringbench
    result = ringbench.measure("ring", runtimes="go/stock,erlang", params={"n": 1000, "m": 100}, repeat=5)
    for cell in result.cells:
        print(cell.runtime, cell.cores, cell.status, cell.headline.median if cell.ok else cell.reason)
    for w in result.warnings:
        print(w.text)

`measure` validates everything first and raises `InputError` (nothing run, nothing stored) on bad
input, an impossible combination included (a workload or a token count a named runtime cannot
serve); a store that cannot be used raises `StoreError` (its `exit_code` says bad input or
failure). Otherwise every finished cell is in the store (`db`, default results/ringbench.db in the
checkout) before `measure` returns, even if it is interrupted (`result.status == "interrupted"`) or
stopped by its time budget (`"budget"`).
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, replace
from pathlib import Path

from .catalogue import workloads
from .catalogue.drivers import (
    FORMER_NAMES,
    Driver,
    DriverError,
    at_installation,
    build_record,
    discover,
    hop_group,
    select,
)
from .catalogue.drivers import build as build_driver
from .harness import cluster, environment, runner
from .harness import perf as _perf
from .harness import versus as _versus
from .harness.launch import run_driver
from .harness.protocol import DriverFailed, Expectation, check_result, check_samples
from .harness.spec import CellSpec
from .results import document, noise, stats
from .results import modes as _modes
from .results.difference import difference
from .results.model import Cell, Run, cell_key
from .results.modes import (
    DEFAULT_NS_PER_HOP,
    OWN_NS_PER_HOP,
    SETTLE_PCT,
    SETTLE_WINDOW,
    WALL_LONG,
    WALL_SHORT,
    ModeError,
    Options,
    Versus,
    unsettled,
)
from .results.relative import (
    NOT_RANKED,
    BaselineError,
    Relative,
    check_baseline,
    group_key,
    relatives,
    without_installation,
)
from .results.store import DEFAULT_DB, Store, StoreError

__all__ = [
    "DEFAULT_DB",
    "SETTLE_PCT",
    "InputError",
    "StoreError",
    "Options",
    "workloads",
    "estimate",
    "build",
    "measure",
    "resume",
    "load",
    "history",
    "import_run",
    "runtimes",
    "trace",
    "compare",
    "db_flag",
    "perf",
    "versus",
    "RecordedRun",
    "PERF_DEFAULT_RUNNER",
    "Cell",
    "Run",
    # for scripts/, which read results through the API: the statistics, the figures of a versus run, the settle
    # rule, the former names of drivers
    "stats",
    "DEFAULT_NS_PER_HOP",
    "OWN_NS_PER_HOP",
    "WALL_LONG",
    "WALL_SHORT",
    "SETTLE_WINDOW",
    "unsettled",
    "FORMER_NAMES",
    "perf_runner",
]


class InputError(ValueError):
    """Bad input: reported as one line, exit status 2, nothing stored."""


def plan(
    workload: str,
    runtimes: str,
    grid: list[dict] | None = None,
    params: dict | None = None,
    cores: list[str] | str = "all",
    tuned: bool = False,
    hosts: tuple[str, ...] | str = (),
) -> tuple[workloads.Workload, list[CellSpec]]:
    """Validate and expand a request into cells, or raise InputError. Nothing runs. `hosts` (a ring across
    nodes on other hosts) makes the ring's nodes this machine's and one on each host, unless --nodes says."""
    try:
        w = workloads.get(workload)
        if hosts and grid is None:
            params = _nodes_for_hosts(w, params or {}, hosts)
        given_grid = grid is None
        grid = [w.validate(p) for p in grid] if grid is not None else w.grid(params or {})
        drivers = select(runtimes, tuned=tuned)
    except (workloads.ParamError, DriverError, cluster.ClusterError) as e:
        raise InputError(str(e)) from None
    if given_grid and (params or {}).get("node_placement") is not None and all(p.get("nodes", 1) == 1 for p in grid):
        raise InputError(_PLACEMENT_WITHOUT_NODES)
    cores = [c.strip() for c in cores.split(",")] if isinstance(cores, str) else list(cores)
    bad = [c for c in cores if c not in ("1", "all")] or ([] if cores else ["(none)"])
    if bad:
        raise InputError(f"cores must be 1 or all (or both: 1,all), got {','.join(cores)}")
    return w, runner.plan(drivers, w, grid, list(dict.fromkeys(cores)))


_PLACEMENT_WITHOUT_NODES = "--node-placement lays a ring out over nodes: give --nodes K (K ≥ 2) or --hosts too"


def _nodes_for_hosts(w: workloads.Workload, params: dict, hosts: tuple[str, ...] | str) -> dict:
    """A ring over other hosts has this machine's node and one on each host: --nodes, when given, may say
    only that (and 1, the in-node ring, which is measured beside it anyway)."""
    if "nodes" not in {p.name for p in w.params}:
        raise cluster.ClusterError(f"--hosts spreads a ring over nodes on other hosts; {w.name} runs on one node")
    k = cluster.nodes_of(cluster.parse_hosts(hosts))
    given = params.get("nodes")
    if given is None:
        return {**params, "nodes": k}
    values = {workloads.NODES.check(v) for v in str(given).split(",") if v.strip()}
    if not values <= {1, k}:
        raise cluster.ClusterError(
            f"--hosts with {k - 1} host(s) makes {k} nodes (this machine's and one on each host); "
            f"--nodes {given} asks for others"
        )
    return params


@dataclass(frozen=True)
class Estimate:
    """How much a measurement will do, before it runs: for the progress display."""

    cells: int
    processes: int  # steps to take: driver processes in timed mode, cells otherwise
    seconds: float  # a rough guess of the wall time


def ranked_runtimes(tuned: bool = False) -> list[str]:
    """The built variants `bench` measures by default: every one a table ranks (not a hand-off or a
    rendezvous), and the floor for scale."""
    try:
        chosen = select("all", tuned=tuned)
    except DriverError:
        return []
    return [d.name for d in chosen if d.hop not in ("handoff", "rendezvous")]


def estimate(cells: int | list[CellSpec], options: dict) -> Estimate:
    """A rough size of a measurement with these mode options (Options fields): of the planned cells, a
    JIT runtime's counted with its warm-up and each runtime's calibration probe; or of a number of
    cells of runtimes not known."""
    o = Options(**{k: v for k, v in options.items() if v is not None})
    mode = o.mode_object
    if isinstance(cells, int):
        return Estimate(cells, cells * mode.steps(o), cells * mode.seconds(o))
    seconds = sum(mode.seconds(o, c.driver.jit) for c in cells)
    calibrated = [c for c in cells if c.workload.calibrates and c.workload.calibrates not in c.params]
    # a probe per runtime and grid point (measure._calibration's key), serving both core settings
    probed = {(c.driver.name, json.dumps(c.params, sort_keys=True)): c.driver.jit for c in calibrated}
    seconds += sum(mode.probe_seconds(o, jit) for jit in probed.values())
    return Estimate(len(cells), len(cells) * mode.steps(o), seconds)


def resume_estimate(run_id: int, db: Path | str = DEFAULT_DB) -> Estimate:
    """What resuming a stored run still has to measure."""
    run = load(run_id, db)
    left = (run.planned or len(run.cells)) - sum(c.status in ("ok", "refused") for c in run.cells)
    return estimate(max(left, 0), vars(run.options))


def build(
    names: list[str],
    on_each: Callable[[str, str | None], None] = lambda name, problem: None,
    keep_env: bool = False,
    on_env: Callable[[str, dict], None] = lambda name, record: None,
) -> list[str]:
    """Build the named drivers (all when none is named) with their own tools; `on_each(folder, problem)`
    reports each (problem None when built); returns the folders that failed. Unknown names: InputError.
    A build runs without the variables its manifest's `build_env` names (RUSTFLAGS, GOFLAGS, CFLAGS…)
    unless `keep_env`; `on_env(folder, record)` hears of each build that found some set."""
    drivers = discover()
    folders = {d.base: d for d in drivers.values()}
    wanted = list(names) or list(folders)
    unknown = [n for n in wanted if n.partition("@")[0] not in folders and n.partition("@")[0] not in drivers]
    if unknown:
        raise InputError(f"unknown runtime(s) {', '.join(unknown)}; known: {', '.join(folders)}")
    failed = []
    for name in wanted:
        runtime, _, at = name.partition("@")
        try:  # runtime@installation: the driver built for that installation, into its own folder
            d = at_installation(name, drivers)[0] if at else (folders.get(name) or drivers[name])
        except DriverError as e:
            raise InputError(str(e)) from None
        label = f"{d.base}@{d.installation}" if at else d.base
        try:
            record = build_driver(d, keep_env)
            on_each(label, None)
            if record.get("removed") or record.get("kept"):
                on_env(label, record)
        except DriverError as e:
            failed.append(label)
            on_each(label, str(e))
    return failed


def _check_baseline_of_plan(baseline: str | None, cells: list[CellSpec]) -> None:
    if not baseline:
        return
    named = [c.driver for c in cells if c.driver.name == baseline or c.driver.base == baseline]
    if not named:
        have = ", ".join(dict.fromkeys(c.driver.name for c in cells))
        raise InputError(f"--baseline {baseline} is not a runtime of this run (it has: {have})")
    if not any(hop_group(d.hop) == "message" for d in named):
        raise InputError(f"--baseline {baseline}: {NOT_RANKED.get(named[0].hop, 'it is not ranked')}")


class RecordedRun:
    """The lifecycle of a recorded run, the one `measure` (and `resume`), `perf` and `versus` share: the store
    opened before anything runs (one that cannot be used is a StoreError now), the run begun or a stopped one
    claimed (`begin`), each finished cell saved as it comes (`sink`), the status settled from how the
    measuring ended, the run finished and loaded (`run`). Use it as a context manager: the store is closed
    whatever happens. What differs between the commands is what they supply: the settings, the exceptions
    that stop a run early and the status each leaves, and when the run is begun (perf: once every snippet
    has compiled).

        with RecordedRun(db, command, settings, planned=len(cells)) as rec:
            rec.begin()
            run = rec.run(lambda: measure_cells(..., rec.sink), {KeyboardInterrupt: "interrupted"})
    """

    def __init__(
        self,
        db: Path | str,
        command: str,
        settings: dict,
        planned: int,
        *,
        baseline: str | None = None,
        on_cell: Callable[[Cell], None] = lambda c: None,
    ):
        self.db = Path(db)
        self.created = not self.db.exists()
        self.store = Store(db)
        self.command, self.settings, self.planned, self.baseline = command, settings, planned, baseline
        self.on_cell = on_cell
        self.run_id: int | None = None
        self.status = "complete"
        self.finished: list[Cell] = []

    def __enter__(self) -> RecordedRun:
        return self

    def __exit__(self, *exc: object) -> None:
        self.store.close()

    def begin(self, resume: int | None = None) -> int:
        """Begin the run in the store, or claim the stopped run `resume` to finish it; its id."""
        if resume is not None:
            self.store.claim(resume)
            self.run_id = resume
        else:
            host = {**environment.collect(), "concurrent_runs": self.store.live_runs()}
            self.run_id = self.store.begin_run(
                self.command, self.settings, host, planned=self.planned, baseline=self.baseline
            )
        return self.run_id

    def sink(self, c: Cell) -> None:
        """A finished cell: stored in one transaction, then reported (`on_cell`)."""
        assert self.run_id is not None
        self.store.save_cell(self.run_id, c)
        self.finished.append(c)
        self.on_cell(c)

    def run(
        self,
        work: Callable[[], None],
        stops: Mapping[type[BaseException], str],
        *,
        failed_cells_fail: bool = False,
        finish_on_error: bool = False,
        held: Callable[[], AbstractContextManager] = nullcontext,
        drop_unused: bool = False,
    ) -> Run:
        """Run `work` (it hands each finished cell to `sink`, and begins the run unless it was begun before),
        then finish and load the run. `stops`: the exceptions that end the measuring early and the status
        each leaves (raised again if the run was not yet begun). `failed_cells_fail`: a run whose every cell
        was measured but some failed is "failed". `finish_on_error`: any other exception also finishes the
        run (with the status so far) before it goes on; else the run is left running, for the store to call
        abandoned once this process is gone. `held()`: the context the finishing runs in (perf holds Ctrl-C
        back: a run is finished, not left running). `drop_unused`: a store this call created and left without
        a run is removed."""
        failed = True
        loaded: Run | None = None
        try:
            try:
                work()
            except tuple(stops) as e:
                if self.run_id is None:  # before the run was begun: nothing to keep
                    raise
                self.status = next(status for kind, status in stops.items() if isinstance(e, kind))
            if failed_cells_fail and self.status == "complete":
                if any(c.status not in ("ok", "refused") for c in self.finished):
                    self.status = "failed"
            failed = False
        finally:
            with held():
                if self.run_id is None:
                    self.store.close()  # no run was begun in it
                    if drop_unused and self.created:
                        for f in (self.db, *(Path(f"{self.db}{s}") for s in ("-wal", "-shm", "-journal"))):
                            f.unlink(missing_ok=True)
                elif not failed or finish_on_error:
                    with self.store:
                        self.store.finish_run(self.run_id, self.status)
                        loaded = self.store.load_run(self.run_id)
        assert loaded is not None
        return loaded


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
    _check_baseline_of_plan(baseline, cells)
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
    an unreachable node, a cookie or OTP mismatch is bad input (one line, exit 2) and nothing is stored."""
    try:
        cluster.cookie(opts.cookie_file)
    except cluster.ClusterError as e:
        raise InputError(str(e)) from None
    k = cluster.nodes_of(opts.hosts)
    for d in {c.driver.name: c.driver for c in cells if c.params.get("nodes", 1) > 1}.values():
        try:
            with cluster.cluster_file(opts.hosts, opts.cookie_file) as path:
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


def load(run_id: int, db: Path | str = DEFAULT_DB) -> Run:
    """A stored run as result objects (every figure and warning recomputed from the raw records)."""
    with Store(db, create=False) as store:
        run = store.load_run(run_id)
    if run is None:
        raise InputError(f"no run {run_id} in {db} (see `ringbench history{db_flag(db)}`)")
    return run


def db_flag(db: Path | str) -> str:
    """What a printed command adds to reach the store `db`: " --db PATH", or "" for the default store."""
    return Run(0, "", workloads.RING, Options(), {}, {}, [], Path(db)).db_flag()


def history(db: Path | str = DEFAULT_DB) -> list[dict]:
    """The stored runs, oldest first: id, started_at, status (abandoned when its owner is gone), done,
    planned, ok, command, and the settings (workload, runtimes, grid, cores, mode)."""
    with Store(db, create=False) as store:
        return [{**r, "settings": json.loads(r["settings"])} for r in store.runs()]


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


def wait_until_idle(on_wait: Callable[[float], None] = lambda busy: None, most_s: float = 60.0) -> float | None:
    """Before a default comparison: wait (at most `most_s`) for the CPUs to fall idle, so that the load a
    set-up or build left behind is not measured; returns the busy share at the end."""
    return environment.wait_until_idle(noise.BUSY_LIMIT, most_s, on_wait)


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
            "tuned": d.tuned,
            "single_threaded": d.single_threaded,
            "built": d.is_built(),
            "missing": d.missing_tools(),
            "version": None,
            "workloads": [],
            "features": [],
            "problem": None,
            "tuning_env": list(d.tuning_env),
            "build_env": list(d.build_env),
            "build": build_record(d),
        }
        if info["built"] and not info["missing"]:
            try:
                desc = runner.describe_cached(d)
                info.update(
                    version=desc.get("version"), workloads=desc.get("workloads", []), features=desc.get("features", [])
                )
            except (DriverFailed, OSError) as e:  # OSError: an artifact that cannot be executed
                info["problem"] = str(e)
        rows.append(info)
    return rows


def trace_drivers(
    runtime: str, n: object, m: object, nodes: object = None, node_placement: object = None
) -> tuple[list[Driver], int, int]:
    """Validate a trace request: (drivers, n, m), or InputError. With nodes > 1 (a ring across BEAM nodes),
    every driver must describe the feature `nodes`."""
    try:
        params = workloads.TRACE.validate({"n": n, "m": m, "nodes": nodes, "node_placement": node_placement})
        drivers = select(runtime)
    except workloads.ParamError as e:
        raise InputError(f"{e} (trace prints every hop; for larger rings use `ringbench run ring`)") from None
    except DriverError as e:
        raise InputError(str(e)) from None
    if node_placement is not None and params.get("nodes", 1) == 1:
        raise InputError(_PLACEMENT_WITHOUT_NODES.replace(" or --hosts too", ""))
    for d in drivers:
        if workloads.TRACE.name not in runner.workloads_of(d):
            raise InputError(f"{d.name} does not implement trace")
        if params.get("nodes", 1) > 1 and "nodes" not in runner.features_of(d):
            raise InputError(f"{d.name} cannot spread a ring over {params['nodes']} nodes (no `nodes` feature)")
    return drivers, params["n"], params["m"]


def trace(
    d: Driver,
    n: int,
    m: int,
    on_hop: Callable[[dict], None],
    timeout: float = 60,
    nodes: int = 1,
    node_placement: int = 0,
) -> str | None:
    """Run one driver's trace, calling `on_hop` as each hop is printed; None if every hop followed the
    ring's rule (and, across nodes, the driver proved the cross-node hops of the layout), else what was wrong."""
    seen: list[dict] = []

    def hop(rec: dict) -> None:
        if rec["type"] == "hop":
            seen.append(rec)
            on_hop(rec)

    try:
        across = [f"nodes={nodes}", f"node_placement={node_placement}"] if nodes > 1 else []
        launch = run_driver(d, ["run", "trace", f"n={n}", f"m={m}", *across], n=n, timeout=timeout, on_record=hop)
    except DriverFailed as e:
        return str(e)
    problem = workloads.check_trace(seen, n, m, launch.records)
    if problem or nodes == 1:
        return problem
    want = workloads.cross_hops({"n": n, "m": m, "tokens": 1, "nodes": nodes, "node_placement": node_placement})
    got = next((r.get("cross_hops") for r in launch.records if r.get("type") == "result"), None)
    return None if got == want else f"cross-node hops {got}, expected {want}"


# -- compare ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Change:
    """One cell present in both runs: how its headline moved."""

    before: Cell
    after: Cell
    diff: stats.Difference

    @property
    def lower_is_better(self) -> bool:
        return self.after.lower_is_better

    @property
    def slower_pct(self) -> float:
        """How much slower (worse) the after cell is, in % (negative: faster)."""
        r = self.diff.ratio if self.lower_is_better else 1 / self.diff.ratio
        return (r - 1) * 100

    @property
    def slower_ci(self) -> tuple[float, float]:
        """The bootstrap 95 % interval of `slower_pct`, in the same sense."""
        lo, hi = self.diff.ratio_ci
        pair = (lo, hi) if self.lower_is_better else (1 / hi, 1 / lo)
        return (pair[0] - 1) * 100, (pair[1] - 1) * 100

    def regression(self, fail_above: float) -> bool:
        return bool(self.diff.significant) and self.slower_pct > fail_above


def compare(run_a: int, run_b: int, db: Path | str = DEFAULT_DB) -> tuple[Run, Run, list[Change]]:
    """Every cell of run B that run A has too (same runtime, workload, parameters, cores, mode)."""
    if run_a == run_b:
        raise InputError(f"compare needs two different runs (got {run_a} twice)")
    a, b = load(run_a, db), load(run_b, db)
    before = {c.key: c for c in a.cells if c.ok}
    pairs = [(old, c) for c in b.cells if c.ok and (old := before.get(c.key)) is not None]
    changes = [Change(old, c, difference(old, c)) for old, c in pairs or _across_installations(a, b)]
    if not changes:
        raise InputError(
            f"runs {run_a} and {run_b} have no cell in common (same runtime, workload, parameters, cores and mode)"
        )
    return a, b, changes


def _across_installations(a: Run, b: Run) -> list[tuple[Cell, Cell]]:
    """Two runs that differ only in the installation of a runtime (go/stock, then go/stock@go1.27.3): each
    cell of B paired with A's of the same runtime at another installation, where each run has one such."""

    def by_runtime(run: Run) -> dict[str, Cell]:
        keys: dict[str, list[Cell]] = {}
        for c in run.cells:
            if c.ok:
                k = cell_key(without_installation(c.runtime), c.workload.name, c.params, c.cores, c.mode)
                keys.setdefault(k, []).append(c)
        return {k: cs[0] for k, cs in keys.items() if len(cs) == 1}

    older = by_runtime(a)
    return [
        (old, c) for k, c in by_runtime(b).items() if (old := older.get(k)) is not None and old.runtime != c.runtime
    ]


RANKS = ("wall", "cpu")


def check_rank(workload: str, rank: str) -> None:
    """InputError unless runs of `workload` can be ranked by `rank` (cpu: a workload with CPU ns/hop)."""
    if rank not in RANKS:
        raise InputError(f"--rank is one of {', '.join(RANKS)}, not {rank!r}")
    w = workloads.WORKLOADS.get(workload)
    if rank == "cpu" and w is not None and workloads.CPU_NS_PER_HOP not in w.metrics:
        raise InputError(f"--rank cpu: {workload} has no CPU ns/hop to rank by (ring and msgcost have)")


def with_rank(run: Run, rank: str) -> Run:
    """The run shown with Rel % by `rank`: wall (ns/hop, the default) or cpu (CPU ns/hop)."""
    check_rank(run.workload.name, rank)
    return replace(run, rank=rank)


def run_json(run: Run) -> str:
    """The run as the one JSON document every command prints and `import` reads."""
    return document.run_to_json(run)


def with_baseline(run: Run, baseline: str | None) -> Run:
    """The run with another Rel % reference (InputError if it is not a ranked runtime of the run)."""
    if baseline is None:
        return run
    try:
        check_baseline(baseline, run.cells)
    except BaselineError as e:
        raise InputError(str(e)) from None
    return replace(run, baseline=baseline)


# -- versus: a driver against a program of your own -----------------------------------------------------


class RunFailed(RuntimeError):
    """A comparison that could not start (its build command failed): one line, exit 1, nothing stored."""


def versus(
    runtime: str,
    program: str,
    n: str | int | Sequence[int],
    *,
    m: str | int | Sequence[int] | None = None,
    hops: int | None = None,
    tokens: int = 1,
    placement: str = "spread",
    cores: str = "1",
    rounds: int = 5,
    warmup_runs: int = 1,
    env: Mapping[str, str] | Sequence[str] = (),
    no_driver_env: bool = False,
    build: str | None = None,
    timeout: float = 600.0,
    label: str | None = None,
    workload: str = "ring",
    fanout: int = 10,
    short: int | None = None,
    with_default: bool = False,
    db: Path | str = DEFAULT_DB,
    command: str = "ringbench versus (api)",
    on_progress: Callable[[str], None] = lambda text: None,
) -> Run:
    """One driver against an independent ring program, interleaved, both timed from outside; stored as a run.

    `program` is a command line with placeholders {n}, {m}, {tokens}, {hops} (N×M×tokens) and {cores}; it
    must contain {m} or {hops}. Each N is run with a short and a long lap count (`m`: "M2" or "M1,M2";
    else `hops` of the long run, default 5,000,000, M1 = M2 / 10), `rounds` interleaved rounds after
    `warmup_runs` untimed runs a side. The program gets the driver manifest's [env] (unless
    `no_driver_env`) and `env` ("KEY=VALUE" strings or a mapping; {n}, {tokens}, {cores} allowed); `build`
    is a shell command run once first. The run has two cells per N, the driver's and `program:<label>`'s
    (label: the program's file name unless given), in the versus mode (results.modes.Versus).
    `workload="tree"` compares the tree instead: each N is a tree of N leaves under `fanout` against a
    short one of `short` leaves (default N / fanout); the program's placeholders are {n}, {fanout},
    {processes} and {cores}. `with_default`: each round also measures the driver as a default `ringbench
    run` does (one fresh process, warm-ups until settled, m calibrated), in the driver's records
    (results.modes.DEFAULT_NS_PER_HOP): the figure ringbench prints, beside the program's.

    Bad input is an InputError (nothing run, nothing stored); a build that fails is RunFailed (nothing
    stored). Otherwise the run is returned as stored: status complete; failed (a run failed: the comparison
    stopped there and the cells of that N hold the reason, `versus_pairs(run)[i].failure`); or interrupted.
    `on_progress(text)` reports what is being run.
    """
    try:
        req = _versus.plan(
            runtime, program, n, m=m, hops=hops, tokens=tokens, placement=placement, cores=cores, rounds=rounds,
            warmup_runs=warmup_runs, env=env, no_driver_env=no_driver_env, timeout=timeout, label=label,
            workload=workload, fanout=fanout, short=short, with_default=with_default,
        )  # fmt: skip
        if build:
            on_progress(f"building: {build}")
            try:
                _versus.build(build)
            except _versus.Failed as e:
                raise RunFailed(str(e)) from None
        _versus.check_ready(req, built=bool(build))
    except _versus.BadRequest as e:
        raise InputError(str(e)) from None
    settings = {
        "workload": req.points[0].workload.name,
        "runtimes": [req.driver.name, req.program_runtime],
        "grid": [json.dumps(p.params, sort_keys=True) for p in req.points],
        "cores": [req.cores],
        "baseline": None,
        "tuned": False,
        **vars(req.options),
        "versus": {
            "program": req.program,
            "label": req.label,
            "program_env": dict(req.env),
            "driver_env": not no_driver_env,
            "build": build,
            ("n1" if req.points[0].fanout else "m1"): {str(p.n): p.m1 for p in req.points},
        },
    }
    if not Path(db).exists():
        on_progress(f"creating the store {db}")
    with RecordedRun(db, command, settings, 2 * len(req.points)) as rec:
        rec.begin()
        return rec.run(
            lambda: _versus.measure(req, rec.sink, on_progress),
            {_versus.Failed: "failed", KeyboardInterrupt: "interrupted"},
        )


@dataclass(frozen=True)
class VersusPair:
    """One N of a versus run: the driver's cell, the program's, and the driver row's comparison with the
    program's (the table's ratio driver/program; None unless both cells are ok)."""

    driver: Cell
    program: Cell
    relative: Relative | None

    @property
    def params(self) -> dict:
        return self.driver.used_params

    @property
    def m1(self) -> int:
        """The short run's size: its laps (ring) or its leaves (tree)."""
        x, y = self.driver.extra, self.program.extra
        return int(x.get("m1") or y.get("m1") or x.get("n1") or y.get("n1") or 0)

    @property
    def difference(self) -> stats.Difference | None:
        r = self.relative
        if r is None or r.ratio is None or r.ratio_ci is None:
            return None
        return stats.Difference(r.ratio, r.ratio_ci, r.p_value, r.significant)

    @property
    def verdict(self) -> str | None:
        d = self.difference
        return None if d is None else Versus.verdict(d)

    @property
    def failure(self) -> str | None:
        """Why this N was not compared (the one line naming the run that failed), or None."""
        return next((c.reason or c.status for c in (self.driver, self.program) if not c.ok), None)

    @property
    def order(self) -> list[tuple[str, str, int]]:
        """Every run of this N as it was launched: (phase, side, laps), warm-ups first."""
        runs: list[tuple[int, str, str, int]] = []
        for c in (self.driver, self.program):
            side = c.settings.get("side", "")
            short = int(c.extra.get("m1", c.extra.get("n1", 0)))
            runs += [(k, "warm-up", side, short) for k in c.extra.get("warmup_launches", [])]
            for r in c.records:
                runs += [(r["launch_m1"], f"round {r['round']}", side, r.get("m1", r.get("n1", 0)))]
                runs += [(r["launch_m2"], f"round {r['round']}", side, r.get("m", r["n"]))]
        return [(phase, side, laps) for _, phase, side, laps in sorted(runs)]


def versus_pairs(run: Run) -> list[VersusPair]:
    """The N of a versus run in the order measured, each with its two cells and their comparison."""
    rel = relatives(run.cells, run.baseline)
    sides: dict[str, dict[str, int]] = {}
    for i, c in enumerate(run.cells):
        sides.setdefault(group_key(c), {})[c.settings.get("side", "")] = i
    out = []
    for members in sides.values():
        if "driver" in members and "program" in members:
            d, p = members["driver"], members["program"]
            out.append(VersusPair(run.cells[d], run.cells[p], rel.get(d)))
    return out


# -- perf: the user's own code in a tight loop (erlperf's erlperf:run/1,2,3) -----------------------------

# erlperf's run options (erlperf:run/2) by their ringbench names.
_ERLPERF_TIMED = next(word for word, m in _modes.PERF_MODES.items() if m.loops)  # sample_duration's {timed, N}
ERLPERF_RUN_OPTIONS = {
    "concurrency": "concurrency",
    "sample_duration": "sample_ms",
    "samples": "samples",
    "warmup": "warmup",
    "cv": "cv",
    "isolation": "isolated",
    "loop": "loop",
}
# erlperf's concurrency test options (erlperf:run/3): squeeze.
ERLPERF_SQUEEZE_OPTIONS = {"min": "squeeze_min", "max": "squeeze_max", "threshold": "threshold"}


def _erlperf_options(run_options: Mapping | None, concurrency_test: Mapping | None) -> dict:
    out: dict = {}
    for given, names in ((run_options, ERLPERF_RUN_OPTIONS), (concurrency_test, ERLPERF_SQUEEZE_OPTIONS)):
        for key, value in (given or {}).items():
            if key not in names:
                raise InputError(f"unknown option {key!r} (known: {', '.join(names)})")
            if key == "sample_duration" and isinstance(value, tuple | list):
                if len(value) != 2 or value[0] != _ERLPERF_TIMED:
                    raise InputError(f'sample_duration is milliseconds or ("timed", loop), got {value!r}')
                out["loop"] = value[1]  # erlperf's {timed, Loop}
                continue
            out[names[key]] = bool(value) if key == "isolation" else value
    if concurrency_test is not None:
        out["mode"] = "squeeze"
    return out


PERF_DEFAULT_RUNNER = _perf.DEFAULT_RUNNER  # the runner `perf` uses unless told (-r)


def perf_runner(name: str = PERF_DEFAULT_RUNNER) -> Driver:
    """The driver that runs perf's runner `name` (-r NAME: a perf name or a runtime id)."""
    try:
        return _perf.runner_driver(name)[1]
    except _perf.BadCode as e:
        raise InputError(str(e)) from None


def perf(
    code: str | Mapping | Sequence[str | Mapping],
    run_options: Mapping | None = None,
    concurrency_test: Mapping | None = None,
    *,
    runtime: str = _perf.DEFAULT_RUNNER,
    db: Path | str = DEFAULT_DB,
    command: str = "ringbench perf (api)",
    on_ready: Callable[[int], None] = lambda run_id: None,
    on_event: Callable[[str, dict], None] = lambda what, details: None,
    on_stderr: Callable[[str], None] = lambda line: None,
    **options,
) -> Run:
    """Benchmark the user's own code, erlperf's way; the run is stored like any other and returned.

    Mirrors erlperf:run/1,2,3: `code` is the runner's code (a string), a code map with erlperf's keys
    (runner, init, init_runner, done, label) or a list of either, compared side by side;
    `run_options` takes erlperf's names (concurrency, sample_duration, samples, warmup, cv, isolation,
    and sample_duration ("timed", L) or loop for timed mode); `concurrency_test` (min, max, threshold)
    asks for squeeze. The same settings may be given by keyword with ringbench's names: mode
    (continuous, timed, squeeze), concurrency, loop (100, "100M"), samples, sample_ms, warmup, cv,
    max_samples, squeeze_min, squeeze_max, threshold, isolated, processes (Python: workers as OS
    processes), code_path, cores, runtime_stats, timeout, clean_env. `runtime` names the runner
    (erlang, python, node, or a runtime id of a driver with perf).

        import ringbench
        run = ringbench.perf("rand:uniform().")
        qps = run.cells[0].headline.median                       # iterations per second
        run = ringbench.perf(["rand:uniform().", "crypto:strong_rand_bytes(2)."], {"samples": 5})
        for row in ringbench.api.perf_rows(run):
            print(row.code, row.qps, row.ns_per_iteration, row.rel_pct)

    Bad input (code that does not compile, a wrong arity, options that do not fit the mode) is an
    InputError with the runtime's own message, and nothing is stored (the run is created once every
    snippet has compiled: `on_ready(run_id)`). A snippet that raises, hangs (killed after `timeout`
    seconds without a record) or crashes the runtime stops the run at once: its cell is stored as
    failed, with the message and no figure, the run's status is "failed", and the snippets after it are
    not run; a snippet whose done hook fails (or ends the runtime) after it was measured keeps its
    figures (its cell ok, the message in extra["done_failed"]). `on_event(what, details)` reports
    progress; `on_stderr(line)` what the snippets print.
    """
    items = [code] if isinstance(code, str | Mapping) else list(code)
    opts = {**_erlperf_options(run_options, concurrency_test), **{k: v for k, v in options.items() if v is not None}}
    try:
        req = _perf.plan(items, runtime, **opts)
    except _perf.BadCode as e:
        raise InputError(str(e)) from None
    except TypeError as e:
        raise InputError(f"perf: {e}") from None
    try:
        desc = runner.describe_cached(req.driver, req.cores, req.clean_env)
    except DriverFailed as e:
        raise InputError(f"{req.driver.name}: `describe` failed ({e})") from None
    if "perf" not in desc.get("features", []):
        raise InputError(f"{req.driver.name} names perf in its manifest but `describe` does not list the feature")
    settings = {
        "workload": workloads.PERF.name,
        "runtimes": [req.driver.name],
        "grid": [],
        "cores": [req.cores],
        "baseline": None,
        "tuned": False,
        **vars(req.options),
        "perf": {
            "runner": req.runner,
            "mode": req.mode,
            "concurrency": req.concurrency,
            "loop": req.loop,
            "isolated": req.isolated,
            "processes": req.processes,
            "workers": req.workers,
            "code_path": list(req.code_path),
            "snippets": [s.params for s in req.snippets],
            "labels": [workloads.perf_label(s.params, 24) for s in req.snippets],
        },
    }
    # The store is opened before anything runs (one that cannot be used is a StoreError now, before a runtime
    # starts, as for `run`); the run is begun in it once every snippet has compiled. A store this call
    # created and left empty (bad code, a Ctrl-C before the run began) is removed: nothing was stored.
    with RecordedRun(db, command, settings, len(req.snippets)) as rec:

        def work() -> None:
            try:
                _perf.measure(req, rec.sink, lambda: on_ready(rec.begin()), on_event, on_stderr)
            except _perf.BadCode as e:
                raise InputError(str(e)) from None

        # A second Ctrl-C waits while the run is finished (not left running) or the unused store removed.
        return rec.run(
            work,
            {_perf.Failed: "failed", KeyboardInterrupt: "interrupted"},
            finish_on_error=True,
            held=_perf.signals_held,
            drop_unused=True,
        )


@dataclass(frozen=True)
class PerfRow:
    """One snippet of a perf run as erlperf's table has it: code, workers (||), QPS, time per iteration,
    Rel % (against the fastest snippet) with its significance; None where the cell has no figure."""

    cell: Cell
    code: str
    concurrency: int | None
    qps: float | None
    qps_ci: tuple[float, float] | None
    ns_per_iteration: float | None
    rel_pct: float | None
    significant: bool | None
    is_reference: bool
    failure: str | None


def perf_rows(run: Run) -> list[PerfRow]:
    """The snippets of a perf run in the order measured, with their figures (`PerfRow`)."""
    rel = relatives(run.cells, None)
    out = []
    for i, c in enumerate(run.cells):
        r = rel.get(i)
        f = _modes.perf_figures(c)
        out.append(PerfRow(
            c, str(c.params.get("code", "")), f.concurrency, f.qps, f.qps_ci, f.ns_per_iteration,
            r.rel_pct if r else None, r.significant if r else None, bool(r and r.is_reference),
            None if c.ok else (c.reason or c.status),
        ))  # fmt: skip
    return out


# -- installations: other installations of a runtime ----------------------------------------------------
def add_installation(name: str, runtime: str, home: str) -> tuple[Path, str]:
    """Declare installation `name` of driver folder `runtime` at `home` (results/installations.toml), after
    reading its version from it: (the file written, the version). InputError on what cannot be used."""
    from .catalogue import installations as inst

    folders = {d.base: d for d in discover().values()}
    d = folders.get(runtime)
    if d is None:
        raise InputError(f"unknown runtime {runtime!r}; known: {', '.join(folders)}")
    if not home.strip():
        raise InputError("--home is empty: give the installation's home folder (or go's toolchain name)")
    try:
        version = d.at(inst.Installation(name, home, runtime)).install_version()
        return inst.add(name, runtime, home), version
    except (DriverError, inst.InstallationError) as e:
        raise InputError(str(e)) from None


def installations() -> list[dict]:
    """The declared installations: name, runtime, home, the version read from it (or the problem), built."""
    from .catalogue import installations as inst

    folders = {d.base: d for d in discover().values()}
    rows = []
    try:
        found = inst.declared()
    except inst.InstallationError as e:
        raise InputError(str(e)) from None
    for i in found.values():
        row: dict = {"name": i.name, "runtime": i.runtime, "home": i.home, "version": None, "built": False}
        d = folders.get(i.runtime)
        try:
            if d is None:
                raise DriverError(f"no driver {i.runtime!r}")
            at = d.at(i)
            row.update(version=at.install_version(), built=at.is_built())
        except DriverError as e:
            row["problem"] = str(e)
        rows.append(row)
    return rows
