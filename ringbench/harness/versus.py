"""`ringbench versus`: one driver against an independent program of its runtime, both timed the same way
from outside (docs/versus.md has the method and a worked example). Two workloads can be compared so:

- the ring: each side runs as a whole process with a short lap count M1 and a long one M2, and

      ns/hop = (t(M2) − t(M1)) / (N × (M2 − M1) × tokens)

- the tree ("skynet"): each side runs a short tree of N1 leaves (N / fanout unless given) and the long
  one of N leaves, and ns/proc = (t(N) − t(N1)) / (processes(N) − processes(N1)),

so start-up and teardown cancel, however the program times itself. A round is four runs
in ABBA order (driver M1, program M1, program M2, driver M2) and the sides swap places every round; untimed
short runs of each side come first. Every process is started as a driver is (`launch.start`: a process
group of its own, dying with the orchestrator, pinned to one CPU for --cores 1); the driver's output of every
run is checked as the orchestrator checks any (`protocol.check_result`).

What it leaves is two cells per N in the versus mode (results.modes.Versus), handed to a sink when the N is
done, as the runner hands its cells: the driver as its runtime id, the program as `program:<label>`, one
record per round. The harness never opens the store.
"""

from __future__ import annotations

import itertools
import os
import re
import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from ..catalogue import workloads
from ..catalogue.drivers import Driver, DriverError, select
from ..results import stats
from ..results.model import Cell
from ..results.modes import Options
from . import launch, runner
from .measure import one_process
from .protocol import DriverFailed, Expectation, check_result, parse_line
from .spec import CellSpec

PLACEHOLDERS = ("n", "m", "tokens", "hops", "cores", "fanout", "processes", "nodes", "placement")
ENV_PLACEHOLDERS = ("tokens", "cores", "fanout")  # one environment serves the short and the long run
DEFAULT_HOPS = 5_000_000  # hops of the long run when neither -m nor --hops is given
SHORT_FRACTION = 10  # M1 = M2 / 10 unless both are given
PROGRAM_PREFIX = "program:"
_LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")
_FIELD = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
# A program proves no count and reports no phase times: the contract's fields of its records are 0.
_NOTHING = dict.fromkeys(("count", "setup_ns", "run_ns", "setup_cpu_ns", "run_cpu_ns", "rss_before", "rss_after"), 0)


class BadRequest(ValueError):
    """The request is wrong (exit 2); nothing has run."""


class Failed(Exception):
    """A run went wrong (exit 1): one line that names the run (N, M, round) and its command."""

    def __init__(self, message: str, status: str = "failed"):
        super().__init__(message)
        self.status = status  # what its cells are stored as: failed or timeout


# -- the request ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class VersusRequest:
    """A comparison as asked, by the API, the command line and scripts alike; `plan` checks and expands it.

    `program` is a command line with placeholders {n}, {m}, {tokens}, {hops} (N×M×tokens) and {cores}; it
    must contain {m} or {hops}. Each N (`n`: "1000,10000", an int or a list) is run with a short and a long
    lap count (`m`: "M2" or "M1,M2"; else `hops` of the long run, default 5,000,000, M1 = M2 / 10),
    `rounds` interleaved rounds after `warmup_runs` untimed runs a side. The program gets the driver
    manifest's [env] (unless `no_driver_env`) and `env` ("KEY=VALUE" strings or a mapping; {n}, {tokens},
    {cores} allowed); `build` is a shell command run once first. The run has two cells per N, the driver's
    (`runtime`) and `program:<label>`'s (label: the program's file name unless given), in the versus mode
    (results.modes.Versus). `workload="tree"` compares the tree instead: each N is a tree of N leaves under
    `fanout` against a short one of `short` leaves (default N / fanout); the program's placeholders are {n},
    {fanout}, {processes} and {cores}. `with_default`: each round also measures the driver as a default
    `ringbench run` does (one fresh process, warm-ups until settled, m calibrated), in the driver's records
    (results.modes.DEFAULT_NS_PER_HOP): the figure ringbench prints, beside the program's. A run that takes
    longer than `timeout` seconds is killed. `nodes` K > 1 spreads the driver's ring over K nodes (a driver
    with the feature `nodes`, contract section 10) laid out by `node_placement` ("contiguous", the default, or
    "interleaved"; 0 or 1); the program gets {nodes} (K) and {placement} (0 contiguous, 1 interleaved) and
    starts and stops its own nodes, which the differential method cancels as it cancels any start-up."""

    runtime: str
    program: str
    n: str | int | Sequence[int]
    m: str | int | Sequence[int] | None = None
    hops: int | None = None
    tokens: int = 1
    placement: str = "spread"
    cores: str = "1"
    rounds: int = 5
    warmup_runs: int = 1
    env: Mapping[str, str] | Sequence[str] = ()
    no_driver_env: bool = False
    build: str | None = None
    timeout: float = 600.0
    label: str | None = None
    workload: str = "ring"
    fanout: int = 10
    short: int | None = None
    with_default: bool = False
    nodes: int = 1
    node_placement: str | int | None = None


