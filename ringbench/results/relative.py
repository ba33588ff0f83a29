"""Like-for-like comparison within a run: which rows are compared, against which reference, how.

Rows are compared only when they differ in the runtime alone: the same workload parameters (as
asked: a calibrated `m` is work per repeat, not a condition), the same core setting, and a hop of
comparable kind (mailboxes and channels are message passing; a rendezvous, a hand-off and the
stackless floor are each kinds of their own and are shown apart). Each such group has one
reference: the runtime the user named with --baseline when it is in the group, else the
reference runtime (erlang), else the fastest real runtime. The floor (c-coro) is never a
reference: it is shown as a floor.

Rel % is throughput against the reference (reference time / row time × 100) with a bootstrap
95 % interval; significance is stats.compare's test (Mann-Whitney U, ≥ 5 repeats a side).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from . import stats
from .model import Cell

REFERENCE_RUNTIME = "erlang"


class BaselineError(ValueError):
    """--baseline names a runtime that is not in the run (bad input, exit 2)."""


@dataclass(frozen=True)
class Relative:
    group: str  # the group's key, shown when a table holds several groups
    reference: str  # the reference row's runtime
    is_reference: bool
    rel_pct: float | None = None  # None for rows of another kind (shown apart)
    rel_ci: tuple[float, float] | None = None
    significant: bool | None = None  # None: the reference itself, or too few repeats to tell
    p_value: float | None = None


def group_key(c: Cell) -> str:
    return json.dumps([c.workload.name, c.params, c.cores, c.hop_group], sort_keys=True)


def check_baseline(baseline: str | None, runtimes: list[str]) -> None:
    if baseline and not any(_matches(r, baseline) for r in runtimes):
        raise BaselineError(f"--baseline {baseline} is not a runtime of this run (it has: {', '.join(runtimes)})")


def _matches(runtime: str, name: str) -> bool:
    return runtime == name or runtime.split("/")[0] == name


def _reference(group: list[Cell], baseline: str | None) -> Cell | None:
    ok = [(c, h.median) for c in group if c.ok and (h := c.headline) and not c.is_floor]
    for wanted in (baseline, REFERENCE_RUNTIME):
        if wanted:
            named = [c for c, _ in ok if _matches(c.runtime, wanted)]
            if named:
                return named[0]
    return min(ok, key=lambda cm: cm[1])[0] if ok else None


def relatives(cells: list[Cell], baseline: str | None = None) -> dict[int, Relative]:
    """Per index of an ok cell: its comparison with the reference of its group (floor rows: absent)."""
    groups: dict[str, list[int]] = {}
    for i, c in enumerate(cells):
        groups.setdefault(group_key(c), []).append(i)
    out: dict[int, Relative] = {}
    for key, members in groups.items():
        ref = _reference([cells[i] for i in members], baseline)
        if ref is None:
            continue
        base = ref.values()
        for i in members:
            c = cells[i]
            if not (c.ok and c.headline) or c.is_floor:
                continue
            if c is ref:
                out[i] = Relative(key, ref.runtime, True, 100.0, (100.0, 100.0))
                continue
            d = stats.compare(base, c.values())
            lo, hi = d.ratio_ci
            higher_better = not c.workload.headline.lower_is_better and c.mode == "timed"
            pct = (d.ratio if higher_better else 1 / d.ratio) * 100
            ci = (lo * 100, hi * 100) if higher_better else (100 / hi, 100 / lo)
            out[i] = Relative(key, ref.runtime, False, pct, ci, d.significant, d.p_value)
    return out


def references(cells: list[Cell], rel: dict[int, Relative]) -> list[str]:
    """The reference runtimes, each with the kind of hop it is the reference for."""
    seen: dict[str, None] = {}
    for i, r in rel.items():
        if r.is_reference:
            seen[f"{r.reference} ({cells[i].hop_group} hops)" if cells[i].hop_group != "message" else r.reference] = (
                None
            )
    return list(seen)
