"""Like-for-like comparison within a run: which rows are ranked, against which reference, how.

Rows are ranked only when they differ in the runtime alone: the same workload parameters (as asked: a
calibrated `m` is work per repeat, not a condition), the same core setting, message passing (a mailbox
or a channel), and the same kind of configuration (stock variants among themselves, tuned variants
among themselves). A rendezvous, a hand-off and the stackless floor are shown apart and not ranked.
Each group has one reference: the runtime named with --baseline, else the reference runtime (erlang),
else the fastest. A workload whose rows compare a subject rather than runtimes (perf: snippets of code,
`Workload.subject`) ranks every row of the same conditions together, the fastest the reference. A group
of one row has no comparison.

Rel % is throughput against the reference (reference time / row time × 100) with a bootstrap 95 %
interval; significance is difference.difference's test: with fresh driver processes as the unit (timed
cells), Welch's t-test on the log of the per-process medians, ≥ 3 processes a side; over the samples
of one process (continuous, perf), Mann-Whitney U, ≥ 5 samples a side.

A run with other installations of a runtime (`-r go/stock@go1.27.3`, the runtime `go/stock` at another
version) is about versions: the rows of one driver at its installations are ranked together, the default
installation (the row without `@`) the reference when present, apart from every other runtime.

A mode may compare its rows its own way (`OwnComparison`): versus ranks every row of one N and core
setting against the program's row, whatever its kind of hop, and its table reads the ratio row/reference.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..catalogue.workloads import Metric, Workload
from . import stats
from .difference import difference
from .model import Cell

REFERENCE_RUNTIME = "erlang"
NOT_RANKED = {
    "handoff": "hand-offs are shown apart and not ranked",
    "rendezvous": "a rendezvous is shown apart and not ranked",
    "floor": "the floor is not a runtime and is never ranked",
}


class BaselineError(ValueError):
    """--baseline names a runtime that is not in the run, or one that is not ranked (bad input, exit 2)."""


@dataclass(frozen=True)
class Relative:
    group: str  # the group's key
    reference: str  # the reference row's runtime
    is_reference: bool
    rel_pct: float | None = None
    rel_ci: tuple[float, float] | None = None
    significant: bool | None = None  # None: the reference itself, or too few repeats to tell
    p_value: float | None = None
    reference_version: str | None = None
    ratio: float | None = None  # the row's median over the reference's (the headline's own sense)
    ratio_ci: tuple[float, float] | None = None


@runtime_checkable
class OwnComparison(Protocol):
    """A mode whose rows are compared by its own rules instead of Rel %'s (modes.Versus)."""

    comparison_header: str  # the table's column in place of Rel %

    def ranked(self, cell: Cell) -> bool: ...

    def group_key(self, cell: Cell) -> str: ...

    def reference(self, group: list[Cell]) -> Cell | None: ...

    def comparison_note(self) -> str: ...

    def beside(self, w: Workload, cells: Sequence[Cell] = ()) -> tuple[Metric, ...]: ...


def own_comparison(c: Cell) -> OwnComparison | None:
    mode = c.mode_object
    return mode if isinstance(mode, OwnComparison) else None


def ranked(c: Cell) -> bool:
    own = own_comparison(c)
    if own:
        return own.ranked(c)
    return bool(c.workload.subject) or c.hop_group == "message"


def group_key(c: Cell) -> str:
    """Rows of one key are ranked together: the same workload, conditions, cores and kind of configuration.
    A workload's subject parameters (perf: the code) are what its rows compare, not a condition."""
    own = own_comparison(c)
    if own:
        return own.group_key(c)
    conditions = {k: v for k, v in c.params.items() if k not in c.workload.subject}
    # A variant ranked apart (a hand-written mailbox where the runtime's library has one: `ranked` in its
    # manifest) is ranked among its kind, never beside the runtimes' stock mailboxes.
    return json.dumps([c.workload.name, conditions, c.cores, c.tuned, c.ranked_with], sort_keys=True)


def without_installation(runtime: str) -> str:
    """The runtime at its default installation: go/stock for go/stock@go1.27.3."""
    return runtime.partition("@")[0]


def _versions_key(c: Cell, versioned: set[str]) -> str:
    """group_key, with the runtime for a driver measured at more than one installation in the run."""
    key = group_key(c)
    runtime = without_installation(c.runtime)
    if runtime in versioned and own_comparison(c) is None:
        return json.dumps([key, "versions of", runtime])
    return key


def _matches(runtime: str, name: str) -> bool:
    return runtime == name or runtime.split("/")[0] == name


