"""What a workload is: its parameters, their bounds, the count a driver must prove, the figures it yields.

Each workload is defined once here; the CLI, the validator, the runner, the
tables and the conformance suite all read these definitions. Bounds mirror
section 6 of docs/driver-contract.md, which drivers check again on their side.
Adding a workload = one definition here + one function per driver.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

Params = Mapping[str, int]


class ParamError(ValueError):
    """A parameter is missing, not an integer, or out of bounds (exit 2)."""


@dataclass(frozen=True)
class Param:
    name: str
    help: str
    minimum: int = 1
    maximum: int = 100_000_000
    default: tuple[int, ...] | None = None  # None: the user must give it; several values: a grid by default
    flag: str = ""  # CLI spelling, e.g. "-n"
    aliases: tuple[str, ...] = ()  # more CLI spellings, e.g. ("-k", "--concurrency")
    words: tuple[str, ...] = ()  # CLI words for the values 0, 1, … (e.g. spread, burst)
    # A condition most cells leave at its default: at the default it is left out of the cell's parameters,
    # so cells measured before it existed keep their identity and drivers without it are never sent it.
    omit_default: bool = False

    def check(self, raw: object) -> int:
        if self.words and isinstance(raw, str):
            if raw.strip() in self.words:
                return self.words.index(raw.strip())
            if not raw.strip().isdigit():
                raise ParamError(f"{self.flag or self.name} must be {' or '.join(self.words)}, got {raw!r}")
        if isinstance(raw, bool):
            raise ParamError(f"{self.name} must be an integer, got {raw!r}")
        if isinstance(raw, int):
            value = raw
        else:
            text = str(raw).strip().replace("_", "")
            if not text.lstrip("-").isdigit():
                raise ParamError(f"{self.name} must be an integer, got {str(raw)!r}")
            value = int(text)
        if not self.minimum <= value <= self.maximum:
            raise ParamError(f"{self.name} must be between {self.minimum:,} and {self.maximum:,}, got {value:,}")
        return value


@dataclass(frozen=True)
class Metric:
    """One figure per result record; None where the record cannot give it."""

    name: str
    label: str
    of: Callable[[Mapping], float | None]
    lower_is_better: bool = True
    column: str = ""  # its header in a narrow table's column, where shorter than the label

    @property
    def header(self) -> str:
        """Its header in a table's column: two lines where the label has a space."""
        return self.column or self.label.replace(" ", "\n", 1)


