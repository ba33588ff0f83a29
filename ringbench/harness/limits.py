"""Will this cell fit on this machine? Checked before launch, from the manifest's per-process cost.

A refusal names the limit and how to raise it, so no driver is left to be killed
half-way by the kernel (or to push the machine into swapping).
"""

from __future__ import annotations

import os
import resource
from pathlib import Path

from ..catalogue.drivers import Driver

# Keep this much of the available memory free for the OS and the orchestrator.
MEMORY_HEADROOM = 0.8


def _read_int(path: str) -> int | None:
    try:
        return int(Path(path).read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def mem_available() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def threads_in_use() -> int:
    loadavg = Path("/proc/loadavg").read_text().split()
    return int(loadavg[3].split("/")[1])


def check(d: Driver, processes: int) -> str | None:
    """None if `processes` processes of driver `d` should fit; else a one-line reason."""
    if d.bytes_per_process:
        need = processes * d.bytes_per_process
        avail = mem_available()
        if avail is not None and need > avail * MEMORY_HEADROOM:
            return (
                f"{d.name}: {processes:,} processes need about {need / 2**30:.1f} GiB "
                f"(~{d.bytes_per_process:,} B each) but only {avail / 2**30:.1f} GiB is available; "
                f"use a smaller -n or free memory"
            )
    if d.maps_per_process:  # e.g. a fiber's stack and guard page, two memory maps a process (Crystal)
        maps = processes * d.maps_per_process
        room = _per_thread(_read_int("/proc/sys/vm/max_map_count"), 1)
        if room is not None and maps > room:
            return (
                f"{d.name}: {processes:,} processes need about {maps:,} memory maps ({d.maps_per_process} each) "
                f"but vm.max_map_count leaves room for about {max(room, 0):,}; raise it with "
                f"`sysctl -w vm.max_map_count={maps + 65530}`"
            )
    threads = processes * d.os_threads_per_process
    if not threads:
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_NPROC)
    in_use = threads_in_use()
    nproc_applies = soft != resource.RLIM_INFINITY and os.geteuid() != 0  # the kernel does not apply it to root
    limits = [
        (
            "the per-user process limit (ulimit -u)",
            soft - in_use if nproc_applies else None,
            "raise it with `ulimit -u`",
        ),
        (
            "kernel.threads-max",
            _minus(_read_int("/proc/sys/kernel/threads-max"), in_use),
            "raise it with `sysctl -w kernel.threads-max=...`",
        ),
        (
            "kernel.pid_max",
            _minus(_read_int("/proc/sys/kernel/pid_max"), in_use),
            "raise it with `sysctl -w kernel.pid_max=...` (up to 4194304)",
        ),
        # each thread maps a stack and a guard page (and some runtimes more: the manifest says)
        (
            "vm.max_map_count",
            _per_thread(_read_int("/proc/sys/vm/max_map_count"), d.maps_per_thread),
            "raise it with `sysctl -w vm.max_map_count=...`",
        ),
    ]
    for name, room, how in limits:
        if room is not None and threads > room:
            return (
                f"{d.name}: {processes:,} processes need {threads:,} OS threads but {name} leaves room "
                f"for about {max(room, 0):,}; {how}"
            )
    return None


def _minus(limit: int | None, used: int) -> int | None:
    return None if limit is None else limit - used


def _per_thread(limit: int | None, maps: int) -> int | None:
    # keep ~1000 mappings for the runtime's own code, heap and libraries
    return None if limit is None else (limit - 1000) // max(maps, 1)
