"""`ringbench perf`: the user's own code run in a tight loop by a runtime's perf runner (contract section 10),
in erlperf's three modes: continuous (sampled), timed (-l) and squeeze (-q).

A request names a runner (`-r erlang`: the driver whose manifest says `perf = "erlang"`) and snippets, each
a runner with its hooks. The snippets are measured one after another, never two at once: all in one
runtime process (default), or each in a fresh one (`isolated`, erlperf's -i). The job goes to the driver as
one JSON file (`perf <job.json>`); the driver's records come back on a pipe of their own (the job's
`records` descriptor: a snippet's stdout is passed on with its stderr), checked here, and the
decisions stay here: with --cv, whether the last samples agree (results.sampling.converged, answered `more`
or `enough` on the driver's stdin); in squeeze, whether throughput stopped growing (results.sampling.Squeeze,
the same search as the ring's). Every process is started as a driver is (`launch.start`: a process group
of its own, dying with the orchestrator), and killed after `timeout` seconds without a record.

What it leaves is one cell per snippet in the perf modes (results.modes.PerfContinuous, PerfTimed,
PerfSqueeze), handed to a sink as each snippet finishes; the harness never opens the store. Code that does
not compile, a wrong arity or a bad job is found before anything is measured (`BadCode`, nothing to
store); a snippet that raises, hangs or crashes the runtime stops the run at once (`Failed`): its cell goes
to the sink as failed, with the runtime's own message and no figure, and the snippets after it are not run.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import signal
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..catalogue import workloads
from ..catalogue.drivers import Driver, DriverError, discover, select
from ..results import sampling
from ..results.model import Cell
from ..results.modes import PERF_MODES, Mode, Options
from . import cluster, launch, runner
from .environment import tuning_env
from .protocol import DriverFailed, read_record

MODES = tuple(PERF_MODES)  # the job's mode words: continuous, timed, squeeze
CELL_MODE = {word: m.name for word, m in PERF_MODES.items()}
DEFAULT_RUNNER = "erlang"
MAX_LOOP = 10**15  # iterations a timed sample: exact in every runner (JavaScript's integers stop at 2^53)
TEMP_PREFIX = "ringbench-perf-"  # the job's folder in the temp folder: ringbench-perf-<pid>-<random>
DEFAULT_TIMEOUT_S = {word: m.default_timeout_s for word, m in PERF_MODES.items()}
HOOKS = ("init", "init_runner", "done")


def _absolute(paths: Sequence[str]) -> tuple[str, ...]:
    """Code paths that exist from here, made absolute: the runner starts in its driver's folder, so a
    relative -pa/--path/--require would resolve there. Anything else (a package name) is kept as given."""
    return tuple(os.path.abspath(p) if os.path.exists(p) else p for p in paths)


class BadCode(ValueError):
    """The request or the code is wrong (exit 2): found before anything was measured, nothing to store."""


class Failed(Exception):
    """A snippet failed (raised, hung, crashed the runtime): one line naming it, with the runtime's words."""


