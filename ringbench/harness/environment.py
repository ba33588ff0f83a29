"""Facts about the machine that a result depends on, stored with every run."""

from __future__ import annotations

import datetime as dt
import fnmatch
import functools
import os
import platform
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from ..catalogue.drivers import REPO, discover


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


# Variables that tune a runtime (contract section 1, "The environment"): recorded with every run, named in a
# warning, and removed from the drivers' environment by --clean-env. Patterns in fnmatch's syntax.
TUNING_ENV = (
    "GOGC", "GODEBUG", "GOMEMLIMIT", "GOMAXPROCS", "GORACE",
    "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS", "JAVA_OPTS",
    "ERL_AFLAGS", "ERL_FLAGS", "ERL_ZFLAGS", "ELIXIR_ERL_OPTIONS",
    "GLIBC_TUNABLES", "MALLOC_*", "LD_PRELOAD", "LD_BIND_NOW",
    "PYTHONMALLOC", "PYTHONOPTIMIZE", "PYTHONDEVMODE", "PYTHONHASHSEED", "PYTHONPATH", "PYTHONHOME",
    "PYTHONTRACEMALLOC", "PYPY*",
    "RUST_MIN_STACK", "TOKIO_*",
    "GHCRTS", "NODE_OPTIONS", "UV_THREADPOOL_SIZE", "CRYSTAL_*", "OMP_*",
    "RINGBENCH_*",
)  # fmt: skip
# The orchestrator's own settings, which name files rather than tune a driver (RINGBENCH_CLUSTER: the cluster
# file a manifest passes on, contract section 10), and the cookie of the user's nodes, never recorded.
_ORCHESTRATOR_ENV = (
    "RINGBENCH_DB", "RINGBENCH_DRIVER_PATH", "RINGBENCH_DRIVERS_DIR", "RINGBENCH_SLOW", "RINGBENCH_CLUSTER",
    "RINGBENCH_COOKIE", "RINGBENCH_INSTALLATIONS",
)  # fmt: skip
# Secrets the orchestrator reads and a driver never gets (harness/cluster.py).
_SECRET_ENV = ("RINGBENCH_COOKIE",)


@functools.cache
def tuning_patterns() -> tuple[str, ...]:
    """Every pattern of a variable that tunes a runtime: the machine-wide ones above and each driver's own,
    which its manifest declares (`tuning_env`), for every driver found."""
    own = (p for d in discover().values() for p in d.tuning_env)
    return tuple(dict.fromkeys((*TUNING_ENV, *own)))


def tuning_env(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The variables of `environ` (default: this process's) that can change a runtime's behaviour."""
    environ = dict(os.environ) if environ is None else environ
    patterns = tuning_patterns()
    return {
        k: v
        for k, v in sorted(environ.items())
        if k not in _ORCHESTRATOR_ENV and any(fnmatch.fnmatchcase(k, pat) for pat in patterns)
    }


def driver_environ(manifest_env: dict[str, str], clean: bool) -> dict[str, str]:
    """The environment a driver starts with: ours (without the tuning variables when `clean`), then the
    manifest's own variables, which always win."""
    env = {k: v for k, v in os.environ.items() if k not in _SECRET_ENV}
    if clean:
        for k in tuning_env(env):
            del env[k]
    env.update(manifest_env)
    return env


def cpu_busy(window_s: float = 0.5) -> float | None:
    """The share of the usable CPUs' time spent on work (anything but idle and I/O wait) over a short
    window: what is running now, unlike the load average, which still shows work that has ended."""

    def times() -> tuple[int, int] | None:
        try:
            fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        except (OSError, ValueError):
            return None
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
        return sum(fields[:8]), idle

    a = times()
    time.sleep(window_s)
    b = times()
    if a is None or b is None or b[0] == a[0]:
        return None
    return max(0.0, 1 - (b[1] - a[1]) / (b[0] - a[0]))


def wait_until_idle(
    limit: float, most_s: float = 60.0, on_wait: Callable[[float], None] = lambda busy: None
) -> float | None:
    """Wait (at most `most_s`) until the CPUs are less than `limit` busy — the work a set-up or build just
    did has stopped — calling `on_wait(busy)` while waiting; return the last busy share seen."""
    deadline = time.monotonic() + most_s
    busy = cpu_busy()
    while busy is not None and busy > limit and time.monotonic() < deadline:
        on_wait(busy)
        busy = cpu_busy(1.0)
    return busy


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
        "cpu_busy": cpu_busy(),
        "cpu_governor": _governor(),
        "git_revision": git_revision(),
        "tuning_env": tuning_env(),
    }
