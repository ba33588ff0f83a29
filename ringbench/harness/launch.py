"""Launching one process — a driver, or a program measured beside one — and collecting a driver's records.

`start` is the one launch primitive: the process runs in its own process group (so a timeout or Ctrl-C
kills it and everything it spawned), with the parent-death signal set (the kernel kills it the moment
this process dies, however it dies: contract section 8), optionally pinned to one CPU. A `Session` is one
such process talked to: its records read against a deadline, answers on its stdin, the tail of what else it
printed; `run_driver` runs a driver's verb through one, and so does perf (harness/perf.py).
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import IO, Any

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


_STOPS = (signal.SIGINT, signal.SIGTERM)
_lost: list[BaseException] = []  # stops raised by `_stop` that Python dropped (sys.unraisablehook saw them)


class _Stop(KeyboardInterrupt):
    """Ctrl-C or SIGTERM, raised by the measuring commands' handler."""


def _stop(sig: int, _frame: object) -> None:
    raise _Stop(signal.Signals(sig).name)


class _KeepDroppedStops:
    """sys.unraisablehook that keeps a dropped `_Stop` (for `start`), then hands on to the hook it replaced."""

    def __init__(self, hook: Callable[[Any], object]):
        self.hook = hook

    def __call__(self, u: Any) -> None:
        if isinstance(u.exc_value, _Stop):
            _lost.append(u.exc_value)
        self.hook(u)


def interrupt_on_stop() -> None:
    """Ctrl-C and SIGTERM raise KeyboardInterrupt, and one that Python drops is kept: an exception raised
    where it cannot propagate (a fork hook, an object's finalizer) is printed and dropped (sys.unraisablehook),
    and a run that lost its Ctrl-C would go on to the end. Kept, it makes the next driver process refuse to
    start (`start`)."""
    _lost.clear()
    if not isinstance(sys.unraisablehook, _KeepDroppedStops):
        sys.unraisablehook = _KeepDroppedStops(sys.unraisablehook)
    for s in _STOPS:
        signal.signal(s, _stop)


def _raise_a_lost_stop() -> None:
    """A stop that Python dropped on its way to the code: raised now, once."""
    if _lost:
        _lost.clear()
        raise KeyboardInterrupt


@contextlib.contextmanager
def _interrupts_deferred():
    """Ctrl-C and SIGTERM that arrive in the block are raised again when it ends. Python drops an exception
    raised in a fork hook (logging, imported by numpy and concurrent.futures, has one), so a Ctrl-C that
    landed while a driver process was being started was lost and the run went on. Blocking the signal
    would not do: another thread takes it and the main thread runs the handler all the same."""
    if threading.current_thread() is not threading.main_thread():
        yield  # handlers run in the main thread only: a fork in another thread cannot lose one
        return
    caught: list[int] = []
    before = {s: signal.getsignal(s) for s in _STOPS}
    try:
        for s in _STOPS:
            signal.signal(s, lambda sig, _frame: caught.append(sig))
        yield
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)
        if caught:
            signal.raise_signal(caught[0])


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
    _raise_a_lost_stop()
    proc = None
    try:
        with _interrupts_deferred():
            proc = subprocess.Popen(
                argv, env=env, cwd=cwd, start_new_session=True, preexec_fn=_die_with_parent(cpu), **popen
            )
    except BaseException:  # the deferred Ctrl-C: the process just started is not left behind
        if proc is not None:
            kill_group(proc)
            proc.wait()
        raise
    return proc


