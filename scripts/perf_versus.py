#!/usr/bin/env python3
"""`ringbench perf` side by side with erlperf itself (and Python's `timeit`) and with a bare loop, interleaved,
on erlperf's README examples: is ringbench's time per iteration within 5 % of erlperf's, and how far is it
from the snippet in a plain compiled loop?

    scripts/perf_versus.py --build /tmp/erlperf-build     # once: compile erlperf outside the checkout
    scripts/perf_versus.py --ebin /tmp/erlperf-build/ebin --rounds 3 [--markdown] [--only erlang|python]
        [--case NAME]... [--bare-dir /tmp/ringbench-perf-versus-bare]

Building: erlperf (github.com/max-au/erlperf) needs its `argparse` dependency (github.com/max-au/argparse,
module `args`); hex is not needed. `--build DIR` clones both into DIR (from GitHub, or from the folders
named by $ERLPERF_SRC and $ARGPARSE_SRC) and compiles them with erlc into DIR/ebin. erlperf runs as
`erl -noshell -pa DIR/ebin -eval 'erlperf_cli:main([...]), halt().'`, which is what its escript does.

The bare loop (the third column) is the snippet written into a plain loop by hand, as a reader would
time it, built afresh under --bare-dir (/tmp/ringbench-perf-versus-bare; never in the checkout):
Erlang, a module compiled with erlc whose `loop(N)` has the snippet's body inlined (a function snippet
is called from it, init_runner's value passed), timed with timer:tc in `erl -noshell -eval`'s own
process after a warm-up tenth, a sample as long as -d asks (or -l's iterations), the median of -s
samples; -c C: C spawned processes at once, each timing its loop. Python, `for _ in range(n): <stmt>`
in one function with the setup as its locals, the collector left on, timeit's autorange and best of 5.
Squeeze has no bare loop (–).

Each round runs every case with the three, one after the other, the order reversed every other round
(ABC CBA); a case's figure is the median over rounds of each one's time per iteration (erlperf's Time
column, or in timed mode its median sample over the loop (`-r extended`): its timed Time is whole ns;
ringbench's stored time/iter; timeit's best-of-5 per loop, which is a minimum where ringbench
gives a median, as the table says). Run it on a quiet machine: the timings are the point.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the checkout's ringbench, installed or not

from ringbench import api  # noqa: E402

LIST = "lists:seq(1, 100)."
GC_ON = "import gc; gc.enable()"


@dataclass
class Case:
    name: str
    tool: str  # erlperf or timeit: what ringbench is compared with
    other: list[str]  # erlperf's arguments, or timeit's
    ours: list[str]  # ringbench perf's arguments
    times: dict = field(default_factory=lambda: {"other": {}, "ours": {}, "bare": {}})  # code -> [ns/iter]
    peaks: dict = field(default_factory=lambda: {"other": [], "ours": []})  # squeeze: the peak's workers


def cases() -> list[Case]:
    comprehension = "run(L) -> [X || X <- L, X rem 2 =:= 0]."
    filtered = "run(L) -> lists:filter(fun(X) -> X rem 2 =:= 0 end, L)."
    pair = [comprehension, "--init_runner", LIST, filtered, "--init_runner", LIST]
    ets = ["ets:insert(tab, {key, value}).", "--init", "ets:new(tab, [public, named_table])."]
    sort_setup, sort_stmt = "xs = list(range(1000, 0, -1))", "sorted(xs)"
    join_stmt = "'-'.join(map(str, range(100)))"
    return [
        Case("rand:uniform() -c 1", "erlperf", ["rand:uniform()."], ["rand:uniform()."]),
        Case("rand:uniform() -c 2", "erlperf", ["rand:uniform().", "-c", "2"], ["rand:uniform().", "-c", "2"]),
        Case("unique_integer -l 100M", "erlperf", ["erlang:unique_integer().", "-l", "100M"],
             ["erlang:unique_integer().", "-l", "100M"]),
        Case("comprehension vs filter", "erlperf", list(pair), list(pair)),
        Case("ets:insert squeeze", "erlperf", [*ets, "-q"], [*ets, "-q"]),
        Case("sorted (timeit)", "timeit", ["-s", sort_setup, sort_stmt],
             ["-r", "python", sort_stmt, "--init_runner", sort_setup]),
        Case("join (timeit)", "timeit", [join_stmt], ["-r", "python", join_stmt]),
        # timeit turns the collector off while it times; ringbench, as erlperf, leaves it on. These two
        # turn it back on in timeit's setup, as timeit's documentation shows: the like-for-like pair.
        Case("sorted (timeit, GC on)", "timeit", ["-s", GC_ON, "-s", sort_setup, sort_stmt],
             ["-r", "python", sort_stmt, "--init_runner", sort_setup]),
        Case("join (timeit, GC on)", "timeit", ["-s", GC_ON, join_stmt], ["-r", "python", join_stmt]),
    ]  # fmt: skip


# -- erlperf ----------------------------------------------------------------------------------------
def build(folder: Path) -> Path:
    """Clone erlperf and argparse into `folder` and compile both into folder/ebin."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, env in (("erlperf", "ERLPERF_SRC"), ("argparse", "ARGPARSE_SRC")):
        if not (folder / name).exists():
            src = os.environ.get(env) or f"https://github.com/max-au/{name}"
            subprocess.run(["git", "clone", "-q", src, str(folder / name)], check=True)
    ebin = folder / "ebin"
    ebin.mkdir(exist_ok=True)
    for name in ("argparse", "erlperf"):
        sources = sorted(str(p) for p in (folder / name / "src").glob("*.erl"))
        subprocess.run(["erlc", "-o", str(ebin), *sources], check=True)
    (ebin / "erlperf.app").write_text((folder / "erlperf" / "src" / "erlperf.app.src").read_text())
    return ebin


