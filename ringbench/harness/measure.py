"""How each mode runs a driver: one driver process at a time (a `Step`), so that the runner can take the
steps of comparable cells in turn. What the values mean is `results.modes`'; this module only runs.

Timed mode, one process: the driver is asked for many iterations (`warmup=0`); the first ones it prints
are warm-ups until the last `SETTLE_WINDOW` of them neither drift nor alternate by more than
`settle_pct` (`results.modes.unsettled`; or exactly `--warmup N` of them), at most `settle_max`
iterations or `settle_s` seconds; a JIT runtime's warm-ups first pass its floor, `JIT_WARMUP_HOPS`
(or its manifest's `jit_warmup_hops`) hops and spawned processes in the workload's timed phases,
`JIT_WARMUP_ITERATIONS` iterations, or `JIT_WARMUP_CAP_S` seconds after its first iteration,
whichever comes first (the settle window and
`settle_max` start after that); then the measured repeats, and as many unreported iterations after them
as make `SETTLE_CHECK` after the settle window, which the drift check compares with the window
(`results.modes.drifted`: a process whose figure moved flags its records "not settled", as the cap
does); then the process is stopped (its whole group killed, as in continuous mode). A calibrated `m`
comes from the settled iterations of a short probe process, never from a cold one.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

from ..catalogue.drivers import Driver
from ..catalogue.workloads import Workload
from ..results import sampling
from ..results.modes import (
    JIT_WARMUP_CAP_S,
    JIT_WARMUP_HOPS,
    JIT_WARMUP_ITERATIONS,
    SETTLE_CHECK,
    SETTLE_WINDOW,
    Options,
    check_iterations,
    drifted,
    unsettled,
)
from .cluster import cluster_file
from .launch import cores_value, run_driver
from .protocol import DriverFailed, Expectation, check_result, check_samples
from .spec import TIMEOUT_BASE_S, TIMEOUT_PER_PROCESS_S, CellSpec

Tick = Callable[[str], None]  # told what a cell is doing now ("repeat 2 of 5"), for progress displays
# Calibrated m per (runtime, parameters, target): one probe serves both core settings of a runtime.
_calibrated: dict[str, int] = {}
# A probe of about this many hops is long enough to time and short for any runtime.
PROBE_HOPS = 20_000
# Cold iterations that size a JIT runtime's calibration probe (the fastest of them counts).
SIZING_ITERATIONS = 4


@dataclass
class Measured:
    """What the steps of one cell have gathered so far."""

    records: list[dict] = field(default_factory=list)
    samples: list[dict] = field(default_factory=list)
    extra: dict = field(default_factory=dict)


@dataclass
class Step:
    """One driver process of a cell (a calibration probe goes with the cell's first)."""

    spec: CellSpec
    run: Callable[[Measured, Tick], None]
    what: str  # "repeat 1–3 of 6", "sampling", …


def steps(spec: CellSpec, opts: Options, launches: Iterator[int]) -> list[Step]:
    """The driver processes that measure `spec` in its mode, in order. `launches` numbers every driver
    process of the run as it starts, so the stored records show the order they were measured in."""
    mode = opts.mode_object
    if mode.settles:
        return _timed_steps(spec, opts, launches)
    if not mode.searches:
        return [Step(spec, lambda m, tick: _continuous(spec, opts, m, tick), "sampling")]
    return [Step(spec, lambda m, tick: _squeeze(spec, opts, m, tick), "squeeze")]


# -- timed ----------------------------------------------------------------------------------------
def _timed_steps(spec: CellSpec, opts: Options, launches: Iterator[int]) -> list[Step]:
    per_process = _split(opts.repeat, opts.process_count)
    out = []
    done = 0
    for proc_no, repeats in enumerate(per_process, 1):
        what = f"repeat {done + 1}{'' if repeats == 1 else f'–{done + repeats}'} of {opts.repeat}"
        out.append(Step(spec, _timed_process_step(spec, opts, proc_no, repeats, launches), what))
        done += repeats
    return out


def _timed_process_step(spec: CellSpec, opts: Options, proc_no: int, repeats: int, launches: Iterator[int]):
    def run(m: Measured, tick: Tick) -> None:
        calibrated = _calibration(spec, opts, m, tick)
        tick(f"process {proc_no}")
        got, warm, settled, moved = _settled_process(spec, opts, calibrated, repeats, stats_ok=True, check=True)
        launch = next(launches)
        for i, r in enumerate(got, len(m.records) + 1):
            m.records.append({**r, "process": proc_no, "iteration": i, "launch": launch})
        m.extra.setdefault("warmup_values", {})[str(proc_no)] = warm
        if moved:  # the drift check's verdict (results.modes.drifted), which the warnings name
            m.extra.setdefault("drifted", {})[str(proc_no)] = moved
        if not settled:
            m.extra["not_settled"] = sorted({*m.extra.get("not_settled", []), proc_no})

    return run


def one_process(spec: CellSpec, opts: Options) -> dict:
    """One fresh driver process of a timed cell, as `steps` runs each (`m` calibrated on the settled state
    unless given, warm-ups until settled), measuring one repeat: its result record, with `warmups` and
    `settled`. `ringbench versus --with-default` puts the default figure beside a program's so."""
    calibrated = _calibration(spec, opts, Measured(), lambda text: None)
    got, _, _, _ = _settled_process(spec, opts, calibrated, 1, stats_ok=False, check=True)
    return got[0]


def _calibration(spec: CellSpec, opts: Options, m: Measured, tick: Tick) -> dict[str, int]:
    w = spec.workload
    if not w.calibrates or w.calibrates in spec.params:
        return {}
    if "calibrated" not in m.extra:
        key = json.dumps([spec.driver.name, spec.params, opts.target_ms], sort_keys=True)
        if key not in _calibrated:
            tick(f"calibrating {w.calibrates}")
            _calibrated[key] = _calibrate(spec, opts)
        m.extra.update(calibrated={w.calibrates: _calibrated[key]}, target_ms=opts.target_ms)
    return m.extra["calibrated"]


def _calibrate(spec: CellSpec, opts: Options) -> int:
    """pyperf's loop calibration, for `m`: a short probe process, once settled, tells the time per unit of
    m; the cell then runs enough for a message phase of `target_ms`.

    A JIT runtime's probe first passes its floor (`jit_floor`). In iterations of PROBE_HOPS (a few ms)
    the untimed work of each iteration (the collection between the phases, the teardown) took most of
    the probe's wall time, 10-12 s, when the floor was 3 s of timed phases: so a cold sizing process
    (SIZING_ITERATIONS, no JIT warm-up, the fastest of them) first sizes the probe's m to the target; a
    cold runtime is slower, so the settled probe's iterations last at most about the target."""
    w = spec.workload
    per_unit = max(1, w.hops(spec.driver_params(**{w.calibrates: 1})))  # hops per unit of m
    probe_m = max(1, math.ceil(PROBE_HOPS / per_unit))
    if spec.driver.jit and opts.warmup is None:
        cold = replace(opts, warmup=0)
        got, *_ = _settled_process(spec, cold, {w.calibrates: probe_m}, SIZING_ITERATIONS, stats_ok=False)
        probe_m = max(probe_m, _m_for_target(w, min(r["run_ns"] for r in got) / probe_m, opts))
    got, *_ = _settled_process(spec, opts, {w.calibrates: probe_m}, 1, stats_ok=False)
    return _m_for_target(w, got[0]["run_ns"] / probe_m, opts)


def _m_for_target(w: Workload, ns_per_unit: float, opts: Options) -> int:
    """The `m` whose message phase lasts `target_ms` at `ns_per_unit`, within the parameter's bound."""
    bound = next(q.maximum for q in w.params if q.name == w.calibrates)
    return int(min(bound, max(1, round(opts.target_ms * 1e6 / max(ns_per_unit, 1e-3)))))


def jit_floor(driver: Driver) -> int:
    """The units of work (hops and spawned processes in timed phases) a runtime's warm-ups pass before the
    settle window starts: 0 without a JIT; its manifest's top-level `jit_warmup_hops`, else JIT_WARMUP_HOPS."""
    if not driver.jit:
        return 0
    return JIT_WARMUP_HOPS if driver.jit_warmup_hops is None else driver.jit_warmup_hops


def _settled_process(
    spec: CellSpec, opts: Options, override: dict[str, int], repeats: int, stats_ok: bool, check: bool = False
) -> tuple[list[dict], list[float], bool, str | None]:
    """One driver process: warm-up iterations until settled, then `repeats` measured ones; with `check`,
    then as many unreported ones as make SETTLE_CHECK after a settle window that passed, for the drift
    check (`drifted`), whose verdict flags the measured records not settled. Returns (measured records,
    the warm-ups' settle figures, whether it settled, why it moved after its window or None)."""
    w = spec.workload
    p = spec.driver_params(**override)
    want = Expectation(w.verb, p, w.expected(p), w.hops(p), w.ready(p) if w.ready else None, w.proves(p))
    fixed = opts.warmup
    cap = fixed if fixed is not None else opts.settle_max
    # A JIT first passes its floor (units of work in the timed phases, JIT_WARMUP_ITERATIONS iterations, or
    # JIT_WARMUP_CAP_S after its first iteration), uncounted by `cap`.
    floor = jit_floor(spec.driver) if fixed is None else 0
    units = w.hops(p) + (w.ready(p) if w.ready else 0)  # one iteration's: hops, and processes spawned
    floor_done = 0  # warm-up iterations the floor took
    figure = w.settle_metric.of
    warm: list[float] = []
    measured: list[dict] = []
    decided = fixed == 0
    settled = fixed is not None
    started = time.monotonic()
    first_at: float | None = None  # when the first iteration's record came
    with_stats = stats_ok and opts.runtime_stats
    passed = 0
    after: list[float] = []  # figures of the iterations after the settle window: the repeats, then the check's
    extra = check_iterations(opts, repeats) if check else 0  # decided below: none unless the window passed

    def done() -> bool:
        """Measured, the stats of the last repeat read if asked for, and the drift check's iterations run."""
        stats_in = not with_stats or "runtime_stats" in measured[-1]
        return len(measured) >= repeats and stats_in and len(after) >= repeats + (extra if settled else 0)

    def seen(rec: dict) -> bool:
        nonlocal decided, settled, passed, floor_done, first_at
        if rec["type"] == "stats":
            if decided and measured and len(after) <= repeats and "runtime_stats" not in measured[-1]:
                measured[-1]["runtime_stats"] = {k: v for k, v in rec.items() if k != "type"}
            return bool(measured) and done()
        if rec["type"] != "result":
            return False
        rec = check_result(rec, want)
        if decided and len(measured) >= repeats:  # the drift check's own iterations, not reported
            after.append(figure(rec) or 0.0)
            return done()
        if not decided:
            warm.append(figure(rec) or 0.0)
            now = time.monotonic()
            first_at = now if first_at is None else first_at
            # this iteration is the floor's if the floor was not passed before it
            in_floor = passed < floor and len(warm) <= JIT_WARMUP_ITERATIONS and now - first_at < JIT_WARMUP_CAP_S
            passed += units
            if in_floor:
                floor_done = len(warm)
            elif fixed is not None:
                decided = len(warm) >= fixed
            elif unsettled(warm[floor_done:], opts.settle_pct) is None:
                decided = settled = True
            elif len(warm) - floor_done >= cap or now - started > opts.settle_s:
                decided = True
            return False
        measured.append(
            {**rec, "position": rec.get("iteration"), "warmups": len(warm), "floor_warmups": floor_done,
             "settled": settled}
        )  # fmt: skip
        after.append(figure(rec) or 0.0)
        return done()

    # A JIT's floor takes at most JIT_WARMUP_ITERATIONS beyond the cap (the process is stopped once measured).
    asked = cap + repeats + extra + (JIT_WARMUP_ITERATIONS if floor else 0)
    args = _common_args(spec, p, opts, stats_ok) + [f"repeats={asked}", "warmup=0"]
    with cluster_file(hosts_of(spec, opts), opts.cookie_file, spec.driver) as cluster:
        launch = run_driver(
            spec.driver,
            args,
            cores=spec.cores,
            n=spec.processes,
            timeout=spec.timeout(asked, opts.timeout, **override) + (opts.settle_s if floor else 0),
            on_record=seen,
            clean_env=opts.clean_env,
            cluster=cluster,
        )
    if len(measured) < repeats:
        raise DriverFailed(
            "garbled",
            f"asked for {cap} warm-up(s) at most and {repeats} result record(s), got {len(warm) + len(measured)}",
            launch.stderr_tail,
        )
    # The drift check: a window that passed, against the SETTLE_CHECK iterations after it.
    moved = (
        drifted(warm[-SETTLE_WINDOW:], after[:SETTLE_CHECK], opts.settle_pct)
        if check and settled and fixed is None
        else None
    )
    if moved:
        measured = [{**r, "settled": False} for r in measured]
    return measured[:repeats], warm, settled and not moved, moved


def hosts_of(spec: CellSpec, opts: Options) -> tuple[str, ...]:
    """The other hosts a cell's ring spreads over (none for a ring on local nodes or on one node)."""
    return tuple(opts.hosts) if spec.params.get("nodes", 1) > 1 else ()


def _split(total: int, parts: int) -> list[int]:
    """`total` repeats over `parts` processes, as evenly as possible."""
    return [total // parts + (i < total % parts) for i in range(parts)]


def _common_args(spec: CellSpec, p: dict, opts: Options, stats_ok: bool = True) -> list[str]:
    return [
        "run",
        spec.workload.verb,
        *(f"{k}={v}" for k, v in p.items()),
        f"cores={cores_value(spec.cores)}",
        *(["stats=1"] if opts.runtime_stats and stats_ok else []),
    ]


# -- continuous and squeeze -----------------------------------------------------------------------
def _continuous(spec: CellSpec, opts: Options, m: Measured, tick: Tick) -> None:
    tick(f"sampling every {opts.sample_ms} ms")
    nodes: list[dict] = []
    samples, converged = _sample_run(spec, spec.params.get("tokens", 1), opts, 1, nodes if spec.view else None)
    window = opts.samples if opts.cv is not None and converged else None
    counted = samples[-(window + 1) :] if window else samples
    m.samples += samples
    m.extra.update(sampling.describe_samples(counted), all_samples=len(samples) - 1)
    if nodes:  # the cluster view: each node's record after each sample (contract section 10)
        m.extra["nodes"] = nodes
    if opts.cv is not None:
        m.extra.update(cv_target=opts.cv, converged=converged, window=window)


def _squeeze(spec: CellSpec, opts: Options, m: Measured, tick: Tick) -> None:
    n = spec.params["n"]
    search = sampling.Squeeze(opts.threshold)
    for step, k in enumerate(range(opts.squeeze_min, min(opts.squeeze_max, n) + 1), 1):
        tick(f"{k} tokens")
        got, _ = _sample_run(spec, k, opts, step)
        m.samples += got
        if search.add(k, sampling.rates(got)):
            break
    report = search.report()
    peak = [s for s in m.samples if s["tokens"] == report["peak_concurrency"]]
    report.update(sampling.describe_samples(peak))
    m.extra.update(report)


def _sample_run(
    spec: CellSpec, tokens: int, opts: Options, step: int, nodes: list[dict] | None = None
) -> tuple[list[dict], bool]:
    """One continuous driver process; returns its sample records and whether --cv converged. With `nodes`, the
    driver is asked for the cluster view (stats=1: ignored by drivers without the `nodes` feature), and its
    node records are added to that list."""
    p = {**spec.driver_params(), "tokens": tokens}
    p.pop("m", None)  # continuous rings ignore m
    budget = (opts.max_samples if opts.cv else opts.samples) + 1  # +1: the warm-up sample
    args = _common_args(spec, p, opts, stats_ok=False) + [f"sample_ms={opts.sample_ms}", f"samples={budget}"]
    if nodes is not None:
        args.append("stats=1")
    samples: list[dict] = []
    converged = False

    def seen(rec: dict) -> bool:
        nonlocal converged
        if rec["type"] == "node" and nodes is not None:
            nodes.append({k: v for k, v in rec.items() if k != "type"})
            return False
        if rec["type"] != "sample":
            return False
        samples.append({**rec, "process": step, "tokens": tokens})
        if opts.cv is not None:
            rates = sampling.rates(samples)
            converged = len(rates) >= opts.samples and sampling.converged(rates[-opts.samples :], opts.cv)
            return converged
        return False

    timeout = opts.timeout or TIMEOUT_BASE_S + budget * opts.sample_ms / 1e3 * 2 + p["n"] * TIMEOUT_PER_PROCESS_S
    with cluster_file(hosts_of(spec, opts), opts.cookie_file, spec.driver) as cluster:
        run_driver(
            spec.driver, args, cores=spec.cores, n=p["n"], timeout=timeout, on_record=seen,
            clean_env=opts.clean_env, cluster=cluster,
        )  # fmt: skip
    check_samples(samples, p["n"], budget if not converged else len(samples))
    return samples, converged
