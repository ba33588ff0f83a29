"""The result model: plain data that the harness makes, the store saves and loads, and every presenter reads.

    Run ─┬─ Cell ─┬─ records   (raw driver `result` records, one per measured repeat; timed mode)
         │        └─ samples   (raw `sample` records; continuous and squeeze modes)
         └─ Cell …

Nothing here runs a driver or opens a store; every figure and every warning is computed from the raw
records when asked (`Cell.values`, `Cell.summaries`, `Run.warnings`), so a table, an export and a
report of the same run can never disagree. One JSON shape (`results.document`) carries a run in and
out: `run --json`, `show --json`, `export --format json` and `import` all speak it.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from ..catalogue.drivers import REPO, hop_group
from ..catalogue.workloads import RSS_PER_PROC, Metric, Workload
from . import noise, stats
from .modes import MODES, Mode, Options
from .nodes import warnings as node_warnings

# Fewer processes than this make a per-process memory figure mostly the noise of a few pages.
MIN_N_FOR_MEMORY = 1000
CHECKOUT_DB = REPO / "results" / "ringbench.db"
# A run's status: running, complete, failed (some cell failed), interrupted, budget (stopped at --budget),
# imported; "abandoned" is derived on reading (a running run whose process is gone), never written.
RUN_STATUSES = ("running", "complete", "failed", "interrupted", "budget", "abandoned", "imported")
WRITTEN_STATUSES = tuple(s for s in RUN_STATUSES if s != "abandoned")


def cell_key(runtime: str, workload: str, params: dict, cores: str, mode: str) -> str:
    """Identity of a cell: what a resume, `compare` and the report match cells of different runs on."""
    return json.dumps([runtime, workload, params, cores, mode], sort_keys=True)


@dataclass
class Cell:
    """One (runtime, workload, parameters, cores) measured in one mode.

    `params` are the parameters as asked (the grid point); a calibrated `m` is absent from them
    and the value the driver actually ran is in the records (`used_params`). `settings` holds every
    setting of the driver process that can move a result (argv, environment, schedulers, pinned CPU,
    kind of hop, collector, raised limits).
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
    extra: dict = field(default_factory=dict)  # mode details: calibration, warm-ups, convergence, squeeze history
    version: str | None = None
    settings: dict = field(default_factory=dict)

    @property
    def key(self) -> str:
        """Identity of a cell (`cell_key`)."""
        return cell_key(self.runtime, self.workload.name, self.params, self.cores, self.mode)

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
    def tuned(self) -> bool:
        return bool(self.settings.get("tuned"))

    @property
    def ranked_with(self) -> str:
        """ "" for a runtime's own mailbox or channel; "hand-written" for a variant ranked apart (manifest
        `ranked`: a mailbox of the driver's own where the runtime's library has one)."""
        return str(self.settings.get("ranked", ""))

    @property
    def single_threaded(self) -> bool:
        return bool(self.settings.get("single_threaded"))

    @property
    def base(self) -> str:
        """The driver's folder name: the runtime family (erlang for erlang/stock and erlang/tuned)."""
        return self.runtime.split("/")[0]

    @property
    def used_params(self) -> dict:
        """The parameters the driver ran, a calibrated `m` included, in the workload's order."""
        given = {**self.params, **self.extra.get("calibrated", {})}
        return {p.name: given[p.name] for p in self.workload.params if p.name in given}

    @property
    def headline_metric(self) -> Metric:
        return self.mode_object.headline(self.workload)

    @property
    def lower_is_better(self) -> bool:
        return self.headline_metric.lower_is_better

    def values(self, metric: Metric | None = None) -> list[float]:
        """The headline (or given) figure of each repeat or counted sample interval."""
        return self.mode_object.values(self, metric)

    def groups(self, metric: Metric | None = None) -> list[list[float]]:
        """The values grouped by their unit of variation: by driver process where the mode's values come
        from fresh processes (records carry `process`), else each value alone."""
        if self.mode_object.unit != "process":
            return [[v] for v in self.values(metric)]
        metric = metric or self.headline_metric
        by: dict[int, list[float]] = {}
        for r in self.records:
            v = metric.of(r)
            if v is not None:
                by.setdefault(r.get("process", 1), []).append(v)
        return list(by.values())

    def interval(self, metric: Metric | None = None) -> tuple[float, float]:
        """The 95 % interval of the median: processes resampled first where the process is the unit."""
        if self.mode_object.unit == "process":
            return stats.hierarchical_median_ci(self.groups(metric))
        return stats.bootstrap_median_ci(self.values(metric))

    def process_spread(self, metric: Metric | None = None) -> float | None:
        """How far the per-process medians lie apart (share of their median); None with one process."""
        return stats.process_spread(self.groups(metric)) if self.mode_object.unit == "process" else None

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
        """Bytes per process from the first spawn of each driver process (contract section 3).

        Returns (figure, "") or (None, why there is no figure)."""
        if not self.records:
            return None, "no records"
        if RSS_PER_PROC not in self.workload.metrics:
            return None, f"{self.workload.name} has no idle processes to weigh"
        if RSS_PER_PROC not in self.mode_object.metrics(self.workload):
            return None, f"{self.mode} mode gives no memory figure"
        if self.records[0].get("ready") is None:
            return None, "recorded before contract 2 (memory may have been read after a warm-up)"
        if self.params.get("nodes", 1) > 1:
            return None, "a ring across nodes: one node's memory is not the ring's"
        if self.used_params.get("n", 0) < MIN_N_FOR_MEMORY:
            return None, f"fewer than {MIN_N_FOR_MEMORY:,} processes: a few pages of noise"
        vals = [v for v in map(RSS_PER_PROC.of, self.first_of_each_process()) if v is not None]
        if not vals:
            return None, "no memory figures"
        if min(vals) <= 0:
            return None, "memory fell while processes were spawned (the runtime reused freed memory)"
        return stats.summarize(vals).median, ""

    def memory_values(self) -> list[float]:
        """Bytes per process of each driver process's first spawn (the memory rule), where there is one."""
        fig, _ = self.memory_per_process()
        if fig is None:
            return []
        return [v for v in map(RSS_PER_PROC.of, self.first_of_each_process()) if v is not None]

    def first_of_each_process(self) -> list[dict]:
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
        """runtime [cores] and the parameters that differ from their single default (tokens=1, spread); a
        workload may name its cells its own way (perf: the snippet's code)."""
        if self.workload.label:
            return self.workload.label(self.params)
        defaults = {p.name: p.default[0] for p in self.workload.params if p.default and len(p.default) == 1}
        words = {p.name: p.words for p in self.workload.params if p.words}  # interleaved, not node_placement=1
        return f"{self.runtime} [{self.cores}] " + " ".join(
            words[k][v] if k in words and v in range(len(words[k])) else f"{k}={v}"
            for k, v in self.used_params.items()
            if defaults.get(k) != v
        )

    @property
    def identity(self) -> dict:
        """runtime, cores and the parameters that differ from their single default: what names the cell."""
        defaults = {p.name: p.default[0] for p in self.workload.params if p.default and len(p.default) == 1}
        params = {k: v for k, v in self.used_params.items() if defaults.get(k) != v}
        named = f"{self.runtime} {self.workload.label(self.params)}" if self.workload.label else self.runtime
        return {"runtime": named, "cores": self.cores, "params": params}

    def warnings(self) -> list[noise.RunWarning]:
        return self.mode_object.warnings(self) if self.ok else []


