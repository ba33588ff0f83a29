#!/usr/bin/env python3
"""versus: one ringbench driver against an independent ring program, timed the same way from outside.

Run `.venv/bin/python scripts/versus.py --help`; the method and a worked example are in docs/versus.md.

Exit status: 0 comparison done (whatever the verdict: a slower driver is a finding, not an error);
1 a run failed (non-zero exit, timeout, a driver error or a result that does not check out, a build
command that failed); 2 bad input (nothing run); 130 interrupted.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

# The script is run as a file, not as part of the package: make the checkout's ringbench importable
# even from an interpreter where it is not installed.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import click  # noqa: E402

from ringbench.catalogue import drivers, workloads  # noqa: E402
from ringbench.harness import environment, launch  # noqa: E402
from ringbench.harness.protocol import DriverFailed, Expectation, check_result, parse_line  # noqa: E402
from ringbench.present.tables import fmt  # noqa: E402
from ringbench.results import noise, stats  # noqa: E402

PLACEHOLDERS = ("n", "m", "tokens", "hops", "cores")
DEFAULT_HOPS = 5_000_000
SHORT_FRACTION = 10        # M1 = M2 / 10 unless both are given
MIN_DIFFERENCE_S = 0.05    # below this the long and short runs differ by little more than timer/scheduler noise
NOISE_FACTOR = 20          # ... or by less than 20 × the spread (MAD) of the short runs' wall times
EXIT_FAILED, EXIT_BAD_INPUT, EXIT_INTERRUPTED = 1, 2, 130


class BadInput(Exception):
    """Exit 2: the request itself is wrong; nothing was run."""


class Failed(Exception):
    """Exit 1: a run went wrong; the message is one line that says which run and why."""


# -- the request ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Cell:
    n: int
    m1: int        # laps of the short run
    m2: int        # laps of the long run
    tokens: int
    burst: int

    def hops(self, m: int) -> int:
        return self.n * m * self.tokens

    @property
    def delta_hops(self) -> int:
        """Hops the long run makes beyond the short one: the only work the differential figure sees."""
        return self.n * (self.m2 - self.m1) * self.tokens


def parse_int(text: str, what: str) -> int:
    t = text.strip().replace("_", "")
    if not t.isdigit() or int(t) < 1:
        raise BadInput(f"{what} must be a positive integer, got {text.strip()!r}")
    return int(t)


def parse_ns(text: str) -> list[int]:
    values = [v for v in text.split(",") if v.strip()]
    if not values:
        raise BadInput("-n is empty")
    # "-n 1,000" is one thousand written with a separator, not the two rings N=1 and N=0
    if any(len(v.strip()) == 3 and v.strip().isdigit() and v.strip()[0] == "0" for v in values[1:]):
        joined = text.replace(",", "")
        raise BadInput(f"-n {text}: commas separate values (-n 1000,10000); for {joined} write {joined} "
                       f"or {int(joined):_}" if joined.isdigit() else f"-n {text}: commas separate values")
    return [parse_int(v, "N") for v in values]


def laps(n: int, tokens: int, m_opt: str | None, hops_opt: int | None) -> tuple[int, int]:
    """(M1, M2) for one N: from `-m M2` or `-m M1,M2`, else from the hop budget of the long run."""
    if m_opt is not None:
        parts = [parse_int(p, "M") for p in m_opt.split(",")]
        if len(parts) == 1:
            m2 = parts[0]
            m1 = max(1, m2 // SHORT_FRACTION)
        elif len(parts) == 2:
            m1, m2 = parts
        else:
            raise BadInput(f"-m takes M2 or M1,M2 (two values), got {m_opt!r}")
    else:
        budget = DEFAULT_HOPS if hops_opt is None else hops_opt
        m2 = max(1, round(budget / (n * tokens)))
        m1 = max(1, m2 // SHORT_FRACTION)
    if m2 <= m1:
        raise BadInput(f"at N={n:,} the long run has M2={m2:,} laps and the short run M1={m1:,}: the long run "
                       f"must do more laps (raise --hops or give -m M1,M2 with M2 > M1)")
    return m1, m2


def parse_env(pairs: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for p in pairs:
        key, eq, value = p.partition("=")
        if not eq or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
            raise BadInput(f"--env takes KEY=VALUE, got {p!r}")
        out[key] = value
    return out


_FIELD = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def check_template(template: str, tokens: int) -> list[str]:
    """The program's argv template, split like a shell would (no shell runs it)."""
    try:
        argv = shlex.split(template)
    except ValueError as e:
        raise BadInput(f"--program: {e}") from None
    if not argv:
        raise BadInput("--program is empty")
    used = set(_FIELD.findall(template))
    unknown = sorted(used - set(PLACEHOLDERS))
    if unknown:
        raise BadInput(f"--program: unknown placeholder {{{unknown[0]}}}; known: "
                       + ", ".join(f"{{{p}}}" for p in PLACEHOLDERS))
    if not used & {"m", "hops"}:
        # Without them the short and the long run would be the same command: nothing to subtract.
        raise BadInput("--program must contain {m} (laps) or {hops} (N×M×K): the differential method runs it "
                       "with two lap counts")
    if tokens > 1 and not used & {"tokens", "hops"}:
        raise BadInput(f"--tokens {tokens}: the program gets neither {{tokens}} nor {{hops}}, so it would not "
                       f"do N×M×{tokens} hops")
    return argv