def erl_string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def erlperf_argv(ebin: Path, args: list[str]) -> list[str]:
    call = "erlperf_cli:main([" + ", ".join(map(erl_string, args)) + "]), halt()."
    return ["erl", "-noshell", "-pa", str(ebin), "-eval", call]


_UNITS = {"ns": 1.0, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}


def parse_erlperf(out: str, loop: int | None = None) -> tuple[dict[str, float], int | None]:
    """erlperf's table: {code: ns per iteration} and the first row's || (the peak's workers in squeeze).

    The basic report's Time column, or with `loop` (timed mode, run with `-r extended`) the Median
    sample's duration over the loop: in timed mode erlperf computes its Time as whole nanoseconds, the
    total divided with `div` (erlperf.erl, process_result), so 4.49 ns prints "4 ns", 11 % off, where
    the median sample ("449 ms" for 100M iterations) keeps three digits. The extended report cuts the
    code to its first 15 characters."""
    lines = out.splitlines()
    head = next((i for i, x in enumerate(lines) if x.startswith("Code") and ("Time" in x or "Median" in x)), None)
    if head is None:
        raise RuntimeError(f"no table in erlperf's output:\n{out}")
    column = re.split(r"\s{2,}", lines[head].strip()).index("Median" if loop else "Time")
    times, peak = {}, None
    for line in lines[head + 1 :]:
        cols = re.split(r"\s{2,}", line.strip())
        if len(cols) <= column:
            continue
        m = re.fullmatch(r"([0-9.]+)\s*(ns|us|µs|ms|s)", cols[column])
        if not m:
            continue
        times[cols[0]] = float(m.group(1)) * _UNITS[m.group(2)] / (loop or 1)
        peak = peak if peak is not None else int(cols[1])
    return times, peak