def check_baseline(baseline: str | None, cells: list[Cell]) -> None:
    """BaselineError unless `baseline` names a ranked runtime of these cells."""
    if not baseline:
        return
    own = own_comparison(cells[0]) if cells else None
    if own:
        raise BaselineError(f"--baseline {baseline}: a {cells[0].mode} run's rows are compared by the mode's own rule")
    if cells and cells[0].workload.subject:
        raise BaselineError(f"--baseline {baseline}: a {cells[0].workload.name} run's reference is its fastest row")
    named = [c for c in cells if _matches(c.runtime, baseline)]
    if not named:
        have = ", ".join(dict.fromkeys(c.runtime for c in cells))
        raise BaselineError(f"--baseline {baseline} is not a runtime of this run (it has: {have})")
    if not any(ranked(c) for c in named):
        raise BaselineError(f"--baseline {baseline}: {NOT_RANKED.get(named[0].hop, 'it is not ranked')}")


def _median(c: Cell, metric: Metric | None) -> float | None:
    vals = c.values(metric) if c.ok else []
    return stats.summarize(vals).median if vals else None


def _reference(group: list[Cell], baseline: str | None, metric: Metric | None = None) -> Cell | None:
    own = own_comparison(group[0])
    if own:
        return own.reference(group)
    ok = [(c, m) for c in group if (m := _median(c, metric)) is not None]
    # Rows that compare a subject (perf's snippets) all run on one runtime: the fastest is the reference.
    for wanted in () if group[0].workload.subject else (baseline, REFERENCE_RUNTIME):
        if wanted:
            named = [c for c, _ in ok if _matches(c.runtime, wanted)]
            if named:
                return named[0]
    if not ok:
        return None
    best = min if group[0].lower_is_better else max
    return best(ok, key=lambda cm: cm[1])[0]


def relatives(cells: list[Cell], baseline: str | None = None, metric: Metric | None = None) -> dict[int, Relative]:
    """Per index of a ranked ok cell in a group of two or more: its comparison with the group's reference,
    by the headline figure or by `metric` (`--rank cpu`: CPU ns per hop)."""
    groups: dict[str, list[int]] = {}
    versioned = {without_installation(c.runtime) for c in cells if "@" in c.runtime}
    for i, c in enumerate(cells):
        if ranked(c) and _median(c, metric) is not None:
            groups.setdefault(_versions_key(c, versioned), []).append(i)
    out: dict[int, Relative] = {}
    for key, members in groups.items():
        if len(members) < 2:
            continue
        group = [cells[i] for i in members]
        ref = _reference(group, baseline, metric)
        if "versions of" in key and not any(c.runtime == baseline for c in group):
            ref = next((c for c in group if "@" not in c.runtime), ref)  # the default installation
        if ref is None:
            continue
        for i in members:
            c = cells[i]
            if c is ref:
                out[i] = Relative(
                    key, ref.runtime, True, 100.0, (100.0, 100.0), reference_version=ref.version, ratio=1.0,
                    ratio_ci=(1.0, 1.0),
                )  # fmt: skip
                continue
            d = difference(ref, c, metric)
            lo, hi = d.ratio_ci
            higher_better = not (metric or c.headline_metric).lower_is_better
            pct = (d.ratio if higher_better else 1 / d.ratio) * 100
            ci = (lo * 100, hi * 100) if higher_better else (100 / hi, 100 / lo)
            out[i] = Relative(
                key, ref.runtime, False, pct, ci, d.significant, d.p_value, ref.version, ratio=d.ratio,
                ratio_ci=d.ratio_ci,
            )  # fmt: skip
    return out


def references(cells: list[Cell], rel: dict[int, Relative]) -> list[str]:
    """The reference runtimes, each with its version and whether it is the tuned group's."""
    seen: dict[str, None] = {}
    for i, r in rel.items():
        if r.is_reference:
            version = f" ({r.reference_version})" if r.reference_version else ""
            seen[f"{r.reference}{version}" + (" among tuned variants" if cells[i].tuned else "")] = None
    return list(seen)


def ordered(cells: list[Cell], baseline: str | None = None, metric: Metric | None = None) -> list[Cell]:
    """The cells in table order: each comparison group's reference first, then the rest as measured."""
    rel = relatives(cells, baseline, metric)
    first = {r.group: i for i, r in rel.items() if r.is_reference}
    position: dict[int, float] = {i: float(i) for i in range(len(cells))}
    for group, ref_i in first.items():
        members = [i for i, r in rel.items() if r.group == group]
        position[ref_i] = min(position[i] for i in members) - 0.5
    return [cells[i] for i in sorted(range(len(cells)), key=lambda i: position[i])]
