"""Facts about the machine that a result depends on, stored with every run."""

from __future__ import annotations

import datetime as dt
import os
import platform
import subprocess
from pathlib import Path

from ..catalogue.drivers import REPO


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _governor() -> str | None:
    p = Path("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
    return p.read_text().strip() if p.exists() else None


def git_revision() -> str:
    try:
        rev = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"], cwd=REPO, capture_output=True, text=True, timeout=10
        ).stdout.strip()
        # results/ holds what runs produce (results/fidelity.jsonl is tracked, and a fidelity run
        # appends to it before each comparison): a change there is not a change to what is measured.
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)results"],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return (rev or "unknown") + ("-dirty" if dirty else "")


def collect() -> dict:
    mem_total = None
    try:
        mem_total = int(Path("/proc/meminfo").read_text().split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "hostname": platform.node(),
        "cpu_model": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "usable_cpus": len(os.sched_getaffinity(0)),
        "memory_bytes": mem_total,
        "kernel": platform.release(),
        "os": platform.platform(),
        "python": platform.python_version(),
        "loadavg": list(os.getloadavg()),
        "cpu_governor": _governor(),
        "git_revision": git_revision(),
    }