def parse_timeit(out: str) -> float:
    m = re.search(r"best of \d+: ([0-9.]+) (nsec|usec|msec|sec) per loop", out)
    if not m:
        raise RuntimeError(f"no figure in timeit's output:\n{out}")
    return float(m.group(1)) * {"nsec": 1.0, "usec": 1e3, "msec": 1e6, "sec": 1e9}[m.group(2)]


# -- the bare loop ---------------------------------------------------------------------------------
BARE_DIR = Path("/tmp/ringbench-perf-versus-bare")
_ERL_FUN = re.compile(r"^([a-z][A-Za-z0-9_@]*)\s*\(")


def _option(args: list[str], name: str, default: str | None = None) -> str | None:
    return args[args.index(name) + 1] if name in args else default


_FLAGS = ("-q", "--squeeze", "-i", "--isolated", "--processes", "-v", "--verbose", "--wide", "--json")


def _erl_snippets(ours: list[str]) -> list[tuple[str, str | None, str | None]]:
    """The snippets of a `ringbench perf` command line: (code, init, init_runner), each hook paired with the
    code before it (hooks before any code pair with the first, as perf's own parser has it)."""
    snippets: list[list] = []
    pending: dict[str, str] = {}
    i = 0
    while i < len(ours):
        arg = ours[i]
        if arg in ("--init", "--init_runner", "--init-runner", "--done"):
            key = arg.lstrip("-").replace("-", "_")
            if snippets:
                snippets[-1][1][key] = ours[i + 1]
            else:
                pending[key] = ours[i + 1]
            i += 2
        elif arg.startswith("-"):
            i += 1 if arg in _FLAGS else 2
        else:
            snippets.append([arg, dict(pending) if not snippets else {}])
            i += 1
    return [(code, hooks.get("init"), hooks.get("init_runner")) for code, hooks in snippets]


def _erl_expr(code: str) -> str:
    return code.strip().removesuffix(".")


def erl_bare_source(module: str, code: str, init: str | None, init_runner: str | None) -> str:
    """A module whose loop/2 runs `code` N times (an expression inlined, a function called with
    init_runner's value), and run/4: init, init_runner, a warm-up, then the timed samples (C processes at
    once, or this process when C is 1): one line, the median ns per iteration."""
    m = _ERL_FUN.match(code.strip())
    is_fun = bool(m) and "->" in code
    defs = code.strip() if is_fun else ""
    body = f"{m.group(1)}(RbBareA)" if is_fun and m else _erl_expr(code)
    init_expr = _erl_expr(init) if init else "undefined"
    ir_expr = _erl_expr(init_runner) if init_runner else "undefined"
    return f"""-module({module}).
-export([run/4]).
-compile([nowarn_unused_vars, nowarn_unused_function]).
{defs}

loop(0, _RbBareA) -> ok;
loop(RbBareN, RbBareA) -> {body}, loop(RbBareN - 1, RbBareA).

sample(N, A) ->
    {{T, ok}} = timer:tc(fun() -> loop(N, A) end),
    T * 1000 / N.

%% Iterations in a sample: N given (-l), or as many as take SampleMs (doubling from 1,000 to 1/10 of it).
iterations(N, _A, _Ms) when N > 0 -> N;
iterations(0, A, Ms) -> grow(1000, A, Ms).

grow(N, A, Ms) ->
    {{T, ok}} = timer:tc(fun() -> loop(N, A) end),
    if T >= Ms * 100 -> max(1, round(N * Ms * 1000 / T));
       true -> grow(N * 2, A, Ms)
    end.

run(Loop, Samples, Conc, Ms) ->
    _ = ({init_expr}),
    A = ({ir_expr}),
    N = iterations(Loop, A, Ms),
    loop(max(1, N div 10), A),
    Ts = case Conc of
             1 -> [sample(N, A) || _ <- lists:seq(1, Samples)];
             _ ->
                 Self = self(),
                 lists:append(
                   [begin
                        Ps = [spawn(fun() -> A1 = ({ir_expr}), loop(max(1, N div 10), A1),
                                             Self ! {{t, self(), sample(N, A1)}} end)
                              || _ <- lists:seq(1, Conc)],
                        [lists:sum([receive {{t, P, X}} -> X end || P <- Ps]) / Conc]
                    end || _ <- lists:seq(1, Samples)])
         end,
    io:format("~.3f~n", [lists:nth((length(Ts) + 1) div 2, lists:sort(Ts))]).
"""