@dataclass(frozen=True)
class Point:
    """One size of the comparison with its short and long runs: for the ring, N with laps M1 and M2; for
    the tree, its leaves N1 (short) and N (long) under one fanout. `m1` and `m2` are the two runs' sizes."""

    n: int
    m1: int
    m2: int
    tokens: int = 1
    burst: int = 0
    fanout: int = 0  # the tree's; 0 for the ring
    nodes: int = 1  # a ring across nodes (K > 1): the driver's keys nodes and node_placement
    node_placement: int = 0

    @property
    def across(self) -> dict[str, int]:
        """The keys of a ring across nodes, sent and stored only with K > 1 (as `ringbench run` does)."""
        return {"nodes": self.nodes, "node_placement": self.node_placement} if self.nodes > 1 else {}

    @property
    def workload(self) -> workloads.Workload:
        return workloads.TREE if self.fanout else workloads.RING

    def hops(self, size: int) -> int:
        """The work of one run: hops of a ring of `size` laps, or processes of a tree of `size` leaves."""
        if self.fanout:
            return workloads.tree_processes({"n": size, "fanout": self.fanout})
        return self.n * size * self.tokens

    @property
    def delta_hops(self) -> int:
        """Work the long run does beyond the short one: the only work the differential figure sees."""
        return self.hops(self.m2) - self.hops(self.m1)

    @property
    def params(self) -> dict[str, int]:
        """The cells' parameters: the ring's, M being the long run's laps (M1 is in the records); the tree's,
        N being the long run's leaves (N1 is in the records)."""
        if self.fanout:
            return {"n": self.m2, "fanout": self.fanout}
        return {"n": self.n, "m": self.m2, "tokens": self.tokens, "burst": self.burst, **self.across}

    def driver_params(self, size: int) -> dict[str, int]:
        if self.fanout:
            return {"n": size, "fanout": self.fanout}
        return {"n": self.n, "m": size, "tokens": self.tokens, "burst": self.burst, **self.across}

    def size_text(self, size: int) -> str:
        return f"N={size:,}" if self.fanout else f"N={self.n:,} M={size:,}"


