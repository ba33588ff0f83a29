"""The result model: plain data that the store fills, the API returns and every presenter reads.

    Run ─┬─ Cell ─┬─ records   (raw driver `result` records, one per measured repeat; timed mode)
         │        └─ samples   (raw `sample` records; continuous and squeeze modes)
         └─ Cell …

Nothing here runs a driver or opens a store; every figure is computed from the raw records
when asked (`Cell.values`, `Cell.summaries`), so a table, an export and a report of the same
run can never disagree.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from ..catalogue.drivers import hop_group
from ..catalogue.workloads import RSS_PER_PROC, Metric, Workload
from ..harness.modes import MODES, Mode, Options
from . import stats

# Fewer processes than this make a per-process memory figure mostly the noise of a few pages.
MIN_N_FOR_MEMORY = 1000


@dataclass
class Cell:
    """One (runtime, workload, parameters, cores) measured in one mode.

    `params` are the parameters as asked (the grid point); a calibrated `m` is absent from them
    and the value the driver actually ran is in the records (`used_params`).
    """

    runtime: str
    workload: Workload
    params: dict
    cores: str  # "1" (pinned, one scheduler thread) or "all"
    mode: str  # timed, continuous or squeeze (modes.MODES)
    status: str  # ok, failed, refused, timeout
    reason: str | None = None
    records: list[dict] = field(default_factory=list)
    samples: list[dict] = field(default_factory=list)
    extra: dict = field(default_factory=dict)  # mode details: calibration, convergence, squeeze history
    version: str | None = None
    settings: dict = field(default_factory=dict)  # argv, environment, schedulers, pinned CPU, hop kind

    @property
    def ok(self) -> bool:
        return self.status == "ok" and bool(self.records or self.samples)

    @property
    def mode_object(self) -> Mode:
        return MODES[self.mode]

    @property
    def hop(self) -> str:
        return self.settings.get("hop", "mailbox")

    @property
    def mailbox(self) -> str:
        return self.settings.get("mailbox", "stock")

    @property
    def hop_group(self) -> str:
        return hop_group(self.hop)

    @property
    def is_floor(self) -> bool:
        return self.hop == "floor"

    @property
    def used_params(self) -> dict:
        """The parameters the driver ran, a calibrated `m` included, in the workload's order."""
        given = {**self.params, **self.extra.get("calibrated", {})}
        return {p.name: given[p.name] for p in self.workload.params if p.name in given}

    def values(self, metric: Metric | None = None) -> list[float]:
        """The headline (or given) figure of each repeat or counted sample interval."""
        return self.mode_object.values(self, metric)

    def summaries(self) -> dict[str, stats.Summary]:
        out = {}
        for metric in self.mode_object.metrics(self.workload):
            vals = self.values(metric)
            if vals:
                out[metric.name] = stats.summarize(vals)
        return out

    @property
    def headline(self) -> stats.Summary | None:
        vals = self.values()
        return stats.summarize(vals) if vals else None

    def memory_per_process(self) -> tuple[float | None, str]:
        """Bytes per process from the first spawn of each driver process (contract 2, section 3).

        Returns (figure, "") or (None, why there is no figure)."""
        if not self.records:
            return None, "no records"
        if self.records[0].get("ready") is None:
            return None, "recorded before contract 2 (memory may have been read after a warm-up)"
        if self.used_params.get("n", 0) < MIN_N_FOR_MEMORY:
            return None, f"fewer than {MIN_N_FOR_MEMORY:,} processes: a few pages of noise"
        vals = [v for v in map(RSS_PER_PROC.of, self._first_of_each_process()) if v is not None]
        if not vals:
            return None, "no memory figures"
        if min(vals) <= 0:
            return None, "memory fell while processes were spawned (the runtime reused freed memory)"
        return stats.summarize(vals).median, ""

    def _first_of_each_process(self) -> list[dict]:
        seen: dict[int, dict] = {}
        for r in self.records:
            seen.setdefault(r.get("process", 1), r)
        return list(seen.values())

    @property
    def processes(self) -> int:
        """How many driver processes the repeats came from."""
        return (
            len({r.get("process", 1) for r in self.records})
            if self.records
            else len({s.get("process", 1) for s in self.samples})
        )

    @property
    def label(self) -> str:
        """runtime [cores] and the parameters that differ from their single default (tokens=1, spread)."""
        defaults = {p.name: p.default[0] for p in self.workload.params if p.default and len(p.default) == 1}
        return f"{self.runtime} [{self.cores}] " + " ".join(
            f"{k}={v}" for k, v in self.used_params.items() if defaults.get(k) != v
        )

    def key(self) -> str:
        """Identity of a cell within a run: what `--resume` and `compare` match on."""
        return json.dumps([self.runtime, self.workload.name, self.params, self.cores], sort_keys=True)


@dataclass
class Run:
    run_id: int
    status: str  # running, complete, failed (some cell failed), interrupted, budget, abandoned
    workload: Workload
    options: Options
    settings: dict
    environment: dict
    cells: list[Cell]
    warnings: list[str]
    db: Path
    command: str = ""
    baseline: str | None = None  # the runtime asked for as the Rel % reference, if any

    @property
    def mode_object(self) -> Mode:
        return self.options.mode_object