@dataclass(frozen=True)
class Workload:
    name: str
    summary: str
    params: tuple[Param, ...]
    expected: Callable[[Params], int]  # the count the driver must prove (driver params)
    hops: Callable[[Params], int]  # messages in the timed run phase (driver params)
    metrics: tuple[Metric, ...]  # the first is the headline: Rel % and comparisons use it
    verb: str = ""  # the driver's workload, when it differs from name
    to_driver: Callable[[Params], dict] = dict  # user parameters -> the driver's keys
    # The parameter that is work per repeat rather than a condition (laps, round trips…): calibrated to a
    # target duration when not given, and left out of the like-for-like key. "" when none.
    calibrates: str = ""
    # Processes that must have signalled ready when the spawn phase ends (contract 2, section 3).
    ready: Callable[[Params], int] | None = None
    extra_checks: tuple[Callable[[Params], str | None], ...] = field(default=())
    # Processes alive at most in one iteration (driver params): limits and timeouts are sized by it.
    processes: Callable[[Params], int] = lambda p: p.get("n", 2)
    # The figure whose iterations must agree before a driver process counts as settled (default: the
    # headline; memory settles on its spawn time, as its headline is read once per process).
    settles_on: Metric | None = None
    # The feature (contract section 4) or workload a driver must describe to serve this workload.
    needs: str = ""
    # Counts the driver proves beside `count` (driver params -> {field: value}; contract section 10).
    proves: Callable[[Params], dict[str, int]] = lambda p: {}
    # The cell a derived figure of this one is measured against, added to a grid beside it (driver
    # params as asked -> the companion's, or None): the ring across nodes beside the same ring on one node.
    companion: Callable[[Params], dict | None] = lambda p: None
    # Parameters that mean nothing in a cell left out of it (where the processes of a ring on one node go).
    normalise: Callable[[dict], dict] = lambda p: p
    # Parameters that name the thing compared rather than a condition (perf: the snippet's code and hooks):
    # rows that differ in them are ranked together, the fastest the reference. () : rows are ranked when
    # they differ in the runtime alone.
    subject: tuple[str, ...] = ()
    # How a cell is named in notes, warnings and progress, from its parameters (default: runtime, cores and
    # the parameters that differ from their single default).
    label: Callable[[Mapping], str] | None = None
    # The figures a compact table shows beside the headline (spawn cost and memory beside ns/hop).
    beside: tuple[Metric, ...] = ()

    def __post_init__(self):
        if not self.verb:
            object.__setattr__(self, "verb", self.name)

    @property
    def headline(self) -> Metric:
        return self.metrics[0]

    @property
    def settle_metric(self) -> Metric:
        return self.settles_on or self.headline

    def departures(self, fixed: Mapping[str, object]) -> int:
        """How many of these parameters are off their single default (a ring across nodes, several tokens):
        0 for the plain cell a one-line finding should speak of first."""
        single = {p.name: p.default[0] for p in self.params if p.default and len(p.default) == 1}
        return sum(1 for k, v in fixed.items() if k in single and v != single[k])

    def validate(self, given: Mapping[str, object]) -> dict[str, int]:
        """Return complete, checked parameters (one cell) or raise ParamError."""
        known = {p.name: p for p in self.params}
        unknown = sorted(k for k, v in given.items() if k not in known and v is not None)
        if unknown:
            raise ParamError(
                f"workload {self.name!r} takes no parameter {', '.join(unknown)}"
                f" (it takes: {', '.join(known) or 'none'})"
            )
        out: dict[str, int] = {}
        for p in self.params:
            raw = given.get(p.name)
            if raw is None:
                if p.name == self.calibrates:
                    continue  # chosen by calibration
                if p.default is None:
                    raise ParamError(f"workload {self.name!r} needs {p.flag or p.name} ({p.help})")
                raw = p.default[0]
            out[p.name] = p.check(raw)
            if p.omit_default and p.default and out[p.name] == p.default[0]:
                del out[p.name]
        for check in self.extra_checks:
            problem = check(out)
            if problem:
                raise ParamError(problem)
        return self.normalise(out)

    def grid(self, given: Mapping[str, object]) -> list[dict[str, int]]:
        """Cells for comma-separated values ("-n 1000,10000 -m 10,100"), in the order given."""
        lists: dict[str, Sequence[object]] = {}
        for p in self.params:
            raw = given.get(p.name)
            if raw is None:
                lists[p.name] = list(p.default) if p.default and len(p.default) > 1 else [None]
            elif not isinstance(raw, str):
                lists[p.name] = [raw]
            else:
                values = [v for v in raw.split(",") if v.strip()]
                if not values:
                    raise ParamError(f"{p.name} is empty")
                if any(len(v.strip()) == 3 and v.strip().isdigit() and v.strip()[0] == "0" for v in values[1:]):
                    joined = raw.replace(",", "")
                    raise ParamError(
                        f"{p.flag or p.name} {raw}: commas separate grid values (-n 1000,10000); "
                        f"did you mean {joined}? Write it as {joined} or {int(joined):_}"
                    )
                lists[p.name] = values
        extra = {k: v for k, v in given.items() if k not in lists}
        cells: list[dict[str, object]] = [dict(extra)]
        for name, choices in lists.items():
            cells = [{**c, name: v} for c in cells for v in choices]
        # A value given twice (-n 100,100, or 1000,1_000) is one cell: a cell is never measured twice.
        unique = {json.dumps(v, sort_keys=True): v for v in map(self.validate, cells)}
        # The companion of a cell (the in-node ring of a ring across nodes) comes just before it.
        out: dict[str, dict[str, int]] = {}
        for key, v in unique.items():
            mate = self.companion(v)
            if mate is not None:
                out.setdefault(json.dumps(mate, sort_keys=True), mate)
            out.setdefault(key, v)
        return list(out.values())


