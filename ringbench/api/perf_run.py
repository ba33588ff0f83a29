"""`perf`: the user's own code in a tight loop (erlperf's erlperf:run/1,2,3), stored as a run."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..catalogue import workloads
from ..catalogue.drivers import Driver
from ..harness import perf as _perf
from ..harness import runner
from ..harness.protocol import DriverFailed
from ..results import modes as _modes
from ..results.model import Cell, Run
from ..results.relative import relatives
from ..results.store import DEFAULT_DB
from .errors import InputError
from .lifecycle import RecordedRun

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


def perf_runners() -> list[str]:
    """The perf runners the drivers' manifests name (`perf = NAME`), the default first, then by name."""
    return sorted(_perf.perf_drivers(), key=lambda n: (n != PERF_DEFAULT_RUNNER, n))


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