PY_BARE = """import time


def bench(n):
{setup}
    t0 = time.perf_counter_ns()
    for _ in range(n):
{stmt}
    return time.perf_counter_ns() - t0


n = 1
while True:  # timeit's autorange: 1, 2, 5, 10, 20, ... until a run takes 0.2 s
    for k in (1, 2, 5):
        if bench(n * k) >= 2e8:
            n *= k
            break
    else:
        n *= 10
        continue
    break
print(min(bench(n) for _ in range(5)) / n)
"""


def _indent(text: str, by: str = "    ") -> str:
    return "\n".join(by + line for line in text.splitlines())


def py_bare_source(other: list[str]) -> str:
    """timeit's arguments (`-s SETUP`... STMT) as a function with the setup as its locals and the statement
    in `for _ in range(n)`."""
    setups, i = [], 0
    while i < len(other) - 1:
        if other[i] == "-s":
            setups.append(other[i + 1])
        i += 2 if other[i].startswith("-") else 1
    return PY_BARE.format(setup=_indent("\n".join(setups) or "pass"), stmt=_indent(other[-1], " " * 8))


def bare_commands(case: Case, folder: Path) -> list[tuple[str, list[str]]]:
    """The case's bare loops, built into `folder`: (the snippet's code, the command that prints its ns per
    iteration); none for squeeze."""
    if case.tool == "timeit":
        path = folder / f"{_slug(case.name)}.py"
        path.write_text(py_bare_source(case.other))
        return [(case.other[-1], [python_runner(), str(path)])]
    if "-q" in case.ours:
        return []
    loop = parse_loop(_option(case.ours, "-l", "0") or "0")
    samples = _option(case.ours, "-s", "3")
    conc = _option(case.ours, "-c", "1")
    ms = _option(case.ours, "-d", "1000")
    out = []
    for j, (code, init, ir) in enumerate(_erl_snippets(case.ours), 1):
        module = f"rb_bare_{_slug(case.name)}_{j}"
        src = folder / f"{module}.erl"
        src.write_text(erl_bare_source(module, code, init, ir))
        subprocess.run(["erlc", "-o", str(folder), str(src)], check=True, capture_output=True)
        call = f"{module}:run({loop}, {samples}, {conc}, {ms}), halt()."
        out.append((code, ["erl", "-noshell", "-pa", str(folder), "-eval", call]))
    return out


def parse_loop(text: str) -> int:
    m = re.fullmatch(r"([0-9]+)([KMG]?)", text)
    if not m:
        raise ValueError(f"not a loop count: {text}")
    return int(m.group(1)) * {"": 1, "K": 1000, "M": 1_000_000, "G": 1_000_000_000}[m.group(2)]


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def run_bare(case: Case, folder: Path) -> tuple[list[str], dict[str, float], int | None]:
    times: dict[str, float] = {}
    shown_argv: list[str] = []
    for code, argv in bare_commands(case, folder):
        p = subprocess.run(argv, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"the bare loop failed: {shlex.join(argv)}\n{p.stdout}{p.stderr}")
        times[code.strip()] = float(p.stdout.split()[-1])
        shown_argv = shown_argv or argv
    return shown_argv, times, None


