"""Harness modes as objects: timed, continuous, squeeze (after erlperf's three).

A mode owns its options (which `Options` fields belong to it), their validation, how it runs one
cell, which values of a finished cell count, and its own warnings. Adding a mode is one class here
plus its entry in MODES.

    timed       R repeats spread over P fresh driver processes (pyperf's way), each process running
                one untimed warm-up first; `m` calibrated to a target message-phase time unless given.
    continuous  the ring runs without end; the driver reports its running hop count every sample
                period (erlperf's sampling); the first sample is a warm-up and is not counted.
    squeeze     continuous runs with 1, 2, 3… tokens until throughput stops growing.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

from ..catalogue.workloads import NS_PER_HOP, Metric, Workload
from ..results import stats
from . import sampling
from .launch import cores_value, run_driver
from .protocol import DriverFailed, Expectation, check_result
from .spec import TIMEOUT_BASE_S, TIMEOUT_PER_PROCESS_S, CellSpec, Outcome

if TYPE_CHECKING:
    from ..results.model import Cell

MIN_REPEATS = stats.MIN_REPEATS_FOR_TEST
Tick = Callable[[str], None]  # told what a cell is doing now ("repeat 2 of 5"), for progress displays
# Calibrated m per (runtime, parameters, target): one probe serves both core settings of a runtime.
_calibrated: dict[str, int] = {}


class ModeError(ValueError):
    """A setting that does not fit the mode (bad input, exit 2)."""


@dataclass(frozen=True)
class Options:
    """Every setting of a measurement; stored with the run, defaults filled in."""

    mode: str = "timed"  # timed | continuous | squeeze
    repeat: int = 5  # timed: measured repeats per cell
    processes: int = 0  # timed: fresh driver processes the repeats are spread over (0: one per repeat)
    warmup: int = 1  # timed: unreported iterations first, in each driver process
    target_ms: float = 100.0  # timed: message-phase time per repeat that a calibrated `m` aims at
    timeout: float | None = None  # seconds per driver process; None: derived from the size
    samples: int = 5  # continuous: counted samples (after one warm-up sample); with cv the window
    sample_ms: int = 1000  # continuous: sample period
    cv: float | None = None  # continuous: sample until the last `samples` have CV below this
    max_samples: int = 30  # continuous with cv: give up after this many samples
    squeeze_min: int = 1
    squeeze_max: int = 64
    threshold: int = 3  # squeeze: steps that must fall short of the peak to stop
    runtime_stats: bool = False  # ask drivers for runtime statistics records

    @classmethod
    def from_settings(cls, settings: dict) -> Options:
        """Options from stored settings (older runs: unknown keys ignored, `in_process` understood)."""
        known = {f.name for f in fields(cls)}
        kw = {k: v for k, v in settings.items() if k in known}
        if settings.get("in_process"):
            kw["processes"] = 1
        return cls(**kw)

    @property
    def mode_object(self) -> Mode:
        return MODES[self.mode]

    @property
    def process_count(self) -> int:
        return self.processes or self.repeat

    @property
    def isolation(self) -> str:
        if self.mode != "timed" or self.process_count == 1 and self.repeat > 1:
            return "in-process"
        return "process" if self.process_count == self.repeat else "processes"


class Mode:
    name = ""
    own: tuple[str, ...] = ()  # Options fields that belong to this mode alone
    value_name = "counted sample(s)"  # what one of the mode's values is, and the flag that gives more
    more_flag = "--samples"
    flags = {"squeeze_min": "--min", "squeeze_max": "--max"}

    def check(self, w: Workload, opts: Options, given: set[str]) -> None:
        """Raise ModeError for a setting given for another mode or out of range. `given`: fields set by the user."""
        for name in sorted(given):
            owners = [m for m in MODES.values() if name in m.own]
            if owners and self not in owners:
                flag = self.flags.get(name, "--" + name.replace("_", "-"))
                raise ModeError(f"{flag} belongs to {' and '.join('--' + m.name for m in owners)} mode")
        if self.name != "timed" and w.verb != "ring":
            raise ModeError(f"{self.name} mode runs the ring (workloads ring and msgcost), not {w.name}")

    def run(self, spec: CellSpec, opts: Options, tick: Tick = lambda text: None) -> Outcome:
        raise NotImplementedError

    def metrics(self, w: Workload) -> tuple[Metric, ...]:
        return (NS_PER_HOP,)

    def values(self, cell: Cell, metric: Metric | None = None) -> list[float]:
        """ns per hop of each counted sample interval."""
        return [ns / h for h, ns in sampling.intervals(self.counted_samples(cell)) if h > 0]

    def counted_samples(self, cell: Cell) -> list[dict]:
        return cell.samples

    def headline_label(self, w: Workload) -> str:
        return "ns/hop"

    def describe(self, opts: Options, w: Workload) -> str:
        return (
            f"ns/hop per {opts.sample_ms} ms sample interval (the first sample of each driver process is a "
            "warm-up and is not counted)"
        )

    def warnings(self, cell: Cell, opts: Options) -> list[str]:
        n = len(self.values(cell))
        if n < MIN_REPEATS:
            return [
                f"{cell.label}: {n} {self.value_name}: too few to tell a difference "
                f"(significance needs {MIN_REPEATS}); use {self.more_flag} {MIN_REPEATS} or more"
            ]
        return []


class Timed(Mode):
    name = "timed"
    own: tuple[str, ...] = ("repeat", "processes", "warmup", "target_ms")
    value_name = "repeat(s)"
    more_flag = "--repeat"

    def check(self, w: Workload, opts: Options, given: set[str]) -> None:
        super().check(w, opts, given)
        if not 1 <= opts.process_count <= opts.repeat:
            raise ModeError(f"--processes must be between 1 and --repeat ({opts.repeat})")
        if not 1 <= opts.target_ms <= 600_000:
            raise ModeError("--target is a message-phase time per repeat between 1 ms and 10 min, e.g. 100ms")

    def metrics(self, w: Workload) -> tuple[Metric, ...]:
        return w.metrics

    def values(self, cell: Cell, metric: Metric | None = None) -> list[float]:
        metric = metric or cell.workload.headline
        return [v for v in map(metric.of, cell.records) if v is not None]

    def headline_label(self, w: Workload) -> str:
        return w.headline.label

    def describe(self, opts: Options, w: Workload) -> str:
        where = (
            "all in one driver process"
            if opts.process_count == 1
            else "each in a fresh driver process"
            if opts.process_count == opts.repeat
            else f"spread over {opts.process_count} fresh driver processes"
        )
        return (
            f"{w.headline.label}: median of {opts.repeat} repeats ({where}, {opts.warmup} untimed warm-up "
            f"iteration(s) first in each)"
        )

    def run(self, spec: CellSpec, opts: Options, tick: Tick = lambda text: None) -> Outcome:
        w = spec.workload
        extra: dict = {}
        calibrated: dict[str, int] = {}
        if w.calibrates and w.calibrates not in spec.params:
            key = json.dumps([spec.driver.name, spec.params, opts.target_ms], sort_keys=True)
            if key not in _calibrated:
                tick(f"calibrating {w.calibrates}")
                _calibrated[key] = self._calibrate(spec, opts)
            calibrated[w.calibrates] = _calibrated[key]
            extra = {"calibrated": calibrated, "target_ms": opts.target_ms}
        p = spec.driver_params(**calibrated)
        want = Expectation(w.verb, p, w.expected(p), w.hops(p), w.ready(p) if w.ready else None)
        per_process = _split(opts.repeat, opts.process_count)
        records: list[dict] = []
        for proc_no, repeats in enumerate(per_process, 1):
            done = sum(per_process[: proc_no - 1])
            tick(f"repeat {done + 1}{'' if repeats == 1 else f'–{done + repeats}'} of {opts.repeat}")
            args = _common_args(spec, p, opts) + [f"repeats={repeats}", f"warmup={opts.warmup}"]
            launch = run_driver(
                spec.driver,
                args,
                cores=spec.cores,
                n=spec.processes,
                timeout=spec.timeout(opts.warmup + repeats, opts.timeout, **calibrated),
            )
            got: list[dict] = []
            for rec in launch.records:
                if rec["type"] == "result":
                    got.append({**check_result(rec, want), "process": proc_no})
                elif rec["type"] == "stats" and got:
                    got[-1]["runtime_stats"] = {k: v for k, v in rec.items() if k != "type"}
            if len(got) != repeats:
                raise DriverFailed(
                    "garbled", f"asked for {repeats} result record(s), got {len(got)}", launch.stderr_tail
                )
            records += got
        return Outcome(spec, "ok", records=records, extra=extra)

    @staticmethod
    def _calibrate(spec: CellSpec, opts: Options) -> int:
        """pyperf's loop calibration, for `m`: one short probe process (after its warm-up) tells the time
        per unit of m; the cell then runs enough for a message phase of `target_ms`."""
        w = spec.workload
        per_unit = max(1, w.hops(spec.driver_params(**{w.calibrates: 1})))  # hops per unit of m
        probe_m = max(1, math.ceil(20_000 / per_unit))  # ~20,000 hops: long enough to time, short for any runtime
        p = spec.driver_params(**{w.calibrates: probe_m})
        want = Expectation(w.verb, p, w.expected(p), w.hops(p), w.ready(p) if w.ready else None)
        args = _common_args(spec, p, opts, stats_ok=False) + ["repeats=1", f"warmup={min(opts.warmup, 1)}"]
        launch = run_driver(
            spec.driver,
            args,
            cores=spec.cores,
            n=spec.processes,
            timeout=spec.timeout(2, opts.timeout, **{w.calibrates: probe_m}),
        )
        rec = next((check_result(r, want) for r in launch.records if r["type"] == "result"), None)
        if rec is None:
            raise DriverFailed("garbled", "the calibration run printed no result record", launch.stderr_tail)
        ns_per_unit = max(rec["run_ns"], 1) / probe_m
        bound = next(q.maximum for q in w.params if q.name == w.calibrates)
        return int(min(bound, max(1, round(opts.target_ms * 1e6 / ns_per_unit))))


class Continuous(Mode):
    name = "continuous"
    own: tuple[str, ...] = ("samples", "sample_ms", "cv", "max_samples")

    def check(self, w: Workload, opts: Options, given: set[str]) -> None:
        super().check(w, opts, given)
        if opts.cv is not None and not 0 < opts.cv < 1:
            raise ModeError("--cv is a fraction between 0 and 1 (e.g. 0.02 for 2 %)")
        if opts.cv is not None and opts.max_samples < opts.samples:
            raise ModeError("--max-samples must be at least --samples")

    def counted_samples(self, cell: Cell) -> list[dict]:
        """With --cv, only the window that converged (the last `samples` intervals) counts."""
        window = cell.extra.get("window")
        return cell.samples[-(window + 1) :] if window else cell.samples

    def run(self, spec: CellSpec, opts: Options, tick: Tick = lambda text: None) -> Outcome:
        tick(f"sampling every {opts.sample_ms} ms")
        samples, converged = _sample_run(spec, spec.params.get("tokens", 1), opts, 1)
        window = opts.samples if opts.cv is not None and converged else None
        counted = samples[-(window + 1) :] if window else samples
        extra = sampling.describe_samples(counted)
        extra["all_samples"] = len(samples) - 1
        if opts.cv is not None:
            extra.update(cv_target=opts.cv, converged=converged, window=window)
        return Outcome(spec, "ok", samples=samples, extra=extra)


class Squeeze(Continuous):
    name = "squeeze"
    own: tuple[str, ...] = ("squeeze_min", "squeeze_max", "threshold")

    def check(self, w: Workload, opts: Options, given: set[str]) -> None:
        Mode.check(self, w, opts, given - set(Continuous.own) | ({"cv"} & given))
        if not 1 <= opts.squeeze_min <= opts.squeeze_max:
            raise ModeError("squeeze needs 1 ≤ --min ≤ --max")

    def counted_samples(self, cell: Cell) -> list[dict]:
        """The peak step's samples: the summary row is the peak."""
        peak = cell.extra.get("peak_concurrency")
        return [s for s in cell.samples if s.get("tokens") == peak]

    def describe(self, opts: Options, w: Workload) -> str:
        return "ns/hop of the peak step (the concurrency K with the highest throughput); " + super().describe(opts, w)

    def run(self, spec: CellSpec, opts: Options, tick: Tick = lambda text: None) -> Outcome:
        n = spec.params["n"]
        search = sampling.Squeeze(opts.threshold)
        samples: list[dict] = []
        for step, k in enumerate(range(opts.squeeze_min, min(opts.squeeze_max, n) + 1), 1):
            tick(f"K = {k} tokens")
            got, _ = _sample_run(spec, k, opts, step)
            samples += got
            if search.add(k, sampling.rates(got)):
                break
        report = search.report()
        peak = [s for s in samples if s["tokens"] == report["peak_concurrency"]]
        report.update(sampling.describe_samples(peak))
        return Outcome(spec, "ok", samples=samples, extra=report)