@dataclass
class Run:
    run_id: int
    status: str  # running, complete, failed (some cell failed), interrupted, budget, abandoned, imported
    workload: Workload
    options: Options
    settings: dict
    environment: dict
    cells: list[Cell]
    db: Path
    command: str = ""
    baseline: str | None = None  # the runtime asked for as the Rel % reference, if any
    started_at: str = ""
    finished_at: str | None = None
    planned: int | None = None  # cells planned, when known
    rank: str = "wall"  # what Rel % ranks by when shown: "wall" (the headline) or "cpu" (CPU ns/hop); not stored

    @property
    def mode_object(self) -> Mode:
        return self.options.mode_object

    @property
    def warnings(self) -> list[noise.RunWarning]:
        """Every warning of the run, derived from its environment, its status and its cells' raw records."""
        out = noise.environment({**self.environment, "clean_env": self.options.clean_env})
        for c in self.cells:
            out += c.warnings()
        out += node_warnings(self.cells, self.environment)
        kept = {
            c.runtime.split("/")[0]: c.settings["build_env_kept"]
            for c in self.cells
            if c.settings.get("build_env_kept")
        }
        for base, env in kept.items():
            names = ", ".join(f"{k}={v}" for k, v in env.items())
            out.append(
                noise.RunWarning(
                    "env",
                    f"{base} was built with {names} (ringbench build --keep-env): not the standard release build",
                    f"rebuild it without them: ringbench build {base}",
                )
            )
        done = sum(c.status in ("ok", "refused") for c in self.cells)
        planned = self.planned or len(self.cells)
        if self.status in ("budget", "interrupted", "abandoned"):
            why = {
                "budget": "the time budget was used up",
                "interrupted": "interrupted",
                "abandoned": "the process measuring it stopped",
            }[self.status]
            resumable = self.mode_object.resumable  # a versus run is measured again whole
            out.append(
                noise.RunWarning(
                    self.status,
                    f"{why}: {done} of {planned} cells finished and stored (a cell is all or nothing: "
                    "the repeats of one under way are not kept)",
                    "continue with" if resumable else "measure it again with",
                    # its own command where it was recorded: the show hint would name itself under `show`
                    hint=self.hint("sweep --resume") if resumable else self.command or self.hint("show"),
                )
            )
        return out

    def db_flag(self) -> str:
        """`--db PATH` when the run's store is not the checkout's default one, so that a hint pasted into
        another shell acts on the same store."""
        return "" if Path(self.db).resolve() == CHECKOUT_DB.resolve() else f" --db {shlex.quote(str(self.db))}"

    def hint(self, verb: str) -> str:
        """A command about this run that works when pasted: `ringbench <verb> <id> [--db PATH]`."""
        return f"ringbench {verb} {self.run_id}{self.db_flag()}"
