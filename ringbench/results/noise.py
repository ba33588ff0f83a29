"""Warnings about how far a result can be trusted: printed under every table and stored with the run.

Each warning says what was seen and what to do about it.
"""

from __future__ import annotations

import os

CV_LIMIT = 0.05  # a coefficient of variation above 5 % is worth a warning
IDLE_LOAD_PER_CPU = 0.3  # 1-minute load average per CPU above which the machine is not idle


def environment(env: dict) -> list[str]:
    out = []
    cpus = env.get("usable_cpus") or os.cpu_count() or 1
    load1 = (env.get("loadavg") or [0])[0]
    if load1 > IDLE_LOAD_PER_CPU * cpus:
        out.append(
            f"load average {load1:.2f} on {cpus} CPU(s) at the start: the machine was not idle; "
            "stop other work and run again"
        )
    gov = env.get("cpu_governor")
    if gov and gov != "performance":
        out.append(
            f"CPU frequency scaling governor is '{gov}': clock speed may change during the run; "
            "set 'performance' (cpupower frequency-set -g performance) for steadier numbers"
        )
    return out


NOISY = f"noisy: coefficient of variation above {CV_LIMIT * 100:.0f} %; more repeats or a quieter machine"


def cell(label: str, cv: float) -> list[str]:
    if cv > CV_LIMIT:
        return [f"{label} (CV {cv * 100:.1f} %): {NOISY}"]
    return []


def grouped(warnings: list[str], most: int | None = 8) -> list[str]:
    """One line per kind of warning, naming the cells it applies to (cell warnings read "<cell>: <advice>");
    at most `most` cells named per line (None: all), the rest counted."""
    kinds: dict[str, list[str]] = {}
    for w in warnings:
        who, sep, what = w.partition("]")  # cell labels read "runtime [cores] params…"
        if sep and ": " in what and w.index("[") < len(who):
            where, _, advice = what.partition(": ")
            kinds.setdefault(advice, []).append(who + "]" + where)
        else:
            kinds.setdefault(w, [])

    def names(cells: list[str]) -> str:
        shown = cells if most is None else cells[:most]
        more = len(cells) - len(shown)
        return "; ".join(shown) + (f"; and {more} more (`ringbench show RUN --json` lists all)" if more else "")

    return [advice + (f" — {len(cells)} cell(s): {names(cells)}" if cells else "") for advice, cells in kinds.items()]