# -- the request ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Snippet:
    """A runner and its hooks, verbatim (a runner read from a file: its content, and the file's name)."""

    code: str
    init: str | None = None
    init_runner: str | None = None
    done: str | None = None
    file: str | None = None
    label: str | None = None

    @property
    def params(self) -> dict:
        """What the cell stores of the snippet (workloads.PERF's subject): the code and every hook given."""
        out: dict = {"code": self.code}
        for key in ("file", *HOOKS, "label"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out

    @property
    def shown(self) -> str:
        return self.label or workloads.perf_label(self.params, 10**6)


@dataclass(frozen=True)
class Request:
    driver: Driver
    runner: str  # the perf name the runner answers to (erlang, python, node)
    snippets: tuple[Snippet, ...]
    mode: str = "continuous"
    concurrency: int = 1
    loop: int = 0
    samples: int = 3
    sample_ms: int = 1000
    warmup: int = 1
    cv: float | None = None
    max_samples: int = 30
    squeeze_min: int = 1
    squeeze_max: int = 64
    threshold: int = 3
    isolated: bool = False
    processes: bool = False
    code_path: tuple[str, ...] = ()
    cores: str = "all"
    runtime_stats: bool = False
    timeout: float = 60.0
    clean_env: bool = False
    nodes: int = 1  # BEAM nodes every snippet runs on at once (contract section 11, across nodes)
    hosts: tuple[str, ...] = ()  # nodes on other hosts (--hosts): nodes = hosts + 1
    cookie_file: str = ""

    @property
    def cell_mode(self) -> str:
        return CELL_MODE[self.mode]

    @property
    def mode_object(self) -> Mode:
        return PERF_MODES[self.mode]

    @property
    def options(self) -> Options:
        """The run's settings as every run stores them (the perf-only ones are in settings["perf"])."""
        return Options(
            mode=self.cell_mode, repeat=self.samples, processes=0, warmup=self.warmup, timeout=self.timeout,
            clean_env=self.clean_env, samples=self.samples, sample_ms=self.sample_ms, cv=self.cv,
            max_samples=self.max_samples, squeeze_min=self.squeeze_min, squeeze_max=self.squeeze_max,
            threshold=self.threshold, runtime_stats=self.runtime_stats,
        )  # fmt: skip

    @property
    def workers(self) -> str:
        """What a worker is, in words (the table says it)."""
        if self.processes:
            return "OS processes (--processes)"
        return self.driver.perf_workers or f"{self.runner} workers"

    @property
    def max_workers(self) -> int:
        return self.squeeze_max if self.mode_object.searches else self.concurrency

    def cell_params(self, s: Snippet) -> dict:
        """A cell's params: the snippet, and the condition its rows are compared at (workers or the loop)."""
        cond = {"concurrency": self.concurrency} if self.mode_object.given_workers else {}
        if self.mode_object.loops:
            cond = {"loop": self.loop}
        if self.nodes > 1:
            cond["nodes"] = self.nodes
        return {**s.params, **cond}

    def job(self, numbered: Sequence[tuple[int, Snippet]], mode: str | None = None) -> dict:
        """The job file (contract section 10) for these snippets."""
        return {
            "perf": 1,
            "mode": mode or self.mode,
            "snippets": [
                {
                    "snippet": k,
                    "runner": s.code,
                    "init": s.init,
                    "init_runner": s.init_runner,
                    "done": s.done,
                    "file": s.file,
                }
                for k, s in numbered
            ],  # fmt: skip
            "concurrency": self.concurrency if self.mode_object.given_workers else 1,
            "loop": self.loop if self.mode_object.loops else 0,
            "samples": self.samples,
            "sample_ms": self.sample_ms,
            "warmup": self.warmup,
            "ask": self.cv is not None,
            "max_samples": max(self.max_samples, self.samples) if self.cv is not None else self.samples,
            "min": self.squeeze_min,
            "max": self.squeeze_max,
            "processes": self.processes,
            "code_path": list(self.code_path),
            "stats": self.runtime_stats,
            "cores": launch.cores_value(self.cores),
            **({"nodes": self.nodes} if self.nodes > 1 else {}),
        }


def own_env(how: launch.DriverProcess) -> dict[str, str]:
    """The variables the user's environment adds to a driver's, without the manifest's own."""
    return {k: v for k, v in how.env.items() if k not in how.manifest_env}


def parse_count(text: object, what: str = "-l/--loop") -> int:
    """An iteration count as erlperf writes it: 100, 10K, 100M, 3G (×1,000 each; _ allowed)."""
    m = re.fullmatch(r"\s*([0-9][0-9_]*)\s*([kKmMgG]?)\s*", str(text))
    if not m:
        raise BadCode(f"{what} takes a count such as 1000, 100K, 100M or 3G, got {text!r}")
    value = int(m.group(1).replace("_", "")) * {"": 1, "k": 10**3, "m": 10**6, "g": 10**9}[m.group(2).lower()]
    if value < 1:
        raise BadCode(f"{what} must be at least 1, got {text!r}")
    if value > MAX_LOOP:
        raise BadCode(f"{what} must be at most {MAX_LOOP:,} (1000000G), got {text!r}")
    return value


def perf_drivers() -> dict[str, list[Driver]]:
    """Every driver that names a perf runner, by that name (its variants in manifest order)."""
    out: dict[str, list[Driver]] = {}
    for d in discover().values():
        if d.perf:
            out.setdefault(d.perf, []).append(d)
    return out


def runner_driver(name: str) -> tuple[str, Driver]:
    """(perf name, driver) for `-r NAME`: a perf name (its first stock variant) or a runtime id."""
    found = perf_drivers()
    if name in found:
        candidates = [d for d in found[name] if not d.tuned] or found[name]
        perf_name = name
    else:
        matches = [(p, d) for p, ds in found.items() for d in ds if d.name == name]
        if not matches:
            known = ", ".join(sorted(found)) or "none"
            raise BadCode(f"no perf runner {name!r}; runners: {known} (a driver lists one with `perf = NAME`)")
        perf_name, d0 = matches[0]
        candidates = [d0]
    d = candidates[0]
    try:
        select(d.name)  # built, its tools on PATH
    except DriverError as e:
        raise BadCode(str(e)) from None
    return perf_name, d


def read_file_snippet(text: str) -> tuple[str, str | None]:
    """(code, file name): a snippet naming an existing file (one word, no newline) is that file's content."""
    word = text.strip()
    if word and not any(c.isspace() for c in word) and os.path.isfile(word):
        try:
            return Path(word).read_text(), word
        except (OSError, UnicodeDecodeError) as e:
            raise BadCode(f"cannot read {word}: {getattr(e, 'strerror', None) or e}") from None
    return text, None


def plan(
    snippets: Sequence[Snippet | str | Mapping],
    runner: str = DEFAULT_RUNNER,
    *,
    mode: str = "continuous",
    concurrency: int | None = None,
    loop: int | str | None = None,
    samples: int | None = None,
    sample_ms: int | None = None,
    warmup: int | None = None,
    cv: float | None = None,
    max_samples: int | None = None,
    squeeze_min: int | None = None,
    squeeze_max: int | None = None,
    threshold: int | None = None,
    isolated: bool = False,
    processes: bool = False,
    code_path: Sequence[str] = (),
    cores: str = "all",
    runtime_stats: bool = False,
    timeout: float | None = None,
    clean_env: bool = False,
    nodes: int | str | None = None,
    hosts: str | Sequence[str] | None = None,
    cookie_file: str | None = None,
) -> Request:
    """Check a request and fill in its defaults (erlperf's, and a warm-up sample), or raise BadCode."""
    if loop is not None and mode in PERF_MODES and PERF_MODES[mode].given_workers:  # -l without -q: timed
        mode = next(word for word, o in PERF_MODES.items() if o.loops)
    if mode not in MODES:
        raise BadCode(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    m = PERF_MODES[mode]
    given = {
        "concurrency": concurrency, "sample_ms": sample_ms, "cv": cv, "max_samples": max_samples,
        "squeeze_min": squeeze_min, "squeeze_max": squeeze_max, "threshold": threshold,
    }  # fmt: skip
    flags = {
        "concurrency": "-c/--concurrency", "sample_ms": "-d/--sample-ms", "cv": "--cv", "max_samples": "--max-samples",
        "squeeze_min": "--min", "squeeze_max": "--max", "threshold": "-t/--threshold",
    }  # fmt: skip
    for key in m.refuses:
        if given[key] is not None:
            raise BadCode(f"{flags[key]} does not fit: {m.refusal}")
    if m.loops and loop is None:
        raise BadCode("timed mode needs -l/--loop N (iterations a sample)")
    items = [_snippet(s) for s in snippets]
    if not items:
        raise BadCode("give at least one snippet of code to run")
    seen: dict[str, int] = {}
    for k, s in enumerate(items, 1):
        key = json.dumps(s.params, sort_keys=True)
        if key in seen:
            raise BadCode(f"snippet {k} is snippet {seen[key]} again (the same code and hooks): give each once")
        seen[key] = k
    perf_name, driver = runner_driver(runner)
    ints = {
        "concurrency": (concurrency, 1, 1, 1 << 20), "samples": (samples, 3, 1, 1_000_000),
        "sample_ms": (sample_ms, 1000, 1, 86_400_000), "warmup": (warmup, m.default_warmup, 0, 1_000_000),
        "max_samples": (max_samples, 30, 1, 1_000_000), "squeeze_min": (squeeze_min, 1, 1, 1 << 20),
        "squeeze_max": (squeeze_max, 64, 1, 1 << 20), "threshold": (threshold, 3, 1, 1000),
    }  # fmt: skip
    values: dict[str, int] = {}
    for key, (value, default, lo, hi) in ints.items():
        v = default if value is None else value
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            flag = flags.get(key, f"--{key.replace('_', '-')}")
            raise BadCode(f"{flag} must be an integer from {lo:,} to {hi:,}, got {value!r}")
        values[key] = v
    if values["squeeze_min"] > values["squeeze_max"]:
        raise BadCode("squeeze needs --min ≤ --max")
    if cv is not None and not 0 < cv < 1:
        raise BadCode("--cv is a fraction between 0 and 1 (e.g. 0.02 for 2 %)")
    if cv is not None and values["max_samples"] < values["samples"]:
        raise BadCode("--max-samples must be at least --samples")
    if cores not in ("1", "all"):
        raise BadCode(f"cores must be 1 or all, got {cores!r}")
    if timeout is not None and not timeout > 0:
        raise BadCode(f"--timeout must be a positive number of seconds, got {timeout!r}")
    k, host_list = _nodes(nodes, hosts, cookie_file, m, driver, cores, clean_env)
    req = Request(
        driver, perf_name, tuple(items), mode, values["concurrency"],
        parse_count(loop) if loop is not None else 0, values["samples"], values["sample_ms"], values["warmup"],
        cv, values["max_samples"], values["squeeze_min"], values["squeeze_max"], values["threshold"], isolated,
        processes, _absolute(code_path), cores, runtime_stats, float(timeout or DEFAULT_TIMEOUT_S[mode]), clean_env,
        k, host_list, cookie_file or "",
    )  # fmt: skip
    return req


def _nodes(
    nodes: int | str | None,
    hosts: str | Sequence[str] | None,
    cookie_file: str | None,
    mode: Mode,
    driver: Driver,
    cores: str,
    clean_env: bool,
) -> tuple[int, tuple[str, ...]]:
    """(K, hosts) for --nodes/--hosts, as the ring takes them (1 … 256 nodes; nodes = hosts + 1), or BadCode: a
    runner without the `nodes` feature, squeeze across nodes, a cookie that cannot be used."""
    try:
        k = 1 if nodes is None else workloads.NODES.check(nodes)
        host_list = cluster.parse_hosts(hosts if isinstance(hosts, str) else tuple(hosts)) if hosts else ()
        if host_list:
            if nodes is not None and k != cluster.nodes_of(host_list):
                raise BadCode(
                    f"--hosts with {len(host_list)} host(s) makes {cluster.nodes_of(host_list)} nodes (this "
                    f"machine's and one on each host); --nodes {nodes} asks for others"
                )
            k = cluster.nodes_of(host_list)
            cluster.cookie(cookie_file or "")  # a cookie that cannot be used: bad input now, not in the driver
        elif cookie_file:
            raise BadCode("--cookie-file goes with --hosts (nodes on other hosts)")
    except (workloads.ParamError, cluster.ClusterError) as e:
        raise BadCode(str(e)) from None
    if k == 1:
        return 1, ()
    if mode.searches:
        raise BadCode(
            "-q/--squeeze does not fit --nodes: a squeeze step adds one worker to one VM and finds where that VM "
            "stops scaling; across nodes use -c N (N workers on every node)"
        )
    try:
        features = runner.describe_cached(driver, cores, clean_env).get("features", [])
    except DriverFailed as e:
        raise BadCode(f"{driver.name}: `describe` failed ({e})") from None
    if "nodes" not in features:
        raise BadCode(f"{driver.name} cannot run perf on {k} nodes (no `nodes` feature)")
    if host_list and (why := cluster.no_hosts(driver)):
        raise BadCode(why)
    return k, host_list


def _snippet(s: Snippet | str | Mapping) -> Snippet:
    """A snippet from the API's forms: a string (the runner), a mapping with erlperf's keys (runner, init,
    init_runner, done, label), or a Snippet. A runner naming a file is read from it."""
    if isinstance(s, Snippet):
        return s
    if isinstance(s, str):
        s = {"runner": s}
    if not isinstance(s, Mapping) or not isinstance(s.get("runner", s.get("code")), str):
        raise BadCode(f"a snippet is code (a string) or a map with a runner string, got {s!r}")
    unknown = sorted(set(s) - {"runner", "code", "init", "init_runner", "done", "label"})
    if unknown:
        raise BadCode(f"a snippet has no {unknown[0]!r} (it has runner, init, init_runner, done, label)")
    for key in (*HOOKS, "label"):
        if s.get(key) is not None and not isinstance(s[key], str):
            raise BadCode(f"{key} must be code (a string), got {s[key]!r}")
    code, file = read_file_snippet(s.get("runner", s.get("code")) or "")
    if not code.strip():
        raise BadCode("a snippet's runner is empty")
    return Snippet(code, s.get("init"), s.get("init_runner"), s.get("done"), file, s.get("label"))


# -- one runtime process ----------------------------------------------------------------------------
@dataclass
class _Gathered:
    """What one snippet's records have brought so far."""

    k: int
    snippet: Snippet
    launch: int
    samples: list[dict] = field(default_factory=list)
    records: list[dict] = field(default_factory=list)
    stats: list[dict] = field(default_factory=list)
    phase: str = ""
    total: int | None = None
    unfinished: int = 0  # of the total, iterations under way when the workers were stopped (counted at start)
    search: sampling.Squeeze | None = None
    converged: bool | None = None
    window: int | None = None
    phases_ns: dict = field(default_factory=dict)
    # Across nodes (K > 1): each node's samples, timed samples and total, the records' shapes with `node`.
    node_samples: list[dict] = field(default_factory=list)
    node_records: list[dict] = field(default_factory=list)
    node_totals: list[dict] = field(default_factory=list)


Event = Callable[[str, dict], None]  # (what, details): progress for a display


class _Process:
    """One runtime process running a job (a launch.Session: its records read with a deadline, its stdin
    written), and the files that live as long as it does: the job's and the cluster file."""

    def __init__(self, req: Request, job: dict, on_stderr: Callable[[str], None]):
        self.req = req
        # Nodes on other hosts: the cluster file (hosts and cookie, mode 0600) lives as long as the process.
        self.cluster = contextlib.ExitStack()
        _sweep_stale()
        with signals_held():  # the files exist only with their owner: made whole, removed on every path
            try:
                path = self.cluster.enter_context(cluster.cluster_file(req.hosts, req.cookie_file, req.driver))
            except cluster.ClusterError as e:
                raise BadCode(str(e)) from None
            self.folder = tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-")
            _FOLDERS.add(self.folder)
            self.job_path = os.path.join(self.folder, "job.json")
        try:
            self.how = launch.driver_process(req.driver, req.cores, max(req.max_workers, 2), req.clean_env, path)
            self.argv = self.how.argv + ["perf", self.job_path]
            # The records travel on a pipe of their own, inherited as the job's `records` descriptor: what a
            # snippet writes to stdout (erlang:display, os.write(1, ...), fs.writeSync(1, ...)) cannot reach them;
            # it is passed on, as the snippets' stderr is.
            records = launch.records_pipe()
            try:
                Path(self.job_path).write_text(json.dumps({**job, "records": records[1]}, indent=1))
            except BaseException:
                _close(*records)
                raise
            self.session = launch.Session(
                self.argv, self.how.env, str(req.driver.folder), self.how.cpu, records=records, answers=True,
                on_output=on_stderr,
            )  # fmt: skip
        except BaseException:
            with signals_held():
                self._remove_files()
            raise

    def next(self) -> dict | None:
        """The next record (None at the end of the output); DriverFailed past the timeout, the process killed."""
        while True:
            try:
                line = self.session.next(self.req.timeout)
            except TimeoutError:
                raise DriverFailed(
                    "timeout", f"no record for {self.req.timeout:g} s; the runtime process was killed"
                ) from None
            if line is None:
                return None
            if not line.strip():
                continue
            return read_record(line)

    def answer(self, word: str) -> None:
        self.session.answer(word)

    def close(self, kill: bool = False) -> int:
        """Wait for the process (killed at once with `kill`, or if it lingers), remove the job file; its exit
        status. The process group is killed and the files removed on every path, a second Ctrl-C included
        (held back while they go)."""
        try:
            return self.session.close(kill, grace=10, held=signals_held)
        finally:
            with signals_held():
                self._remove_files()

    def _remove_files(self) -> None:
        """The cluster file (nodes on other hosts) and the job's folder."""
        self.cluster.close()
        _remove(self.folder)
        _FOLDERS.discard(self.folder)

    @property
    def stderr_tail(self) -> str:
        return self.session.tail(5)

    def shown(self) -> str:
        """The command as a shell line (the manifest's environment first), for messages and the store."""
        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(self.how.manifest_env.items()))
        return f"(cd {shlex.quote(str(self.req.driver.folder))} && {env + ' ' if env else ''}{shlex.join(self.argv)})"


@contextlib.contextmanager
def signals_held():
    """SIGINT and SIGTERM held back (delivered when the block ends): cleanup that must not be cut short."""
    held = {signal.SIGINT, signal.SIGTERM}
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


# This process's job folders not yet removed: a second Ctrl-C that lands while the first is handled, before
# `_Process.close` holds the signals, skips it; `_left_removed` removes them as the command ends.
_FOLDERS: set[str] = set()


@contextlib.contextmanager
def _left_removed():
    """The job folders made in the block and still there when it ends, removed (signals held)."""
    before = set(_FOLDERS)
    try:
        yield
    finally:
        with signals_held():
            for folder in _FOLDERS - before:
                _remove(folder)
                _FOLDERS.discard(folder)


def _sweep_stale() -> None:
    """Job folders left by an orchestrator that was killed (SIGKILL: no cleanup ran), removed: a folder is
    named after its owner's process id and is stale once that process is gone."""
    root = tempfile.gettempdir()
    try:
        names = os.listdir(root)
    except OSError:
        return
    for name in names:
        m = re.fullmatch(re.escape(TEMP_PREFIX) + r"([0-9]+)-\w+", name)
        if not m or int(m.group(1)) == os.getpid():
            continue
        try:
            os.kill(int(m.group(1)), 0)
        except ProcessLookupError:
            _remove(os.path.join(root, name))
        except OSError:
            continue  # alive (another user's, say): not ours to touch


def _close(*fds: int) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


def _remove(folder: str) -> None:
    """The job's temporary folder and what is in it (the job file)."""
    for name in os.listdir(folder) if os.path.isdir(folder) else ():
        with contextlib.suppress(OSError):
            os.unlink(os.path.join(folder, name))
    with contextlib.suppress(OSError):
        os.rmdir(folder)


def _int_fields(rec: dict, names: Sequence[str]) -> None:
    for f in names:
        v = rec.get(f)
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise DriverFailed("garbled", f"{rec.get('type')} field {f!r} missing, negative or not an integer: {rec}")


def _unfinished(rec: dict) -> int:
    """A total record's `unfinished` (optional): iterations counted in it that had started and not returned when
    the workers were stopped (a runtime counting an iteration when it starts), 0 … count."""
    u = rec.get("unfinished", 0)
    if isinstance(u, bool) or not isinstance(u, int) or not 0 <= u <= rec["count"]:
        raise DriverFailed("garbled", f"total field 'unfinished' must be an integer from 0 to count: {rec}")
    return u


def _summed(per_node: list[dict], loop: int, snippet: int) -> dict:
    """The timed sample of all the nodes from each node's (run together): QPS is the sum of the nodes' QPS, so
    count = loop × K and run_ns = K / Σ(1 / run_ns of a node) (the harmonic mean of the nodes' times);
    concurrency K (one worker a node), run_cpu_ns the mean of the nodes'."""
    k = len(per_node)
    first = per_node[0]
    run_ns = round(k / sum(1 / max(r["run_ns"], 1) for r in per_node))
    return {
        "type": "result", "workload": "perf", "snippet": snippet, "iteration": first["iteration"],
        "loop": loop, "count": loop * k, "run_ns": run_ns,
        "run_cpu_ns": round(sum(r["run_cpu_ns"] for r in per_node) / k), "concurrency": k, "nodes": k,
    }  # fmt: skip


# A snippet's phases (its `phase` records) in words: "in snippet 1's done hook".
PHASE_WORDS = {"init": "init hook", "init_runner": "init_runner hook", "running": "runner", "done": "done hook"}


def _exit_words(rc: int) -> str:
    """How the runtime ended, in words: "exited with status 0", "was killed by SIGKILL"."""
    return f"was {_status_text(rc)}" if rc < 0 else f"exited with status {rc}"


def _status_text(rc: int) -> str:
    if rc < 0:
        try:
            return f"killed by {signal.Signals(-rc).name}"
        except ValueError:
            return f"killed by signal {-rc}"
    return f"exit status {rc}"


class _Run:
    """Drives one runtime process through its job: checks each record, answers the driver's questions, and
    hands each finished snippet's cell to the sink."""

    def __init__(self, req: Request, numbered: list[tuple[int, Snippet]], launch_no: int, sink, on_ready, on_event,
                 on_stderr):  # fmt: skip
        self.req, self.numbered, self.launch_no = req, numbered, launch_no
        self.sink, self.on_ready, self.on_event = sink, on_ready, on_event
        self.proc = _Process(req, req.job(numbered), on_stderr)
        self.current: _Gathered | None = None
        self.ready = False
        self.finished = 0

    def go(self) -> None:
        failure: DriverFailed | None = None
        try:
            self._loop()
        except DriverFailed as e:
            failure = e
        except BaseException:  # Ctrl-C (or SIGTERM made one): the runtime killed now, not waited for
            self.proc.close(kill=True)
            raise
        rc = self.proc.close()
        if failure is None and self.current is not None:  # a snippet ended the runtime (halt(), os._exit(0))
            g = self.current
            where = PHASE_WORDS.get(g.phase, f"{g.phase} phase" if g.phase else "start")
            failure = DriverFailed("exited", f"the runtime {_exit_words(rc)} in snippet {g.k}'s {where}")
        if failure is None and rc != 0:
            failure = DriverFailed("crashed", f"the runtime process ended ({_status_text(rc)}) without an error record")
        if failure is None and not self.ready:
            failure = DriverFailed("garbled", "the runtime process ended without `ready`")
        if failure is None and self.finished < len(self.numbered):
            failure = DriverFailed("garbled", f"the runtime process ended after {self.finished} of "
                                   f"{len(self.numbered)} snippets")  # fmt: skip
        if failure is not None:
            self._fail(failure)

    def _loop(self) -> None:
        snippets = dict(self.numbered)
        while True:
            rec = self.proc.next()
            if rec is None:
                return
            kind = rec["type"]
            if kind == "error":
                self._error(rec)
            elif kind == "ready":
                if rec.get("snippets") != len(self.numbered):
                    raise DriverFailed("garbled", f"ready for {rec.get('snippets')} snippets, not {len(self.numbered)}")
                self.ready = True
                self.on_ready()
            elif kind == "phase":
                k = rec.get("snippet")
                if k not in snippets:
                    raise DriverFailed("garbled", f"a record for snippet {k!r}, which is not in the job")
                if self.current is None or self.current.k != k:
                    self.current = _Gathered(k, snippets[k], self.launch_no)
                self.current.phase = str(rec.get("phase"))
                self.on_event("phase", {"snippet": k, "code": snippets[k].shown, "phase": self.current.phase})
            elif self.current is None or rec.get("snippet") != self.current.k:
                raise DriverFailed("garbled", f"a {kind} record outside its snippet: {rec}")
            elif "node" in rec and kind in ("sample", "result", "total"):
                self._node(rec)
            elif kind == "sample":
                self._sample(rec)
            elif kind == "step":
                self._step(rec)
            elif kind == "result" and self.req.nodes > 1:
                raise DriverFailed("garbled", f"a timed sample across nodes without its node: {rec}")
            elif kind == "result":
                self._result(rec)
            elif kind == "total":
                _int_fields(rec, ("count",))
                self.current.total = rec["count"]
                self.current.unfinished = _unfinished(rec)
            elif kind == "stats":
                self.current.stats.append({k: v for k, v in rec.items() if k not in ("type", "workload", "snippet")})
                self.on_event("stats", {"snippet": self.current.k, **rec})
            elif kind == "finished":
                self._finished()
            else:
                raise DriverFailed("garbled", f"unknown record type {kind!r}")

    def _error(self, rec: dict) -> None:
        message = str(rec.get("message", "(no message)"))
        if not self.ready:
            raise BadCode(f"{self.req.runner}: {message}")
        if isinstance(rec.get("snippet"), int) and (self.current is None or self.current.k != rec["snippet"]):
            k = rec["snippet"]
            self.current = _Gathered(k, dict(self.numbered)[k], self.launch_no)
        where = rec.get("phase") or (self.current.phase if self.current else "")
        raise DriverFailed(str(rec.get("kind", "failure")), f"{where}: {message}" if where else message)

    def _sample(self, rec: dict) -> None:
        g = self.current
        assert g is not None
        _int_fields(rec, ("step", "concurrency", "seq", "elapsed_ns", "count"))
        s = {"process": rec["step"], "tokens": rec["concurrency"], "seq": rec["seq"], "elapsed_ns": rec["elapsed_ns"],
             "count": rec["count"]}  # fmt: skip
        if g.samples and g.samples[-1]["process"] == s["process"]:
            prev = g.samples[-1]
            if s["count"] < prev["count"] or s["elapsed_ns"] <= prev["elapsed_ns"] or s["seq"] != prev["seq"] + 1:
                raise DriverFailed("garbled", f"samples went backwards or skipped: {prev} then {s}")
        elif s["seq"] != 0:
            raise DriverFailed("garbled", f"a step's first sample must have seq 0: {s}")
        g.samples.append(s)
        counted = s["seq"] - self.req.warmup
        self.on_event("sample", {
            "snippet": g.k, "code": g.snippet.shown, "step": s["process"], "workers": s["tokens"], "seq": s["seq"],
            "counted": counted, "rates": self._rates(g, s["process"]),
        })  # fmt: skip
        if self.req.mode_object.given_workers and self.req.cv is not None and counted >= self.req.samples:
            if counted >= max(self.req.max_samples, self.req.samples):
                g.converged, g.window = False, None
                return  # the driver ends the snippet without asking
            rates = self._rates(g, s["process"])[-self.req.samples :]
            g.converged = sampling.converged(rates, self.req.cv)
            g.window = self.req.samples if g.converged else None
            self.proc.answer("enough" if g.converged else "more")

    def _rates(self, g: _Gathered, step: int) -> list[float]:
        """Iterations per second of the step's counted intervals so far."""
        ss = [s for s in g.samples if s["process"] == step and s["seq"] >= self.req.warmup]
        pairs = zip(ss, ss[1:], strict=False)
        return [(b["count"] - a["count"]) * 1e9 / (b["elapsed_ns"] - a["elapsed_ns"]) for a, b in pairs]

    def _node(self, rec: dict) -> None:
        """One node's sample, timed sample or total (K > 1): kept with its node index; a timed sample of the
        last node makes the sum's record."""
        g = self.current
        assert g is not None
        req = self.req
        kind = rec["type"]
        _int_fields(rec, ("node", "count"))
        j = rec["node"]
        if req.nodes == 1 or j >= req.nodes:
            raise DriverFailed("garbled", f"a record of node {j}, with {req.nodes} node(s) asked: {rec}")
        if kind == "sample":
            _int_fields(rec, ("step", "concurrency", "seq", "elapsed_ns"))
            s = {"node": j, "process": rec["step"], "tokens": rec["concurrency"], "seq": rec["seq"],
                 "elapsed_ns": rec["elapsed_ns"], "count": rec["count"]}  # fmt: skip
            prev = next((x for x in reversed(g.node_samples) if x["node"] == j), None)
            if (
                prev is not None
                and prev["process"] == s["process"]
                and (s["count"] < prev["count"] or s["elapsed_ns"] <= prev["elapsed_ns"] or s["seq"] != prev["seq"] + 1)
            ):
                raise DriverFailed("garbled", f"node {j}'s samples went backwards or skipped: {prev} then {s}")
            g.node_samples.append(s)
        elif kind == "total":
            t = {"node": j, "name": str(rec.get("name", "")), "count": rec["count"]}
            g.node_totals.append({**t, "unfinished": u} if (u := _unfinished(rec)) else t)
        else:
            _int_fields(rec, ("iteration", "run_ns", "run_cpu_ns"))
            if rec.get("workload") != workloads.PERF.name or rec["count"] != req.loop or rec.get("loop") != req.loop:
                raise DriverFailed("wrong_count", f"node {j}: a timed sample of {rec.get('count')!r} iterations, "
                                   f"not {req.loop:,}")  # fmt: skip
            if rec["iteration"] != len(g.records) + 1:
                raise DriverFailed("garbled", f"node {j}: timed sample {rec['iteration']} after {len(g.records)}")
            mine = {k: v for k, v in rec.items() if k not in ("type", "workload", "snippet")}
            g.node_records.append({**mine, "process": self.launch_no})
            these = [r for r in g.node_records if r["iteration"] == rec["iteration"]]
            if len(these) == req.nodes:
                self._result(_summed(these, req.loop, g.k))

    def _step(self, rec: dict) -> None:
        g = self.current
        assert g is not None
        _int_fields(rec, ("step", "concurrency"))
        if not self.req.mode_object.searches:
            raise DriverFailed("garbled", "a step record outside squeeze")
        if g.search is None:
            g.search = sampling.Squeeze(self.req.threshold)
        stop = g.search.add(rec["concurrency"], self._rates(g, rec["step"]))
        self.on_event("step", {"snippet": g.k, "code": g.snippet.shown, "workers": rec["concurrency"], "stop": stop})
        self.proc.answer("enough" if stop else "more")

    def _result(self, rec: dict) -> None:
        g = self.current
        assert g is not None
        _int_fields(rec, ("iteration", "count", "run_ns", "run_cpu_ns"))
        req_loop = self.req.loop * self.req.nodes  # across nodes: the sum's record (_summed), loop a node
        if rec.get("workload") != workloads.PERF.name or rec["count"] != req_loop or rec.get("loop") != self.req.loop:
            raise DriverFailed("wrong_count", f"a timed sample of {rec.get('count')!r} iterations, not {req_loop:,}")
        if rec["iteration"] != len(g.records) + 1:
            raise DriverFailed("garbled", f"timed sample {rec['iteration']} after {len(g.records)}")
        g.records.append({
            **rec, "process": self.launch_no, "setup_ns": 0, "setup_cpu_ns": 0, "rss_before": 0, "rss_after": 0,
        })  # fmt: skip
        self.on_event("result", {"snippet": g.k, "code": g.snippet.shown, "iteration": rec["iteration"],
                                 "qps": rec["count"] * 1e9 / rec["run_ns"] if rec["run_ns"] else 0.0})  # fmt: skip

    def _finished(self) -> None:
        g = self.current
        assert g is not None
        self._check_complete(g)
        self.sink(self._cell(g, "ok", None))
        self.on_event("finished", {"snippet": g.k, "code": g.snippet.shown})
        self.current = None
        self.finished += 1

    def _check_complete(self, g: _Gathered) -> None:
        """The snippet's figures are whole: its total, and every sample or timed sample asked; else DriverFailed."""
        req = self.req
        if g.total is None:
            raise DriverFailed("garbled", "a snippet finished without its total")
        if req.nodes > 1:
            self._check_nodes(g)
        if req.mode_object.loops:
            if len(g.records) != req.samples or g.total != req.loop * (req.samples + req.warmup) * req.nodes:
                raise DriverFailed(
                    "wrong_count", f"{len(g.records)} timed samples and {g.total:,} iterations in all, asked "
                    f"{req.samples} and {req.loop * (req.samples + req.warmup):,}"
                )  # fmt: skip
        else:
            steps = {s["process"] for s in g.samples}
            for step in steps:
                n = len([s for s in g.samples if s["process"] == step])
                if n < req.warmup + req.samples + 1:
                    raise DriverFailed("garbled", f"step {step} has {n} samples, asked {req.warmup + req.samples + 1}")
            if g.samples and g.total < g.samples[-1]["count"]:
                last = g.samples[-1]["count"]
                raise DriverFailed("wrong_count", f"total {g.total:,} below the last sample's {last:,}")

    def _check_nodes(self, g: _Gathered) -> None:
        """Every node's total, summing to the snippet's; every node's samples as many as the sum's."""
        req = self.req
        seen = sorted(t["node"] for t in g.node_totals)
        if seen != list(range(req.nodes)):
            raise DriverFailed("garbled", f"totals of nodes {seen}, asked {req.nodes} nodes")
        if sum(t["count"] for t in g.node_totals) != g.total:
            raise DriverFailed("wrong_count", f"the nodes' totals add up to {sum(t['count'] for t in g.node_totals):,}"
                               f", not the total {g.total:,}")  # fmt: skip
        for j in range(req.nodes):
            n = len([s for s in g.node_samples if s["node"] == j])
            if n != len(g.samples):
                raise DriverFailed("garbled", f"node {j} has {n} samples, the sum {len(g.samples)}")

    def _fail(self, e: DriverFailed) -> None:
        g = self.current
        if g is None:
            if not self.ready:
                tail = f"; stderr: {self.proc.stderr_tail}" if self.proc.stderr_tail else ""
                raise BadCode(f"{self.req.runner}: {e}{tail}") from None
            raise Failed(f"{self.req.runner}: {e}")
        where = "running" if g.phase == "running" else f"in its {g.phase}"
        reason = e.message if e.kind == "exited" else f"{e.kind}: {e.message}"
        reason += f" (snippet {g.k} was {where})" if e.kind == "timeout" else ""
        if e.kind in ("crashed", "timeout", "garbled", "exited") and self.proc.stderr_tail:
            reason += f"\n{self.proc.stderr_tail}"
        self.current = None
        if g.phase == "done" and g.total is not None:
            try:  # the measuring was over when the done hook failed: its figures are whole, and kept
                self._check_complete(g)
            except DriverFailed:
                pass
            else:
                self.sink(self._cell(g, "ok", None, done_failed=reason))
                raise Failed(f"snippet {g.k} ({g.snippet.shown}): {reason.splitlines()[0]} (its figures are kept)")
        self.sink(self._cell(g, "timeout" if e.kind == "timeout" else "failed", reason))
        raise Failed(f"snippet {g.k} ({g.snippet.shown}): {reason.splitlines()[0]}")

    def _cell(self, g: _Gathered, status: str, reason: str | None, done_failed: str | None = None) -> Cell:
        req = self.req
        extra: dict = {
            "snippet": g.k, "warmup": req.warmup, "isolated": req.isolated, "workers": req.workers,
            "launch": self.launch_no, "command": self.proc.shown(), "job": req.job([(g.k, g.snippet)]),
        }  # fmt: skip
        if done_failed is not None:  # measured in full, then the done hook failed (the run failed with it)
            extra["done_failed"] = done_failed
        if g.total is not None:
            extra["total"] = g.total
            if g.unfinished:
                extra["unfinished"] = g.unfinished
        if g.stats:
            extra["runtime_stats"] = g.stats
        if req.cv is not None and req.mode_object.given_workers:
            extra.update(cv_target=req.cv, converged=bool(g.converged), window=g.window)
        if g.search is not None or (req.mode_object.searches and g.samples):
            search = g.search or sampling.Squeeze(req.threshold)
            if g.search is None or len(search.history) < len({s["process"] for s in g.samples}):
                last = max(s["process"] for s in g.samples)
                workers = next(s["tokens"] for s in g.samples if s["process"] == last)
                search.add(workers, self._rates(g, last))
                if search.stopped_because == "reached --max":
                    search.stopped_because = f"reached --max {req.squeeze_max}"
            report = search.report()
            peak = report["peak_concurrency"]
            extra.update(report)
            extra["peak_step"] = next((s["process"] for s in g.samples if s["tokens"] == peak), None)
        if req.nodes > 1:
            names = [t["name"] for t in sorted(g.node_totals, key=lambda t: t["node"])]
            extra.update(node_names=names, node_totals=g.node_totals, node_samples=g.node_samples,
                         node_records=g.node_records)  # fmt: skip
            if req.hosts:
                extra["hosts"] = list(req.hosts)
        if status != "ok":
            g.samples, g.records = [], []  # no figure of failing code
            for key in ("node_totals", "node_samples", "node_records"):
                extra.pop(key, None)
        try:
            version = runner.describe_cached(req.driver, req.cores, req.clean_env).get("version")
        except DriverFailed:
            version = None
        settings = {
            "argv": self.proc.argv[:-1] + ["<job.json>"],
            "env": self.proc.how.manifest_env,
            # what the user's environment adds (the manifest's own variables are the variant's, as in runner)
            "inherited_tuning_env": {} if req.clean_env else tuning_env(own_env(self.proc.how)),
            "clean_env": req.clean_env,
            "cores": req.cores,
            "schedulers": self.proc.how.schedulers,
            "pinned_cpu": self.proc.how.cpu,
            "hop": req.driver.hop,
            "tuned": req.driver.tuned,
            "limits_raised": self.proc.how.limits_raised,
            "runner": req.runner,
        }
        return Cell(req.driver.name, workloads.PERF, req.cell_params(g.snippet), req.cores, req.cell_mode, status,
                    reason, g.records, g.samples, extra, version, settings)  # fmt: skip


def check(req: Request) -> None:
    """Compile and check every snippet in one short runtime process (mode `check`); BadCode if one is wrong."""
    with _left_removed():
        _check(req)


def _check(req: Request) -> None:
    numbered = list(enumerate(req.snippets, 1))
    proc = _Process(req, req.job(numbered, "check"), lambda line: None)
    ready = False
    try:
        while (rec := proc.next()) is not None:
            if rec["type"] == "error":
                raise BadCode(f"{req.runner}: {rec.get('message', '(no message)')}")
            ready = ready or rec["type"] == "ready"
    except DriverFailed as e:
        proc.close()
        raise BadCode(f"{req.runner}: {e}") from None
    except BaseException:  # BadCode as soon as it is known; Ctrl-C: the runtime killed at once
        proc.close(kill=True)
        raise
    rc = proc.close()
    if not ready or rc != 0:
        tail = f"; stderr: {proc.stderr_tail}" if proc.stderr_tail else ""
        raise BadCode(f"{req.runner}: the check of the snippets ended ({_status_text(rc)}) without `ready`{tail}")


def measure(
    req: Request,
    sink: Callable[[Cell], None],
    on_ready: Callable[[], None] = lambda: None,
    on_event: Event = lambda what, details: None,
    on_stderr: Callable[[str], None] = lambda line: None,
) -> None:
    """Measure every snippet and hand each cell to `sink` as it finishes.

    `on_ready()` is called once every snippet has compiled, before anything is measured (so a caller can
    create its run only then); BadCode before it, Failed after (the failing snippet's cell is in the sink,
    as failed; the snippets after it are not run). `on_event(what, details)` reports progress (phase,
    sample, step, result, stats, finished); `on_stderr(line)` passes on what the snippets print."""
    numbered = list(enumerate(req.snippets, 1))
    with _left_removed():
        if not req.isolated:
            _Run(req, numbered, 1, sink, on_ready, on_event, on_stderr).go()
            return
        check(req)
        on_ready()
        for launch_no, item in enumerate(numbered, 1):
            _Run(req, [item], launch_no, sink, lambda: None, on_event, on_stderr).go()


__all__ = ["BadCode", "Failed", "Request", "Snippet", "check", "measure", "parse_count", "plan"]
