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

The API is a package of short modules, each re-exported here: `planning` (cells from a request, estimates),
`lifecycle` (`RecordedRun`, the one lifecycle of a recorded run), `measuring` (measure, resume),
`versus_run`, `perf_run`, `stored` (load, history, compare, ranks and baselines), `importing`, `drivers`
(build, runtimes, trace) and `installing` (other installations of a runtime).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..catalogue import workloads
from ..catalogue.drivers import FORMER_NAMES
from ..harness.launch import interrupt_on_stop
from ..results import stats
from ..results.model import Cell, Run
from ..results.modes import (
    DEFAULT_NS_PER_HOP,
    JIT_WARMUP_CAP_S,
    JIT_WARMUP_ITERATIONS,
    OWN_NS_PER_HOP,
    SETTLE_CHECK,
    SETTLE_MAX,
    SETTLE_PCT,
    SETTLE_S,
    SETTLE_WINDOW,
    WALL_LONG,
    WALL_SHORT,
    Options,
    drifted,
    unsettled,
)
from ..results.store import DEFAULT_DB, Store, StoreError
from .drivers import build, jit_floors, runtimes, trace, trace_drivers
from .errors import InputError
from .importing import import_run
from .installing import add_installation, installations
from .lifecycle import RecordedRun
from .measuring import measure, resume, resume_env_changes, wait_until_idle
from .planning import Estimate, estimate, plan, ranked_runtimes, resume_estimate
from .stored import RANKS, Change, check_rank, compare, db_flag, history, load, run_json, with_baseline, with_rank

# `perf` and `versus` bring runners of their own (harness/perf.py, harness/versus.py) that no other command
# needs: their names are imported on first use (`__getattr__`), so `--help`, `show` or `run` does not load them.
_PERF_RUN = (
    "ERLPERF_RUN_OPTIONS",
    "ERLPERF_SQUEEZE_OPTIONS",
    "PERF_DEFAULT_RUNNER",
    "PerfRow",
    "perf",
    "perf_rows",
    "perf_runner",
    "perf_runners",
)
_VERSUS_RUN = ("RunFailed", "VersusPair", "VersusRequest", "versus", "versus_pairs")

if TYPE_CHECKING:  # the same names, for the type checker
    from .perf_run import (
        ERLPERF_RUN_OPTIONS,
        ERLPERF_SQUEEZE_OPTIONS,
        PERF_DEFAULT_RUNNER,
        PerfRow,
        perf,
        perf_rows,
        perf_runner,
        perf_runners,
    )
    from .versus_run import RunFailed, VersusPair, VersusRequest, versus, versus_pairs


def __getattr__(name: str) -> Any:
    if name in _PERF_RUN:
        from . import perf_run

        return getattr(perf_run, name)
    if name in _VERSUS_RUN:
        from . import versus_run

        return getattr(versus_run, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_DB",
    "SETTLE_PCT",
    "InputError",
    "StoreError",
    "Store",
    "Options",
    "workloads",
    "plan",
    "Estimate",
    "estimate",
    "resume_estimate",
    "ranked_runtimes",
    "build",
    "interrupt_on_stop",
    "measure",
    "resume",
    "resume_env_changes",
    "wait_until_idle",
    "load",
    "history",
    "import_run",
    "runtimes",
    "trace",
    "trace_drivers",
    "compare",
    "Change",
    "RANKS",
    "check_rank",
    "with_rank",
    "with_baseline",
    "run_json",
    "db_flag",
    "perf",
    "perf_rows",
    "PerfRow",
    "ERLPERF_RUN_OPTIONS",
    "ERLPERF_SQUEEZE_OPTIONS",
    "versus",
    "versus_pairs",
    "VersusRequest",
    "VersusPair",
    "RunFailed",
    "RecordedRun",
    "PERF_DEFAULT_RUNNER",
    "perf_runner",
    "perf_runners",
    "add_installation",
    "installations",
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
    "SETTLE_MAX",
    "SETTLE_S",
    "JIT_WARMUP_CAP_S",
    "JIT_WARMUP_ITERATIONS",
    "jit_floors",
    "unsettled",
    "drifted",
    "SETTLE_CHECK",
    "FORMER_NAMES",
]