def fill(text: str, values: dict[str, int]) -> str:
    return _FIELD.sub(lambda mo: str(values[mo.group(1)]) if mo.group(1) in values else mo.group(0), text)


# -- one timed process ------------------------------------------------------------------------
@dataclass
class Side:
    """One of the two commands being compared, and how to launch it for a cell and a lap count."""
    key: str                 # "driver" or "program"
    label: str
    argv_for: Callable[[Cell, int], list[str]]
    env: dict[str, str]      # overrides of os.environ
    cwd: str | None

    def argv(self, cell: Cell, m: int) -> list[str]:
        return self.argv_for(cell, m)

    def shown(self, cell: Cell, m: int) -> str:
        """The command as a shell line a reader can paste (environment overrides first)."""
        prefix = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(self.env.items()))
        cmd = shlex.join(self.argv(cell, m))
        where = f"(cd {shlex.quote(self.cwd)} && " if self.cwd else ""
        line = f"{prefix} {cmd}".strip()
        return f"{where}{line})" if where else line


@dataclass
class Timed:
    seconds: float
    stdout: str
    stderr: str
    returncode: int


def run_timed(argv: list[str], env: dict[str, str], cwd: str | None, cpu: int | None,
              timeout: float) -> Timed:
    """Wall time of one whole process, start to exit, measured the same way for both sides.

    Same launch as the orchestrator's: own process group (a timeout kills everything it started),
    parent-death signal, pinned to one CPU for --cores 1.
    """
    t0 = time.perf_counter_ns()
    try:
        proc = launch.start(argv, {**os.environ, **env}, cwd, cpu, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, errors="replace")
    except OSError as e:
        raise Failed(f"cannot start {shlex.join(argv)}: {e.strerror or e}") from None
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        launch.kill_group(proc)
        proc.communicate()
        raise TimeoutError from None
    except BaseException:  # Ctrl-C: leave nothing running behind us
        launch.kill_group(proc)
        raise
    t1 = time.perf_counter_ns()
    launch.kill_group(proc)  # reap anything the process left behind, so it cannot load the next run
    return Timed((t1 - t0) / 1e9, out, err, proc.returncode)


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


def driver_ns_per_hop(timed: Timed, cell: Cell, m: int) -> float:
    """Check the driver's output like the orchestrator does; return its own ns/hop (run_ns / hops)."""
    want_params = {"n": cell.n, "m": m, "tokens": cell.tokens, "burst": cell.burst}
    hops = cell.hops(m)
    want = Expectation("ring", want_params, hops, hops, cell.n)
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
    return result["run_ns"] / result["count"]


# -- the comparison ---------------------------------------------------------------------------
def schedule(rounds: int) -> list[list[tuple[str, str]]]:
    """The order of the four runs in each round: ABBA inside a round (driver short, program short,
    program long, driver long), and the sides swap places every other round, so a drift in machine
    speed (another job starting, a frequency change) falls on both sides alike over every two rounds."""
    out = []
    for r in range(rounds):
        a, b = ("driver", "program") if r % 2 == 0 else ("program", "driver")
        out.append([(a, "m1"), (b, "m1"), (b, "m2"), (a, "m2")])
    return out


