"""Stored runs: load one, list them, compare two, show one with another rank or baseline."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

from ..catalogue import workloads
from ..results import document, stats
from ..results.difference import difference
from ..results.model import Cell, Run, cell_key
from ..results.modes import Options
from ..results.relative import BaselineError, check_baseline, without_installation
from ..results.store import DEFAULT_DB, Store
from .errors import InputError


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