# -- running ----------------------------------------------------------------------------------------
def run_other(case: Case, ebin: Path | None) -> tuple[list[str], dict[str, float], int | None]:
    if case.tool == "timeit":
        # timeit on the interpreter `ringbench perf -r python` runs the snippets on (Debian's python3, built
        # with PGO and LTO), never on the one running this script (the project's virtualenv may not be).
        argv = [python_runner(), "-m", "timeit", *case.other]
        out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
        return argv, {case.other[-1]: parse_timeit(out)}, None  # its statement is its last argument
    assert ebin is not None
    loop = parse_loop(case.other[case.other.index("-l") + 1]) if "-l" in case.other else None
    argv = erlperf_argv(ebin, case.other + (["-r", "extended"] if loop else []))
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode != 0 or "Code" not in p.stdout:
        raise RuntimeError(f"erlperf failed: {p.stdout}{p.stderr}")
    times, peak = parse_erlperf(p.stdout, loop)
    if loop:  # the extended report's code is cut short: the case's codes, by what it kept of them
        times = {next(c for c in case.ours if c.startswith(k)): t for k, t in times.items()}
    return argv, times, peak


def python_runner() -> str:
    """The interpreter of the python perf runner's driver (the first word of its command)."""
    return api.perf_runner("python").command[0]


def run_ours(case: Case, db: Path) -> tuple[list[str], dict[str, float], int | None]:
    argv = [sys.executable, "-m", "ringbench.cli", "perf", *case.ours, "--db", str(db)]
    p = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)
    m = re.search(r"stored as run (\d+)", p.stderr)
    if p.returncode != 0 or not m:
        raise RuntimeError(f"ringbench perf failed: {p.stderr}")
    rows = api.perf_rows(api.load(int(m.group(1)), db))
    if case.tool == "timeit":  # timeit gives its best repeat: so does this side, its best sample
        times = {
            r.code.strip(): (r.concurrency or 1) * 1e9 / max(r.cell.values())
            for r in rows
            if r.ns_per_iteration is not None
        }
    else:
        times = {r.code.strip(): r.ns_per_iteration for r in rows if r.ns_per_iteration is not None}
    return argv, times, rows[0].concurrency if rows else None


def shown(argv: list[str]) -> str:
    """A command as a reader would type it: erlperf's escript, ringbench perf, python -m timeit."""
    if argv[0] == "erl" and "erlperf_cli" in argv[-1]:
        return "erlperf " + shlex.join(_erlperf_args(argv))
    if argv[0] == "erl" and "-eval" in argv and "erlperf_cli" not in argv[-1]:
        return "bare loop: " + shlex.join(argv)
    if len(argv) == 2 and argv[1].endswith(".py"):
        return "bare loop: " + shlex.join(argv)
    if argv[1:3] == ["-m", "ringbench.cli"]:
        return "ringbench " + shlex.join(argv[3 : argv.index("--db")])
    return shlex.join(argv)


