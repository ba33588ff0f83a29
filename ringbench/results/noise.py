"""Warnings about how far a result can be trusted, as values: derived from a run's raw records and its
environment whenever the run is shown (never stored), so a resumed, imported or exported run has the
same warnings as the run that measured it.

A `RunWarning` says what was seen (`kind`, `what`, the `figures` behind it), where (`cell`, a cell's
label, or "" for the whole run) and what to do (`advice`). Presenters group warnings of one kind into
one line (`grouped`) and render them their own way; nothing parses a warning's text.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

CV_LIMIT = 0.05  # a coefficient of variation above 5 % is worth a warning
# The CPUs' busy share, measured over a short window at the start, above which other work is running.
BUSY_LIMIT = 0.2
IDLE_LOAD_PER_CPU = 0.3  # 1-minute load average per CPU above which the machine has been busy lately


@dataclass(frozen=True)
class RunWarning:
    kind: str  # load, governor, env, concurrent, few, noisy, not-settled, not-converged, budget, interrupted
    what: str  # what was seen, without the cell
    advice: str  # what to do about it
    cell: str = ""  # the label of the cell it applies to; "" for the whole run
    detail: str = ""  # the cell's own figure in a few words ("CV 7.1 %", "3 repeats")
    figures: dict[str, float] = field(default_factory=dict, compare=False)
    # the cell's identity, for presenters that name it their own way: runtime, cores, params (non-default)
    where: dict = field(default_factory=dict, compare=False)
    hint: str = ""  # a command that acts on it, to be shown whole (on a line of its own in a terminal)

    @property
    def text(self) -> str:
        """The warning as one sentence (for a single warning; `grouped` joins several of one kind)."""
        where = f"{self.cell}: " if self.cell else ""
        detail = f" ({self.detail})" if self.detail else ""
        hint = f" `{self.hint}`" if self.hint else ""
        return f"{where}{self.what}{detail}; {self.advice}{hint}"


def environment(env: dict) -> list[RunWarning]:
    """What the machine's state at the start says about the whole run."""
    out = []
    cpus = env.get("usable_cpus") or 1
    busy = env.get("cpu_busy")
    load1 = (env.get("loadavg") or [0])[0]
    if busy is not None and busy > BUSY_LIMIT:
        out.append(
            RunWarning(
                "load",
                f"the CPUs were {busy * 100:.0f} % busy with other work when the run started "
                f"(load average {load1:.2f} on {cpus} CPU(s))",
                "stop other work and run again",
                figures={"cpu_busy": busy, "load1": load1},
            )
        )
    elif busy is None and load1 > IDLE_LOAD_PER_CPU * cpus:  # a run stored before cpu_busy was recorded
        out.append(
            RunWarning(
                "load",
                f"load average {load1:.2f} on {cpus} CPU(s) at the start: the machine was not idle",
                "stop other work and run again",
                figures={"load1": load1},
            )
        )
    gov = env.get("cpu_governor")
    if gov and gov != "performance":
        out.append(
            RunWarning(
                "governor",
                f"CPU frequency scaling governor is '{gov}': clock speed may change during the run",
                "set 'performance' (cpupower frequency-set -g performance) for steadier numbers",
            )
        )
    tuning = env.get("tuning_env") or {}
    if tuning and not env.get("clean_env"):
        names = ", ".join(f"{k}={v}" for k, v in sorted(tuning.items()))
        out.append(
            RunWarning(
                "env",
                f"variables that tune a runtime were set and passed to the drivers: {names}",
                "unset them, or run with --clean-env, for the runtimes as they come",
            )
        )
    others = env.get("concurrent_runs") or []
    if others:
        out.append(
            RunWarning(
                "concurrent",
                f"run(s) {', '.join(map(str, others))} were being measured into the same store at the same time",
                "measure one run at a time: both runs' figures may suffer",
            )
        )
    return out


def noisy(label: str, cv: float, where: dict | None = None) -> list[RunWarning]:
    if cv > CV_LIMIT:
        return [
            RunWarning(
                "noisy",
                f"noisy: coefficient of variation above {CV_LIMIT * 100:.0f} %",
                "more repeats or a quieter machine",
                label,
                f"CV {cv * 100:.1f} %",
                {"cv": cv},
                where or {},
            )
        ]
    return []


def grouped(warnings: Iterable[RunWarning], most: int | None = 8) -> list[str]:
    """One line per kind of warning (and advice), naming the cells it applies to; at most `most` cells
    named per line (None: all), the rest counted."""
    kinds: dict[tuple[str, str, str], list[RunWarning]] = {}
    for w in warnings:
        kinds.setdefault((w.kind, w.what, w.advice) if w.cell else (w.kind, w.text, ""), []).append(w)
    lines = []
    for ws in kinds.values():
        if not ws[0].cell:
            lines.append(ws[0].text)
            continue
        cells = [f"{w.cell} ({w.detail})" if w.detail else w.cell for w in ws]
        shown = cells if most is None else cells[:most]
        more = len(cells) - len(shown)
        tail = f"; and {more} more (`--json` lists all)" if more else ""
        lines.append(f"{ws[0].what}; {ws[0].advice} — {len(cells)} cell(s): {'; '.join(shown)}{tail}")
    return lines