# -- parameters -----------------------------------------------------------------
N = Param("n", "number of processes", flag="-n")
M = Param("m", "laps of the ring", maximum=1_000_000_000, flag="-m")
TOKENS = Param(
    "tokens",
    "tokens circulating at once (total hops N×M×K)",
    default=(1,),
    flag="--tokens",
    aliases=("-k", "--concurrency", "-c"),
)
BURST = Param(
    "burst",
    "where the tokens start: spread evenly round the ring, or a burst of all at p0 back to back",
    minimum=0,
    maximum=1,
    default=(0,),
    flag="--placement",
    words=("spread", "burst"),
)
_MAX_HOPS = 2**62
# A ring across nodes (contract section 10: OS processes of one runtime, each hop between them carried by the
# runtime's own remoting): left out of a cell at its default (one node), so that drivers without the `nodes`
# feature are never sent it.
MAX_NODES = 256
NODES = Param(
    "nodes",
    "nodes (OS processes of the runtime) the ring is spread over, hops between them carried by its own "
    "remoting, e.g. Erlang distribution, Pekko Artery, CAF middleman (1: one node, as every runtime)",
    maximum=MAX_NODES,
    default=(1,),
    flag="--nodes",
    omit_default=True,
)
NODE_PLACEMENT = Param(
    "node_placement",
    "how the processes are laid out over the nodes: contiguous blocks (K of the N hops a lap cross a "
    "node) or interleaved (every hop crosses)",
    minimum=0,
    maximum=1,
    default=(0,),
    flag="--node-placement",
    words=("contiguous", "interleaved"),
    omit_default=True,
)


def _tokens_fit(p: Params) -> str | None:
    if p["tokens"] > p["n"]:
        return f"tokens ({p['tokens']:,}) cannot exceed n ({p['n']:,}): one token per process at most"
    if p["n"] * p.get("m", 1) * p["tokens"] >= _MAX_HOPS:
        return "n × m × tokens is too large (must stay below 2^62 hops)"
    return None


def _nodes_fit(p: Params) -> str | None:
    if p.get("nodes", 1) > p["n"]:
        return f"nodes ({p['nodes']:,}) cannot exceed n ({p['n']:,}): one process per node at least"
    return None


def cross_per_lap(n: int, nodes: int, placement: int) -> int:
    """The ring's edges p(i) → p(i+1 mod n) whose ends are on different nodes: each lap of each token crosses
    them once. Contiguous blocks (node of p(i) = i·nodes div n): one per block; interleaved (i mod nodes):
    every edge, but the closing one when p(n−1) and p0 share a node."""
    if nodes == 1:
        return 0
    if placement == 0:
        return nodes
    return n - 1 if (n - 1) % nodes == 0 else n


def cross_hops(p: Params) -> int:
    """The hops of a ring (driver params) that cross a node boundary: the receipts of the processes whose
    predecessor is on another node."""
    return cross_per_lap(p["n"], p.get("nodes", 1), p.get("node_placement", 0)) * p.get("m", 1) * p["tokens"]


def _proves_cross_hops(p: Params) -> dict[str, int]:
    return {"cross_hops": cross_hops(p)} if p.get("nodes", 1) > 1 else {}


def _one_node_has_no_placement(p: dict) -> dict:
    return {k: v for k, v in p.items() if k != "node_placement"} if p.get("nodes", 1) == 1 else p


def _in_node(p: Params) -> dict | None:
    """The same ring on one node: what ns per cross-node hop is derived against."""
    if p.get("nodes", 1) == 1:
        return None
    return {k: v for k, v in p.items() if k not in ("nodes", "node_placement")}


# -- figures --------------------------------------------------------------------
def _per(field_: str, divisor: Callable[[Mapping], float], scale: float = 1.0):
    return lambda r: r[field_] / divisor(r) / scale if divisor(r) else None


NS_PER_HOP = Metric("ns_per_hop", "ns/hop", _per("run_ns", lambda r: r["count"]))
SPAWN_US = Metric("spawn_us_per_process", "spawn µs/proc", _per("setup_ns", lambda r: r["n"], 1e3), column="spawn\nµs")
# CPU time per hop: what a hop costs the machine, whatever the wall clock says. At all cores, a runtime whose
# idle workers spin keeps a second core busy and looks fast in wall time; its CPU per hop shows the cost.
CPU_NS_PER_HOP = Metric("cpu_ns_per_hop", "CPU ns/hop", _per("run_cpu_ns", lambda r: r["count"]), column="CPU\nns/hop")
# Context switches of the whole process per hop (contract 4): about 1 voluntary switch a hop for a ring of
# OS threads that block, about 0 for green threads on one core. None for records of contract 3.
SWITCHES_PER_HOP = Metric(
    "switches_per_hop",
    "switches/hop",
    lambda r: (r["run_vcsw"] + r["run_ivcsw"]) / r["count"] if "run_vcsw" in r and r["count"] else None,
    column="switches\nper hop",
)
CPU_PER_WALL = Metric(
    "cpu_per_wall",
    "CPU/wall",
    lambda r: r["run_cpu_ns"] / r["run_ns"] if r["run_ns"] else None,
    lower_is_better=False,
    column="CPU/\nwall",
)