MODES: dict[str, Mode] = {m.name: m for m in (Timed(), Continuous(), Squeeze())}


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


def _sample_run(spec: CellSpec, tokens: int, opts: Options, step: int) -> tuple[list[dict], bool]:
    """One continuous driver process; returns its sample records and whether --cv converged."""
    p = {**spec.driver_params(), "tokens": tokens}
    p.pop("m", None)  # continuous rings ignore m
    budget = (opts.max_samples if opts.cv else opts.samples) + 1  # +1: the warm-up sample
    args = _common_args(spec, p, opts, stats_ok=False) + [f"sample_ms={opts.sample_ms}", f"samples={budget}"]
    samples: list[dict] = []
    converged = False

    def seen(rec: dict) -> bool:
        nonlocal converged
        if rec["type"] != "sample":
            return False
        samples.append({**rec, "process": step, "tokens": tokens})
        if opts.cv is not None:
            rates = sampling.rates(samples)
            converged = len(rates) >= opts.samples and sampling.converged(rates[-opts.samples :], opts.cv)
            return converged
        return False

    timeout = opts.timeout or TIMEOUT_BASE_S + budget * opts.sample_ms / 1e3 * 2 + p["n"] * TIMEOUT_PER_PROCESS_S
    run_driver(spec.driver, args, cores=spec.cores, n=p["n"], timeout=timeout, on_record=seen)
    sampling.check_samples(samples, p["n"], budget if not converged else len(samples))
    return samples, converged
