"""The harness modes as values: what each mode's settings are and what its results mean (after erlperf's
three). How a mode runs a driver is the harness's (`harness/measure.py`); what its values are, how
they are summarised and which warnings they earn is here, so that every presenter reads one answer.

    timed       R repeats spread over P fresh driver processes (pyperf's way); each process first runs
                untimed iterations until the runtime has settled (or exactly --warmup N); `m`
                calibrated on settled iterations to a target message-phase time unless given.
    continuous  the ring runs without end; the driver reports its running hop count every sample
                period (erlperf's sampling); the first sample is a warm-up and is not counted.
    squeeze     continuous runs with 1, 2, 3… tokens until throughput stops growing.

    >>> MODES["timed"].describe(Options(repeat=5), workloads.RING)
    'ns/hop: median of 5 repeats (each in a fresh driver process, after warm-up until settled)'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING

from ..catalogue import workloads
from ..catalogue.workloads import NS_PER_HOP, Metric, Workload
from . import noise, sampling, stats

if TYPE_CHECKING:
    from .model import Cell

MIN_REPEATS = stats.MIN_REPEATS_FOR_TEST
# Steady state, one rule for every runtime: a driver process has settled when its last SETTLE_WINDOW
# warm-up iterations show neither position effect the contract forbids, tested as the position check
# of docs/results.md tests iterations 21-40 (`unsettled`): a drift (Kendall's tau of the figure against
# the position, p < SETTLE_P, and a Theil-Sen slope that would move the figure by over SETTLE_PCT of the
# window's median in SETTLE_HORIZON iterations, the span the position check tests) or an alternation
# (even against odd positions, Mann-Whitney U, p < SETTLE_P, the two medians over SETTLE_PCT apart).
# Both the test and the size must say so: an OS-thread ring's ±5 % between iterations is noise, not a
# drift, and a significant 1 % in 20 iterations is not worth waiting for. At most
# SETTLE_MAX warm-ups (after the JIT floor) or SETTLE_S seconds a process; a process that hits the cap is
# measured and flagged "not settled". The rule before it, two iterations in a row within 5 %, passed
# drifts of 20 % over 20 iterations (docs/results.md's position table: ghc/stock, pypy/stackless, node).
# The window is 10, chosen by replaying candidate rules on stored iterations (docs/statistics.md, "When a
# process has settled"; `scripts/results.py --simulate-settle`): a window of 8 settled most processes at
# their 8th iteration, before a slow drift was significant (19 of 76 cells judged measured over 5 % from
# their late level; 11 with 10), and longer windows or a second window cost the bench 42-119 s for one
# to three cells more; 10 costs it about 22 s. What a window can see (simulated, per window, 8 → 10): with
# 1 % noise between iterations a drift of 0.5 %/iteration is flagged 57 → 93 % of the time
# (0.25 %/iteration: 15 → 36 %), with 2 % noise 1 %/iteration 57 → 93 %, with 5 % noise 14 → 31 %; noise
# alone 2-6 %. Each new warm-up tests a new window, so a drift that lasts is caught within a few
# iterations where the noise allows; a plateau that moves after the window has passed is not.
# The drift check: a window that passed can still sit on a plateau that moves right after it. So the
# SETTLE_CHECK iterations after the window (a process's measured repeats, and as many more unreported
# ones as it takes to make SETTLE_CHECK) are compared with the window (`drifted`): their median over
# SETTLE_PCT from the window's, and a Mann-Whitney U test of the two, p < SETTLE_P, flag the process
# "not settled" as the cap does. Replayed on the stored position runs it flags 3 of the 11 cells the
# window settles over 5 % from their late level and 2 of the 65 it gets right, for one iteration more a
# bench process (its 2 repeats and one more); a plateau that moves later than SETTLE_CHECK iterations
# after the window (caf/stock at iteration 21, erlang/stock, ruby/stock at 33) is beyond any process that
# stops there (docs/statistics.md, "After the window").
SETTLE_PCT = 5.0
SETTLE_WINDOW = 10
SETTLE_CHECK = 3
SETTLE_HORIZON = 20
SETTLE_P = 0.05
SETTLE_MAX = 30
SETTLE_S = 20.0
# The JIT floor. A runtime that compiles hot code as it runs (manifest `jit = true`: HotSpot, V8, PyPy)
# first passes JIT_WARMUP_HOPS units of work in the workload's timed phases (hops of the message phase,
# plus the processes of the spawn phase: a workload without messages, as memory, warms up its spawn
# path), or JIT_WARMUP_ITERATIONS iterations (invocations of the whole workload), or spends
# JIT_WARMUP_CAP_S seconds warming up after its first iteration, whichever comes first; the settle
# window and SETTLE_MAX start after that. A flat plateau before a later tier passes any test of a
# window (two iterations agreed on it under the old rule); the floor is what the JIT needs to get past
# it, counted in the work that triggers compilation (invocation and loop back-edge counters grow with
# hops and iterations), not in seconds of timed phases, so that tiny phases (-n 200 -m 5: 1,000 hops an
# iteration) do not spend minutes reaching it. Measured here (--in-process --warmup 0 --repeat 40, one
# core), Kotlin, Pekko and PyPy reach their last tier after 1.5-2.2 s of message passing, java-virtual
# after ~1.3 s (docs/results.md): 6-13 M hops at their 85-330 ns/hop, in 30-60 iterations of the bench's
# phases; the window then waits out what is left of a climb. A manifest may set its own hop floor
# (`jit_warmup_hops`, top level). The cap bounds a process whose hops are slow (java-threads: 9 µs/hop):
# at the bench's phases the JVMs and PyPy reach it first, which the bench's time budget needs (2 s a
# process is about 2.6 s less than the 3 s of timed phases it replaces). pyperf makes the same
# distinction (one warm-up for CPython, calibrated warm-ups for PyPy).
JIT_WARMUP_HOPS = 10_000_000
JIT_WARMUP_ITERATIONS = 50
JIT_WARMUP_CAP_S = 2.0


def unsettled(figures: Sequence[float], pct: float = SETTLE_PCT, window: int = SETTLE_WINDOW) -> str | None:
    """Why the last `window` figures of a process's warm-ups are not yet steady ("drifts -8 % over 20
    iterations", "alternates +20 % …"), or None when they are (see SETTLE_PCT). Fewer than a window are not
    steady yet. `window` other than SETTLE_WINDOW: the rules `scripts/results.py --simulate-settle` weighs."""
    w = [float(x) for x in figures[-window:]]
    if len(w) < window:
        return f"{len(w)} of {window} iterations"
    import numpy as np

    med = float(np.median(w))
    if med <= 0:
        return "no figure"
    from scipy.stats import kendalltau, mannwhitneyu

    slopes = [(w[j] - w[i]) / (j - i) for i in range(len(w)) for j in range(i + 1, len(w))]
    change = float(np.median(slopes)) * SETTLE_HORIZON / med  # Theil-Sen, over the horizon
    if abs(change) * 100 > pct and kendalltau(range(len(w)), w).pvalue < SETTLE_P:
        return f"drifts {change * 100:+.0f} % over {SETTLE_HORIZON} iterations"
    even, odd = w[1::2], w[0::2]
    parity = (float(np.median(even)) - float(np.median(odd))) / med
    if abs(parity) * 100 > pct and mannwhitneyu(even, odd, alternative="two-sided").pvalue < SETTLE_P:
        return f"alternates {parity * 100:+.0f} % (even − odd positions)"
    return None


def drifted(window: Sequence[float], after: Sequence[float], pct: float = SETTLE_PCT) -> str | None:
    """Why a process whose settle `window` passed has still moved in the iterations `after` it ("moved
    +9 % after the settle window"), or None: the median of `after` over `pct` from the window's, and a
    Mann-Whitney U test of the two samples, p < SETTLE_P. Against a window of 10, one iteration after
    never reaches it (p >= 0.18), two only when both lie beyond all ten (p = 0.03), three when they lie
    beyond nearly all (hence SETTLE_CHECK). Both are asked for, as in `unsettled`: a significant 2 % is
    no drift worth flagging."""
    w, a = [float(x) for x in window], [float(x) for x in after]
    if not w or not a:
        return None
    import numpy as np

    med = float(np.median(w))
    if med <= 0:
        return None
    from scipy.stats import mannwhitneyu

    change = float(np.median(a)) / med - 1
    if abs(change) * 100 > pct and mannwhitneyu(w, a, alternative="two-sided").pvalue < SETTLE_P:
        return f"moved {change * 100:+.0f} % after the settle window"
    return None


def check_iterations(opts: Options, repeats: int) -> int:
    """Unreported iterations a process of `repeats` measured ones runs after them for the drift check, so
    that SETTLE_CHECK iterations follow its settle window: none under a fixed --warmup (no window)."""
    return max(0, SETTLE_CHECK - repeats) if opts.warmup is None else 0


class ModeError(ValueError):
    """A setting that does not fit the mode (bad input, exit 2)."""


@dataclass(frozen=True)
class Options:
    """Every setting of a measurement; stored with the run, defaults filled in."""

    mode: str = "timed"  # timed | continuous | squeeze
    repeat: int = 5  # timed: measured repeats per cell
    processes: int = 0  # timed: fresh driver processes the repeats are spread over (0: one per repeat)
    warmup: int | None = None  # timed: None = until settled; N = exactly N untimed iterations a process
    settle_pct: float = SETTLE_PCT
    settle_max: int = SETTLE_MAX
    settle_s: float = SETTLE_S
    target_ms: float = 100.0  # timed: message-phase time per repeat that a calibrated `m` aims at
    timeout: float | None = None  # seconds per driver process; None: derived from the size
    order: str = "interleaved"  # timed: repeats of comparable cells taken in turn, or "sequential"
    seed: int | None = None  # timed, interleaved: the seed of the cells' order in a round (None: drawn, then stored)
    clean_env: bool = False  # start drivers without the variables that tune a runtime
    samples: int = 5  # continuous: counted samples (after one warm-up sample); with cv the window
    sample_ms: int = 1000  # continuous: sample period
    cv: float | None = None  # continuous: sample until the last `samples` have CV below this
    max_samples: int = 30  # continuous with cv: give up after this many samples
    squeeze_min: int = 1
    squeeze_max: int = 64
    threshold: int = 3  # squeeze: steps that must fall short of the peak to stop
    runtime_stats: bool = False  # ask drivers for runtime statistics records
    hosts: tuple[str, ...] = ()  # a ring across nodes: the other hosts' nodes, [name@]host[:port] (contract 10)
    cookie_file: str = ""  # the file holding their cookie (else $RINGBENCH_COOKIE or ~/.erlang.cookie)

    @classmethod
    def from_settings(cls, settings: dict) -> Options:
        """Options from stored settings (older runs: unknown keys ignored, `in_process` understood)."""
        known = {f.name for f in fields(cls)}
        kw = {k: v for k, v in settings.items() if k in known}
        if settings.get("in_process"):
            kw["processes"] = 1
        if "order" not in settings:  # runs before interleaving measured cell after cell
            kw["order"] = "sequential"
        if "hosts" in kw:  # a list once stored as JSON
            kw["hosts"] = tuple(kw["hosts"])
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

    @property
    def warmup_text(self) -> str:
        if self.warmup is None:
            return "after warm-up until settled"
        return "cold: no warm-up" if self.warmup == 0 else f"after {self.warmup} untimed warm-up iteration(s)"


class Mode:
    name = ""
    own: tuple[str, ...] = ()  # Options fields that belong to this mode alone
    value_name = "counted sample(s)"  # what one of the mode's values is, and the flag that gives more
    more_flag = "--samples"
    flags = {"squeeze_min": "--min", "squeeze_max": "--max", "target_ms": "--target"}
    settles = False  # whether its cells record warm-up iterations (and are summarised per repeat)
    sampled = True  # whether its values are sample intervals of a running ring
    # The unit of variation its statistics count (stats.compare_processes): "process" where a cell's values
    # come from fresh driver processes; "repeat" where they are intervals of one running process.
    unit = "repeat"
    resumable = True  # whether `sweep --resume` can finish a stopped run of this mode
    details_under_table = False  # whether each row's details are printed under the table (besides --wide)
    summarised = True  # whether the report's summary ranks its cells among the runtimes' (a versus run's are not)
    takes_turns = False  # whether comparable cells take turns in rounds, in an order drawn from a stored seed
    searches = False  # whether a cell searches for the peak concurrency, a step at a time (squeeze)
    feature: str | None = "continuous"  # the feature a driver's `describe` must list to run the mode
    two_sided = False  # whether a cell holds the records of a driver and of an independent program (versus)
    # perf modes (erlperf's): the job's mode word (contract section 11), whether one worker runs a fixed loop,
    # whether the workers are as given (-c), the flags the mode refuses and why, the defaults it brings
    wire = ""
    loops = False
    given_workers = False
    refuses: tuple[str, ...] = ()
    refusal = ""
    default_warmup = 1
    default_timeout_s = 60.0

    def processes(self, opts: Options) -> int:
        """Driver processes one cell launches at most (calibration probes aside)."""
        return 1

    def steps(self, opts: Options) -> int:
        """Steps one cell is measured in (the progress display counts them): a driver process each in
        timed mode, where comparable cells take turns; one for a continuous or squeeze cell."""
        return 1

    def seconds(self, opts: Options, jit: bool = False) -> float:
        """A rough wall time of one cell, for progress estimates (`jit`: a JIT runtime's)."""
        return self.processes(opts) * (opts.samples + 1) * opts.sample_ms / 1e3

    def probe_seconds(self, opts: Options, jit: bool = False) -> float:
        """A rough wall time of the calibration probe of one runtime's cells, if the mode has one."""
        return 0.0

    def check(self, w: Workload, opts: Options, given: set[str]) -> None:
        """Raise ModeError for a setting given for another mode or out of range. `given`: fields set by the user."""
        for name in sorted(given):
            owners = [m for m in MODES.values() if name in m.own]
            if owners and self not in owners:
                flag = self.flags.get(name, "--" + name.replace("_", "-"))
                raise ModeError(f"{flag} belongs to {' and '.join('--' + m.name for m in owners)} mode")
        if self.name != "timed" and w.verb != "ring":
            raise ModeError(f"{self.name} mode runs the ring (workloads ring and msgcost), not {w.name}")

    def metrics(self, w: Workload) -> tuple[Metric, ...]:
        return (NS_PER_HOP,)

    def headline(self, w: Workload) -> Metric:
        return self.metrics(w)[0]

    def beside(self, w: Workload, cells: Sequence[Cell] = ()) -> tuple[Metric, ...]:
        """The figures a compact table of `cells` shows beside the headline."""
        return ()

    def values(self, cell: Cell, metric: Metric | None = None) -> list[float]:
        """ns per hop of each counted sample interval."""
        return [ns / h for h, ns in sampling.intervals(self.counted_samples(cell)) if h > 0]

    def counted_samples(self, cell: Cell) -> list[dict]:
        return cell.samples

    def describe(self, opts: Options, w: Workload) -> str:
        return (
            f"ns/hop per {opts.sample_ms} ms sample interval (the first sample of each driver process is a "
            "warm-up and is not counted)"
        )

    def details(self, cell: Cell) -> str:
        """The mode's facts about one cell in a few words (the wide table, the report)."""
        x = cell.extra
        parts = [f"{x.get('hops_per_sample_mean', 0):,.0f} hops/sample", f"CV {x.get('cv', 0) * 100:.1f} %"]
        if x.get("slower_than_one_sample"):
            parts.append("a lap > a sample")
        if "converged" in x:
            parts.append(
                f"converged over the last {x['window']} of {x['all_samples']} samples"
                if x["converged"]
                else f"not converged in {x['all_samples']} samples"
            )
        return "; ".join(parts)

    def warnings(self, cell: Cell) -> list[noise.RunWarning]:
        vals = self.values(cell)
        out = []
        if self.unit == "process" and cell.processes < stats.MIN_PROCESSES_FOR_TEST:
            out.append(
                noise.RunWarning(
                    "few",
                    "too few fresh driver processes to tell a difference (significance needs "
                    f"{stats.MIN_PROCESSES_FOR_TEST}: the process is the unit)",
                    f"use --processes {stats.MIN_PROCESSES_FOR_TEST} or more",
                    cell.label,
                    f"{cell.processes}",
                    where=cell.identity,
                )
            )
        elif self.unit != "process" and len(vals) < MIN_REPEATS:
            out.append(
                noise.RunWarning(
                    "few",
                    f"too few {self.value_name} to tell a difference (significance needs {MIN_REPEATS})",
                    f"use {self.more_flag} {MIN_REPEATS} or more",
                    cell.label,
                    f"{len(vals)}",
                    where=cell.identity,
                )
            )
        if len(vals) > 1:
            out += noise.noisy(cell.label, stats.cv(vals), cell.identity)
        if cell.extra.get("converged") is False:
            out.append(
                noise.RunWarning(
                    "not-converged",
                    "continuous sampling did not reach --cv",
                    "sample longer (--max-samples) or on a quieter machine",
                    cell.label,
                    f"{cell.extra.get('all_samples')} samples",
                    where=cell.identity,
                )
            )
        return out


class Timed(Mode):
    name = "timed"
    own: tuple[str, ...] = ("repeat", "processes", "warmup", "target_ms", "order", "seed")
    value_name = "repeat(s)"
    more_flag = "--repeat"
    settles = True
    sampled = False
    unit = "process"
    takes_turns = True
    feature = None

    def processes(self, opts: Options) -> int:
        return opts.process_count

    def steps(self, opts: Options) -> int:
        return opts.process_count

    def seconds(self, opts: Options, jit: bool = False) -> float:
        """Per process: half a second to start, and each iteration (a settle window of warm-ups, then the
        repeats) its message phase and as much again by half for the spawn, the collection and the
        teardown; a JIT runtime's floor, counted at its cap (at a 40 ms target the JVMs and PyPy reach the
        cap before the hops); the drift check's iterations beyond the repeats (`check_iterations`)."""
        warm = SETTLE_WINDOW if opts.warmup is None else opts.warmup
        its = warm + opts.repeat / opts.process_count + check_iterations(opts, opts.repeat // opts.process_count)
        per_process = 0.5 + its * opts.target_ms / 1e3 * 1.5
        return self.processes(opts) * (per_process + (JIT_WARMUP_CAP_S if jit and opts.warmup is None else 0))

    def probe_seconds(self, opts: Options, jit: bool = False) -> float:
        # one settled process with one repeat; a JIT's is sized by a cold process first
        return self.seconds(replace(opts, repeat=1, processes=1), jit) + (1.0 if jit else 0.0)

    def check(self, w: Workload, opts: Options, given: set[str]) -> None:
        super().check(w, opts, given)
        if not 1 <= opts.process_count <= opts.repeat:
            raise ModeError(f"--processes must be between 1 and --repeat ({opts.repeat})")
        if not 1 <= opts.target_ms <= 600_000:
            raise ModeError("--target is a message-phase time per repeat between 1 ms and 10 min, e.g. 100ms")
        if opts.order not in ("interleaved", "sequential"):
            raise ModeError("--order is interleaved or sequential")

    def metrics(self, w: Workload) -> tuple[Metric, ...]:
        return w.metrics

    def beside(self, w: Workload, cells: Sequence[Cell] = ()) -> tuple[Metric, ...]:
        return w.beside

    def values(self, cell: Cell, metric: Metric | None = None) -> list[float]:
        metric = metric or cell.workload.headline
        return [v for v in map(metric.of, cell.records) if v is not None]

    def describe(self, opts: Options, w: Workload) -> str:
        where = (
            "all in one driver process"
            if opts.process_count == 1
            else "each in a fresh driver process"
            if opts.process_count == opts.repeat
            else f"spread over {opts.process_count} fresh driver processes"
        )
        return f"{w.headline.label}: median of {opts.repeat} repeats ({where}, {opts.warmup_text})"

    def details(self, cell: Cell) -> str:
        x = cell.extra
        parts = []
        if x.get("calibrated"):
            parts.append(f"m calibrated to {x.get('target_ms', 0):g} ms")
        warm = warmups(cell)
        if warm:
            jit = ""
            if cell.settings.get("jit_warmup_hops"):
                floor, cap = cell.settings["jit_warmup_hops"], cell.settings.get("jit_warmup_cap_s", 0)
                its = cell.settings.get("jit_warmup_iterations")
                jit = f", JIT floor {floor / 1e6:g} M hops{f', {its} iterations' if its else ''} or {cap:g} s"
            elif cell.settings.get("jit_warmup_s"):  # runs before issue 39: a floor in seconds of timed phases
                jit = f", ≥ {cell.settings['jit_warmup_s']:g} s: JIT"
            parts.append(f"warm-ups {'/'.join(map(str, warm))}{jit}{'' if settled(cell) else ' (not settled)'}")
        if cell.records:
            parts.append(f"{cell.processes} process(es)")
        medians = process_medians(cell)
        if len(medians) > 1:  # how far the fresh processes, the unit of the statistics, lie apart
            spread = stats.process_spread([[m] for m in medians])
            shown = " / ".join(f"{m:,.0f}" if m >= 100 else f"{m:.3g}" for m in medians)
            parts.append(f"process medians {shown}" + (f" (spread {spread * 100:.0f} %)" if spread is not None else ""))
        return "; ".join(parts)

    def warnings(self, cell: Cell) -> list[noise.RunWarning]:
        out = super().warnings(cell)
        if not settled(cell):
            moved = cell.extra.get("drifted", {})  # process -> why, from the drift check after the window
            capped = sorted(
                {r.get("process", 1) for r in cell.records if not r.get("settled", True)} - {int(p) for p in moved}
            )
            why = []
            if capped:
                why.append(
                    f"the last {SETTLE_WINDOW} warm-up iterations still drifted or alternated by over "
                    f"{SETTLE_PCT:g} % (p < {SETTLE_P:g}) at the cap ({SETTLE_MAX} iterations after a JIT's "
                    f"floor, or {SETTLE_S:g} s a process)"
                )
            if moved:
                why.append(
                    ", ".join(f"process {p} {text}" for p, text in sorted(moved.items()))
                    + f" (its {SETTLE_CHECK} iterations after the window against the window's {SETTLE_WINDOW}: "
                    f"over {SETTLE_PCT:g} %, p < {SETTLE_P:g})"
                )
            out.append(
                noise.RunWarning(
                    "not-settled",
                    "not settled: " + "; ".join(why),
                    "its figures may still move between iterations; see `--in-process --repeat 10 --json`",
                    cell.label,
                    f"{'/'.join(map(str, warmups(cell)))} warm-ups",
                    where=cell.identity,
                )
            )
        return out


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


class Squeeze(Continuous):
    name = "squeeze"
    own: tuple[str, ...] = ("squeeze_min", "squeeze_max", "threshold")
    searches = True

    def check(self, w: Workload, opts: Options, given: set[str]) -> None:
        Mode.check(self, w, opts, given - set(Continuous.own) | ({"cv"} & given))
        if not 1 <= opts.squeeze_min <= opts.squeeze_max:
            raise ModeError("squeeze needs 1 ≤ --min ≤ --max")

    def processes(self, opts: Options) -> int:
        return max(opts.squeeze_max - opts.squeeze_min + 1, 1)

    def counted_samples(self, cell: Cell) -> list[dict]:
        """The peak step's samples: the summary row is the peak."""
        peak = cell.extra.get("peak_concurrency")
        return [s for s in cell.samples if s.get("tokens") == peak]

    def describe(self, opts: Options, w: Workload) -> str:
        return "ns/hop of the peak step (the token count with the highest throughput); " + super().describe(opts, w)

    def details(self, cell: Cell) -> str:
        return f"peak at {cell.extra.get('peak_concurrency')} tokens; " + super().details(cell)


MODES: dict[str, Mode] = {m.name: m for m in (Timed(), Continuous(), Squeeze())}


def warmups(cell: Cell) -> list[int]:
    """Warm-up iterations each driver process of the cell ran before its measured ones."""
    seen: dict[int, int] = {}
    for r in cell.records:
        if "warmups" in r:
            seen.setdefault(r.get("process", 1), r["warmups"])
    return list(seen.values())


def settled(cell: Cell) -> bool:
    """False when some driver process hit the warm-up cap before its settle window was steady, or moved
    after a window that had passed (`drifted`)."""
    return all(r.get("settled", True) for r in cell.records)


def process_medians(cell: Cell, metric: Metric | None = None) -> list[float]:
    """The headline (or given) figure's median in each fresh driver process of a timed cell, in the order
    the processes ran ([] for a mode whose values are not grouped by process): what the test compares, and
    the between-process spread a reader should see (stats.process_spread of them, Cell.process_spread)."""
    if cell.mode_object.unit != "process":
        return []
    return stats.process_medians(cell.groups(metric))


def squeeze_history(cell: Cell) -> list[dict]:
    """The squeeze search, one step a line: concurrency, hops/s (mean), sd, samples, and whether it is the peak."""
    peak = cell.extra.get("peak_concurrency")
    return [{**h, "peak": h["concurrency"] == peak} for h in cell.extra.get("history", [])]


__all__ = [
    "MODES",
    "Mode",
    "ModeError",
    "Options",
    "workloads",
    "warmups",
    "settled",
    "squeeze_history",
    "unsettled",
    "drifted",
    "check_iterations",
]


# -- versus: a driver against an independent program ----------------------------------------------
# `ringbench versus` (harness/versus.py) runs a driver and a program of its runtime interleaved, both timed
# from outside as whole processes at a short lap count M1 and a long one M2. Its run has two cells per N,
# the driver (as its runtime id) and the program (`program:<label>`, settings["side"] = "program"); each
# record is one round of one side: the whole-process wall times of its short and long runs (wall_m1_ns,
# wall_m2_ns), the laps (m1, and m = M2) and the ring's n and tokens; a driver's record is its checked
# result record of the long run, a program's has the contract's fields at 0 (a program proves nothing).
def _differential(r: workloads.Params) -> float | None:
    """(t(M2) − t(M1)) / (N × (M2 − M1) × tokens): what one more hop costs in a running ring; for the tree,
    (t(N) − t(N1)) / (processes(N) − processes(N1)): what one more process costs."""
    if "n1" in r:
        more = workloads.tree_processes(r) - workloads.tree_processes({"n": r["n1"], "fanout": r["fanout"]})
    else:
        more = r["n"] * (r["m"] - r["m1"]) * r["tokens"]
    return (r["wall_m2_ns"] - r["wall_m1_ns"]) / more if more > 0 else None


VERSUS_NS_PER_HOP = Metric("ns_per_hop", "ns/hop", _differential)
VERSUS_NS_PER_PROCESS = Metric("ns_per_process", "ns/proc", _differential)
OWN_NS_PER_HOP = Metric("own_ns_per_hop", "own ns/hop", lambda r: r["run_ns"] / r["count"] if r["count"] else None)
OWN_NS_PER_PROCESS = Metric(
    "own_ns_per_process", "own ns/proc", lambda r: r["run_ns"] / workloads.tree_processes(r) if r["run_ns"] else None
)
# `versus --with-default`: the round's default measurement (one fresh process as `ringbench run` takes it),
# its message phase per hop: the figure ringbench prints, as the driver's own records give it.
DEFAULT_NS_PER_HOP = Metric(
    "default_ns_per_hop",
    "default ns/hop",
    lambda r: r["default_run_ns"] / r["default_count"] if r.get("default_count") else None,
)
WALL_SHORT = Metric("wall_short_s", "t short s", lambda r: r["wall_m1_ns"] / 1e9)
WALL_LONG = Metric("wall_long_s", "t long s", lambda r: r["wall_m2_ns"] / 1e9)
# Below this the long and short runs differ by little more than timer and scheduler noise; or by less
# than NOISE_FACTOR × the spread (MAD) of the short runs' wall times.
MIN_DIFFERENCE_S = 0.05
NOISE_FACTOR = 20


class Versus(Mode):
    """Values: the differential ns/hop of each round. Rows are compared their own way (see
    results.relative.OwnComparison): each row against the program of its N and core setting, whatever
    its kind of hop or tuning, and the table reads the ratio driver/program."""

    name = "versus"
    two_sided = True
    resumable = False  # a stopped comparison is measured again whole (`sweep --resume` cannot run it)
    summarised = False  # a driver against a program: its own table says it, not the runtimes' summary
    sampled = False
    details_under_table = True  # each row's laps, wall times and commands, printed under the table
    value_name = "rounds"
    more_flag = "--rounds"
    comparison_header = "ratio\ndriver/program"

    def processes(self, opts: Options) -> int:
        """One side's processes: its warm-up runs and two a round."""
        return (opts.warmup or 0) + 2 * opts.repeat

    def steps(self, opts: Options) -> int:
        return opts.repeat

    def seconds(self, opts: Options, jit: bool = False) -> float:
        return self.processes(opts) * 0.5  # the program's speed is unknown: half a second a process

    def check(self, w: Workload, opts: Options, given: set[str]) -> None:
        raise ModeError(
            "a versus run (a driver against a program) is measured by `ringbench versus`, not by run or sweep; "
            "run `ringbench versus` again (`ringbench show RUN` has its command)"
        )

    def metrics(self, w: Workload) -> tuple[Metric, ...]:
        if w.name == workloads.TREE.name:
            return (VERSUS_NS_PER_PROCESS, OWN_NS_PER_PROCESS, WALL_SHORT, WALL_LONG)
        return (VERSUS_NS_PER_HOP, OWN_NS_PER_HOP, WALL_SHORT, WALL_LONG, DEFAULT_NS_PER_HOP)

    def beside(self, w: Workload, cells: Sequence[Cell] = ()) -> tuple[Metric, ...]:
        """Figures the compact table shows beside the headline: the driver's own figure per hop (process),
        and the default one where the run measured it (`versus --with-default`)."""
        default = (DEFAULT_NS_PER_HOP,) if any(c.values(DEFAULT_NS_PER_HOP) for c in cells) else ()
        return self.metrics(w)[1:2] + default

    def values(self, cell: Cell, metric: Metric | None = None) -> list[float]:
        """A metric is read by its name: ns_per_hop asked of a versus cell (by a chart, say) is its
        differential figure, never the driver's own run_ns / count."""
        mine = {m.name: m for m in self.metrics(cell.workload)}
        metric = mine.get(metric.name, metric) if metric else self.metrics(cell.workload)[0]
        return [v for v in map(metric.of, cell.records) if v is not None]

    def describe(self, opts: Options, w: Workload) -> str:
        figure = (
            "ns/proc = (t(N) − t(N1)) / (processes(N) − processes(N1)), whole processes timed from outside"
            if w.name == workloads.TREE.name
            else "ns/hop = (t(M2) − t(M1)) / (N × (M2 − M1) × tokens), whole processes timed from outside, M = M2"
        )
        return (
            f"{figure}; "
            f"median of {opts.repeat} interleaved rounds (ABBA, the sides swapping each round, after "
            f"{opts.warmup or 0} untimed warm-up run(s) a side); own = the driver's own figure from its record; "
            "default (versus --with-default) = its figure as `ringbench run` measures it by default, one fresh "
            "process a round"
        )

    def details(self, cell: Cell) -> str:
        x = cell.extra
        parts = (
            [f"N {x.get('n1', 0):,} → {cell.used_params.get('n', 0):,}"]
            if "n1" in x
            else [f"M {x.get('m1', 0):,} → {cell.used_params.get('m', 0):,}"]
        )
        short, long_ = self.values(cell, WALL_SHORT), self.values(cell, WALL_LONG)
        if short and long_:
            parts.append(f"wall {stats.summarize(short).median:.3f} s → {stats.summarize(long_).median:.3f} s")
        if x.get("command_m1"):
            parts.append(f"short run: {x['command_m1']}; long run: {x['command_m2']}")
        return "; ".join(parts)

    def warnings(self, cell: Cell) -> list[noise.RunWarning]:
        out = super().warnings(cell)
        short, long_ = self.values(cell, WALL_SHORT), self.values(cell, WALL_LONG)
        if not short or len(short) != len(long_):
            return out
        gap = stats.summarize([b - a for a, b in zip(short, long_, strict=True)]).median
        spread = stats.summarize(short).mad
        if gap < max(MIN_DIFFERENCE_S, NOISE_FACTOR * spread):
            out.append(
                noise.RunWarning(
                    "small-difference",
                    f"the long runs exceed the short ones by less than {MIN_DIFFERENCE_S * 1e3:.0f} ms or "
                    f"{NOISE_FACTOR} × the short runs' spread: start-up noise weighs on the figure",
                    "raise --hops or -m",
                    cell.label,
                    f"{gap * 1e3:.0f} ms longer, short runs ±{spread * 1e3:.1f} ms",
                    {"difference_s": gap, "short_mad_s": spread},
                    cell.identity,
                )
            )
        return out

    # -- the comparison (results.relative.OwnComparison) --
    def ranked(self, cell: Cell) -> bool:
        return True

    def group_key(self, cell: Cell) -> str:
        return repr((cell.workload.name, sorted(cell.params.items()), cell.cores))

    def reference(self, group: list[Cell]) -> Cell | None:
        return next((c for c in group if c.ok and c.settings.get("side") == "program"), None)

    def comparison_note(self) -> str:
        return (
            "ratio driver/program = the driver's median ns/hop over the program's (≤ 1: the driver at least as "
            "fast) with its bootstrap 95 % interval; ✓ significant difference (Mann-Whitney U over the rounds, "
            f"p < 0.05), ≈ none, ? too few rounds to tell (a test needs {MIN_REPEATS} a side)."
        )

    @staticmethod
    def verdict(d: stats.Difference) -> str:
        """The comparison of one N in a sentence, from stats.compare(program values, driver values)."""
        lo, hi = d.ratio_ci
        if d.ratio <= 1.0:
            head = "driver at least as fast (ratio ≤ 1.0)"
            if hi > 1.0:
                head += f"; the interval reaches {hi:.2f}, so not proven"
        else:
            head = "driver slower (ratio > 1.0)"
            if lo <= 1.0:
                head += f"; the interval reaches down to {lo:.2f}"
        if d.significant is None:
            return f"{head}; too few rounds for a test (Mann-Whitney needs {MIN_REPEATS})"
        if d.significant:
            return f"{head}; the difference is significant (Mann-Whitney p = {d.p_value:.3g})"
        return f"{head}; no significant difference (Mann-Whitney p = {d.p_value:.3g})"


MODES[Versus.name] = Versus()


# -- perf: the user's own code in a tight loop ----------------------------------------------------
# `ringbench perf` (harness/perf.py) runs snippets of code on a runtime's perf runner (contract section 10)
# in erlperf's three modes. Its run has one cell per snippet (workloads.PERF: the code and hooks verbatim in
# the params). A continuous or squeeze cell holds the job's samples: `process` the squeeze step (1 outside
# squeeze), `tokens` the workers running then, `seq` 0 when they were released, then extra["warmup"]
# warm-up samples a step; a timed cell holds one record per timed sample (count = iterations, run_ns).
PERF_ONLY = "a perf run is measured by `ringbench perf`, not by run or sweep (`ringbench show RUN` has its command)"


def _perf_ref(metric: Metric | None, mine: tuple[Metric, ...]) -> Metric:
    """A metric read by its name (a chart asking for qps gets this mode's)."""
    by_name = {m.name: m for m in mine}
    return by_name.get(metric.name, metric) if metric else mine[0]


class PerfContinuous(Mode):
    """erlperf's continuous mode: the workers iterate without end; values are the job's iterations per second
    (QPS, every worker together) over each counted sample interval."""

    name = "perf-continuous"
    resumable = False  # a perf run is measured again whole, with its command
    summarised = False  # snippets of code: their own table says it, not the runtimes' summary
    value_name = "counted sample(s)"
    more_flag = "--samples"
    wire = "continuous"
    given_workers = True
    refuses = ("squeeze_min", "squeeze_max", "threshold")
    refusal = "it belongs to squeeze (-q)"

    def check(self, w: Workload, opts: Options, given: set[str]) -> None:
        raise ModeError(PERF_ONLY)

    def metrics(self, w: Workload) -> tuple[Metric, ...]:
        return (workloads.QPS, workloads.NS_PER_ITERATION)

    def intervals(self, cell: Cell) -> list[dict]:
        """Each counted interval as a record the metrics read: iterations, its length, the workers."""
        warm = cell.extra.get("warmup", 0)
        out = []
        counted = self.counted_samples(cell)
        for step in dict.fromkeys(s.get("process", 1) for s in counted):
            ss = [s for s in counted if s.get("process", 1) == step and s["seq"] >= warm]
            for prev, cur in zip(ss, ss[1:], strict=False):
                out.append({
                    "count": cur["count"] - prev["count"], "run_ns": cur["elapsed_ns"] - prev["elapsed_ns"],
                    "concurrency": cur.get("tokens", 1),
                })  # fmt: skip
        window = cell.extra.get("window")
        return out[-window:] if window else out

    def values(self, cell: Cell, metric: Metric | None = None) -> list[float]:
        m = _perf_ref(metric, self.metrics(cell.workload))
        return [v for v in map(m.of, self.intervals(cell)) if v is not None]

    def describe(self, opts: Options, w: Workload) -> str:
        warm = opts.warmup or 0
        return (
            f"QPS = iterations per second of all the workers together (Ki thousands, Mi millions), the median of "
            f"the counted {opts.sample_ms} ms sample intervals after {warm} warm-up sample{'s' * (warm != 1)}; "
            "Time = workers / QPS, what one iteration takes one worker"
        )

    def details(self, cell: Cell) -> str:
        iv = self.intervals(cell)
        parts = [f"{len(iv)} interval(s) of {stats.summarize([i['run_ns'] for i in iv]).median / 1e6:.0f} ms"]
        vals = self.values(cell)
        if len(vals) > 1:
            parts.append(f"CV {stats.cv(vals) * 100:.1f} %")
        if (done := perf_iterations(cell)) is not None:
            parts.append(f"{done:,} iterations in all")
        if "converged" in cell.extra:
            parts.append("converged" if cell.extra["converged"] else "not converged")
        return "; ".join(parts)

    def warnings(self, cell: Cell) -> list[noise.RunWarning]:
        out = super().warnings(cell)
        empty = [i for i in self.intervals(cell) if i["count"] == 0]
        if empty:
            longest = max(i["run_ns"] for i in empty) / 1e6
            out.append(
                noise.RunWarning(
                    "slower-than-sample",
                    "no iteration finished within a sample interval: such an interval counts 0 QPS",
                    f"sample for longer, e.g. --sample-ms {max(1000, int(longest * 5)):,}, or time a fixed count "
                    "with -l",
                    cell.label,
                    f"{len(empty)} of {len(self.intervals(cell))} intervals",
                    where=cell.identity,
                )
            )
        return out


class PerfSqueeze(PerfContinuous):
    """erlperf's squeeze (concurrency estimation): workers are added step by step until the job's QPS stops
    growing; the row is the peak step, its workers in the || column."""

    name = "perf-squeeze"
    wire = "squeeze"
    searches = True
    given_workers = False
    refuses = ("concurrency", "cv", "max_samples")
    refusal = "squeeze (-q) chooses the workers"

    def counted_samples(self, cell: Cell) -> list[dict]:
        peak = cell.extra.get("peak_step")
        return [s for s in cell.samples if s.get("process", 1) == peak]

    def describe(self, opts: Options, w: Workload) -> str:
        return (
            f"squeeze: {opts.squeeze_min} worker(s) and one more a step until QPS stops growing (--threshold "
            f"{opts.threshold}); the row is the peak step. " + super().describe(opts, w)
        )

    def details(self, cell: Cell) -> str:
        return f"peak at {cell.extra.get('peak_concurrency')} worker(s); " + super().details(cell)


class PerfTimed(Mode):
    """erlperf's timed mode: one worker runs exactly `loop` iterations a sample; values are loop / time."""

    name = "perf-timed"
    resumable = False
    summarised = False
    sampled = False
    value_name = "sample(s)"
    more_flag = "--samples"
    wire = "timed"
    loops = True
    refuses = ("concurrency", "sample_ms", "cv", "max_samples", "squeeze_min", "squeeze_max", "threshold")
    refusal = "timed mode (-l) runs one worker"
    default_warmup = 0
    default_timeout_s = 600.0

    def check(self, w: Workload, opts: Options, given: set[str]) -> None:
        raise ModeError(PERF_ONLY)

    def metrics(self, w: Workload) -> tuple[Metric, ...]:
        return (workloads.QPS, workloads.NS_PER_ITERATION)

    def values(self, cell: Cell, metric: Metric | None = None) -> list[float]:
        m = _perf_ref(metric, self.metrics(cell.workload))
        return [v for v in map(m.of, cell.records) if v is not None]

    def describe(self, opts: Options, w: Workload) -> str:
        warm = opts.warmup or 0
        return (
            "timed: one worker runs exactly the loop's iterations a sample; QPS = iterations / the sample's time "
            f"(Ki thousands, Mi millions), the median of {opts.samples} sample(s)"
            + (f" after {warm} untimed one(s)" if warm else "")
            + "; Time = the sample's time / iterations"
        )

    def details(self, cell: Cell) -> str:
        if not cell.records:
            return ""
        loop = cell.records[0]["count"]
        cpu = [r["run_cpu_ns"] / r["run_ns"] for r in cell.records if r.get("run_ns")]
        parts = [f"{len(cell.records)} sample(s) of {loop:,} iterations"]
        if cpu:
            parts.append(f"CPU/wall {stats.summarize(cpu).median:.2f}")
        return "; ".join(parts)


for _m in (PerfContinuous(), PerfSqueeze(), PerfTimed()):
    MODES[_m.name] = _m
# perf's modes by the job's mode word (perf -l, -q, or neither), in the order perf names them
PERF_MODES: dict[str, Mode] = {m.wire: MODES[m.name] for m in (PerfContinuous, PerfTimed, PerfSqueeze)}


@dataclass(frozen=True)
class PerfFigures:
    """A perf cell's figures as erlperf's table shows them (None where the cell has none)."""

    concurrency: int | None  # workers: as asked, the peak step's in squeeze, 1 in timed mode; × K on K nodes
    qps: float | None  # median over the counted samples (intervals or timed samples)
    qps_ci: tuple[float, float] | None  # its bootstrap 95 % interval (two or more values)
    ns_per_iteration: float | None  # the time one iteration takes one worker: workers / QPS
    values: int  # how many samples the median is of


def perf_iterations(cell: Cell) -> int | None:
    """The iterations a perf cell's workers finished: its total, less those under way when they were stopped
    (extra["unfinished"]: a runtime that counts an iteration when it starts, erlperf's call count); None
    without a total."""
    if "total" not in cell.extra:
        return None
    return int(cell.extra["total"]) - int(cell.extra.get("unfinished", 0))


def perf_figures(cell: Cell) -> PerfFigures:
    if cell.mode == PerfTimed.name:
        conc: int | None = 1
    elif cell.mode == PerfSqueeze.name:
        conc = cell.extra.get("peak_concurrency")
    else:
        conc = cell.params.get("concurrency")
    if conc is not None:  # on K nodes (perf --nodes) the cell's figure is the sum: every node's workers
        conc *= int(cell.params.get("nodes", 1))
    vals = cell.values() if cell.ok else []
    if not vals:
        return PerfFigures(conc, None, None, None, 0)
    qps = stats.summarize(vals).median
    ci = stats.bootstrap_median_ci(vals) if len(vals) > 1 else None
    return PerfFigures(conc, qps, ci, (conc or 1) * 1e9 / qps if qps > 0 else None, len(vals))