# One kernel stack per OS thread (THREAD_SIZE, 16 KiB on x86-64 Linux), which RSS does not show.
KERNEL_STACK_BYTES = 16 * 1024


def _bytes_per_process(r: Mapping) -> float:
    """Resident memory per process, plus the kernel stacks of the driver's own threads (contract 3);
    records of contract 2 carry the machine-wide KernelStack instead."""
    grown = r["rss_after"] - r["rss_before"]
    if "threads_after" in r and "threads_before" in r:
        grown += (r["threads_after"] - r["threads_before"]) * KERNEL_STACK_BYTES
    elif "kernel_stack_after" in r and "kernel_stack_before" in r:
        grown += r["kernel_stack_after"] - r["kernel_stack_before"]
    return grown / r["n"]


RSS_PER_PROC = Metric("bytes_per_process", "B/proc", _bytes_per_process)
RUNTIME_PER_PROC = Metric(
    "runtime_bytes_per_process",
    "runtime B/proc",
    lambda r: (
        (r["runtime_mem_after"] - r["runtime_mem_before"]) / r["n"]
        if "runtime_mem_after" in r and "runtime_mem_before" in r
        else None
    ),
)
NS_PER_ROUND_TRIP = Metric("ns_per_round_trip", "ns/round trip", _per("run_ns", lambda r: r["count"]))
NS_PER_MESSAGE = Metric("ns_per_message", "ns/message", _per("run_ns", lambda r: r["count"]))
NS_PER_REPLY = Metric("ns_per_reply", "ns/reply", _per("run_ns", lambda r: r["count"]))

# -- the catalogue ----------------------------------------------------------------
RING = Workload(
    name="ring",
    summary="N processes in a ring; K tokens travel M laps (N×M×K messages). Spawn and message phases timed apart.",
    params=(N, M, TOKENS, BURST, NODES, NODE_PLACEMENT),
    expected=lambda p: p["n"] * p["m"] * p["tokens"],
    hops=lambda p: p["n"] * p["m"] * p["tokens"],
    ready=lambda p: p["n"],
    metrics=(NS_PER_HOP, CPU_NS_PER_HOP, SPAWN_US, CPU_PER_WALL, SWITCHES_PER_HOP, RSS_PER_PROC),
    calibrates="m",
    extra_checks=(_tokens_fit, _nodes_fit),
    proves=_proves_cross_hops,
    companion=_in_node,
    normalise=_one_node_has_no_placement,
    # spawn µs/proc (the `spawn` workload's own figure) moves to --wide: the ring's table is about the hop
    beside=(CPU_NS_PER_HOP, RSS_PER_PROC),
)

SPAWN = Workload(
    name="spawn",
    summary="Create N processes that each report ready; time until all are ready (µs per process).",
    params=(N,),
    expected=lambda p: p["n"],
    hops=lambda p: 0,
    ready=lambda p: p["n"],
    metrics=(SPAWN_US, RSS_PER_PROC, RUNTIME_PER_PROC),
    beside=(RSS_PER_PROC,),
)

MEMORY = Workload(
    name="memory",
    summary="Bytes per idle process: memory (and the runtime's own accounting) before and after spawning N.",
    params=(N,),
    verb="spawn",
    expected=lambda p: p["n"],
    hops=lambda p: 0,
    ready=lambda p: p["n"],
    metrics=(RSS_PER_PROC, RUNTIME_PER_PROC, SPAWN_US),
    settles_on=SPAWN_US,
    beside=(SPAWN_US,),
)

TOTAL_HOPS = Param(
    "hops", "total hops per run, fixed while N varies", minimum=1, maximum=10**12, default=(1_000_000,), flag="--hops"
)