def _erlperf_args(argv: list[str]) -> list[str]:
    call = argv[argv.index("-eval") + 1]
    inner = call[len("erlperf_cli:main([") : -len("]), halt().")]
    return [s.replace('\\"', '"').replace("\\\\", "\\") for s in re.findall(r'"((?:[^"\\]|\\.)*)"', inner)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", type=Path, help="clone and compile erlperf into this folder, then exit")
    ap.add_argument("--ebin", type=Path, default=os.environ.get("ERLPERF_EBIN"), help="erlperf's compiled folder")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", choices=("erlang", "python"))
    ap.add_argument("--case", action="append", help="only the cases whose name contains this (repeatable)")
    ap.add_argument("--bare-dir", type=Path, default=BARE_DIR, help=f"where the bare loops are built [{BARE_DIR}]")
    ap.add_argument("--quick", action="store_true", help="short samples (to try the script, not to measure)")
    ap.add_argument("--markdown", action="store_true", help="the table as Markdown (for docs/results.md)")
    ap.add_argument("--write", action="store_true", help="write the Markdown table into docs/results.md")
    a = ap.parse_args()
    if a.build:
        print(f"erlperf compiled into {build(a.build)}")
        return
    if a.write and (a.only or a.quick):
        sys.exit("--write replaces the whole table in docs/results.md: measure every case, without --only or --quick")
    if a.write and a.case:
        sys.exit("--write replaces the whole table in docs/results.md: measure every case, without --case")
    if ROOT in a.bare_dir.resolve().parents or a.bare_dir.resolve() == ROOT:
        sys.exit("--bare-dir must be outside the checkout")
    chosen = [c for c in cases() if a.only is None or (c.tool == "timeit") == (a.only == "python")]
    chosen = [c for c in chosen if not a.case or any(k in c.name for k in a.case)]
    if a.quick:  # short samples on both sides, to try the script (its figures are then rough)
        for c in chosen:
            if c.tool == "timeit":
                c.other[:0], c.ours[2:2] = ["-r", "2"], ["-d", "100", "-s", "2"]
            elif "-l" in c.ours:
                c.other[c.other.index("-l") + 1] = c.ours[c.ours.index("-l") + 1] = "1M"
            else:
                c.other += ["-d", "100", "-s", "2", "--max", "4"] if "-q" in c.ours else ["-d", "100", "-s", "2"]
                c.ours += ["-d", "100", "-s", "2", "--max", "4"] if "-q" in c.ours else ["-d", "100", "-s", "2"]
    if any(c.tool == "erlperf" for c in chosen) and not (a.ebin and (a.ebin / "erlperf_cli.beam").exists()):
        sys.exit("give --ebin DIR (erlperf compiled: scripts/perf_versus.py --build DIR), or --only python")
    commands: list[str] = []
    a.bare_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "perf-versus.db"
        for r in range(a.rounds):
            for case in chosen:
                order = (("other", run_other, a.ebin), ("ours", run_ours, db), ("bare", run_bare, a.bare_dir))
                for side, fn, arg in order if r % 2 == 0 else order[::-1]:
                    print(
                        f"round {r + 1}/{a.rounds}: {case.name}: "
                        + {"ours": "ringbench", "bare": "bare loop"}.get(side, case.tool),
                        file=sys.stderr,
                        flush=True,
                    )
                    argv, times, peak = fn(case, arg)
                    if r == 0 and argv:
                        commands.append(shown(argv))
                    for code, ns in times.items():
                        case.times[side].setdefault(code, []).append(ns)
                    if peak is not None and "-q" in case.ours:
                        case.peaks[side].append(peak)
    if a.write:
        write(chosen, commands, a.rounds)
    else:
        report(chosen, commands, a.markdown)


DOC = ROOT / "docs" / "results.md"
BEGIN, END = "<!-- perf-versus:begin -->", "<!-- perf-versus:end -->"
HEADING = "## `ringbench perf` side by side with erlperf, timeit and a bare loop"


def write(chosen: list[Case], commands: list[str], rounds: int) -> None:
    """The table, its commands and the commit into docs/results.md, between BEGIN and END (added at the end
    the first time; scripts/results.py carries the block over when it rewrites the document)."""
    import contextlib
    import io
    import time

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        report(chosen, commands, True)
    rev = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True, cwd=ROOT)
    # docs/results.md, which this writes into (and results.py and fidelity.py too), is output, not code
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)docs/results.md"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    ).stdout.strip()
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    body = (
        f"{HEADING}\n\nMeasured by `scripts/perf_versus.py --rounds {rounds} --write` at commit "
        f"{rev.stdout.strip()}{' with uncommitted changes' if dirty else ''}, {when}, on erlperf's own README "
        "examples and two Python statements: the median over the rounds of each tool's time per iteration, "
        "the tools and the bare loop run one after the other, the order reversed every other round. Within "
        "5 %: the two medians differ by at most 5 % either way; below 1, ringbench's time per iteration (and so its "
        "overhead) is the smaller. The interval is the bootstrap 95 % interval of the ratio and p the "
        "Mann-Whitney U test's over the rounds; a difference of over 5 % that the test does not find "
        "significant is the machine's noise as far as these rounds can tell.\n\n" + buf.getvalue().rstrip() + "\n"
    )
    text = DOC.read_text()
    block = f"{BEGIN}\n{body}{END}"
    if BEGIN in text and END in text:
        text = text[: text.index(BEGIN)] + block + text[text.index(END) + len(END) :]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    DOC.write_text(text)
    print(f"wrote {DOC}", file=sys.stderr)


