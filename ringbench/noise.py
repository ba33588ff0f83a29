"""Warnings about how far a result can be trusted: printed under every table and stored with the run.

Each warning says what was seen and what to do about it.
"""
from __future__ import annotations

import os

from .stats import MIN_REPEATS_FOR_CI

CV_LIMIT = 0.05          # a coefficient of variation above 5 % is worth a warning
IDLE_LOAD_PER_CPU = 0.3  # 1-minute load average per CPU above which the machine is not idle


def environment(env: dict) -> list[str]:
    out = []
    cpus = env.get("usable_cpus") or os.cpu_count() or 1
    load1 = (env.get("loadavg") or [0])[0]
    if load1 > IDLE_LOAD_PER_CPU * cpus:
        out.append(f"load average {load1:.2f} on {cpus} CPU(s) at the start: the machine was not idle; "
                   "stop other work and run again")
    gov = env.get("cpu_governor")
    if gov and gov != "performance":
        out.append(f"CPU frequency scaling governor is '{gov}': clock speed may change during the run; "
                   "set 'performance' (cpupower frequency-set -g performance) for steadier numbers")
    return out


def repeats(mode: str, repeat: int, samples: int) -> list[str]:
    n = repeat if mode == "timed" else samples
    what = "--repeat" if mode == "timed" else "--samples"
    if n < MIN_REPEATS_FOR_CI:
        return [f"only {n} {'repeats' if mode == 'timed' else 'samples'} per cell: too few for a meaningful "
                f"95 % interval (intervals then span the whole range); use {what} {MIN_REPEATS_FOR_CI} or more"]
    return []


def cell(label: str, cv: float) -> list[str]:
    if cv > CV_LIMIT:
        return [f"{label}: coefficient of variation {cv * 100:.1f} % (> {CV_LIMIT * 100:.0f} %): noisy; "
                "more repeats or a quieter machine"]
    return []
