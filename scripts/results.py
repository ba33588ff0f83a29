#!/usr/bin/env python3
"""Regenerate docs/results.md and the pages under docs/results/ from one commit: runs every measurement
they quote with ringbench's own commands, into results/published.db, and writes a summary page
(docs/results.md: the machine, the headline tables, what moved since contract 3, the steady-state and
settle findings, the list of topics) and a page per topic (docs/results/*.md: the whole tables, each
section with its command, its run and the commit it was measured at).

    .venv/bin/python scripts/results.py --fresh    # everything, into a new store (over an hour on 2 cores)
    .venv/bin/python scripts/results.py --quick    # the bench, steady state, memory, the tree
    .venv/bin/python scripts/results.py --only bench,steady
    .venv/bin/python scripts/results.py --render-only  # the pages again, measuring nothing

Measuring adds runs to the store and keeps the ones already there (--fresh starts a new store); the
pages are then written from the newest run of every measurement in the store, so that measuring one
section never drops the others; a section none of whose runs is in the store (the store is not
committed: a new machine starts without it) is kept as the pages have it (or docs/results.md, which
held every section before the split). Each section names the commit it was measured at, when, and the
load average then. --render-only measures nothing (after a change to how tables are printed) and needs
no store.

Only figures of a commit are published. Run it on an idle machine, from a clean checkout: a dirty tree
is refused (--dirty, with --render-only alone, lets the pages be written anyway and says so); runs
measured at a "-dirty" revision are refused; a kept section that names one is written without its
tables, saying it awaits re-measuring at a committed state, with the command that does it.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import statistics
import subprocess
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

import click

from ringbench.api import FORMER_NAMES, SETTLE_PCT, SETTLE_WINDOW, stats
from ringbench.present import fmt

bootstrap_median_ci, compare = stats.bootstrap_median_ci, stats.compare

REPO = Path(__file__).resolve().parent.parent
DB = REPO / "results" / "published.db"
RB = [str(REPO / ".venv" / "bin" / "ringbench")]
DOC = REPO / "docs" / "results.md"
# The figures published under contract 2 (docs/results.md at this commit), for "what moved".
PREVIOUS = "b744d26"

MEASUREMENTS = [  # (name, heading, ringbench arguments, why)
    (
        "bench",
        "The default comparison: `make bench`",
        ["bench"],
        "Every runtime in each idiom the tables rank (the runtimes' own mailboxes and channels; the floor for "
        "scale; hand-offs, rendezvous and the drivers' hand-written mailboxes with `--all-idioms`) on one "
        "core and on all cores, N = 1,000, M calibrated on the settled state to a short "
        "message phase; each fresh driver process warms up until its last 10 iterations neither drift nor "
        "alternate (a JIT runtime after its floor first: 10 M hops, 50 iterations or 2 s), then its repeats are "
        "measured in 3 fresh processes a cell, the cells' repeats interleaved in an order shuffled each round.",
    ),
    (
        "steady",
        "Steady state: the default figure against the settled one, N = 1,000, one core",
        ["run", "ring", "-n", "1000", "--cores", "1"],
        "Each variant measured in two kinds of run, five slices of each, taken in turns: the default (a fresh "
        "process, warm-ups until settled: what `run` and `bench` print, one repeat) and the settled "
        "counterpart (20 untimed iterations in a fresh process, then 2 repeats: `--warmup 20 --repeat 2 "
        "--processes 1`). Slice by slice the two kinds alternate, default-first and settled-first in turns, "
        "so that the drift of a shared machine, which moves a figure by more than the warm-up does (the "
        "first version of this check ran the two as two runs minutes apart, and 23 of 47 defaults fell "
        "inside the interval), falls on both alike. The variant's first run calibrates M on the settled state, "
        "as the default does, and every later run takes it: the two kinds differ in their warm-up alone. "
        "Each kind's repeats are pooled over its five processes. The default should fall inside the settled "
        "figure's 95 % interval; where it does not, the difference is printed beside the default's own "
        "interval, and the last column tests the default's repeats against the settled ones (✓ "
        "significant, ≈ not), the way "
        "every ringbench table does. The settled kind spreads over processes because one process is not "
        "the runtime: with `--in-process` instead (at 038dcbc, runs 152-245), pypy/switch's settled "
        "process ran at 428-560 ns/hop while the default's five processes gave 429 once and 695-804 four "
        "times (PyPy's JIT settles in one of two states per process), and python-asyncio/tuned kept "
        "getting faster over 30 iterations of one process (4,045 to 2,611 ns/hop). "
        "For a JIT runtime the settled kind's 20 fixed warm-ups (about 2 s of messages) are fewer than the "
        "default's floor and window (up to 50 iterations or 2 s, then at least 8): a JIT's default below its "
        "settled figure is suspect of that first.",
    ),
    (
        "positions",
        "Position effects: every iteration of one process alike?",
        ["run", "ring", "-n", "1000,10000", "--cores", "1", "--in-process", "--warmup", "0", "--repeat", "40"],
        "Each variant runs 40 iterations in one process, cold (no warm-up), at N = 1,000 and 10,000 on one "
        "core, and every iteration is kept with its position. The first three show how far from settled a "
        "fresh process starts; iterations 21–40 are tested for what the contract forbids, a figure that "
        "depends on the iteration's position: alternating with its parity (even against odd positions, "
        "Mann-Whitney U) or drifting (Spearman's rank correlation with the position). A verdict needs "
        "q < 0.05 (the p-value adjusted for the table's number of tests, Benjamini-Hochberg) and a "
        "difference over 5 % (parity: between the two medians; drift: across the 20 iterations, from the "
        "Theil-Sen slope, which one stalled iteration does not move). The last two columns apply ringbench's "
        f"settle rule (the last {SETTLE_WINDOW} iterations without a drift or an alternation both significant, "
        "p < 0.05, and over 5 %) to the same cold iterations: where a default process of a runtime without a JIT "
        "would stop warming up (a JIT runtime first passes its floor: 10 M hops, 50 iterations or 2 s), and how "
        f"many of the {21 - SETTLE_WINDOW} windows of {SETTLE_WINDOW} within 21–40 the rule would still call "
        'unsettled: a drift it catches keeps a process warming up, and one that lasts to the cap is flagged "not '
        'settled". How the window was chosen: docs/statistics.md ("When a process has settled").',
    ),
    (
        "ring-1k",
        "The ring at N = 1,000",
        ["run", "ring", "-r", "all", "--tuned", "-n", "1000"],
        "All cores; M calibrated to a 100 ms message phase; 5 repeats, each in a fresh process warmed up until "
        "settled. Tuned variants are ranked among themselves, never beside the runtimes as they come.",
    ),
    ("ring-10k", "The ring at N = 10,000", ["run", "ring", "-r", "all", "-n", "10000"], "As above, stock variants."),
    (
        "ring-100k",
        "The ring at N = 100,000",
        ["run", "ring", "-r", "all", "-n", "100000", "--processes", "1"],
        "5 repeats in one process after warm-ups (a fresh process per repeat would spawn 100,000 processes "
        "ten times more); the one-OS-thread-per-process drivers are refused by the machine's thread limits.",
    ),
    (
        "ring-1m",
        "The ring at N = 1,000,000",
        ["run", "ring", "-r", "all", "-n", "1000000", "-m", "2", "--processes", "1"],
        "M = 2; 5 repeats in one process after warm-ups.",
    ),
    (
        "memory",
        "Bytes per idle process",
        ["run", "memory", "-r", "all", "-n", "100000", "--repeat", "3"],
        "Memory grown over the first spawn of a fresh process, after one collection, per process (OS-thread "
        "drivers: 16 KiB of kernel stack per thread included); each idle process holds the mailbox a ring "
        "process holds; 3 fresh processes.",
    ),
    (
        "tree",
        "The million-process tree (skynet)",
        ["run", "tree", "-r", "all", "-n", "1000000", "--processes", "1", "--repeat", "3"],
        "1,000,000 leaves, fanout 10 (1,111,111 processes): every process spawns its children and sums "
        "their answers; the sum checked against n(n-1)/2. 3 repeats in one process after warm-ups.",
    ),
    (
        "scale",
        "Scale: the largest rings",
        [
            "run",
            "ring",
            "-r",
            "c-coro",
            "-n",
            "100000000",
            "-m",
            "2",
            "--repeat",
            "1",
            "--processes",
            "1",
            "--warmup",
            "0",
        ],
        "c-coro at N = 100,000,000 (the contract's bound on n), M = 2, one repeat, no warm-up: how far "
        "a process of 24 bytes goes on this 24 GiB machine.",
    ),
    (
        "scale-tokio",
        "Scale: rust-tokio at N = 10,000,000",
        [
            "run",
            "ring",
            "-r",
            "rust-tokio/current-thread",
            "-n",
            "10000000",
            "-m",
            "2",
            "--repeat",
            "1",
            "--processes",
            "1",
            "--warmup",
            "0",
        ],
        "The lightest runtime with a real scheduler, at ten million processes (the orchestrator's memory "
        "check, from the manifest, is the only limit: the driver has none of its own).",
    ),
    (
        "nodes",
        "A ring across BEAM nodes",
        [
            "run",
            "ring",
            "-r",
            "erlang",
            "-n",
            "10000,100000",
            "--nodes",
            "2,4",
            "--node-placement",
            "contiguous,interleaved",
        ],
        "K = 2 and 4 local nodes connected by Erlang distribution (loopback: no network between hosts is "
        "measured), contiguous blocks (K of the N hops a lap cross a node) and interleaved (every hop "
        "crosses), each beside the in-node ring of the same run (K = 1); the second table derives ns per "
        "cross-node hop from the two.",
    ),
    (
        "nodes-tokens",
        "A ring across BEAM nodes: the token count",
        [
            "run",
            "ring",
            "-r",
            "erlang",
            "-n",
            "10000",
            "--nodes",
            "2",
            "--node-placement",
            "interleaved",
            "--tokens",
            "1,4,16",
        ],
        "Every hop crossing between 2 nodes, with 1, 4 and 16 tokens circulating at once: how much of a "
        "cross-node hop's cost is latency that more tokens in flight hide.",
    ),
    (
        "nodes-buffer-small",
        "A ring across BEAM nodes: a small distribution buffer (`+zdbbl 32`)",
        [
            "run",
            "ring",
            "-r",
            "erlang/stock",
            "-n",
            "1000",
            "--nodes",
            "2",
            "--node-placement",
            "interleaved",
            "--tokens",
            "1,16,256",
        ],
        "N = 1,000 (a lap with 256 tokens is 256,000 cross-node hops), up to 256 tokens in flight, every node "
        "started with the distribution buffer busy limit at 32 KB instead of the default 1,024 KB "
        "(`ERL_ZFLAGS`, recorded with the run as a tuning variable): once a connection's queue passes the "
        "limit, the sending processes are suspended "
        "until it drains.",
    ),
    (
        "nodes-buffer-default",
        "A ring across BEAM nodes: the default distribution buffer (1,024 KB)",
        [
            "run",
            "ring",
            "-r",
            "erlang/stock",
            "-n",
            "1000",
            "--nodes",
            "2",
            "--node-placement",
            "interleaved",
            "--tokens",
            "1,16,256",
        ],
        "The same cells with the runtime's own limit, measured right after the small and before the large one.",
    ),
    (
        "nodes-buffer-large",
        "A ring across BEAM nodes: a large distribution buffer (`+zdbbl 65536`)",
        [
            "run",
            "ring",
            "-r",
            "erlang/stock",
            "-n",
            "1000",
            "--nodes",
            "2",
            "--node-placement",
            "interleaved",
            "--tokens",
            "1,16,256",
        ],
        "The same cells with a 64 MB limit, which the ring's queues never reach: the senders are never suspended.",
    ),
    (
        "nodes-cluster",
        "A ring across BEAM nodes: the cluster view",
        [
            "run",
            "ring",
            "-r",
            "erlang",
            "-n",
            "100000",
            "--nodes",
            "4",
            "--continuous",
            "--samples",
            "10",
            "--sample-ms",
            "500",
            "-v",
        ],
        "erlperf's cluster report: per node, ring hops handled per second, distribution packets, scheduler "
        "utilisation, CPU/wall, memory and processes, sampled every 500 ms while the ring runs.",
    ),
    (
        "nodes-runtimes",
        "A ring across nodes, runtime by runtime: Erlang distribution, Pekko Artery, CAF's middleman",
        [
            "run",
            "ring",
            "-r",
            "erlang/stock,elixir/stock,pekko/stock,caf/stock",
            "-n",
            "10000",
            "--nodes",
            "2",
            "--node-placement",
            "interleaved",
            "--cores",
            "1,all",
            "--repeat",
            "6",
            "--processes",
            "3",
        ],
        "The same ring on the four runtimes whose processes are addressed alike on one node and across nodes: "
        "N = 10,000 over 2 local nodes, interleaved (every hop but the closing one crosses), beside each "
        "runtime's in-node ring of the same run; one core per node (the peer pinned to the other CPU) and all "
        "cores; 3 fresh driver processes a cell. Each driver starts and stops its peer itself: BEAM nodes over "
        "Erlang distribution, JVMs with Pekko Artery over TCP (a hand-written serializer for the token), CAF "
        "actor systems with the middleman (BASP over TCP). Loopback: what is measured is each runtime's stack "
        "and serialization, not a network.",
    ),
    (
        "installations-java",
        "Versions: java-threads and pekko on JDK 17 and on JDK 25",
        [
            "run",
            "ring",
            "-r",
            "java-threads/stock,java-threads/stock@jdk17,pekko/stock,pekko/stock@jdk17",
            "-n",
            "1000",
            "--cores",
            "1,all",
            "--repeat",
            "6",
            "--processes",
            "3",
            "--clean-env",
        ],
        "The same drivers built and run on two installations of their runtime: the JDK the project uses "
        "(Temurin 25) and Debian's OpenJDK 17, declared with `ringbench runtimes add jdk17 --runtime "
        "java-threads --home /usr/lib/jvm/java-17-openjdk-amd64` (one JDK serves every JVM driver) and "
        "built with `ringbench build java-threads@jdk17 pekko@jdk17`, each into its own folder. "
        "Rel % compares the two versions; 3 fresh processes a cell. "
        "java-virtual is refused on JDK 17 (no virtual threads before JDK 21).",
    ),
    (
        "installations-go",
        "Versions: go on Go 1.26.8 and on Go 1.27.3",
        [
            "run",
            "ring",
            "-r",
            "go/stock,go/stock@go1.27.3",
            "-n",
            "1000,10000",
            "--cores",
            "1,all",
            "--repeat",
            "6",
            "--processes",
            "3",
            "--clean-env",
        ],
        "The Go the image has (1.26.8) against 1.27.3, the release the go command fetches as a toolchain "
        "module (`ringbench runtimes add go1.27.3 --runtime go --home go1.27.3`, then `ringbench build "
        "go@go1.27.3`). Rel % compares the two versions; 3 fresh processes a cell.",
    ),
]
QUICK = {"bench", "steady", "memory", "tree"}
# Commands a measurement needs first (the other installations it compares: declared, then built).
PREPARED_WITH = {
    "installations-java": [
        ["runtimes", "add", "jdk17", "--runtime", "java-threads", "--home", "/usr/lib/jvm/java-17-openjdk-amd64"],
        ["build", "java-threads@jdk17", "pekko@jdk17"],
    ],
    "installations-go": [
        ["runtimes", "add", "go1.27.3", "--runtime", "go", "--home", "go1.27.3"],
        ["build", "go@go1.27.3"],
    ],
}
# The tuning variables a measurement runs with (shown before its command, recorded with its run).
MEASURED_WITH = {
    "nodes-buffer-small": {"ERL_ZFLAGS": "+zdbbl 32"},
    "nodes-buffer-large": {"ERL_ZFLAGS": "+zdbbl 65536"},
}
# The steady check's two kinds of run, per variant, each STEADY_SLICES times in turns: the default (a
# fresh process, warm-ups until settled) and its settled counterpart (20 fixed warm-ups, 2 repeats).
DEFAULT_SLICE = ["--repeat", "1"]
SETTLED_SLICE = ["--warmup", "20", "--repeat", "2", "--processes", "1"]
STEADY_SLICES = 5
GROWTH_HEADING = "Cost per hop as the ring grows: N = 10,000 against N = 1,000,000"
FIDELITY_HEADING = "## Side by side: each driver against independent programs of its runtime"


def sh(args: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, cwd=REPO, **kw)


def last_run() -> tuple[int, str, str | None]:
    """The newest run in the store: its id, start and finish."""
    import sqlite3

    con = sqlite3.connect(DB)
    try:
        return con.execute("SELECT id, started_at, finished_at FROM runs ORDER BY id DESC LIMIT 1").fetchone()
    finally:
        con.close()


def run_wall(start: str, end: str | None) -> float:
    """A run's wall seconds as the store records them, so that --render-only prints what measuring did."""
    return (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds() if end else 0.0


def measure(args: list[str], env: dict[str, str] | None = None) -> tuple[int, float, str]:
    """Run one ringbench command into the published store, with `env` added to the environment; (run id,
    wall seconds, its terminal output)."""
    p = sh(RB + args + ["--db", str(DB)], env={**os.environ, "COLUMNS": "100", **(env or {})})
    if p.returncode not in (0, 1):
        raise SystemExit(f"`ringbench {shlex.join(args)}` failed ({p.returncode}): {p.stderr.strip()[-500:]}")
    run, start, end = last_run()
    return run, run_wall(start, end), p.stdout


def markdown(run: int) -> str:
    text = sh(RB + ["export", str(run), "--format", "markdown", "--db", str(DB)]).stdout
    return text.split("\n", 2)[2] if text.startswith("###") else text


def medians(run: int) -> dict[str, float]:
    doc = json.loads(sh(RB + ["show", str(run), "--json", "--db", str(DB)]).stdout)
    return {
        f"{c['runtime']}": c["summary"]["ns_per_hop"]["median"]
        for c in doc["cells"]
        if c["status"] == "ok" and c["cores"] == "all" and "ns_per_hop" in c.get("summary", {})
    }


def previous(heading: str) -> dict[str, float]:
    """ns/hop per runtime, all cores, in the table under `heading` in docs/results.md at PREVIOUS."""
    text = sh(["git", "show", f"{PREVIOUS}:docs/results.md"]).stdout
    start = text.find(f"## {heading}\n")
    if start < 0:
        return {}
    end = text.find("\n## ", start + 1)
    out = {}
    for line in text[start : end if end > 0 else None].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        # | Runtime | hop | Cores | N | M | ns/hop | ...
        if len(cells) > 6 and cells[2] == "all" and re.fullmatch(r"[\d,.]+", cells[5]):
            out[cells[0]] = float(cells[5].replace(",", ""))
    return out


def moved(heading: str, run: int) -> str:
    before, now = previous(heading), medians(run)
    rows = []
    for old_name, old in sorted(before.items()):
        name = FORMER_NAMES.get(old_name, old_name)  # contracts 1 and 2 named some runtimes otherwise
        new = now.get(name)
        if new is not None:
            rows.append(f"| {name} | {old:,.0f} | {new:,.0f} | {(new / old - 1) * 100:+.0f} % |")
    if not rows:
        return ""
    return (
        "\n| runtime | ns/hop then (contract 2) | ns/hop now | change |\n|---|---:|---:|---:|\n"
        + "\n".join(rows)
        + "\n"
    )


# Where a driver's README explains why its cost per hop grows by more than GROWTH_CLOSE from
# N = 10,000 to N = 1,000,000 (issue 10: a light runtime should run a million processes at a cost
# per hop close to its 10,000 figure, and what stops it is named here with the figure).
GROWTH_CLOSE = 1.5
GROWTH_WHY = {
    "go/stock": "a step at the last-level cache, not a slope: a hop touches ~17 cache lines (~1 KB) of "
    "each goroutine (its g, stack, channel, sudog); cachegrind with a 32 MiB cache counts 0 "
    "misses a hop at N = 10,000 and 16 at 100,000, and ns/hop steps from 151 to 450 between "
    'N = 10,000 and 30,000, then stays flat to 1,000,000 (drivers/go/README.md, "One hop")',
    "python-greenlet/switch": "a step at the last-level cache, not a slope: a hop touches ~31 cache lines "
    "(~2 KB), two thirds of them greenlet restoring the target's saved C stack; "
    "cachegrind with a 32 MiB cache counts 2.7 misses a hop at N = 10,000 and 31 "
    "at 30,000 and 100,000. With M = 2 half the hops are the first lap after the spawn, "
    "which costs ~690 ns/hop at 1,000,000 against ~290 for later laps; over laps 5 to "
    '50, 265 (drivers/python-greenlet/README.md, "One hop")',
    "go/handoff": "Go parks a goroutine waiting on a mutex in one table of 251 treaps shared by all; "
    "at a million waiters every hop walks and rotates a treap of ~4,000 twice "
    '(drivers/go/README.md, "One hop")',
    "java-virtual/": "after the collection between the phases every parked thread's stack chunk is old, "
    "so each park allocates a new ~0.7 KB chunk and a million of them fill the young "
    'generation (drivers/java-virtual/README.md, "One hop")',
    "python-greenlet/stock": "each process adds its 760-byte deque to the working set the token walks "
    '(drivers/python-greenlet/README.md, "One hop")',
    "pekko/": "not the collector: no collection in the message phase at 1,000,000 in two of three "
    'iterations (drivers/pekko/README.md, "Measurements"); the rest not measured yet',
    "kotlin/": "not the collector: no collection in any message phase at 1,000,000 "
    '(drivers/kotlin/README.md, "Measurements"); the rest not measured yet',
    "rust-tokio/current-thread": "the last-level cache: cachegrind with a 32 MiB cache counts the same "
    "775 instructions and 9.3 L1 misses a hop at N = 10,000 and 1,000,000, "
    "and 0 against 8.7 last-level misses a hop (drivers/rust-tokio/README.md, "
    '"One hop")',
    "node/": "the young-generation collector: scavenges take ~87 % of an iteration at 1,000,000 "
    'against ~40 % at 10,000 (--trace-gc; drivers/node/README.md, "One hop")',
}


def cells(run: int) -> list[dict]:
    return json.loads(sh(RB + ["show", str(run), "--json", "--db", str(DB)]).stdout)["cells"]


def growth(run_10k: int, run_1m: int) -> str:
    """Each runtime's ns/hop at N = 10,000 and 1,000,000 (all cores), the ratio, and what stops it."""
    small = medians(run_10k)
    large = {c["runtime"]: c for c in cells(run_1m) if c["cores"] == "all"}
    rows = []
    for rt, a in sorted(small.items()):
        c = large.get(rt)
        if c is None:
            continue
        if c["status"] != "ok" or "ns_per_hop" not in c.get("summary", {}):
            # The orchestrator's reason, without the runtime's name and the advice to the user.
            reason = (c.get("reason") or "").removeprefix(f"{rt}: ").split("; use ")[0]
            rows.append(f"| {rt} | {fmt(a)} | – | – | {c['status']}: {reason} |")
            continue
        b = c["summary"]["ns_per_hop"]["median"]
        if b / a <= GROWTH_CLOSE:
            why = f"within {GROWTH_CLOSE:g}×"
        else:
            why = next((w for k, w in GROWTH_WHY.items() if rt.startswith(k)), "**not explained yet**")
        rows.append(f"| {rt} | {fmt(a)} | {fmt(b)} | {b / a:.2f} | {why} |")
    return (
        "| runtime | ns/hop, N = 10,000 | ns/hop, N = 1,000,000 | ratio | why, or what stops it |\n"
        "|---|---:|---:|---:|---|\n" + "\n".join(rows) + "\n"
    )


def steady_runs(args: list[str], variants: list[str]) -> None:
    """The steady check: per variant, STEADY_SLICES slices, each a default run of one fresh process and a
    settled run of one process, default-first and settled-first in turns, so that the drift of a shared
    machine falls on both kinds alike."""
    for i, rt in enumerate(variants):
        steady_variant(args, rt, first_default=i % 2 == 0)


def steady_variant(args: list[str], rt: str, first_default: bool) -> None:
    """One variant's slices. Its first run calibrates m; every later run takes it, so the two kinds differ
    in their warm-up alone."""
    m: list[str] = []
    for s in range(STEADY_SLICES):
        kinds = [DEFAULT_SLICE, SETTLED_SLICE] if (s % 2 == 0) == first_default else [SETTLED_SLICE, DEFAULT_SLICE]
        for kind in kinds:
            cmd = args[:2] + ["-r", rt] + args[2:] + kind + m
            print(f"   {rt} ({s + 1}/{STEADY_SLICES}): ringbench {shlex.join(cmd)}", file=sys.stderr, flush=True)
            run = measure(cmd)[0]
            if not m:
                c = next(iter(cells(run)), {})
                if c.get("status") != "ok":
                    print(f"   {rt}: {c.get('status', 'no cell')}, not measured further", file=sys.stderr)
                    return
                m = ["-m", str(c["used_params"]["m"])]


def stored_steady(args: list[str]) -> list[tuple[str, list[int], list[int]]]:
    """The steady check's newest slices per variant in the store, in the order measured: (variant,
    default runs, settled runs)."""
    found: dict[str, dict[str, list[int]]] = {}
    kinds = {shlex.join(DEFAULT_SLICE): "default", shlex.join(SETTLED_SLICE): "settled"}
    pattern = re.compile(
        r"ringbench run ring -r (\S+) "
        + re.escape(shlex.join(args[2:]))
        + " ("
        + "|".join(map(re.escape, kinds))
        + r")( -m \d+)? --db "
    )
    for rid, command, *_ in store_rows():
        m = pattern.match(command)
        if m:
            found.setdefault(m.group(1), {"default": [], "settled": []})[kinds[m.group(2)]].append(rid)
    out = [
        (rt, r["default"][-STEADY_SLICES:], r["settled"][-STEADY_SLICES:])
        for rt, r in found.items()
        if r["default"] and r["settled"]
    ]
    return sorted(out, key=lambda p: min(p[1] + p[2]))


def steady(variants: list[tuple[str, list[int], list[int]]]) -> str:
    """Each variant's default figure against its settled figure (one core, N = 1,000), both pooled over
    the variant's slices: the contract's promise that the default prints the settled runtime (issue 29)."""
    rows = []
    inside_count = apart = slower = close = 0
    sizes: list[tuple[int, int]] = []
    for rt, default_runs, settled_runs in variants:
        got = {}
        for kind, runs in (("default", default_runs), ("settled", settled_runs)):
            cs = [c for r in runs for c in cells(r)[:1]]
            if len(cs) == len(runs) and all(c["status"] == "ok" for c in cs):
                got[kind] = [r for c in cs for r in c["records"] if r.get("count")]
        ids = f"{min(default_runs + settled_runs)}–{max(default_runs + settled_runs)}"
        if set(got) != {"default", "settled"}:
            rows.append(f"| {rt} | {ids} | – | – | – | – | – | not measured | – |")
            continue
        dv, sv = per_hop(got["default"]), per_hop(got["settled"])
        sizes.append((len(dv), len(sv)))
        d, dlo, dhi = statistics.median(dv), *bootstrap_median_ci(dv)
        m, lo, hi = statistics.median(sv), *bootstrap_median_ci(sv)
        warm = sorted({r.get("warmups", 0) for r in got["default"]})
        inside = lo <= d <= hi
        inside_count += inside
        close += abs(d / m - 1) <= SETTLE_PCT / 100
        verdict = "yes" if inside else f"no ({(d / m - 1) * 100:+.1f} %)"
        # the project's one test of a difference, on the repeats of the two kinds
        diff = compare(sv, dv)
        apart += bool(diff.significant)
        slower += bool(diff.significant and diff.ratio > 1)
        test = (
            "–"
            if diff.significant is None
            else f"{'✓' if diff.significant else '≈'} {(diff.ratio - 1) * 100:+.1f} % (p = {diff.p_value:.2g})"
        )
        rows.append(
            f"| {rt} | {ids} | {fmt(d)} | {fmt(dlo)}–{fmt(dhi)} | "
            f"{'–'.join(map(str, (warm[0], warm[-1]) if len(warm) > 1 else warm))} | {fmt(m)} | "
            f"{fmt(lo)}–{fmt(hi)} | {verdict} | {test} |"
        )
    chance = ""
    if sizes:
        nd, ns = sorted(sizes)[len(sizes) // 2]
        share = inside_by_chance(nd, ns)
        chance = (
            f", where about {round(len(variants) * share)} would if each variant's default and settled "
            f"repeats came from one distribution: the median of {nd} values falls inside the 95 % bootstrap "
            f"interval of the median of {ns} drawn from the same normal distribution in {share:.0%} of "
            "2,000 simulated pairs."
        )
    return (
        f"{inside_count} of {len(variants)} default figures fall inside the settled interval{chance or '.'} "
        f"Of the {len(variants)}, "
        f"{close} are within {SETTLE_PCT:g} % of the settled figure (the tolerance the warm-up settles to); "
        f"{apart} differ significantly from the settled repeats (Mann-Whitney U, p < 0.05; about "
        f"{len(variants) * 0.05:.0f} would by chance alone), the default slower in {slower} of them and "
        f"faster in {apart - slower}. A default that stopped warming up too soon would show as slower.\n\n"
        "| variant | runs | default ns/hop | default 95 % interval | warm-ups taken | settled ns/hop | "
        "settled 95 % interval | default inside | default vs settled |\n"
        "|---|---|---:|---:|---:|---:|---:|---|---|\n" + "\n".join(rows) + "\n"
    )


def inside_by_chance(n_default: int, n_settled: int, trials: int = 2000) -> float:
    """How often the median of n_default values falls inside the 95 % bootstrap interval of the median of
    n_settled values when both are drawn from one normal distribution: what "the default inside the
    settled interval" reaches at best, with no difference at all (seeded: the same share every time)."""
    import numpy as np

    rng = np.random.default_rng(29)
    inside = 0
    for _ in range(trials):
        d, s = rng.normal(size=n_default), rng.normal(size=n_settled)
        lo, hi = bootstrap_median_ci(s)
        inside += bool(lo <= np.median(d) <= hi)
    return inside / trials


def per_hop(records: list[dict]) -> list[float]:
    """A ring cell's repeats as ns/hop."""
    return [r["run_ns"] / r["count"] for r in records if r.get("count")]


POSITIONS_FROM = 21  # the iterations tested for position effects: 21..40 of each process


def position_runs(args: list[str], variants: list[str]) -> None:
    """The position-effect runs: one per variant, each a process of 40 cold iterations per N."""
    for rt in variants:
        cmd = args[:2] + ["-r", rt] + args[2:]
        print(f"   {rt}: ringbench {shlex.join(cmd)}", file=sys.stderr, flush=True)
        measure(cmd)


def stored_positions(args: list[str]) -> list[tuple[str, int]]:
    """The newest position-effect run per variant in the store, in the order measured."""
    found: dict[str, int] = {}
    pattern = re.compile(r"ringbench run ring -r (\S+) " + re.escape(shlex.join(args[2:])) + " --db ")
    for rid, command, *_ in store_rows():
        m = pattern.match(command)
        if m:
            found[m.group(1)] = rid
    return sorted(found.items(), key=lambda kv: kv[1])


def position_tests(ns: list[float]) -> tuple[float, float, float, float]:
    """(parity difference, its p, drift across the window, its p) of the iterations' ns/hop in position
    order: even against odd positions (Mann-Whitney U), and the rank correlation with the position
    (Spearman), its size the Theil-Sen slope across the window (a median of slopes: one stalled
    iteration does not make a drift); both differences relative to the window's median."""
    from scipy.stats import mannwhitneyu, spearmanr, theilslopes

    even, odd = ns[1::2], ns[0::2]  # positions 22, 24, ... and 21, 23, ...
    med = statistics.median(ns)
    diff = (statistics.median(even) - statistics.median(odd)) / med
    p_par = mannwhitneyu(even, odd, alternative="two-sided").pvalue
    p_tr = spearmanr(range(len(ns)), ns).pvalue
    change = theilslopes(ns).slope * (len(ns) - 1) / med
    return diff, float(p_par), change, float(p_tr)


def settle_columns(ns: list[float]) -> tuple[str, str]:
    """The settle rule (results.modes.unsettled) on one process's cold iterations: the position at which it
    would call the process settled, and how many windows within POSITIONS_FROM..40 it calls unsettled."""
    from ringbench.api import unsettled

    at = next((k for k in range(SETTLE_WINDOW, len(ns) + 1) if unsettled(ns[:k]) is None), None)
    tail = ns[POSITIONS_FROM - 1 :]
    windows = [tail[i : i + SETTLE_WINDOW] for i in range(len(tail) - SETTLE_WINDOW + 1)]
    flagged = sum(unsettled(w) is not None for w in windows)
    bold = "**" if flagged else ""
    return (str(at) if at else "not within 40"), f"{bold}{flagged} of {len(windows)}{bold}"


class PositionCell(NamedTuple):
    """One cell of the positions check: its process's iterations judged over POSITIONS_FROM..40."""

    rt: str
    n: int
    run: int
    first: str
    median: str
    tests: tuple[float, float, float, float]  # parity difference, its p, drift, its p (position_tests)
    settle: tuple[str, str]  # settle_columns
    q_parity: float = 1.0
    q_drift: float = 1.0

    @property
    def alternates(self) -> bool:
        return self.q_parity < 0.05 and abs(self.tests[0]) > 0.05

    @property
    def drifts(self) -> bool:
        return self.q_drift < 0.05 and abs(self.tests[2]) > 0.05


def judged_positions(pairs: list[tuple[str, int]]) -> tuple[list[PositionCell], list[str]]:
    """The positions runs' cells with their verdicts, and a row for each cell that could not be judged."""
    from scipy.stats import false_discovery_control

    measured: list[PositionCell] = []
    rows: list[str] = []
    for rt, run in pairs:
        for c in cells(run):
            recs = sorted((r for r in c.get("records", []) if r.get("count")), key=lambda r: r["position"])
            if c["status"] != "ok" or len(recs) < POSITIONS_FROM + 5:
                rows.append(f"| {rt} | {c['params'].get('n', '?'):,} | {run} | – | – | – | {c['status']} | – | – |")
                continue
            ns = [r["run_ns"] / r["count"] for r in recs]
            tail = ns[POSITIONS_FROM - 1 :]
            first = " / ".join(fmt(x) for x in ns[:3])
            measured.append(
                PositionCell(
                    rt,
                    c["params"]["n"],
                    run,
                    first,
                    fmt(statistics.median(tail)),
                    position_tests(tail),
                    settle_columns(ns),
                )
            )
    # Two tests a cell over the whole table: q, the Benjamini-Hochberg adjusted p, keeps the share of
    # false verdicts among those made near 5 % (raw p < 0.05 would make ~5 % of all the tests a verdict).
    q = false_discovery_control([p for c in measured for p in (c.tests[1], c.tests[3])]) if measured else []
    judged = [c._replace(q_parity=float(q[2 * i]), q_drift=float(q[2 * i + 1])) for i, c in enumerate(measured)]
    return judged, rows


def positions(pairs: list[tuple[str, int]]) -> str:
    measured, rows = judged_positions(pairs)
    flagged = {"parity": 0, "drift": 0}
    caught = judged = 0
    for c in measured:
        (diff, _, change, _), (settles, unsettled_windows) = c.tests, c.settle
        par, tr = c.alternates, c.drifts
        flagged["parity"] += par
        flagged["drift"] += tr
        parity = f"{'**alternates** ' if par else ''}{diff * 100:+.0f} % (q = {c.q_parity:.2f})"
        drift = f"{'**drifts** ' if tr else ''}{change * 100:+.0f} % (q = {c.q_drift:.2f})"
        judged += par or tr
        caught += (par or tr) and not unsettled_windows.startswith("0 ")  # a verdict's cell the rule catches
        if par or tr:  # whatever the rule said of the process, it did not hold still over 21-40
            settles = f"{settles}, **not settled**"
        rows.append(
            f"| {c.rt} | {c.n:,} | {c.run} | {c.first} | {c.median} | {parity} | {drift} | {settles} | "
            f"{unsettled_windows} |"
        )
    return (
        f"Of {len(measured)} cells measured, {flagged['parity']} alternate with the iteration's parity and "
        f"{flagged['drift']} drift over iterations {POSITIONS_FROM}–40 (q < 0.05 and over 5 %). A parity "
        "effect is the driver's (the machine has no notion of an iteration's parity); a drift may be the "
        "machine's, whose load changes over the quarter of an hour a variant's runs follow each other. The "
        f"settle rule calls {caught} of the {judged} cells with a verdict unsettled in "
        f"at least one window of {POSITIONS_FROM}–40. A cell with a verdict is marked **not settled** "
        f"whatever the rule said of its first iterations, here and (marked {POSITIONS_MARK}) in every table "
        "of these pages that shows the same variant at the same N on one core and one node.\n\n"
        "| variant | N | run | iterations 1 / 2 / 3, ns/hop | median of 21–40 | parity: even − odd | "
        "drift across 21–40 | settle rule: settled at | unsettled windows in 21–40 |\n"
        "|---|---:|---|---:|---:|---|---|---:|---|\n" + "\n".join(rows) + "\n"
    )


# The positions check's verdicts carried to the other tables: a variant that drifted or alternated over
# iterations 21-40 of one cold process is marked wherever a table shows it at that N on one core and one node.
POSITIONS_MARK = "§"
POSITIONS_NOTE = (
    f"{POSITIONS_MARK} not settled in the positions check at this N on one core (iterations 21–40 of one cold "
    "process drift or alternate: [positions](positions.md))."
)


def positions_unsettled(text: str) -> set[tuple[str, int]]:
    """(variant, N) of each row the positions section marks **not settled**."""
    rows = [split_row(line) for line in text.splitlines() if line.startswith("| ") and "**not settled**" in line]
    return {(r[0], int(n)) for r in rows if (n := number(r[1])) is not None}


def mark_unsettled(text: str, unsettled: set[tuple[str, int]], n: int | None = None, cores: str | None = None) -> str:
    """`text` with the first cell of each table row marked POSITIONS_MARK where its variant, at its N on one
    core and one node, is in `unsettled`, and the note under each table with a mark; N and the cores come from the
    table's N and Cores columns, else from `n` and `cores` (a section measured at one N and core count).
    Marks and notes already in `text` are written afresh."""
    out: list[str] = []
    columns: list[str] = []
    marked = False
    for line in [*text.replace(f"\n\n{POSITIONS_NOTE}", "").splitlines(), ""]:  # "" ends the last table
        if not line.startswith("|"):
            if marked:
                out += ["", POSITIONS_NOTE]
            columns, marked = [], False
        else:
            first, *rest = split_row(line)
            rt = first.removesuffix(f" {POSITIONS_MARK}")
            if not columns:
                columns = [first, *rest]
            elif not set(line) <= set("|-: "):
                row = dict(zip(columns[1:], rest, strict=False))
                found = number(row.get("N", ""))
                at_n = int(found) if found is not None else n
                one_node = row.get("nodes", "1") in ("1", "–")  # a ring across nodes is another cell
                mark = row.get("Cores", cores) == "1" and one_node and (rt, at_n) in unsettled
                line = line.replace(f"| {first} |", f"| {rt}{f' {POSITIONS_MARK}' if mark else ''} |", 1)
                marked |= mark
        out.append(line)
    return "\n".join(out[:-1]) + ("\n" if text.endswith("\n") else "")


# -- the settle rule, simulated (issue 39) --------------------------------------------------------
# Candidate settle rules replayed on stored iterations: the positions runs (40 cold iterations of one
# process per variant and N) tell where each rule would stop warming up and how far the figure measured
# there lies from the process's late level; the bench's warm-ups tell what each rule would cost there.
SIM_REPEATS = 6  # the figure "measured" after settling: the median of the next 6 iterations (the bench's repeats)
SIM_LATE = (31, 40)  # the late level: the median of iterations 31-40 (the last 10 of a positions process)


def _two_windows(w: list[float], size: int = 8) -> str | None:
    """pyperf-like: the last two windows of `size` each steady, their medians within SETTLE_PCT."""
    from ringbench.api import unsettled

    if len(w) < 2 * size:
        return "short"
    a, b = w[-2 * size : -size], w[-size:]
    if (why := unsettled(b, window=size) or unsettled(a, window=size)) is not None:
        return why
    return "shift" if abs(statistics.median(b) / statistics.median(a) - 1) * 100 > SETTLE_PCT else None


def _bounded(w: list[float], low: int = 8, high: int = 12) -> str | None:
    """The last `low`..`high` iterations steady, and their Theil-Sen change over 20 iterations under SETTLE_PCT
    even where not significant."""
    from ringbench.api import unsettled

    if (why := unsettled(w[-high:], window=min(len(w), high)) if len(w) >= low else "short") is not None:
        return why
    x = w[-high:]
    slope = statistics.median((x[j] - x[i]) / (j - i) for i in range(len(x)) for j in range(i + 1, len(x)))
    return "bound" if abs(slope) * 20 / statistics.median(x) * 100 > SETTLE_PCT else None


def settle_candidates() -> dict[str, Callable[[list[float]], str | None]]:
    """The rules weighed, by name: each takes a process's warm-up figures after its JIT floor and says why
    they are not steady yet, or None."""
    from ringbench.api import unsettled

    def window(size: int, at_least: int = 0) -> Callable[[list[float]], str | None]:
        return lambda w: "short" if len(w) < at_least else unsettled(w, window=size)

    return {
        "window 8 (until now)": window(8),
        "window 10": window(10),
        "window 12": window(12),
        "window 16": window(16),
        "window 8, ≥ 20 iterations": window(8, 20),
        "two windows of 8": _two_windows,
        "window 8–12, change < 5 %": _bounded,
    }


SETTLE_OLD, SETTLE_NEW = "window 8 (until now)", "window 10"  # the rule replaced, the rule chosen


def settle_point(
    ns: list[float], seconds: list[float], units: list[int], floor: int, rule: Callable[[list[float]], str | None]
) -> tuple[int | None, bool]:
    """Where `rule` stops a default process warming up, replayed on its iterations as measure.py does
    (a JIT floor first, then the window; at most SETTLE_MAX warm-ups after the floor or SETTLE_S):
    (the iteration it decides at, whether settled), or (None, False) when the iterations run out first."""
    from ringbench.api import JIT_WARMUP_CAP_S, JIT_WARMUP_ITERATIONS, SETTLE_MAX, SETTLE_S

    passed = floor_done = 0
    clock = 0.0
    for k, (t, u) in enumerate(zip(seconds, units, strict=True), 1):
        clock += t
        if passed < floor and k <= JIT_WARMUP_ITERATIONS and clock - seconds[0] < JIT_WARMUP_CAP_S:
            passed += u
            floor_done = k
            continue
        passed += u
        if rule(ns[floor_done:k]) is None:
            return k, True
        if k - floor_done >= SETTLE_MAX or clock > SETTLE_S:
            return k, False
    return None, False


def settle_simulation() -> str:
    """Each candidate settle rule replayed on the stored positions runs and the newest bench run: how many
    cells land within SETTLE_PCT of their late level or end "not settled", and what the bench would spend."""
    from ringbench.api import jit_floors as api_jit_floors
    from ringbench.api import load

    floors = api_jit_floors()
    rules = settle_candidates()
    pos_args = next(args for name, _, args, _ in MEASUREMENTS if name == "positions")
    series = []  # (variant, N, run, ns/hop, seconds, units, floor)
    for rt, run in stored_positions(pos_args):
        for c in load(run, DB).cells:
            recs = sorted((r for r in c.records if r.get("count")), key=lambda r: r["position"])
            if c.ok and len(recs) >= SIM_LATE[1]:
                series.append((rt, c.params["n"], run, [r["run_ns"] / r["count"] for r in recs],
                               [(r["run_ns"] + r["setup_ns"]) / 1e9 for r in recs],
                               [r["count"] + r.get("ready", 0) for r in recs], floors.get(rt, 0)))  # fmt: skip
    bench = next((rid for rid, command, *_ in reversed(store_rows()) if command.startswith("ringbench bench ")), None)
    if not series or bench is None:
        return "No positions runs or no bench run in the store: nothing to simulate.\n"
    procs = []  # (warm-up figures with the measured ones after them, floor warm-ups, warm-ups taken,
    # s/iteration, repeats measured, settled)
    for c in load(bench, DB).cells:
        for p, warm in c.extra.get("warmup_values", {}).items():
            recs = [r for r in c.records if str(r.get("process", 1)) == p and r.get("count")]
            if recs:
                its = statistics.median((r["run_ns"] + r["setup_ns"]) / 1e9 for r in recs)
                procs.append(
                    (warm + per_hop(recs), recs[0].get("floor_warmups", 0), len(warm), its, len(recs),
                     recs[0].get("settled", True))
                )  # fmt: skip

    def judge(rule: Callable[[list[float]], str | None]) -> list[tuple[str, int | None, float | None]]:
        out: list[tuple[str, int | None, float | None]] = []
        for _, _, _, ns, secs, units, floor in series:
            k, ok = settle_point(ns, secs, units, floor, rule)
            late = statistics.median(ns[SIM_LATE[0] - 1 : SIM_LATE[1]])
            if k is None:
                out.append(("past", None, None))
            elif not ok:
                out.append(("not settled", k, None))
            else:
                out.append(("settled", k, statistics.median(ns[k : k + SIM_REPEATS] or ns[-1:]) / late - 1))
        return out

    def cost(rule: Callable[[list[float]], str | None]) -> tuple[int, float, int]:
        from ringbench.api import SETTLE_MAX

        extra, seconds, flagged = 0, 0.0, 0
        for figures, floor, taken, its, *_ in procs:
            # past what was measured, the process goes on as its last 8 iterations went (their noise, no drift)
            figures = figures + figures[-8:] * 8
            k = floor + 1
            while k < len(figures) and rule(figures[floor:k]) is not None and k - floor < SETTLE_MAX:
                k += 1
            flagged += rule(figures[floor:k]) is not None
            extra += k - taken
            seconds += (k - taken) * its
        return extra, seconds, flagged

    judged = {name: judge(rule) for name, rule in rules.items()}
    lines = [
        f"Positions runs {min(s[2] for s in series)}–{max(s[2] for s in series)} ({len(series)} cells: "
        f"{len({s[0] for s in series})} variants at N = 1,000 and 10,000, 40 cold iterations each) and bench run "
        f"{bench} ({len(procs)} driver processes), replayed by `scripts/results.py --simulate-settle`. A cell "
        f'passes when the rule ends it "not settled", or settles it where the median of the next {SIM_REPEATS} '
        f"iterations lies within {SETTLE_PCT:g} % of the median of iterations {SIM_LATE[0]}–{SIM_LATE[1]}. "
        '"Past 40": the JIT floor (10 M hops, 50 iterations or 2 s) outlasts the 40 stored iterations, so the '
        "rule is not reached. Bench cost: warm-up iterations beyond those the bench took, at each process's own "
        "time per iteration (its phases only), assuming a process goes on as its last 8 iterations went.\n",
        "| rule | pass | fail | not settled | past 40 | bench: extra warm-ups | extra s | processes not settled |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, res in judged.items():
        fails = sum(s == "settled" and abs(e or 0) * 100 > SETTLE_PCT for s, _, e in res)
        unsettled_n = sum(s == "not settled" for s, _, _ in res)
        past = sum(s == "past" for s, _, _ in res)
        extra, seconds, flagged = cost(rules[name])
        lines.append(
            f"| {name} | {len(res) - past - fails} | {fails} | {unsettled_n} | {past} | {extra:+,} | "
            f"{seconds:+.0f} | {flagged} of {len(procs)} |"
        )

    def text(r: tuple[str, int | None, float | None]) -> str:
        s, k, e = r
        if s != "settled":
            return f"{s} at {k}" if k else s
        mark = "**" if abs(e or 0) * 100 > SETTLE_PCT else ""
        return f"{k}: {mark}{(e or 0) * 100:+.1f} %{mark}"

    checks = drift_candidates()
    chosen = checks[DRIFT_CHOSEN]
    lines += ["", *drift_table(series, judged[SETTLE_NEW], procs, checks)]
    lines += [
        "",
        f"Each cell under the rule until now, the rule chosen ({SETTLE_NEW}), and with the drift check after "
        f"it ({DRIFT_CHOSEN}): the iteration it settles at and the error of the figure measured there against "
        f'the late level (bold: over {SETTLE_PCT:g} %); a cell the check flags reads "not settled" with its '
        "move.\n",
        f"| variant | N | run | {SETTLE_OLD} | {SETTLE_NEW} | {SETTLE_NEW} + drift check |",
        "|---|---:|---:|---|---|---|",
    ]
    for s, old, new in zip(series, judged[SETTLE_OLD], judged[SETTLE_NEW], strict=True):
        why = _drift_verdict(s[3], new, chosen)
        checked = f"not settled at {new[1]} ({why})" if why else text(new)
        lines.append(f"| {s[0]} | {s[1]:,} | {s[2]} | {text(old)} | {text(new)} | {checked} |")
    return "\n".join(lines) + "\n"


# The drift check after the settle window (issue 39): candidate checks replayed on the same iterations.
# Each compares the window that passed with the iterations after it (the process's measured repeats, and
# as many unreported ones as the check wants); a cell it flags ends "not settled" instead of settled.
DriftCheck = tuple[int, Callable[[list[float], list[float]], str | None]]  # (iterations after, verdict)
DRIFT_CHOSEN = "window against the next 3 (chosen)"


def drift_candidates() -> dict[str, DriftCheck]:
    """The drift checks weighed, by name: how many iterations after the window each looks at, and its
    verdict on (the window, those iterations)."""
    from ringbench.api import drifted, unsettled

    def whole(w: list[float], after: list[float]) -> str | None:
        return unsettled(w + after, window=len(w) + len(after))

    return {
        "window against the next 2": (2, drifted),
        DRIFT_CHOSEN: (3, drifted),
        "window against the next 4": (4, drifted),
        "window against the next 6": (6, drifted),
        "window against the next 10": (10, drifted),
        "trend test over window + next 3": (3, whole),
        "trend test over window + next 6": (6, whole),
    }


def _drift_verdict(ns: list[float], settled_at: tuple[str, int | None, float | None], check: DriftCheck) -> str | None:
    """The check's verdict on a positions cell the settle rule settled at iteration k: its window (the k-th
    and the SETTLE_WINDOW - 1 before it) against the iterations after it; None for a cell not settled."""
    status, k, _ = settled_at
    if status != "settled" or k is None:
        return None
    after, verdict = check
    return verdict(ns[k - SETTLE_WINDOW : k], ns[k : k + after])


def drift_table(
    series: list, settled: list[tuple[str, int | None, float | None]], procs: list, checks: dict[str, DriftCheck]
) -> list[str]:
    """The drift checks scored on the cells the chosen settle rule judges: failures caught (settled over
    SETTLE_PCT from the late level, now "not settled"), good cells flagged, and the bench's cost (iterations
    beyond each process's repeats, at its own time per iteration) and processes flagged on what it stored."""
    fails = [i for i, (s, _, e) in enumerate(settled) if s == "settled" and abs(e or 0) * 100 > SETTLE_PCT]
    passes = [i for i, (s, _, _) in enumerate(settled) if s != "past" and i not in fails]
    out = [
        f"The drift check after the window, replayed on the same cells under {SETTLE_NEW}: of the {len(fails)} "
        f'cells it settles over {SETTLE_PCT:g} % from their late level, how many the check flags "not '
        f'settled" (caught), and of the {len(passes)} it passes (settled within {SETTLE_PCT:g} %, or not '
        "settled), how many it flags needlessly. Bench cost: the iterations a process runs after its repeats "
        f"so that the check has its iterations after the window (the bench run: "
        f"{statistics.median(p[4] for p in procs) if procs else 0:g} repeats a process), at each process's "
        "own time per iteration; processes flagged: the check on the window and the repeats the bench "
        "stored (at most that many iterations after it).\n",
        "| check | caught | flagged needlessly | bench: extra iterations | extra s | processes flagged "
        "| caught cells |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for name, check in checks.items():
        after, verdict = check
        caught = [i for i in fails if _drift_verdict(series[i][3], settled[i], check)]
        needless = sum(_drift_verdict(series[i][3], settled[i], check) is not None for i in passes)
        # a process settled by its window runs the check; one that reached the cap is flagged already
        checked = [p for p in procs if p[5]]
        extra = sum(max(0, after - repeats) for *_, repeats, _ in checked)
        seconds = sum(max(0, after - repeats) * its for _, _, _, its, repeats, _ in checked)
        flagged = sum(
            verdict(figures[taken - SETTLE_WINDOW : taken], figures[taken : taken + after]) is not None
            for figures, _, taken, *_ in checked
        )
        names = ", ".join(f"{series[i][0]} at {series[i][1]:,}" for i in caught)
        out.append(
            f"| {name} | {len(caught)} of {len(fails)} | {needless} of {len(passes)} | +{extra:,} | "
            f"+{seconds:.0f} | {flagged} of {len(procs)} | {names or '–'} |"
        )
    return out


FAULTS = """\
| fault | what ringbench does | what is kept | test |
|---|---|---|---|
| driver hangs | kills its process group at the timeout; cell `timeout` | every other cell | `test_a_fault_in_a_sweep_costs_one_cell_only[hang]`, `test_a_slow_driver_past_its_timeout_is_killed_with_its_children` |
| driver crashes, exits 1, prints garbage, a wrong count, a missing or negative field, an impossible time | cell `failed` with the reason; never a number | every other cell | `test_a_fault_in_a_sweep_costs_one_cell_only[...]` |
| spawn phase ends before every process is ready | cell `failed` (`ready` differs from the processes) | every other cell | `test_ring_count_is_exact` and the `ready` checks of the conformance suite |
| a cell too large for the machine | refused before launch with the limit; n/a in sweeps and `--runtime all` | every other cell | `test_sweep_records_refused_cells_with_their_reason`, `test_run_all_shows_a_cell_too_large_as_na_instead_of_refusing_everything` |
| Ctrl-C or SIGTERM | stops, run `interrupted`, exit 130, hint `ringbench sweep --resume N` | every finished cell (the repeats of the cell under way are not kept) | `test_sigint_keeps_finished_cells_and_resume_completes`, `test_the_hint_after_an_interrupted_run_is_a_command_that_works` |
| --budget used up | stops between cells, run `budget`, exit 3 | every finished cell | `test_budget_stops_cleanly_and_resume_finishes_without_redoing` |
| the orchestrator is killed (SIGKILL) | the kernel kills the driver at once (PR_SET_PDEATHSIG); the run reads `abandoned` with cells done/planned; `sweep --resume` finishes it | every finished cell | `test_driver_dies_with_the_orchestrator[*]` (every driver), `test_a_killed_orchestrator_leaves_an_abandoned_run_no_driver_and_resume_finishes` |
| resuming a run another live process is measuring | refused in one line, exit 1; no duplicate cells, ever | the live run | `test_resuming_a_run_that_is_still_being_measured_is_refused`, `test_two_processes_resuming_one_run_cannot_both_measure_it` |
| store not SQLite, from a newer ringbench, missing | one line naming the file, exit 2, the file untouched, no side files | the file | `test_a_file_that_is_not_a_store_is_one_line_exit_2_for_every_command[*]`, `test_a_store_from_a_newer_ringbench_is_refused`, `test_a_missing_store_is_bad_input_for_reading_commands` |
| store read-only, locked past the timeout, disk full | one line, exit 1, no stray -wal/-shm files | the store as it was | `test_a_read_only_store_is_one_line_exit_1_and_leaves_no_files` and tests/test_store_faults.py |
| two writers on one store | both runs complete (WAL, one transaction per cell) | everything | `test_two_writers_on_one_store_lose_nothing` |
"""  # noqa: E501


class Stored(NamedTuple):
    """A measurement's newest run in the store, and when and where it was measured."""

    run: int
    wall: float
    commit: str
    started: str
    load: str


def store_rows() -> list[tuple]:
    """Every complete run in the published store: id, command, start, finish, environment (JSON). A run
    that was interrupted is left out (`ringbench sweep --resume RUN` finishes it, then it counts)."""
    import sqlite3

    if not DB.exists():
        return []
    try:
        con = sqlite3.connect(f"file:{DB}?mode=ro", uri=True)
        try:
            return con.execute(
                "SELECT id, command, started_at, finished_at, environment FROM runs "
                "WHERE status = 'complete' ORDER BY id"
            ).fetchall()
        finally:
            con.close()
    except sqlite3.Error as e:
        raise SystemExit(f"cannot read {DB} ({e}); move it away, or measure with --fresh") from None


def stored(row: tuple) -> Stored:
    rid, _, start, end, env = row
    env = json.loads(env)
    return Stored(
        rid,
        run_wall(start, end),
        env.get("git_revision", "?"),
        datetime.fromisoformat(start).strftime("%Y-%m-%d %H:%M UTC"),
        " ".join(f"{x:.2f}" for x in env.get("loadavg", [])),
    )


def stored_runs() -> dict[str, Stored]:
    """Each measurement's newest run in the store."""
    rows = store_rows()
    found: dict[str, Stored] = {}
    keys = {k for env in MEASURED_WITH.values() for k in env}
    for name, _, args, _ in MEASUREMENTS:
        prefix = f"ringbench {shlex.join(args)} --db "
        # Runs of one command told apart by the variables they ran with (absent ones included).
        with_env = MEASURED_WITH.get(name, {})
        match = [
            r
            for r in rows
            if r[1].startswith(prefix)
            and {k: v for k, v in json.loads(r[4]).get("tuning_env", {}).items() if k in keys} == with_env
        ]
        if match:
            found[name] = stored(match[-1])
    return found


def provenance(runs: list[Stored]) -> str:
    """Where a section's runs come from: the commit(s), when the first started, its load average."""
    commits = ", ".join(dict.fromkeys(r.commit for r in runs))
    first = min(runs, key=lambda r: r.run)
    return f"measured at commit {commits}, started {first.started}, load average then {first.load}"


# -- the documents: a summary page and a page per topic ------------------------------------------------
PAGES_DIR = REPO / "docs" / "results"
GROWTH = "growth"  # the section derived from ring-10k and ring-1m
FAULTS_HEADING = "Reliability: faults, what ringbench does, what is kept, the test that proves it"
VERSIONS_HEADING = "Runtimes, kind of hop and versions"
HEADINGS = {name: heading for name, heading, _, _ in MEASUREMENTS} | {GROWTH: GROWTH_HEADING}
BENCH_HEADING = HEADINGS["bench"]
# The last bench published under contract 3 (docs/results.md at this commit), for "what moved since contract 3".
CONTRACT_3 = "c597c6e"
AWAITS = "**Awaits re-measuring at a committed state.**"


class Page(NamedTuple):
    file: str  # under docs/results/
    title: str
    about: str  # its line in the summary's list of topics
    sections: list[str]  # measurement names, GROWTH, "faults", "side-by-side", "versions"


PAGES = [
    Page(
        "bench.md",
        "The default comparison: `make bench`",
        "every runtime in each ranked idiom, one core and all cores, N = 1,000: the whole table (spread, "
        "CPU/wall, warm-ups, processes), its warnings, and what moved since contract 2",
        ["bench"],
    ),
    Page(
        "steady.md",
        "Steady state",
        "each variant's default figure against its settled one (N = 1,000, one core): whether the default "
        "prints the settled runtime",
        ["steady"],
    ),
    Page(
        "positions.md",
        "Position effects",
        "40 cold iterations of one process per variant: how far from settled a process starts, parity and "
        "drift over iterations 21–40, and where the settle rule stops",
        ["positions"],
    ),
    Page(
        "rings.md",
        "The ring as it grows",
        "the ring at each N from 1,000 (with the tuned variants) to 1,000,000, the cost per hop as it grows and "
        "what stops it, and the largest rings (c-coro at 100,000,000, rust-tokio at 10,000,000)",
        ["ring-1k", "ring-10k", "ring-100k", "ring-1m", GROWTH, "scale", "scale-tokio"],
    ),
    Page("memory.md", "Bytes per idle process", "every runtime at N = 100,000, the whole table", ["memory"]),
    Page(
        "tree.md",
        "The million-process tree (skynet)",
        "1,111,111 processes that spawn their children and sum their answers, the whole table",
        ["tree"],
    ),
    Page(
        "nodes.md",
        "Rings across nodes",
        "a ring over 2 and 4 Erlang nodes: the cost of a cross-node hop, the token count, the distribution "
        "buffer, the cluster view; the same ring on erlang, elixir, pekko and caf",
        [name for name, *_ in MEASUREMENTS if name.startswith("nodes")],
    ),
    Page(
        "side-by-side.md",
        "Side by side",
        "each driver against independent programs of its runtime (`scripts/fidelity.py`), and `ringbench "
        "perf` against erlperf and timeit (`scripts/perf_versus.py`)",
        ["side-by-side"],
    ),
    Page(
        "reliability.md",
        "Reliability",
        "each fault, what ringbench does, what is kept, and the test that proves it",
        ["faults"],
    ),
    Page(
        "installations.md",
        "Versions of a runtime",
        "one driver on two installations of its runtime (JDK 17 against 25, Go 1.26.8 against 1.27.3)",
        ["installations-java", "installations-go"],
    ),
    Page("runtimes.md", "Runtimes", "each runtime's kind of hop and version", ["versions"]),
]


def page_of(name: str) -> Page:
    return next(p for p in PAGES if name in p.sections)


def documents() -> list[str]:
    """The texts a kept section is looked for in: the topic pages, then the summary (which held every
    section before the document was split into pages)."""
    pages = sorted(PAGES_DIR.glob("*.md")) if PAGES_DIR.is_dir() else []
    return [p.read_text() for p in pages] + ([DOC.read_text()] if DOC.exists() else [])


def section_of(text: str, heading: str) -> str:
    """The section under `## heading` in a text, to the next `## ` heading or the end."""
    start = text.find(f"## {heading}\n")
    while start > 0 and text[start - 1] != "\n":
        start = text.find(f"## {heading}\n", start + 1)
    if start < 0:
        return ""
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else None].rstrip("\n") + "\n"


def kept(heading: str) -> str:
    """The section under `heading` as the documents have it now: what is written when none of its runs
    is in this store (a store is not committed, so on a new machine measuring one section must not drop
    the others)."""
    for text in documents():
        found = section_of(text, heading)
        if found:
            return found
    return ""


def kept_commits(sections: list[str]) -> list[str]:
    """The commits kept sections name ("measured at commit A, B, started ...")."""
    return [
        c
        for text in sections
        for found in re.findall(r"measured at commit (.+?), started", text)
        for c in found.split(", ")
    ]


def is_dirty(commit: str) -> bool:
    """A revision with uncommitted changes, as ringbench records it ("-dirty") or a document wrote it."""
    return commit.endswith("-dirty") or "uncommitted" in commit


def awaiting(names: list[str], text: str, why: str) -> str:
    """A section whose figures are not published: its heading, its prose when that explains the method,
    and a line saying it awaits re-measuring at a committed state, with the command that does it."""
    heading, _, rest = text.partition("\n\n")
    first = rest.split("\n\n", 1)[0].strip()
    prose = f"{first}\n\n" if first and not first.startswith(("Command", "|", "AMD", "`", ">")) else ""
    return (
        f"{heading}\n\n{prose}{AWAITS} {why}, so they are not published. To measure it on an idle machine "
        f"from a clean checkout: `.venv/bin/python scripts/results.py --only {','.join(names)}`\n"
    )


def publishable(name: str, text: str) -> str:
    """A kept section as it may be published: as it is, unless it names a commit with uncommitted changes
    (figures no checkout reproduces), whose tables are then replaced by the line saying it awaits
    re-measuring (`awaiting`)."""
    bad = [c for c in kept_commits([text]) if is_dirty(c)]
    if not bad:
        return text
    runs = re.search(r"\((runs? [\d–-]+),", text)  # noqa: RUF001
    commits = ", ".join(c.removesuffix("-dirty") for c in bad)
    return awaiting(
        [name],
        text,
        f"Its figures{f' ({runs.group(1)})' if runs else ''} were taken at commit {commits} with uncommitted "
        "changes, which no checkout reproduces",
    )


def refuse_dirty(used: dict[str, list[Stored]]) -> None:
    """Refuse to write a section from runs measured with uncommitted changes (as a dirty tree is refused):
    the document publishes figures of commits only."""
    bad = {name: [r for r in runs if is_dirty(r.commit)] for name, runs in used.items()}
    bad = {name: runs for name, runs in bad.items() if runs}
    if bad:
        which = "; ".join(
            f"{name}: run {', '.join(str(r.run) for r in runs)} at {', '.join(dict.fromkeys(r.commit for r in runs))}"
            for name, runs in bad.items()
        )
        raise SystemExit(
            f"refused: sections measured with uncommitted changes ({which}); measure them again from a clean "
            f"checkout: .venv/bin/python scripts/results.py --only {','.join(bad)}"
        )


def side_by_side() -> list[str]:
    """The sections scripts/fidelity.py and scripts/perf_versus.py wrote, carried over unchanged: from the
    side-by-side page, with any block those scripts have written into docs/results.md since (they add
    their block at its end when they do not find it there) in place of the page's."""
    page = PAGES_DIR / page_of("side-by-side").file
    base = page.read_text() if page.exists() else (DOC.read_text() if DOC.exists() else "")
    newer = DOC.read_text() if page.exists() and DOC.exists() else ""
    out = []
    for start_mark, begin, end in (
        (FIDELITY_HEADING, "<!-- fidelity:begin -->", "<!-- fidelity:end -->"),
        ("<!-- perf-versus:begin -->", "<!-- perf-versus:begin -->", "<!-- perf-versus:end -->"),
    ):
        start, stop = base.find(start_mark), base.find(end)
        text = base[start : stop + len(end)] if start >= 0 and stop >= 0 else ""
        if begin in newer and end in newer:
            block = newer[newer.index(begin) : newer.index(end) + len(end)]
            if begin in text:
                text = text[: text.index(begin)] + block + text[text.index(end) + len(end) :]
            else:
                heading = newer.rfind("\n## ", 0, newer.index(begin))
                text = newer[heading + 1 if heading >= 0 else newer.index(begin) : newer.index(end) + len(end)]
        if text:
            out.append(text + "\n")
    return out


def table(text: str) -> list[dict[str, str]]:
    """The rows of the first Markdown table in a text, each as {column name: cell text}."""
    lines = text.splitlines()
    for i, line in enumerate(lines[:-1]):
        if line.startswith("| ") and lines[i + 1].startswith("|---"):
            head = split_row(line)
            body = lines[i + 2 :]
            end = next((k for k, r in enumerate(body) if not r.startswith("|")), len(body))
            return [dict(zip(head, split_row(r), strict=False)) for r in body[:end]]
    return []


def what_moved(text: str) -> str:
    """What moved between the installations of a version table, from its rows: each row whose Rel % against the
    default installation is significant (✓), and how many are not."""
    rows = [r for r in table(text) if "@" in r.get("Runtime", "")]
    moved = [r for r in rows if "✓" in r.get("Rel %", "")]
    lines = [
        f"- {r['Runtime']}, {r['Cores']} core(s), N = {r['N']}: {r['ns/hop']} ns/hop, "
        f"{r['Rel %'].replace(' ✓', '')} % of the default installation's throughput (p {r.get('p', '?')})"
        for r in moved
    ]
    same = len(rows) - len(moved)
    head = "**What moved between the versions** (✓ rows: a difference past the spread between processes):"
    if not moved:
        return f"**What moved between the versions**: nothing past the spread between processes ({same} rows ≈)."
    return "\n".join([head, *lines, f"- the other {same} row(s): no significant difference (≈)."])


def split_row(line: str) -> list[str]:
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def number(text: str) -> float | None:
    m = re.fullmatch(r"([\d,]+(?:\.\d+)?)\D*", text.strip())
    return float(m.group(1).replace(",", "")) if m else None


def command_line(text: str) -> str:
    """A section's provenance line ("Command: `...` (run N, ... measured at commit C, ...)")."""
    return next((line for line in text.splitlines() if line.startswith(("Command: ", "Commands: "))), "")


def lead(text: str) -> str:
    """The paragraph a generated section prints between its command and its table: its findings."""
    paragraphs = text.split("\n\n")
    at = next((i for i, p in enumerate(paragraphs) if p.startswith("|")), None)
    if at is None or at == 0 or paragraphs[at - 1].startswith(("Command", "## ")):
        return ""
    return paragraphs[at - 1].strip()


def cores_of(row: dict[str, str]) -> str:
    return "1" if row.get("Cores") == "1" else "all"


def by_runtime(rows: list[dict[str, str]]) -> dict[str, dict[str, dict[str, str]]]:
    """A bench table's rows as {runtime: {"1": row, "all": row}}, in the table's order."""
    out: dict[str, dict[str, dict[str, str]]] = {}
    for r in rows:
        if "Runtime" in r:
            out.setdefault(r["Runtime"], {})[cores_of(r)] = r
    return out


def link(name: str) -> str:
    p = page_of(name)
    return f"[{p.title}](results/{p.file})"


def absent(name: str, text: str) -> str:
    """The summary's line for a section that has no figures to show."""
    if AWAITS in text:
        return f"{AWAITS} See {link(name)}.\n"
    return f"Not measured yet: `.venv/bin/python scripts/results.py --only {name}`.\n"


def headline_bench(text: str) -> str:
    rows = by_runtime(table(text))
    if not rows or AWAITS in text:
        return absent("bench", text)
    cpu = any("CPU ns/hop" in r for cs in rows.values() for r in cs.values())
    out = [
        "| runtime | hop | 1 core: ns/hop | CPU ns/hop | all cores: ns/hop | CPU ns/hop | all cores: Rel % |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    one_thread = False
    for rt, cs in rows.items():
        one, every = cs.get("1", {}), cs.get("all", {})
        mark = " †" if every.get("Cores") == "all:1t" else ""
        one_thread |= bool(mark)
        hop = (one or every).get("hop", "")
        out.append(
            f"| {rt} | {hop} | {one.get('ns/hop', '–')} | {one.get('CPU ns/hop', '–')} | "
            f"{every.get('ns/hop', '–')}{mark} | {every.get('CPU ns/hop', '–')} | {every.get('Rel %', '–')} |"
        )
    notes = [f"{command_line(text)}. The whole table, its spread and its warnings: {link('bench')}."]
    if one_thread:
        notes.append("† all cores offered, but this runtime runs every process on one thread.")
    cells = " ".join(out[2:])
    if "⁺" in cells:
        notes.append("⁺ the message phase took more than one core's worth of CPU time.")
    if "~" in cells:
        notes.append("~ not settled: the warm-ups reached their cap before the figure settled.")
    if not cpu:
        notes.append(
            "This bench predates CPU ns/hop (contract 4), so that column is empty; its CPU/wall is in the whole table."
        )
    return "\n".join(out) + "\n" + "".join(f"\n{n}\n" for n in notes)


def headline(name: str, text: str, columns: list[str]) -> str:
    """A compact copy of a section's table: the runtime and the named columns, cells as printed."""
    rows = [r for r in table(text) if "Runtime" in r]
    if not rows or AWAITS in text:
        return absent(name, text)
    align = "".join("---|" if c == "hop" else "---:|" for c in columns)
    out = ["| " + " | ".join(["runtime", *columns]) + " |", "|---|" + align]
    measured: list[str] = []
    refused: list[str] = []
    for r in rows:
        cells = [r.get(c, "") for c in columns]
        if "n/a" in cells:  # the footnote's number ([1]) and the empty cells after it are the whole table's
            at = cells.index("n/a")
            cells = cells[: at + 1] + [""] * (len(cells) - at - 1)
        (refused if "n/a" in cells else measured).append("| " + " | ".join([r["Runtime"], *cells]) + " |")
    out += measured + refused
    notes = [f"{command_line(text)}. The whole table and its notes: {link(name)}."]
    if refused:
        notes.append("n/a: a cell the machine's limits refuse; the reasons are under the whole table.")
    return "\n".join(out) + "\n" + "".join(f"\n{n}\n" for n in notes)


CONTRACT_4 = """\
What changed in how figures are taken (contract 4, issue 39):

- The fresh driver process is the unit of every interval and test: intervals resample processes, then
  iterations within each (a two-stage bootstrap), and a difference is tested on per-process medians
  ([docs/statistics.md](statistics.md)); a cell is measured in 3 fresh processes (contract 3: 6 repeats in 2 processes,
  tested as 6 independent draws).
- CPU ns/hop (the driver process's CPU time over the message phase, per hop) beside wall ns/hop.
- Settled means no significant drift or alternation over a window of the last 8 iterations (contract 3:
  two iterations in a row within 5 %); a JIT runtime's floor is counted in hops (10 M hops, 50
  iterations or 2 s), not in seconds of timed phases (3 s).
- The cells' order is shuffled each round (seeded, recorded), not alphabetical.
- java-threads/stock and java-virtual/stock pass messages through the JDK's LinkedBlockingQueue; the
  hand-written ParkBox is its own `parkbox` variant, ranked with the hand-written mailboxes.
- One spawn boundary: go, crystal and caf end the spawn phase when every process is blocked in its
  first receive, signalled as in their ring, as the other drivers do.
"""


def machine_of(section: str) -> str:
    """The CPU a section's run printed in its header line ("AMD EPYC · 2 CPU(s) · Linux …")."""
    found = re.search(r"^(.+?) · \d+ CPU\(s\)", section, re.M)
    return found.group(1) if found else "an unnamed machine"


def since_contract_3(now: str) -> str:
    """The newest bench beside the last bench published under contract 3, per runtime and core setting."""
    then = section_of(sh(["git", "show", f"{CONTRACT_3}:docs/results.md"]).stdout, BENCH_HEADING)
    intro = (
        f"The bench published under contract 3 (docs/results.md at {CONTRACT_3}: "
        f"{command_line(then).removeprefix('Command: ')}) beside the newest bench. "
    )
    if not then:
        return f"The contract 3 bench is not in this checkout's history ({CONTRACT_3}).\n\n" + CONTRACT_4
    if not table(now) or AWAITS in now or command_line(now) == command_line(then):
        return (
            intro + "**Awaits the bench**: no bench has been measured under contract 4 yet (the bench on "
            f"{link('bench')} is still contract 3's). `.venv/bin/python scripts/results.py --only bench`, on an "
            "idle machine from a clean checkout, measures it; this section then sets the two side by side.\n\n"
            + CONTRACT_4
        )
    old, new = by_runtime(table(then)), by_runtime(table(now))
    out = [
        "| runtime | 1 core: then | now | now/then | all cores: then | now | now/then |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    ratios: dict[str, str] = {}
    for rt in list(new) + [r for r in old if r not in new]:
        cells = []
        for cores in ("1", "all"):
            a, b = old.get(rt, {}).get(cores, {}).get("ns/hop", "–"), new.get(rt, {}).get(cores, {}).get("ns/hop", "–")
            x, y = number(a), number(b)
            cells += [a, b, f"{y / x:.2f}" if x and y else "–"]
        ratios[rt] = cells[2]
        out.append(f"| {rt} | " + " | ".join(cells) + " |")
    machines = (machine_of(then), machine_of(now))
    caveat = (
        f"**Two machines**: then {machines[0]}, now {machines[1]}. The floor (c-coro, a state machine doing no "
        f"runtime's work) moved by {ratios.get('c-coro', '–')} at one core between them: read every ratio "
        "against it; the ranking within each table, not the ratio, is what the two runs can compare. "
        if machines[0] != machines[1]
        else ""
    )
    return (
        intro
        + caveat
        + f"Wall ns/hop, the medians as the two tables print them; now: {command_line(now).removeprefix('Command: ')}. "
        "A runtime measured in only one of the two has – in the other. A ratio is not a test: the whole "
        f"table ({link('bench')}) marks what is significant.\n\n" + "\n".join(out) + "\n\n" + CONTRACT_4
    )


def page_text(page: Page, texts: list[str]) -> str:
    return (
        f"# ringbench results: {page.title}\n\nPart of [ringbench results](../results.md) (the machine, how to "
        "read the tables, the headline figures). Written by `scripts/results.py`; each section names its "
        "command, its run and the commit it was measured at.\n\n" + "\n".join(texts)
    )


def render(commit: str, runtimes: list[dict]) -> dict[Path, str]:
    """The summary and the topic pages, from the newest run of every measurement in the store and, for a
    section none of whose runs the store holds, the section as the documents have it."""
    found = stored_runs()
    by_id = {row[0]: stored(row) for row in store_rows()}
    args_of = {name: args for name, _, args, _ in MEASUREMENTS}
    measured_steady = stored_steady(args_of["steady"])
    done_positions = stored_positions(args_of["positions"])
    used: dict[str, list[Stored]] = {name: [got] for name, got in found.items()}
    if measured_steady:
        used["steady"] = [by_id[i] for _, d, s in measured_steady for i in d + s]
    if done_positions:
        used["positions"] = [by_id[i] for _, i in done_positions]
    refuse_dirty(used)
    if not used and not documents():
        raise SystemExit(f"nothing to write: no runs in {DB} and no document to keep sections from")
    sections: dict[str, str] = {}
    kept_texts: list[str] = []  # sections measured elsewhere, whose runs this store does not hold

    def keep(name: str) -> None:
        text = kept(HEADINGS[name])
        if not text:
            return
        if (
            name == GROWTH
            and AWAITS not in text
            and any(AWAITS in sections.get(n, "") for n in ("ring-10k", "ring-1m"))
        ):
            text = awaiting(
                ["ring-10k", "ring-1m"],
                text,
                "Its figures are quotients of those of the two rings above, which await re-measuring",
            )
        text = publishable(name, text)
        sections[name] = text
        kept_texts.append(text)

    runs: dict[str, int] = {}
    for name, heading, args, why in MEASUREMENTS:
        if name in ("steady", "positions"):
            ids = [r.run for r in used.get(name, [])]
            if not ids:
                keep(name)
            elif name == "steady":
                sections[name] = (
                    f"## {heading}\n\n{why}\n\nCommands: `ringbench {shlex.join(args[:2])} -r VARIANT "
                    f"{shlex.join(args[2:] + DEFAULT_SLICE)}` and the same with "
                    f"`{shlex.join(SETTLED_SLICE)}`, {STEADY_SLICES} times in turns, each variant's "
                    f"later runs with the m its first calibrated (runs {min(ids)}–{max(ids)}, "
                    f"{provenance(used[name])})\n\n" + steady(measured_steady)
                )
            else:
                sections[name] = (
                    f"## {heading}\n\n{why}\n\nCommands: `ringbench {shlex.join(args[:2])} -r VARIANT "
                    f"{shlex.join(args[2:])}` (runs {min(ids)}–{max(ids)}, "  # noqa: RUF001
                    f"{provenance(used[name])})\n\n" + positions(done_positions)
                )
            continue
        if name not in found:
            keep(name)
            if name == "ring-1m":
                keep(GROWTH)
            continue
        got = found[name]
        run = runs[name] = got.run
        env = "".join(f"{k}={shlex.quote(v)} " for k, v in MEASURED_WITH.get(name, {}).items())
        text = (
            f"## {heading}\n\n{why}\n\nCommand: `{env}ringbench {shlex.join(args)}` (run {run}, "
            f"{got.wall:,.0f} s wall, {provenance([got])})\n\n"
        )
        text += markdown(run)
        if name.startswith("installations"):
            text += "\n" + what_moved(text) + "\n"
        if name in ("bench", "ring-1k", "ring-10k", "ring-100k", "ring-1m"):
            change = moved(heading, run)
            if change:
                text += (
                    f"\n**What moved since contract 2** (the table published at {PREVIOUS}: one untimed "
                    "warm-up per process, M calibrated on a cold probe, idle tokio processes without "
                    "their channel, rust-threads/handoff spinning; a shared machine then as now):\n" + change
                )
        sections[name] = text
        if name == "ring-1m" and "ring-10k" not in runs:
            keep(GROWTH)
        elif name == "ring-1m":
            sections[GROWTH] = (
                f"## {GROWTH_HEADING}\n\n"
                "The medians of the two tables above (all cores; N = 10,000 with M calibrated and a fresh "
                "process per repeat, N = 1,000,000 with M = 2 in one process), divided. A light runtime "
                f"should run a million processes at a cost per hop close to its 10,000 figure (here: within "
                f"{GROWTH_CLOSE:g}×); where it does not, or cannot run them at all, the last column says why, "
                "from the measurement in the driver's README or from the orchestrator's refusal.\n\n"
                + growth(runs["ring-10k"], runs["ring-1m"])
            )
    unsettled = positions_unsettled(sections.get("positions", ""))
    for name in sections:
        if name != "positions":  # the steady check is measured at N = 1,000 on one core, its table says neither
            sections[name] = mark_unsettled(sections[name], unsettled, *((1000, "1") if name == "steady" else ()))
    sections["faults"] = f"## {FAULTS_HEADING}\n\n{FAULTS}"
    built = [r for r in runtimes if r["built"]]
    sections["versions"] = (
        f"## {VERSIONS_HEADING}\n\nAs `ringbench runtimes` lists the built runtimes where the pages were written "
        f"(commit {commit}).\n\n| runtime | hop | version |\n|---|---|---|\n"
        + "".join(f"| {r['runtime']} | {r['hop']} | {r['version'] or ''} |\n" for r in built)
    )
    every = [r for rs in used.values() for r in rs]
    commits = ", ".join(
        dict.fromkeys(kept_commits(kept_texts) + [r.commit for r in sorted(every, key=lambda r: r.run)])
    )
    out: dict[Path, str] = {}
    for page in PAGES:
        texts = (
            side_by_side()
            if page.sections == ["side-by-side"]
            else [sections[n] for n in page.sections if n in sections]
        )
        if texts:
            out[PAGES_DIR / page.file] = page_text(page, texts)
    out[DOC] = summary(commit, commits, sections, {p.file for p in PAGES if PAGES_DIR / p.file in out})
    return out


def on_page(page: Page, sections: dict[str, str]) -> str:
    """What a page of several sections holds, where some are missing or await re-measuring."""
    names = [n for n in page.sections if n in HEADINGS]
    if all(n in sections and AWAITS not in sections[n] for n in names):
        return ""
    held = [HEADINGS[n] + (" (awaits re-measuring)" if AWAITS in sections[n] else "") for n in names if n in sections]
    return f"; on the page now: {'; '.join(held)}" if held else ""


def summary(commit: str, commits: str, sections: dict[str, str], written: set[str]) -> str:
    """docs/results.md: the machine, the headline tables, what moved since contract 3, the steady-state and
    settle findings, and the topic pages."""
    cpu = sh(["sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"]).stdout.strip()
    get = sections.get
    steady_lead, positions_lead = lead(get("steady", "")), lead(get("positions", ""))
    no_steady, no_positions = (absent(n, get(n, "")).strip() for n in ("steady", "positions"))
    topics = "\n".join(
        f"- [{p.title}](results/{p.file}): {p.about}{on_page(p, sections)}." for p in PAGES if p.file in written
    )
    return f"""# ringbench results

Measured by `scripts/results.py` at commit {commits} (each section names its own) and written by it at commit
{commit}, from the runs in `results/published.db` (not committed; the script keeps it and adds to it, and keeps
a section whose runs it lacks as the pages have it). This page holds the headline figures; each topic has a page
under [docs/results/](results/) with its whole tables, the command above each and the commit it was measured
at. Every figure is printed by ringbench's own commands; the tables here copy columns of those tables, cell for
cell; nothing is rounded or edited by hand. A section measured with uncommitted changes is not published: it
says it awaits re-measuring, with the command that does it.

**Machine.** {cpu}, {sh(["nproc"]).stdout.strip()} CPUs, Linux {sh(["uname", "-r"]).stdout.strip()}. Each
section gives the load average when its first run started, and each table's warnings (load, noise, too few
repeats) are printed under it on its page as ringbench printed them: on a shared 2-core virtual machine, treat
differences that are not marked ✓ as unproven. Runtimes and versions: {link("versions")}.

**How to read the tables.** ns/hop is the median of the repeats (wall time of the message phase per hop); CPU
ns/hop the driver process's CPU time over the same phase, per hop. Rel % is throughput against the reference
(erlang/stock unless said) among rows that differ in the runtime alone; ✓ marks a significant difference,
≈ none, ? too few to tell. Only message-passing rows are ranked: hand-offs, the rendezvous and the floor
(c-coro, a state machine, not a runtime) are shown apart; tuned variants are ranked among themselves, never
beside the runtimes as they come. B/proc is memory grown over the first spawn of a fresh driver process after
one collection, per process.

## Headline: every runtime, one core and all cores (`make bench`)

{headline_bench(get("bench", ""))}
## What moved since contract 3

{since_contract_3(get("bench", ""))}
## Headline: bytes per idle process

{headline("memory", get("memory", ""), ["hop", "B/proc", "±95%", "spawn µs"])}
## Headline: the million-process tree (skynet)

{headline("tree", get("tree", ""), ["hop", "ms/tree", "±95%", "ns/proc", "peak B/proc"])}
## Steady state and the settle rule

**Steady state** ({link("steady")}): {steady_lead or no_steady}

**Position effects and the settle rule** ({link("positions")}): {positions_lead or no_positions}

## Topics

{topics}
"""


@click.command()
@click.option("--quick", is_flag=True, help="Only the bench, steady state, memory and the tree.")
@click.option(
    "--only", default="", help=f"Only these measurements, comma-separated: {', '.join(m[0] for m in MEASUREMENTS)}."
)
@click.option("--fresh", is_flag=True, help="Start a new store: every section measured anew at this commit.")
@click.option(
    "--dirty",
    is_flag=True,
    help="With --render-only: allow uncommitted changes in the tree (the pages then say so). Nothing is measured "
    "with them: a section measured with uncommitted changes is never published.",
)
@click.option(
    "--render-only",
    is_flag=True,
    help="Measure nothing: write the pages from the runs in results/published.db (if any) and the pages as they are.",
)
@click.option(
    "-r",
    "--runtime",
    "variant",
    multiple=True,
    help="Per-variant measurements (steady, positions): only this variant or driver (repeatable).",
)
@click.option(
    "--simulate-settle",
    is_flag=True,
    help="Measure nothing: replay candidate settle rules on the stored positions and bench runs, print the "
    "tables (docs/statistics.md) to stdout.",
)
def main(
    quick: bool, only: str, fresh: bool, dirty: bool, render_only: bool, variant: tuple[str, ...], simulate_settle: bool
) -> None:
    if simulate_settle:
        print(settle_simulation(), end="")
        return
    wanted = {x.strip() for x in only.split(",") if x.strip()}
    unknown = wanted - {m[0] for m in MEASUREMENTS}
    if unknown:
        raise SystemExit(f"--only: unknown measurement(s) {', '.join(sorted(unknown))}")
    if render_only and (fresh or quick or wanted):
        raise SystemExit("--render-only measures nothing: it takes none of --fresh, --quick, --only")
    if dirty and not render_only:
        raise SystemExit(
            "--dirty only with --render-only: a section measured with uncommitted changes is never published"
        )
    commit = sh(["git", "rev-parse", "--short=12", "HEAD"]).stdout.strip()
    # docs/results.md and docs/results/ are this script's output (and fidelity.py's and perf_versus.py's)
    status = ["git", "status", "--porcelain", "--untracked-files=no", "--", "."]
    if sh(status + [":(exclude)docs/results.md", ":(exclude)docs/results"]).stdout.strip():
        if not dirty:
            raise SystemExit("uncommitted changes: commit first (the document names one commit), or --dirty")
        commit += " with uncommitted changes"
    # the drivers' variants; `runtimes --json` lists the other installations of a runtime too, as rows of
    # their own (with an "installation" key), which no per-variant measurement runs over
    runtimes = [r for r in json.loads(sh(RB + ["runtimes", "--json"]).stdout) if "installation" not in r]
    variants = [
        r["runtime"]
        for r in runtimes
        if r["built"] and (not variant or any(r["runtime"] == v or r["runtime"].startswith(v + "/") for v in variant))
    ]
    if not render_only:
        DB.parent.mkdir(exist_ok=True)
        if fresh:
            DB.unlink(missing_ok=True)
        store_rows()  # a store that cannot be read is refused before anything is measured
        for name, _, args, _ in MEASUREMENTS:
            if quick and name not in QUICK or wanted and name not in wanted:
                continue
            if name == "steady":
                print(
                    f"== {name}: ringbench {shlex.join(args)} with {shlex.join(DEFAULT_SLICE)} and with "
                    f"{shlex.join(SETTLED_SLICE)}, {STEADY_SLICES} times in turns, per variant",
                    file=sys.stderr,
                    flush=True,
                )
                steady_runs(args, variants)
            elif name == "positions":
                print(f"== {name}: ringbench {shlex.join(args)}, per variant", file=sys.stderr, flush=True)
                position_runs(args, variants)
            else:
                for prepare in PREPARED_WITH.get(name, []):
                    print(f"== {name}: ringbench {shlex.join(prepare)}", file=sys.stderr, flush=True)
                    p = sh(RB + prepare)
                    if p.returncode != 0:
                        raise SystemExit(f"`ringbench {shlex.join(prepare)}` failed: {p.stderr.strip()[-500:]}")
                print(f"== {name}: ringbench {shlex.join(args)}", file=sys.stderr, flush=True)
                measure(args, MEASURED_WITH.get(name))
    files = render(commit, runtimes)
    PAGES_DIR.mkdir(exist_ok=True)
    for path, text in files.items():
        path.write_text(text)
        print(f"wrote {path.relative_to(REPO)} ({text.count(chr(10))} lines)", file=sys.stderr)


if __name__ == "__main__":
    main()