@dataclass(frozen=True)
class Request:
    """A VersusRequest checked and expanded by `plan`: the driver, the program's argv, the points to run."""

    driver: Driver
    program: str  # the program's command line as given, with its placeholders
    argv: tuple[str, ...]  # ... split like a shell would (no shell runs it)
    label: str
    points: tuple[Point, ...]
    env: Mapping[str, str]  # the program's variables: the manifest's (unless left out) and --env, placeholders in
    cores: str  # "1" or "all"
    rounds: int
    warmup_runs: int
    timeout: float
    # Each round also measures the driver as `ringbench run` does by default (see default_run):
    # the figure ringbench prints, beside the program's.
    with_default: bool = False

    @property
    def program_runtime(self) -> str:
        return PROGRAM_PREFIX + self.label

    @property
    def cpu(self) -> int | None:
        return launch.cpu_for(self.cores)

    @property
    def schedulers(self) -> int:
        return launch.cores_value(self.cores)

    @property
    def options(self) -> Options:
        """The run's settings as every run stores them: rounds are its repeats, warm-up runs its warm-ups."""
        return Options(mode="versus", repeat=self.rounds, warmup=self.warmup_runs, timeout=self.timeout)

    def values(self, point: Point, m: int) -> dict[str, int]:
        if point.fanout:
            return {"n": m, "fanout": point.fanout, "processes": point.hops(m), "cores": self.schedulers}
        return {
            "n": point.n, "m": m, "tokens": point.tokens, "hops": point.hops(m), "cores": self.schedulers,
            "nodes": point.nodes, "placement": point.node_placement,
        }  # fmt: skip


def parse_int(text: object, what: str) -> int:
    t = str(text).strip().replace("_", "")
    if not t.isdigit() or int(t) < 1:
        raise BadRequest(f"{what} must be a positive integer, got {str(text).strip()!r}")
    return int(t)


def parse_ns(ns: str | int | Sequence[int]) -> list[int]:
    if isinstance(ns, int):
        return [parse_int(ns, "N")]
    if not isinstance(ns, str):
        return [parse_int(v, "N") for v in ns] or [parse_int("", "N")]
    values = [v for v in ns.split(",") if v.strip()]
    if not values:
        raise BadRequest("-n is empty")
    # "-n 1,000" is one thousand written with a separator, not the two rings N=1 and N=0
    if any(len(v.strip()) == 3 and v.strip().isdigit() and v.strip()[0] == "0" for v in values[1:]):
        joined = ns.replace(",", "")
        raise BadRequest(
            f"-n {ns}: commas separate values (-n 1000,10000); for {joined} write {joined} or {int(joined):_}"
            if joined.isdigit()
            else f"-n {ns}: commas separate values"
        )
    return list(dict.fromkeys(parse_int(v, "N") for v in values))