@dataclass
class CellResult:
    cell: Cell
    seconds: dict = field(default_factory=dict)    # side -> {"m1": [...], "m2": [...]} per round
    own: list = field(default_factory=list)        # the driver's own ns/hop, from each long run's record
    order: list = field(default_factory=list)      # every run in the order it ran: [phase, side, m]

    def per_hop(self, side: str) -> list[float]:
        s = self.seconds[side]
        return [(t2 - t1) * 1e9 / self.cell.delta_hops for t1, t2 in zip(s["m1"], s["m2"])]


class Versus:
    def __init__(self, driver: drivers.Driver, program_argv: list[str], program_env: dict[str, str],
                 cores: str, rounds: int, warmup_runs: int, timeout: float, progress=None):
        self.driver = driver
        self.cores = cores
        self.cpu = launch.pin_cpu() if cores == "1" else None
        self.cores_n = launch.cores_value(cores)
        self.rounds = rounds
        self.warmup_runs = warmup_runs
        self.timeout = timeout
        self.progress = progress or (lambda msg: None)
        self.program_template = program_argv
        self.program_env_template = program_env

    def values(self, cell: Cell, m: int) -> dict[str, int]:
        return {"n": cell.n, "m": m, "tokens": cell.tokens, "hops": cell.hops(m), "cores": self.cores_n}

    def sides(self, cell: Cell) -> dict[str, Side]:
        how = launch.driver_process(self.driver, self.cores, cell.n)
        prefix, overrides, c = how.argv, how.manifest_env, how.schedulers

        def driver_argv(cl: Cell, m: int) -> list[str]:
            # repeats=1 warmup=0: one cold iteration per process, like the program's single run
            return prefix + ["run", "ring", f"n={cl.n}", f"m={m}", f"tokens={cl.tokens}", f"burst={cl.burst}",
                             f"cores={c}", "repeats=1", "warmup=0"]

        def program_argv(cl: Cell, m: int) -> list[str]:
            return [fill(a, self.values(cl, m)) for a in self.program_template]

        program_env = {k: fill(v, self.values(cell, cell.m1)) for k, v in self.program_env_template.items()}
        return {"driver": Side("driver", self.driver.name, driver_argv, overrides, str(self.driver.folder)),
                "program": Side("program", shlex.join(self.program_template), program_argv, program_env, None)}

    def _run(self, side: Side, cell: Cell, m: int, where: str) -> tuple[float, float | None]:
        argv = side.argv(cell, m)
        what = f"{side.key} {side.label if side.key == 'driver' else ''}".strip()
        try:
            timed = run_timed(argv, side.env, side.cwd, self.cpu, self.timeout)
        except TimeoutError:
            raise Failed(f"{what} timed out after {self.timeout:g} s ({where}): {side.shown(cell, m)}") from None
        if side.key == "program":
            if timed.returncode != 0:
                tail = _last_line(timed.stderr)
                raise Failed(f"program failed ({where}): {_status(timed.returncode)}"
                             f"{'; stderr: ' + tail if tail else ''}; command: {side.shown(cell, m)}")
            return timed.seconds, None
        try:
            return timed.seconds, driver_ns_per_hop(timed, cell, m)
        except DriverFailed as e:
            tail = _last_line(timed.stderr)
            raise Failed(f"driver {self.driver.name} failed ({where}): {e}{'; stderr: ' + tail if tail else ''}; "
                         f"command: {side.shown(cell, m)}") from None

    def measure(self, cell: Cell) -> CellResult:
        sides = self.sides(cell)
        res = CellResult(cell, {k: {"m1": [], "m2": []} for k in sides})
        lap = {"m1": cell.m1, "m2": cell.m2}
        # Untimed first runs: the first launch of a binary pays for reading it from disk, and a program
        # that cannot run at all is found before any time is spent on the rounds.
        for w in range(self.warmup_runs):
            for key in (("driver", "program") if w % 2 == 0 else ("program", "driver")):
                self._run(sides[key], cell, cell.m1, f"N={cell.n:,} M={cell.m1:,}, warm-up run {w + 1}")
                res.order.append(["warmup", key, cell.m1])
        for r, runs in enumerate(schedule(self.rounds), 1):
            self.progress(f"N={cell.n:,}: round {r}/{self.rounds}")
            for key, which in runs:
                m = lap[which]
                seconds, own = self._run(sides[key], cell, m, f"N={cell.n:,} M={m:,}, round {r}")
                res.seconds[key][which].append(seconds)
                res.order.append([f"round {r}", key, m])
                if own is not None and which == "m2":
                    res.own.append(own)
        return res