def _msgcost_driver(p: Params) -> dict:
    return {"n": p["n"], "m": max(1, p["hops"] // p["n"]), "tokens": 1, "burst": 0}


MSGCOST = Workload(
    name="msgcost",
    summary="Message cost vs N: the ring's ns per hop as N grows, at a fixed total of hops (m = hops / n).",
    params=(N, TOTAL_HOPS),
    verb="ring",
    to_driver=_msgcost_driver,
    expected=lambda p: p["n"] * p["m"] * p["tokens"],
    hops=lambda p: p["n"] * p["m"] * p["tokens"],
    ready=lambda p: p["n"],
    metrics=(NS_PER_HOP, CPU_NS_PER_HOP, CPU_PER_WALL, SWITCHES_PER_HOP, SPAWN_US),
    beside=(CPU_NS_PER_HOP, SPAWN_US),
)

PINGPONG = Workload(
    name="pingpong",
    summary="Two processes, M round trips: ns per round trip (latency, not throughput).",
    params=(Param("m", "round trips", maximum=1_000_000_000, flag="-m"),),
    expected=lambda p: p["m"],
    hops=lambda p: 2 * p["m"],
    ready=lambda p: 2,
    metrics=(NS_PER_ROUND_TRIP, CPU_PER_WALL),
    calibrates="m",
)

FANIN = Workload(
    name="fanin",
    summary="N senders each send M messages to one receiver: mailbox throughput under contention.",
    params=(N, Param("m", "messages per sender", maximum=1_000_000_000, flag="-m")),
    expected=lambda p: p["n"] * p["m"],
    hops=lambda p: p["n"] * p["m"],
    ready=lambda p: p["n"] + 1,
    metrics=(NS_PER_MESSAGE, SPAWN_US, CPU_PER_WALL),
    beside=(SPAWN_US,),
    calibrates="m",
    # m may be absent (calibrated later), as the ring's check allows
    extra_checks=(lambda p: "n × m must stay below 2^62" if p["n"] * p.get("m", 1) >= _MAX_HOPS else None,),
)

SELECTIVE = Workload(
    name="selective",
    summary="Collect one reply from each of N workers by selective receive, in arrival order and in reverse "
    "(the quadratic mailbox scan). Only runtimes with selective receive.",
    params=(
        N,
        Param("m", "rounds", maximum=1_000_000_000, flag="-m"),
        Param("reverse", "0: arrival order, 1: reverse order", minimum=0, maximum=1, default=(0, 1), flag="--reverse"),
    ),
    expected=lambda p: p["n"] * p["m"],
    hops=lambda p: p["n"] * p["m"],
    ready=lambda p: p["n"],
    metrics=(NS_PER_REPLY, SPAWN_US),
    beside=(SPAWN_US,),
    calibrates="m",
)

FANOUT = Param(
    "fanout", "children of every inner process of the tree", minimum=2, maximum=1000, default=(10,), flag="--fanout"
)


def tree_processes(p: Params) -> int:
    """Leaves plus inner processes of a tree with n leaves and the given fanout: (fanout·n − 1)/(fanout − 1)."""
    return (p["fanout"] * p["n"] - 1) // (p["fanout"] - 1)


def _power_of_fanout(p: Params) -> str | None:
    n, f = p["n"], p["fanout"]
    below = 1
    while below * f <= n:
        below *= f
    if below == n:
        return None
    return (
        f"tree's n (leaves) must be a power of the fanout {f:,}; the nearest valid sizes are "
        f"{below:,} and {below * f:,}"
    )


TREE_MS = Metric("ms_per_tree", "ms/tree", lambda r: r["run_ns"] / 1e6)
NS_PER_TREE_PROCESS = Metric("ns_per_process", "ns/proc", lambda r: r["run_ns"] / tree_processes(r))
PEAK_PER_PROC = Metric(
    "peak_bytes_per_process",
    "peak B/proc",
    lambda r: (r["rss_peak"] - r["rss_before"]) / tree_processes(r) if "rss_peak" in r else None,
)

TREE = Workload(
    name="tree",
    summary="The skynet tree: N leaves under FANOUT-way inner processes spawned at once; each sums its children's "
    "values and sends the sum up (one phase: spawn, messages, exits).",
    params=(Param("n", "leaves of the tree (a power of the fanout)", default=(1_000_000,), flag="-n"), FANOUT),
    expected=lambda p: p["n"] * (p["n"] - 1) // 2,
    hops=tree_processes,
    metrics=(TREE_MS, NS_PER_TREE_PROCESS, PEAK_PER_PROC, CPU_PER_WALL),
    beside=(NS_PER_TREE_PROCESS, PEAK_PER_PROC),
    processes=tree_processes,
    extra_checks=(_power_of_fanout,),
)

TRACE_LIMIT = 100
TRACE = Workload(
    name="trace",
    summary="Print every hop of a small ring as it happens (teaching view, not a measurement).",
    params=(
        Param("n", "processes", maximum=TRACE_LIMIT, flag="-n"),
        Param("m", "laps", maximum=TRACE_LIMIT, flag="-m"),
        NODES,
        NODE_PLACEMENT,
    ),
    expected=lambda p: p["n"] * p["m"],
    hops=lambda p: 0,
    metrics=(NS_PER_HOP,),
    extra_checks=(_nodes_fit,),
    proves=lambda p: {"cross_hops": cross_hops({**p, "tokens": 1})} if p.get("nodes", 1) > 1 else {},
    normalise=_one_node_has_no_placement,
)

WORKLOADS: dict[str, Workload] = {w.name: w for w in (RING, SPAWN, MEMORY, MSGCOST, PINGPONG, FANIN, SELECTIVE, TREE)}


# -- perf: the user's own code in a tight loop (`ringbench perf`, contract section 10) -------------------------
# Not a workload of `run` or `sweep` (its parameters are code, not integers on a grid): its own command
# measures it, and its runs are stored, shown, compared, exported and reported like any other.
def perf_label(p: Mapping, width: int = 48) -> str:
    """A snippet in a few words: its runner's code on one line (or the file it came from), cut with …"""
    text = str(p.get("file") or " ".join(str(p.get("code", "")).split()))
    return text if len(text) <= width else text[: width - 1] + "…"


def _qps(r: Mapping) -> float | None:
    return r["count"] * 1e9 / r["run_ns"] if r["run_ns"] else None


def _ns_per_iteration(r: Mapping) -> float | None:
    """The time one iteration takes one worker: the wall time of all workers over their iterations."""
    return r["run_ns"] * r.get("concurrency", 1) / r["count"] if r["count"] else None


# A record here is a timed sample ({"count": iterations, "run_ns": …}) or a counted sample interval of a
# running job ({"count": iterations in the interval, "run_ns": its length, "concurrency": workers}).
QPS = Metric("qps", "QPS", _qps, lower_is_better=False)
NS_PER_ITERATION = Metric("ns_per_iteration", "time/iter", _ns_per_iteration)
PERF_SUBJECT = ("code", "file", "init", "init_runner", "done", "label")

PERF = Workload(
    name="perf",
    summary="Your own code in a tight loop (ringbench perf): iterations per second, time per iteration.",
    params=(
        Param("concurrency", "workers running the snippet at once", maximum=1_000_000, default=(1,), flag="-c"),
        Param("loop", "iterations per timed sample", maximum=10**15, flag="-l"),
    ),
    expected=lambda p: 0,
    hops=lambda p: 0,
    metrics=(QPS, NS_PER_ITERATION),
    subject=PERF_SUBJECT,
    label=perf_label,
)
OWN_COMMAND: dict[str, Workload] = {PERF.name: PERF}


def get(name: str) -> Workload:
    try:
        return WORKLOADS.get(name) or OWN_COMMAND[name]
    except KeyError:
        raise ParamError(f"unknown workload {name!r}; known: {', '.join(WORKLOADS)}") from None


def check_trace(hops: list[dict], n: int, m: int, records: list[dict]) -> str | None:
    """The ring's rule, hop by hop: hop h reaches p((h-1) mod n) on lap (h-1) div n + 1 from its predecessor.
    None if every hop and the final count are right, else what is wrong."""
    if len(hops) != n * m:
        return f"{len(hops)} hops printed, expected {n * m}"
    for h, rec in enumerate(hops, 1):
        to = (h - 1) % n
        want = {"hop": h, "lap": (h - 1) // n + 1, "to": to, "from": -1 if h == 1 else (to - 1) % n}
        if {k: rec.get(k) for k in want} != want:
            return f"hop {h} is {rec}, expected {want}"
    results = [r for r in records if r["type"] == "result"]
    if len(results) != 1 or results[0].get("count") != n * m:
        return f"the result record does not verify {n * m} hops: {results}"
    return None


def cli_params() -> dict[str, list[tuple[Param, Workload]]]:
    """Every parameter name of the catalogue with the workloads that take it (the CLI's options)."""
    out: dict[str, list[tuple[Param, Workload]]] = {}
    for w in WORKLOADS.values():
        for p in w.params:
            out.setdefault(p.name, []).append((p, w))
    return out