def laps(n: int, tokens: int, m: str | int | Sequence[int] | None, hops: int | None) -> tuple[int, int]:
    """(M1, M2) for one N: from `-m M2` or `-m M1,M2`, else from the hop budget of the long run."""
    if m is not None:
        given = str(m).split(",") if isinstance(m, str | int) else list(m)
        parts = [parse_int(p, "M") for p in given]
        if len(parts) == 1:
            m2 = parts[0]
            m1 = max(1, m2 // SHORT_FRACTION)
        elif len(parts) == 2:
            m1, m2 = parts
        else:
            raise BadRequest(f"-m takes M2 or M1,M2 (two values), got {m!r}")
    else:
        budget = DEFAULT_HOPS if hops is None else hops
        m2 = max(1, round(budget / (n * tokens)))
        m1 = max(1, m2 // SHORT_FRACTION)
    if m2 <= m1:
        raise BadRequest(
            f"at N={n:,} the long run has M2={m2:,} laps and the short run M1={m1:,}: the long run must do "
            "more laps (raise --hops or give -m M1,M2 with M2 > M1)"
        )
    return m1, m2


def parse_env(env: Mapping[str, str] | Sequence[str]) -> dict[str, str]:
    pairs = [f"{k}={v}" for k, v in env.items()] if isinstance(env, Mapping) else list(env)
    out = {}
    for p in pairs:
        key, eq, value = p.partition("=")
        if not eq or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
            raise BadRequest(f"--env takes KEY=VALUE, got {p!r}")
        bad = sorted(set(_FIELD.findall(value)) - set(ENV_PLACEHOLDERS))
        if bad:
            raise BadRequest(
                f"--env: placeholder {{{bad[0]}}} not allowed here (only "
                + ", ".join(f"{{{p}}}" for p in sorted(ENV_PLACEHOLDERS))
                + ")"
            )
        out[key] = value
    return out


def check_template(template: str, tokens: int, tree: bool = False) -> list[str]:
    """The program's argv template, split like a shell would (no shell runs it)."""
    try:
        argv = shlex.split(template)
    except ValueError as e:
        raise BadRequest(f"--program: {e}") from None
    if not argv:
        raise BadRequest("--program is empty")
    used = set(_FIELD.findall(template))
    unknown = sorted(used - set(PLACEHOLDERS))
    if unknown:
        raise BadRequest(
            f"--program: unknown placeholder {{{unknown[0]}}}; known: " + ", ".join(f"{{{p}}}" for p in PLACEHOLDERS)
        )
    if tree:
        if "n" not in used:
            raise BadRequest("--program must contain {n} (leaves): the differential method runs two trees")
        return argv
    if not used & {"m", "hops"}:
        # Without them the short and the long run would be the same command: nothing to subtract.
        raise BadRequest(
            "--program must contain {m} (laps) or {hops} (N×M×K): the differential method runs it with two lap counts"
        )
    if tokens > 1 and not used & {"tokens", "hops"}:
        raise BadRequest(
            f"--tokens {tokens}: the program gets neither {{tokens}} nor {{hops}}, so it would not do N×M×{tokens} hops"
        )
    return argv


def across_nodes(nodes: object, node_placement: object) -> tuple[int, int]:
    """(K, placement 0|1) of a ring across nodes, checked as `ringbench run` checks --nodes and --node-placement."""
    try:
        k = workloads.NODES.check(nodes)
        layout = workloads.NODE_PLACEMENT.check(node_placement) if node_placement is not None else 0
    except workloads.ParamError as e:
        raise BadRequest(str(e)) from None
    if node_placement is not None and k == 1:
        raise BadRequest("--node-placement lays a ring out over nodes: give --nodes K (K ≥ 2) too")
    return k, layout


def fill(text: str, values: Mapping[str, int]) -> str:
    return _FIELD.sub(lambda mo: str(values[mo.group(1)]) if mo.group(1) in values else mo.group(0), text)


def default_label(argv: Sequence[str]) -> str:
    """The program's name in the table when none is given: its executable's file name."""
    return re.sub(r"[^A-Za-z0-9._+-]", "-", os.path.basename(argv[0])).lstrip("._+-") or "program"


def plan(ask: VersusRequest) -> Request:
    """Check a request and expand it, or raise BadRequest. Nothing runs. For the tree (`workload="tree"`),
    each N is a tree of N leaves under `fanout`, against a short one of `short` leaves (default N / fanout)."""
    runtime, program, n, m, hops, tokens = ask.runtime, ask.program, ask.n, ask.m, ask.hops, ask.tokens
    placement, cores, rounds, warmup_runs, timeout = ask.placement, ask.cores, ask.rounds, ask.warmup_runs, ask.timeout
    label, workload, fanout, short, with_default = ask.label, ask.workload, ask.fanout, ask.short, ask.with_default
    if m is not None and hops is not None:
        raise BadRequest("give -m or --hops, not both")
    if cores not in ("1", "all"):
        raise BadRequest(f"cores must be 1 or all, got {cores!r}")
    if placement not in ("spread", "burst"):
        raise BadRequest(f"placement must be spread or burst, got {placement!r}")
    for value, what, least in ((tokens, "tokens", 1), (rounds, "rounds", 1), (warmup_runs, "warm-up runs", 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise BadRequest(f"{what} must be an integer of at least {least}, got {value!r}")
    if hops is not None and (isinstance(hops, bool) or not isinstance(hops, int) or hops < 2):
        raise BadRequest(f"--hops must be an integer of at least 2, got {hops!r}")
    if not timeout > 0:
        raise BadRequest(f"the timeout must be a positive number of seconds, got {timeout!r}")
    if workload not in (workloads.RING.name, workloads.TREE.name):
        raise BadRequest(f"versus compares the ring or the tree, not {workload!r}")
    tree = workload == workloads.TREE.name
    if tree and (m is not None or hops is not None or tokens != 1 or placement != "spread"):
        raise BadRequest("the tree takes no -m, --hops, --tokens or --placement: its sizes are N (leaves) and --short")
    if tree and with_default:
        raise BadRequest("--with-default measures the ring's default figure; the tree has none to add")
    nodes, node_placement = across_nodes(ask.nodes, ask.node_placement)
    if tree and nodes > 1:
        raise BadRequest("--nodes spreads the ring over nodes; the tree is measured on one node")
    if nodes > 1 and with_default:
        raise BadRequest("--with-default measures the ring on one node: leave it out with --nodes")
    argv = check_template(program, tokens, tree)
    user_env = parse_env(ask.env)
    if label is not None and not _LABEL.fullmatch(label):
        raise BadRequest(f"--label {label!r}: letters, digits and . _ + - only (it names the program's row)")
    burst = 1 if placement == "burst" else 0
    layout = {"nodes": nodes, "node_placement": node_placement} if nodes > 1 else {}
    points = []
    for size in parse_ns(n) if tree else []:
        n1 = size // fanout if short is None else short
        if n1 < 1 or n1 >= size:
            raise BadRequest(f"the short tree must have fewer leaves than N={size:,} and at least 1, got {n1:,}")
        for leaves in (n1, size):
            try:
                workloads.TREE.validate({"n": leaves, "fanout": fanout})
            except workloads.ParamError as e:
                raise BadRequest(str(e)) from None
        points.append(Point(size, n1, size, fanout=fanout))
    for size in parse_ns(n) if not tree else []:
        m1, m2 = laps(size, tokens, m, hops)
        for laps_ in (m1, m2):
            try:
                workloads.RING.validate({"n": size, "m": laps_, "tokens": tokens, "burst": burst, **layout})
            except workloads.ParamError as e:
                raise BadRequest(str(e)) from None
        points.append(Point(size, m1, m2, tokens, burst, nodes=nodes, node_placement=node_placement))
    try:
        chosen = select(runtime)
    except DriverError as e:
        raise BadRequest(str(e)) from None
    if len(chosen) != 1:
        raise BadRequest(f"{runtime!r} names {len(chosen)} runtimes ({', '.join(d.name for d in chosen)}): name one")
    driver = chosen[0]
    # The program's runtime gets the manifest's [env] as the driver gets it (GOMAXPROCS=1 at --cores 1);
    # {max_procs} only matters to BEAM's +P, which is argv, not env.
    program_env = {} if ask.no_driver_env else driver.environ(launch.cores_value(cores), 1)
    program_env.update(user_env)
    return Request(
        driver,
        program,
        tuple(argv),
        label or default_label(argv),
        tuple(points),
        program_env,
        cores,
        rounds,
        warmup_runs,
        float(timeout),
        with_default,
    )


def build(command: str) -> None:
    """Run the program's build command once (a shell line); Failed with its last line if it fails."""
    proc = subprocess.run(command, shell=True, capture_output=True, text=True, errors="replace")
    if proc.returncode != 0:
        tail = _last_line(proc.stderr) or _last_line(proc.stdout)
        raise Failed(f"build command failed (exit {proc.returncode}): {command}{'; ' + tail if tail else ''}")


def check_driver(req: Request) -> None:
    """BadRequest unless the driver can serve every ring of the request (the ring, its tokens, its nodes,
    its size on this machine): asked first, before a program is built or looked for."""
    for point in req.points:
        spec = _spec(req, point)
        why = runner.refusal(spec) or runner.unsupported(spec, Options())
        if why:
            raise BadRequest(why)


def check_program(req: Request, built: bool = False) -> None:
    """BadRequest unless the program can be started: found before a run is created."""
    exe = req.argv[0]
    if not (shutil.which(exe) if "/" not in exe else os.access(exe, os.X_OK)):
        hint = "" if built else " (build it first, or give --build)"
        raise BadRequest(f"program {exe!r} not found or not executable{hint}")


# -- one timed process ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Timed:
    wall_ns: int
    stdout: str
    stderr: str
    returncode: int


def run_timed(argv: list[str], env: Mapping[str, str], cwd: str | None, cpu: int | None, timeout: float) -> Timed:
    """Wall time of one whole process, launch to exit, measured the same way for both sides. TimeoutError
    past `timeout` (its process group killed); OSError when it cannot start."""
    t0 = time.perf_counter_ns()
    proc = launch.start(
        argv, dict(env), cwd, cpu, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, errors="replace",
    )  # fmt: skip
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        launch.kill_group(proc)
        proc.communicate()
        raise TimeoutError from None
    except BaseException:  # Ctrl-C: leave nothing running
        launch.kill_group(proc)
        proc.wait()
        raise
    t1 = time.perf_counter_ns()
    launch.kill_group(proc)  # whatever it left behind, so that it cannot load the next run
    return Timed(t1 - t0, out, err, proc.returncode)


def _status(returncode: int) -> str:
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exit status {returncode}"


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1][:200] if lines else ""


def driver_result(timed: Timed, point: Point, m: int) -> dict:
    """The driver's result record of one run, checked as the orchestrator checks any; else DriverFailed."""
    w, p = point.workload, point.driver_params(m)
    want = Expectation(w.verb, p, w.expected(p), w.hops(p), w.ready(p) if w.ready else None, w.proves(p))
    result = None
    for line in timed.stdout.splitlines():
        if not line.strip():
            continue
        rec = parse_line(line)  # an error record raises DriverFailed with the driver's own kind
        if rec["type"] == "result" and result is None:
            result = check_result(rec, want)
    if timed.returncode != 0:
        raise DriverFailed("crashed", f"{_status(timed.returncode)} without an error record")
    if result is None:
        raise DriverFailed("garbled", "no result record")
    return result


# -- the two sides ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Side:
    """One of the two commands compared, and how it is launched at one N."""

    key: str  # "driver" or "program"
    runtime: str  # its row: the driver's runtime id, or program:<label>
    argv_for: Callable[[int], list[str]]  # the command line for m laps
    overrides: Mapping[str, str]  # what it sets on top of the orchestrator's environment (shown)
    env: Mapping[str, str]  # its whole environment
    cwd: str | None

    @property
    def what(self) -> str:
        return f"driver {self.runtime}" if self.key == "driver" else "program"

    def shown(self, m: int) -> str:
        """The command as a shell line a reader can paste (the environment's overrides first)."""
        line = " ".join(
            [*(f"{k}={shlex.quote(v)}" for k, v in sorted(self.overrides.items())), shlex.join(self.argv_for(m))]
        )
        return f"(cd {shlex.quote(self.cwd)} && {line})" if self.cwd else line


def sides(req: Request, point: Point) -> dict[str, Side]:
    how = launch.driver_process(req.driver, req.cores, point.workload.processes(point.driver_params(point.m2)))

    def driver_argv(m: int) -> list[str]:
        # repeats=1 warmup=0: one cold iteration per process, like the program's single run
        keys = [f"{k}={v}" for k, v in point.driver_params(m).items()]
        return how.argv + ["run", point.workload.verb, *keys, f"cores={how.schedulers}", "repeats=1", "warmup=0"]

    def program_argv(m: int) -> list[str]:
        return [fill(a, req.values(point, m)) for a in req.argv]

    overrides = {k: fill(v, req.values(point, point.m1)) for k, v in req.env.items()}
    return {
        "driver": Side("driver", req.driver.name, driver_argv, how.manifest_env, how.env, str(req.driver.folder)),
        "program": Side("program", req.program_runtime, program_argv, overrides, {**os.environ, **overrides}, None),
    }


def _run(req: Request, side: Side, point: Point, m: int, where: str) -> tuple[Timed, dict | None]:
    """One timed run of one side; Failed (one line naming the run and its command) if it went wrong."""
    try:
        timed = run_timed(side.argv_for(m), side.env, side.cwd, req.cpu, req.timeout)
    except TimeoutError:
        raise Failed(f"{side.what} timed out after {req.timeout:g} s ({where}): {side.shown(m)}", "timeout") from None
    except OSError as e:
        raise Failed(f"{side.what} could not start ({where}): {e.strerror or e}; command: {side.shown(m)}") from None
    tail = _last_line(timed.stderr)
    stderr = f"; stderr: {tail}" if tail else ""
    if side.key == "program":
        if timed.returncode != 0:
            raise Failed(f"program failed ({where}): {_status(timed.returncode)}{stderr}; command: {side.shown(m)}")
        return timed, None
    try:
        return timed, driver_result(timed, point, m)
    except DriverFailed as e:
        raise Failed(f"{side.what} failed ({where}): {e}{stderr}; command: {side.shown(m)}") from None


# -- the driver as ringbench measures it by default -------------------------------------------------
# `ringbench run ring -r X -n N --cores C`: each repeat a fresh process, warm-ups until settled (a JIT's
# seconds first), m calibrated on the settled state to the default target.
DEFAULT_OPTIONS = Options()


def default_spec(req: Request, point: Point) -> CellSpec:
    """The default run's cell at this point: the ring's parameters, m left to calibration."""
    return CellSpec(req.driver, point.workload, {k: v for k, v in point.params.items() if k != "m"}, req.cores)


def default_run(req: Request, point: Point, where: str) -> dict:
    """One default repeat (measure.one_process) as the fields of a round's record: its message phase, hops,
    laps and warm-ups; Failed (one line) if the driver failed."""
    try:
        rec = one_process(default_spec(req, point), DEFAULT_OPTIONS)
    except DriverFailed as e:
        raise Failed(f"driver {req.driver.name} failed in its default measurement ({where}): {e}") from None
    return {
        "default_run_ns": rec["run_ns"], "default_count": rec["count"], "default_m": rec["m"],
        "default_warmups": rec["warmups"], "default_settled": rec["settled"],
    }  # fmt: skip


# -- the comparison ---------------------------------------------------------------------------------
def schedule(rounds: int) -> list[list[tuple[str, str]]]:
    """The order of the four runs in each round: ABBA inside a round (driver short, program short, program
    long, driver long), and the sides swap places every other round, so a drift in machine speed (another
    job starting, a frequency change) falls on both sides alike over every two rounds."""
    out = []
    for r in range(rounds):
        a, b = ("driver", "program") if r % 2 == 0 else ("program", "driver")
        out.append([(a, "m1"), (b, "m1"), (b, "m2"), (a, "m2")])
    return out


def measure(req: Request, sink: Callable[[Cell], None], progress: Callable[[str], None] = lambda text: None) -> None:
    """Measure every N of the request in turn and hand its two cells to `sink` when it is done.

    A run that fails stops the comparison: the cells of its N go to the sink as failed (the reason is
    the one line naming the run and its command) and Failed is raised with that line. So does a side
    whose long runs took no longer than its short ones (its cell keeps its records). An interruption
    loses the N under way only: a cell is all or nothing."""
    launches = itertools.count(1)  # every process the comparison starts, numbered in the order it started
    for point in req.points:
        try:
            cells = _measure_point(req, point, launches, progress)
        except Failed as e:
            for key in ("driver", "program"):
                sink(_cell(req, point, key, e.status, str(e), [], {}))
            raise
        for c in cells:
            sink(c)
        for c in cells:
            if c.reason:
                raise Failed(c.reason)


def _measure_point(req: Request, point: Point, launches: Iterator[int], progress: Callable[[str], None]) -> list[Cell]:
    both = sides(req, point)
    at = f"N={point.n:,}"
    # Untimed first runs: the first launch of a binary pays for reading it from disk, and a program that
    # cannot run at all is found before any time is spent on the rounds.
    warm: dict[str, list[int]] = {"driver": [], "program": []}
    if req.warmup_runs:
        progress(f"{at}: {req.warmup_runs} warm-up run(s) a side")
    for w in range(req.warmup_runs):
        for key in ("driver", "program") if w % 2 == 0 else ("program", "driver"):
            warm[key].append(next(launches))
            _run(req, both[key], point, point.m1, f"{point.size_text(point.m1)}, warm-up run {w + 1}")
    got: dict[tuple[str, str], list[tuple[int, int, dict | None]]] = {
        (k, which): [] for k in both for which in ("m1", "m2")
    }
    defaults: list[dict] = []

    def default_in(r: int, first: bool) -> None:
        # The default measurement opens odd rounds and closes even ones: neither always first nor last.
        if req.with_default and (r % 2 == 1) == first:
            defaults.append({**default_run(req, point, f"{at}, round {r}"), "launch_default": next(launches)})

    for r, runs in enumerate(schedule(req.rounds), 1):
        progress(f"{at}: round {r}/{req.rounds}")
        default_in(r, first=True)
        for key, which in runs:
            m = point.m1 if which == "m1" else point.m2
            launch_no = next(launches)
            timed, rec = _run(req, both[key], point, m, f"{point.size_text(m)}, round {r}")
            got[key, which].append((timed.wall_ns, launch_no, rec))
        default_in(r, first=False)
    cells = []
    for key, side in both.items():
        records = []
        for r, ((w1, k1, _), (w2, k2, rec)) in enumerate(zip(got[key, "m1"], got[key, "m2"], strict=True), 1):
            base = rec if rec is not None else {
                "type": "result", "workload": point.workload.verb, **point.driver_params(point.m2), **_NOTHING
            }  # fmt: skip
            short = {"n1": point.m1} if point.fanout else {"m1": point.m1}
            records.append({
                **base, "process": r, "iteration": 1, "round": r, "side": key, **short,
                "wall_m1_ns": w1, "wall_m2_ns": w2, "launch_m1": k1, "launch_m2": k2,
                **(defaults[r - 1] if key == "driver" and defaults else {}),
            })  # fmt: skip
        extra = {
            **short,
            "hops_difference": point.delta_hops,
            "command_m1": side.shown(point.m1),
            "command_m2": side.shown(point.m2),
            "warmup_launches": warm[key],
        }
        cell = _cell(req, point, key, "ok", None, records, extra)
        median = stats.summarize(cell.values()).median
        if median <= 0:
            cell.status = "failed"
            cell.reason = (
                f"{key} at {at}: the long runs ({point.size_text(point.m2)}) took no longer than the short ones "
                f"({point.size_text(point.m1)}), median {median:.3g} ns: it does not seem to do the work it is "
                "given, or the runs are too short (raise --hops or N)"
            )
        cells.append(cell)
    return cells


def _spec(req: Request, point: Point) -> CellSpec:
    return CellSpec(req.driver, point.workload, point.params, req.cores)


def _cell(req: Request, point: Point, key: str, status: str, reason: str | None, records: list, extra: dict) -> Cell:
    if key == "driver":
        opts = req.options
        settings = {**runner.cell_settings(_spec(req, point), opts), "side": "driver"}
        try:
            version = runner.describe_cached(req.driver, req.cores, opts.clean_env).get("version")
        except DriverFailed:
            version = None
        runtime = req.driver.name
    else:
        settings = {
            "side": "program",
            "label": req.label,
            "program": req.program,
            "argv": list(req.argv),
            "env": {k: fill(v, req.values(point, point.m1)) for k, v in req.env.items()},
            "cores": req.cores,
            "schedulers": req.schedulers,
            "pinned_cpu": req.cpu,
            "hop": "?",  # a program's kind of hop is not known to ringbench
        }
        version = None
        runtime = req.program_runtime
    return Cell(runtime, point.workload, point.params, req.cores, "versus", status, reason, records, [], extra,
                version, settings)  # fmt: skip