# -- analysis ---------------------------------------------------------------------------------
def analyse(res: CellResult, sides: dict[str, Side]) -> dict:
    cell = res.cell
    out: dict = {"n": cell.n, "m1": cell.m1, "m2": cell.m2, "tokens": cell.tokens,
                 "placement": "burst" if cell.burst else "spread", "hops_m1": cell.hops(cell.m1),
                 "hops_m2": cell.hops(cell.m2), "hops_difference": cell.delta_hops, "warnings": []}
    per = {k: res.per_hop(k) for k in ("driver", "program")}
    for key in ("driver", "program"):
        values = per[key]
        s = stats.summarize(values)
        lo, hi = stats.bootstrap_median_ci(values)
        diffs = [t2 - t1 for t1, t2 in zip(res.seconds[key]["m1"], res.seconds[key]["m2"])]
        short_spread = stats.summarize(res.seconds[key]["m1"]).mad
        entry = {"ns_per_hop": s.median, "ci": [lo, hi], "per_round": values,
                 "seconds_m1": res.seconds[key]["m1"], "seconds_m2": res.seconds[key]["m2"],
                 "command_m1": sides[key].shown(cell, cell.m1), "command_m2": sides[key].shown(cell, cell.m2)}
        if key == "driver":
            entry["own_ns_per_hop"] = stats.summarize(res.own).median if res.own else None
            entry["own_per_round"] = res.own
        out[key] = entry
        if s.median <= 0:
            raise Failed(f"{key} at N={cell.n:,}: the long runs (M={cell.m2:,}) took no longer than the short ones "
                         f"(M={cell.m1:,}), median {s.median:.3g} ns/hop: it does not seem to do the laps it is "
                         f"given, or the runs are too short (raise --hops)")
        gap = float(sorted(diffs)[len(diffs) // 2])
        if gap < max(MIN_DIFFERENCE_S, NOISE_FACTOR * short_spread):
            out["warnings"].append(
                f"N={cell.n:,}: the {key}'s long run is only {gap * 1e3:.0f} ms longer than its short run "
                f"(short runs vary by ±{short_spread * 1e3:.1f} ms): start-up noise weighs on its figure; "
                f"raise --hops or -m")
    # compare(a, b) gives median(b)/median(a): the program is the reference, so the ratio reads
    # "driver time per hop over program time per hop" and ≤ 1.0 means the driver is at least as fast.
    d = stats.compare(per["program"], per["driver"])
    out.update(ratio=d.ratio, ratio_ci=list(d.ratio_ci), p_value=d.p_value, significant=d.significant,
               at_least_as_fast=d.ratio <= 1.0, verdict=verdict(d), order=res.order)
    return out


def verdict(d: stats.Difference) -> str:
    lo, hi = d.ratio_ci
    if d.ratio <= 1.0:
        head = "driver at least as fast (ratio ≤ 1.0)"
        if hi > 1.0:
            head += f"; the interval reaches {hi:.2f}, so not proven"
    else:
        head = "driver slower (ratio > 1.0)"
        if lo <= 1.0:
            head += f"; the interval reaches down to {lo:.2f}"
    if d.significant is None:
        return f"{head}; too few rounds for a test (Mann-Whitney needs {stats.MIN_REPEATS_FOR_TEST})"
    if d.significant:
        return f"{head}; the difference is significant (Mann-Whitney p = {d.p_value:.3g})"
    return f"{head}; no significant difference (Mann-Whitney p = {d.p_value:.3g})"


# -- presentation -----------------------------------------------------------------------------
def interval(ci) -> str:
    return f"{fmt(ci[0])}–{fmt(ci[1])}"


def setting(report: dict) -> str:
    pin = f", pinned to CPU {report['pinned_cpu']}" if report["pinned_cpu"] is not None else ""
    return (f"cores {report['cores']} ({report['scheduler_threads']} scheduler thread(s){pin}); "
            f"{report['rounds']} rounds, ABBA order; {report['warmup_runs']} untimed warm-up run(s) per side")


def render_text(report: dict) -> str:
    lines = [f"versus: driver {report['runtime']} against program `{report['program']}`", setting(report), ""]
    for c in report["cells"]:
        d, p = c["driver"], c["program"]
        lines.append(f"N = {c['n']:,}   M = {c['m1']:,} (short) / {c['m2']:,} (long)   tokens = {c['tokens']} "
                     f"({c['placement']})   {c['hops_difference']:,} hops between the two")
        head = f"  {'':<22} {'ns/hop':>10}  {'95 % interval':>19}  {'own ns/hop':>10}  {'t short s':>9}  {'t long s':>9}"
        lines.append(head)
        for key, e in (("driver", d), ("program", p)):
            t1 = stats.summarize(e["seconds_m1"]).median
            t2 = stats.summarize(e["seconds_m2"]).median
            own = fmt(e.get("own_ns_per_hop")) if key == "driver" else "—"
            lines.append(f"  {key:<22} {fmt(e['ns_per_hop']):>10}  {interval(e['ci']):>19}  {own:>10}  "
                         f"{t1:>9.3f}  {t2:>9.3f}")
        pv = "" if c["p_value"] is None else f"  Mann-Whitney p = {c['p_value']:.3g}"
        lines.append(f"  {'ratio driver/program':<22} {c['ratio']:>10.3f}  {interval(c['ratio_ci']):>19}{pv}")
        lines.append(f"  verdict: {c['verdict']}")
        lines.append("  commands (short run, long run):")
        for key in ("driver", "program"):
            lines.append(f"    {key + ':':<9}{c[key]['command_m1']}")
            lines.append(f"    {'':<9}{c[key]['command_m2']}")
        lines.append("")
    lines.append("ns/hop = (t(long) − t(short)) / (N × (M long − M short) × tokens), wall time of whole processes;")
    lines.append("median over rounds, bootstrap 95 % interval; own ns/hop = the driver's run_ns / count (long runs).")
    for w in report["warnings"]:
        lines.append(f"⚠ {w}")
    return "\n".join(lines)


def render_markdown(report: dict) -> str:
    pin = "1 core (pinned)" if report["pinned_cpu"] is not None else f"all cores ({report['scheduler_threads']})"
    out = [f"`{report['runtime']}` against `{report['program']}`, {pin}, {report['rounds']} interleaved rounds "
           f"(`scripts/versus.py`, differential: whole processes at M short and M long)", "",
           "| N | M short → long | tokens | driver ns/hop | 95 % CI | driver's own ns/hop | program ns/hop | 95 % CI "
           "| ratio driver/program | 95 % CI | p | at least as fast |",
           "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for c in report["cells"]:
        d, p = c["driver"], c["program"]
        pv = "–" if c["p_value"] is None else f"{c['p_value']:.3g}"
        out.append(f"| {c['n']:,} | {c['m1']:,} → {c['m2']:,} | {c['tokens']} | {fmt(d['ns_per_hop'])} | "
                   f"{interval(d['ci'])} | {fmt(d['own_ns_per_hop'])} | {fmt(p['ns_per_hop'])} | {interval(p['ci'])} | "
                   f"{c['ratio']:.2f} | {interval(c['ratio_ci'])} | {pv} | {'yes' if c['at_least_as_fast'] else 'no'} |")
    out += ["", "Command: `" + report["command"] + "`", "", "Runs (short, long) for each N:", "", "```"]
    for c in report["cells"]:
        for key in ("driver", "program"):
            out += [c[key]["command_m1"], c[key]["command_m2"]]
    out.append("```")
    if report["warnings"]:
        out.append("")
        out += [f"> ⚠ {w}" for w in report["warnings"]]
    return "\n".join(out)


# -- command line -----------------------------------------------------------------------------
HELP = """Measure one ringbench driver against an independent ring program of your own.

\b
Both sides are timed the same way, from outside, as whole processes: each
runs with a short lap count M1 and a long one M2, and
    ns/hop = (t(M2) - t(M1)) / (N x (M2 - M1) x tokens)
so VM start-up, spawning the ring and teardown cancel out, whatever the
program prints or however it times itself. The four runs of each round are
interleaved (driver M1, program M1, program M2, driver M2; the sides swap
places every other round) so a drift in machine speed hits both. The figures
are medians over the rounds with bootstrap 95 % intervals; the ratio is
driver/program (<= 1.0: the driver is at least as fast), tested with
Mann-Whitney U (needs 5 rounds or more). The driver's own ns/hop (run_ns
from its result record) is shown beside the differential figure.

\b
The program is any command line (split like a shell would, not run by one;
wrap it in sh -c '...' for pipes) with placeholders:
    {n} processes   {m} laps   {tokens} tokens   {hops} N x M x tokens
    {cores} scheduler threads (1 for --cores 1, else the CPU count)
It must contain {m} or {hops}, do N x M x tokens hops, and exit 0; it may
print anything. It gets the driver's manifest environment (e.g.
GOMAXPROCS=1 for go at --cores 1) unless --no-driver-env, plus --env.
With --cores 1 both sides are pinned to the same CPU.

\b
Example (a Go channel ring compiled to /tmp; see docs/versus.md):
    .venv/bin/python scripts/versus.py --runtime go/channel \\
        --build 'go build -o /tmp/ring /tmp/ring/main.go' \\
        --program '/tmp/ring {n} {m}' -n 1000,10000 --hops 5000000 \\
        --cores 1 --rounds 5

\b
Exit status: 0 compared (whatever the verdict); 1 a run failed (non-zero
exit, timeout, a driver error, the long run no longer than the short one);
2 bad input; 130 interrupted.
"""


@click.command(help=HELP, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option("--runtime", "-r", required=True, metavar="RUNTIME",
              help="The driver, as `ringbench runtimes` lists it (one runtime; a variant where the driver has them).")
@click.option("--program", "-p", required=True, metavar="CMD",
              help="The independent program's command line with {n} and {m} (or {hops}) placeholders.")
@click.option("-n", "ns", required=True, metavar="N[,N...]", help="Ring sizes, comma-separated: one table per N.")
@click.option("-m", "m_opt", metavar="M2|M1,M2",
              help=f"Laps of the long run (the short run does M2/{SHORT_FRACTION}), or both; the same for every N.")
@click.option("--hops", "hops_opt", type=click.IntRange(min=2), metavar="H",
              help=f"Instead of -m: hops of the long run, M2 = H / (N x tokens), M1 = M2/{SHORT_FRACTION} "
                   f"[default: {DEFAULT_HOPS:,} when -m is not given].")
@click.option("--tokens", "-k", type=click.IntRange(min=1), default=1, show_default=True,
              help="Tokens circulating at once (the program needs {tokens} or {hops}).")
@click.option("--placement", type=click.Choice(["spread", "burst"]), default="spread", show_default=True,
              help="The driver's token placement (burst=1: all tokens at p0); the program places its own.")
@click.option("--cores", type=click.Choice(["1", "all"]), default="1", show_default=True,
              help="1: both sides pinned to one CPU with one scheduler thread; all: every CPU.")
@click.option("--rounds", type=click.IntRange(min=1), default=5, show_default=True,
              help="Interleaved rounds (4 runs each); 5 or more for a significance test.")
@click.option("--warmup-runs", type=click.IntRange(min=0), default=1, show_default=True,
              help="Untimed short runs of each side first (binaries into the page cache; fail fast).")
@click.option("--env", "env_pairs", multiple=True, metavar="KEY=VALUE",
              help="Environment for the program (repeatable; placeholders allowed, e.g. GOMAXPROCS={cores}). "
                   "To give both sides a variable, export it before running versus.")
@click.option("--no-driver-env", is_flag=True,
              help="Do not give the program the driver manifest's [env] (e.g. GOMAXPROCS).")
@click.option("--build", "build_cmd", metavar="CMD",
              help="A shell command run once first to build the program (e.g. go build -o /tmp/ring ...).")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=600, show_default=True,
              help="Seconds allowed to any one run.")
@click.option("--json", "as_json", is_flag=True, help="Print every figure, per-round value and command as JSON.")
@click.option("--markdown", is_flag=True, help="Print a Markdown table with the commands, for pasting into docs.")
@click.pass_context
def cli(ctx, runtime, program, ns, m_opt, hops_opt, tokens, placement, cores, rounds, warmup_runs, env_pairs,
        no_driver_env, build_cmd, timeout, as_json, markdown):
    if as_json and markdown:
        raise BadInput("--json and --markdown exclude each other")
    if m_opt is not None and hops_opt is not None:
        raise BadInput("give -m or --hops, not both")
    burst = 1 if placement == "burst" else 0
    program_argv = check_template(program, tokens)
    user_env = parse_env(env_pairs)
    for v in user_env.values():
        check_template_values(v)
    cells = []
    for n in parse_ns(ns):
        m1, m2 = laps(n, tokens, m_opt, hops_opt)
        for m in (m1, m2):
            try:
                workloads.RING.validate({"n": n, "m": m, "tokens": tokens, "burst": burst})
            except workloads.ParamError as e:
                raise BadInput(str(e)) from None
        cells.append(Cell(n, m1, m2, tokens, burst))
    try:
        chosen = drivers.select(runtime)
    except drivers.DriverError as e:
        raise BadInput(str(e)) from None
    if len(chosen) != 1:
        raise BadInput(f"{runtime!r} names {len(chosen)} runtimes ({', '.join(d.name for d in chosen)}): name one")
    driver = chosen[0]

    if build_cmd:
        say(f"building: {build_cmd}")
        proc = subprocess.run(build_cmd, shell=True, capture_output=True, text=True, errors="replace")
        if proc.returncode != 0:
            tail = _last_line(proc.stderr) or _last_line(proc.stdout)
            raise Failed(f"build command failed (exit {proc.returncode}): {build_cmd}{'; ' + tail if tail else ''}")
    exe = program_argv[0]
    if not (shutil.which(exe) if "/" not in exe else os.access(exe, os.X_OK)):
        raise BadInput(f"program {exe!r} not found or not executable" + ("" if build_cmd else " (build it first, "
                       "or give --build)"))

    env = {} if no_driver_env else _manifest_env(driver, cores)
    env.update(user_env)
    vs = Versus(driver, program_argv, env, cores, rounds, warmup_runs, timeout, progress=say)
    host = environment.collect()
    warnings = [w.text for w in noise.environment(host)]
    cells_out = []
    for cell in cells:
        res = vs.measure(cell)
        c = analyse(res, vs.sides(cell))
        warnings += c.pop("warnings")
        cells_out.append(c)
    report = {"tool": "scripts/versus.py", "command": shlex.join(["scripts/versus.py", *ctx.obj]),
              "runtime": driver.name, "program": program, "cores": cores, "scheduler_threads": vs.cores_n,
              "pinned_cpu": vs.cpu, "rounds": rounds, "warmup_runs": warmup_runs, "program_env": env,
              "environment": host, "cells": cells_out, "warnings": warnings}
    if as_json:
        click.echo(json.dumps(report, indent=2))
    elif markdown:
        click.echo(render_markdown(report))
    else:
        click.echo(render_text(report))


def check_template_values(value: str) -> None:
    # One environment serves the short and the long run, so it cannot depend on the lap count.
    allowed = {"n", "tokens", "cores"}
    bad = sorted(set(_FIELD.findall(value)) - allowed)
    if bad:
        raise BadInput(f"--env: placeholder {{{bad[0]}}} not allowed here (only "
                       + ", ".join(f"{{{p}}}" for p in sorted(allowed)) + ")")


def _manifest_env(driver: drivers.Driver, cores: str) -> dict[str, str]:
    """The manifest's [env] as the driver gets it, so the program's runtime is configured alike
    (GOMAXPROCS=1 at --cores 1). {max_procs} only matters to BEAM's +P, which is argv, not env."""
    return driver.environ(launch.cores_value(cores), 1)


def say(msg: str) -> None:
    click.echo(f"versus: {msg}", err=True)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        rc = cli.main(args=argv, prog_name="scripts/versus.py", standalone_mode=False, obj=argv)
        return rc if isinstance(rc, int) else 0
    except (BadInput, click.ClickException) as e:
        msg = e.format_message() if isinstance(e, click.ClickException) else str(e)
        click.echo(f"versus: error: {msg}", err=True)
        return EXIT_BAD_INPUT
    except Failed as e:
        click.echo(f"versus: failed: {e}", err=True)
        return EXIT_FAILED
    except (KeyboardInterrupt, click.exceptions.Abort):
        click.echo("versus: interrupted", err=True)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