def kill_group(proc: subprocess.Popen) -> None:
    """Kill the process's whole group (whatever it spawned too); nothing if it is gone already."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class Session:
    """One process started by `start`, talked to as the contract has it: its records read line by line (`next`),
    against a deadline for the whole process (`deadline`) or for each record (`next`'s timeout), answers written
    to its stdin (`answer`), what else it prints passed on (`on_output`) and its last lines kept (`tail`), its
    whole group killed on every way out (`close`). Every reader of a driver (run_driver, and through it run,
    describe and trace; perf) reads through one.

    The records come on stdout, or (`records`, a pipe from `records_pipe`) on a pipe of their own whose write
    end the process inherits: then its stdout is passed on as its stderr is (perf: what a snippet prints cannot
    reach the records)."""

    TAIL_LINES = 20

    def __init__(
        self,
        argv: list[str],
        env: dict[str, str],
        cwd: str | os.PathLike | None = None,
        cpu: int | None = None,
        *,
        records: tuple[int, int] | None = None,
        answers: bool = False,
        on_output: Callable[[str], None] = lambda line: None,
    ):
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.kept: collections.deque[str] = collections.deque(maxlen=self.TAIL_LINES)
        self.timed_out = False  # killed by `deadline`
        self.timer: threading.Timer | None = None
        popen: dict = {"pass_fds": (records[1],)} if records else {}
        try:
            self.proc = start(
                argv, env, cwd, cpu, stdin=subprocess.PIPE if answers else None, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True, errors="replace", bufsize=1, **popen,
            )  # fmt: skip
        except BaseException:
            if records:
                os.close(records[0])
            raise
        finally:
            if records:
                os.close(records[1])  # the process's is the one write end: the pipe ends when the process does
        out, err = self.proc.stdout, self.proc.stderr
        assert out is not None and err is not None  # both are pipes (PIPE above)
        source = os.fdopen(records[0], encoding="utf-8", errors="replace") if records else out

        def read_records() -> None:
            with contextlib.suppress(ValueError, OSError):  # closed under it
                for line in source:
                    self.lines.put(line)
            if records:
                source.close()
            self.lines.put(None)

        def passed_on(stream: IO[str]) -> Callable[[], None]:
            def read() -> None:
                with contextlib.suppress(ValueError, OSError):
                    for line in stream:
                        self.kept.append(line.rstrip("\n"))
                        on_output(line.rstrip("\n"))

            return read

        readers = [read_records, passed_on(err), *([passed_on(out)] if records else [])]
        self.readers = [threading.Thread(target=f, daemon=True) for f in readers]
        try:
            for t in self.readers:
                t.start()
        except BaseException:  # Ctrl-C while a reader starts: nothing left running
            self.kill()
            raise

    def deadline(self, seconds: float) -> None:
        """Kill the process group once `seconds` have passed (`timed_out` says so), whatever it is doing: a daemon
        timer, so that an interrupted orchestrator never waits for it. Call it inside the try that closes the
        session: a Ctrl-C that lands while the timer starts must still reach `close`."""
        self.timer = threading.Timer(seconds, self._time_out)
        self.timer.daemon = True
        self.timer.start()

    def _time_out(self) -> None:
        self.timed_out = True
        self.kill()

    def next(self, timeout: float | None = None) -> str | None:
        """The next line of records (None once the process has closed them); with `timeout`, TimeoutError if none
        comes within that many seconds, the process group killed."""
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            self.kill()
            raise TimeoutError from None

    def answer(self, word: str) -> None:
        """A line on the process's stdin (`answers`); nothing if it has ended (its output says why)."""
        stdin = self.proc.stdin
        assert stdin is not None
        try:
            stdin.write(word + "\n")
            stdin.flush()
        except (BrokenPipeError, OSError):
            pass

    def kill(self) -> None:
        kill_group(self.proc)

    def close(
        self, kill: bool = False, grace: float | None = None, held: Callable[[], AbstractContextManager] = nullcontext
    ) -> int:
        """Wait for the process (killed at once with `kill`, or once it has lingered `grace` seconds after its
        stdin closed); its exit status. Whatever it left behind is killed on every path, inside `held()` (perf
        holds Ctrl-C back there), and the readers are done before this returns (the tail is whole)."""
        try:
            if kill:
                self.kill()
            if self.proc.stdin is not None:
                with contextlib.suppress(OSError):
                    self.proc.stdin.close()
            try:
                rc = self.proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self.kill()
                rc = self.proc.wait()
        finally:
            if self.timer is not None:
                self.timer.cancel()
            with held():
                self.kill()  # whatever it left behind
                self.proc.wait()
            for t in self.readers:
                t.join(timeout=5)
        return rc

    def tail(self, lines: int = TAIL_LINES) -> str:
        """The last `lines` lines the process printed beside its records."""
        return "\n".join(list(self.kept)[-lines:])


def records_pipe() -> tuple[int, int]:
    """A pipe for a process's records (`Session(records=…)`): (read end, write end), the write end inheritable by
    number (`pass_fds`); the job that starts the process names it."""
    return os.pipe()


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
    one is a crash; no result within `timeout` seconds is a hang.
    """
    how = driver_process(d, cores, n, clean_env, cluster)
    session = Session(how.argv + args, how.env, d.folder, how.cpu)
    records: list[dict] = []
    failure: DriverFailed | None = None
    stopped = False
    try:
        session.deadline(timeout)
        while (line := session.next()) is not None:
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
                break
    except BaseException:  # Ctrl-C, SIGTERM, a record the caller rejected: never leave a driver behind
        session.close(kill=True)
        raise
    returncode = session.close(kill=stopped)
    stderr_tail = session.tail().strip()
    if session.timed_out:
        raise DriverFailed(
            "timeout", f"no result within {timeout:g} s; the driver's process group was killed", stderr_tail
        )
    if failure:
        failure.stderr_tail = stderr_tail
        raise failure
    if returncode != 0 and not stopped:
        if returncode < 0:
            sig = signal.Signals(-returncode).name
            hint = " (SIGKILL: perhaps the kernel's out-of-memory killer)" if sig == "SIGKILL" else ""
            raise DriverFailed("crashed", f"killed by {sig}{hint}", stderr_tail)
        raise DriverFailed("crashed", f"exit status {returncode} without an error record", stderr_tail)
    return Launch(records, stderr_tail)


def describe(d: Driver, cores: str = "all", clean_env: bool = False, timeout: float = 60) -> dict:
    """The driver's self-description (contract section 4), launched exactly as a run of it is: the same
    pinning and environment, so the collector and version it reports are the run's."""
    launch = run_driver(d, ["describe"], cores=cores, timeout=timeout, clean_env=clean_env)
    for rec in launch.records:
        if rec["type"] == "describe":
            return rec
    raise DriverFailed("garbled", "`describe` printed no describe record")