def _matching(times: dict[str, list[float]], code: str) -> list[float] | None:
    """The other tool's figures for a snippet: erlperf cuts long code, so its code is a prefix of ours;
    timeit's one figure is keyed by the statement."""
    found = [(len(k), v) for k, v in times.items() if code.startswith(k.rstrip(".…"))]
    return max(found)[1] if found else None


def report(chosen: list[Case], commands: list[str], markdown: bool) -> None:
    compare = api.stats.compare

    head = (
        "case",
        "code",
        "other",
        "other ns/iter",
        "ringbench ns/iter",
        "ringbench/other (95 % CI)",
        "p",
        "within 5 %",
        "bare ns/iter",
        "ringbench/bare",
    )
    rows = [head]
    for case in chosen:
        for code, ours in case.times["ours"].items():
            other = _matching(case.times["other"], code)
            if not other:
                continue
            o, m = statistics.median(other), statistics.median(ours)
            # the rounds of the two tools as two samples: the ratio of medians, its bootstrap interval,
            # the Mann-Whitney test (as every ringbench table: significance only with 5 rounds a side)
            d = compare(other, ours)
            lo, hi = d.ratio_ci
            if abs(d.ratio - 1) <= 0.05:
                verdict = "yes"
            elif d.significant:
                verdict = "**no**"
            else:
                verdict = "no (not significant)" if d.significant is False else "no (too few rounds to test)"
            bare = _matching(case.times["bare"], code)
            b = statistics.median(bare) if bare else None
            rows.append(
                (
                    case.name,
                    code,
                    case.tool,
                    f"{o:,.1f}",
                    f"{m:,.1f}",
                    f"{d.ratio:.3f} ({lo:.2f}–{hi:.2f})",
                    "–" if d.p_value is None else f"{d.p_value:.2g}",
                    verdict,
                    "–" if b is None else f"{b:,.1f}",
                    "–" if b is None else f"{m / b:.3f}",
                )
            )
        if case.peaks["ours"]:
            rows.append(
                (case.name, "peak ||", case.tool, str(case.peaks["other"]), str(case.peaks["ours"]), "", "", "", "", "")
            )
    if markdown:
        print("| " + " | ".join(rows[0]) + " |")
        print("|" + "---|" * len(rows[0]))
        for row in rows[1:]:
            print("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |")
    else:
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        for row in rows:
            print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    print("\nerlperf's and ringbench's figures are medians of samples; timeit's is its best of 5 repeats (a")
    print("minimum), and against it ringbench's is its best sample. Each cell: the median over the rounds.")
    print("erlperf's timed mode (-l) is read from its median sample over the loop (`-r extended`): its Time")
    print("column there is whole nanoseconds, the total divided with `div`, so 4.49 ns would read 4.")
    print("timeit turns Python's garbage collector off while it times; ringbench perf, as erlperf, leaves the")
    print("runtime's collector on: the \"GC on\" rows turn it on in timeit's setup (`-s 'import gc; gc.enable()'`).")
    print("The bare loop: the snippet in a plain compiled loop (Erlang: erlc, timer:tc in the -eval process,")
    print("the median of the samples; Python: `for _ in range(n)` in one function, the collector on, best of 5);")
    print("ringbench/bare is the ratio of the two medians over the rounds; squeeze has none (–).")
    print("Commands (round 1; each round ran them all, the order reversed every other round):")
    for c in commands:
        print(f"    {c}")


if __name__ == "__main__":
    main()
