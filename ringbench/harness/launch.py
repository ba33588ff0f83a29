"""Launching one process — a driver, or a program measured beside one — and collecting a driver's records.

`start` is the one launch primitive: the process runs in its own process group (so a timeout or Ctrl-C
kills it and everything it spawned), with the parent-death signal set (the kernel kills it the moment
this process dies, however it dies: contract section 8), optionally pinned to one CPU. `run_driver`
starts a driver with it and reads its JSON Lines records against a deadline.
"""

from __future__ import annotations

import collections
import ctypes
import os
import signal
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass

from ..catalogue.drivers import Driver
from .environment import driver_environ
from .protocol import DriverFailed, parse_line


def cores_value(cores: str) -> int:
    """`--cores 1` → 1 scheduler thread; `all` → every core this process may use."""
    return len(os.sched_getaffinity(0)) if cores == "all" else int(cores)


def pin_cpu() -> int:
    """The CPU a `--cores 1` process is pinned to: the last one we may use."""
    return max(os.sched_getaffinity(0))


def cpu_for(cores: str) -> int | None:
    return pin_cpu() if cores != "all" else None


@dataclass
class Launch:
    records: list[dict]
    stderr_tail: str


_PR_SET_PDEATHSIG = 1


def _die_with_parent(cpu: int | None):
    """preexec_fn: the kernel kills the child the moment this process dies, however it dies
    (contract section 8); a driver's launcher must exec the runtime for this to reach it."""
    libc = ctypes.CDLL(None, use_errno=True)
    parent = os.getpid()  # in the child, getppid() must still be this process

    def setup() -> None:
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the orchestrator died before prctl took effect
            os._exit(1)
        if cpu is not None:
            os.sched_setaffinity(0, {cpu})

    return setup


def start(
    argv: list[str], env: dict[str, str], cwd: str | os.PathLike | None = None, cpu: int | None = None, **popen
) -> subprocess.Popen:
    """Start `argv` in a process group of its own, dying with this process, pinned to `cpu` if given.
    Further keyword arguments go to subprocess.Popen (stdout, stderr, text…)."""
    return subprocess.Popen(argv, env=env, cwd=cwd, start_new_session=True, preexec_fn=_die_with_parent(cpu), **popen)


def kill_group(proc: subprocess.Popen) -> None:
    """Kill the process's whole group (whatever it spawned too); nothing if it is gone already."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


@dataclass(frozen=True)
class DriverProcess:
    """Exactly how a driver process is started for a cell: argv, the environment, the CPU it is pinned to."""

    argv: list[str]
    manifest_env: dict[str, str]  # what the manifest (and any raised limit) sets
    env: dict[str, str]  # the whole environment it starts with
    cpu: int | None
    schedulers: int
    limits_raised: dict[str, int]


def driver_process(d: Driver, cores: str, processes: int, clean_env: bool = False, cluster: str = "") -> DriverProcess:
    c = cores_value(cores)
    manifest_env = d.environ(c, processes, cluster)
    return DriverProcess(
        d.argv(c, processes, cluster),
        manifest_env,
        driver_environ(manifest_env, clean_env),
        cpu_for(cores),
        c,
        d.raised_limits(processes),
    )


def run_driver(
    d: Driver,
    args: list[str],
    *,
    cores: str = "all",
    n: int = 1,
    timeout: float = 600,
    on_record: Callable[[dict], bool | None] | None = None,
    clean_env: bool = False,
    cluster: str = "",
) -> Launch:
    """Run `<driver> args…` for a cell of `n` processes; return its records or raise DriverFailed.

    `on_record` sees each record as it arrives; if it returns True the driver is stopped there.
    `cluster` is the path of the cell's cluster file (nodes on other hosts), "" without one.

    The driver's own error record wins over the exit status; a non-zero exit without
    one is a crash; silence past `timeout` seconds is a hang.
    """
    how = driver_process(d, cores, n, clean_env, cluster)
    proc = start(how.argv + args, how.env, d.folder, how.cpu, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stdout, stderr = proc.stdout, proc.stderr
    assert stdout is not None and stderr is not None  # both are pipes (PIPE above)
    tail: collections.deque[str] = collections.deque(maxlen=20)
    err_reader = threading.Thread(target=lambda: tail.extend(stderr), daemon=True)
    timed_out = threading.Event()

    def kill() -> None:
        timed_out.set()
        kill_group(proc)

    # A daemon, started inside the try: a Ctrl-C that lands while it starts must neither skip its
    # cancel nor leave a thread that keeps the interrupted orchestrator alive until `timeout`.
    timer = threading.Timer(timeout, kill)
    timer.daemon = True
    records: list[dict] = []
    failure: DriverFailed | None = None
    stopped = False
    try:
        err_reader.start()
        timer.start()
        for line in stdout:
            if not line.strip() or failure:
                continue
            try:
                rec = parse_line(line)
            except DriverFailed as e:
                failure = e
                continue
            records.append(rec)
            if on_record and on_record(rec):  # the caller has seen enough (settled and measured, converged)
                stopped = True
                kill_group(proc)
                break
        proc.wait()
    except BaseException:  # Ctrl-C, SIGTERM, a record the caller rejected: never leave a driver behind
        kill_group(proc)
        proc.wait()
        raise
    finally:
        timer.cancel()
        if err_reader.ident is not None:  # started
            err_reader.join(timeout=5)
    stderr_tail = "".join(tail).strip()
    if timed_out.is_set():
        raise DriverFailed(
            "timeout", f"no result within {timeout:g} s; the driver's process group was killed", stderr_tail
        )
    if failure:
        failure.stderr_tail = stderr_tail
        raise failure
    if proc.returncode != 0 and not stopped:
        if proc.returncode < 0:
            sig = signal.Signals(-proc.returncode).name
            hint = " (SIGKILL: perhaps the kernel's out-of-memory killer)" if sig == "SIGKILL" else ""
            raise DriverFailed("crashed", f"killed by {sig}{hint}", stderr_tail)
        raise DriverFailed("crashed", f"exit status {proc.returncode} without an error record", stderr_tail)
    kill_group(proc)  # reap anything the driver left behind
    return Launch(records, stderr_tail)


def describe(d: Driver, cores: str = "all", clean_env: bool = False, timeout: float = 60) -> dict:
    """The driver's self-description (contract section 4), launched exactly as a run of it is: the same
    pinning and environment, so the collector and version it reports are the run's."""
    launch = run_driver(d, ["describe"], cores=cores, timeout=timeout, clean_env=clean_env)
    for rec in launch.records:
        if rec["type"] == "describe":
            return rec
    raise DriverFailed("garbled", "`describe` printed no describe record")
