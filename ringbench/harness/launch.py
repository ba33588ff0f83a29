"""Launching one driver process and collecting its records.

The driver runs in its own process group (so a timeout or Ctrl-C kills it and
everything it spawned), optionally pinned to one CPU, with a deadline.
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
from .protocol import DriverFailed, parse_line


def cores_value(cores: str) -> int:
    """`--cores 1` → 1 scheduler thread; `all` → every core this process may use."""
    return len(os.sched_getaffinity(0)) if cores == "all" else int(cores)


def pin_cpu() -> int:
    """The CPU a `--cores 1` driver is pinned to: the last one we may use."""
    return max(os.sched_getaffinity(0))


@dataclass
class Launch:
    records: list[dict]
    stderr_tail: str


_PR_SET_PDEATHSIG = 1


def _die_with_parent(cpu: int | None):
    """preexec_fn: the kernel kills the driver the moment this process dies, however it dies
    (contract section 8); the driver's launcher must exec the runtime for this to reach it."""
    libc = ctypes.CDLL(None, use_errno=True)
    parent = os.getpid()  # in the child, getppid() must still be this process

    def setup() -> None:
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the orchestrator died before prctl took effect
            os._exit(1)
        if cpu is not None:
            os.sched_setaffinity(0, {cpu})

    return setup


def settings(d: Driver, cores: str, n: int) -> tuple[list[str], dict[str, str], int]:
    """(argv, the variables the manifest sets, scheduler threads) for a driver process of `n` processes."""
    c = cores_value(cores)
    return d.argv(c, n), d.environ(c, n), c


def run_driver(
    d: Driver,
    args: list[str],
    *,
    cores: str = "all",
    n: int = 1,
    timeout: float = 600,
    on_record: Callable[[dict], bool | None] | None = None,
) -> Launch:
    """Run `<driver> args…`; return its records or raise DriverFailed.

    `on_record` sees each record as it arrives; if it returns True the driver is stopped there.

    The driver's own error record wins over the exit status; a non-zero exit without
    one is a crash; silence past `timeout` seconds is a hang.
    """
    prefix, overrides, c = settings(d, cores, n)
    argv = prefix + args
    cpu = pin_cpu() if cores != "all" else None
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **overrides},
        start_new_session=True,
        preexec_fn=_die_with_parent(cpu),
        cwd=d.folder,
    )
    stdout, stderr = proc.stdout, proc.stderr
    assert stdout is not None and stderr is not None  # both are pipes (PIPE above)
    tail: collections.deque[str] = collections.deque(maxlen=20)
    err_reader = threading.Thread(target=lambda: tail.extend(stderr), daemon=True)
    timed_out = threading.Event()

    def kill() -> None:
        timed_out.set()
        _kill_group(proc)

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
            if on_record and on_record(rec):  # the caller has seen enough (e.g. --cv converged)
                stopped = True
                _kill_group(proc)
                break
        proc.wait()
    except BaseException:  # Ctrl-C, SIGTERM: never leave a driver running behind us
        _kill_group(proc)
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
    _kill_group(proc)  # reap anything the driver left behind
    return Launch(records, stderr_tail)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def describe(d: Driver, timeout: float = 60) -> dict:
    """The driver's self-description (contract section 4)."""
    launch = run_driver(d, ["describe"], timeout=timeout)
    for rec in launch.records:
        if rec["type"] == "describe":
            return rec
    raise DriverFailed("garbled", "`describe` printed no describe record")
