"""`ringbench perf`'s command line beside the API it calls: erlperf's argv grammar (`perf_args`, hooks pairing
with the code before them) and the command's help (`perf_help`, naming every perf runner the drivers'
manifests list). cli.py only calls these; a command line that does not fit is an api.InputError (one line,
exit 2)."""

from __future__ import annotations

import re
import textwrap

from . import api
from .api import InputError

PERF_HELP = """Benchmark your own code, erlperf's way: each CODE runs in a tight loop on a runtime's
perf runner.

\b
  ringbench perf 'rand:uniform().' 'crypto:strong_rand_bytes(2).'
  ringbench perf 'rand:uniform().' -c 2                   two workers at once
  ringbench perf 'erlang:unique_integer().' -l 100M        timed: exactly 100M iterations a sample
  ringbench perf 'run(L) -> [X || X <- L, X rem 2 =:= 0].' --init_runner 'lists:seq(1, 100).' \\
      'run(L) -> lists:filter(fun(X) -> X rem 2 =:= 0 end, L).' --init_runner 'lists:seq(1, 100).'
  ringbench perf 'ets:insert(t, {1, 2}).' --init 'ets:new(t, [named_table, public]).' -q
  ringbench perf -r python 'sorted(xs)' --init_runner 'xs = list(range(1000, 0, -1))'
  ringbench perf 'ets:update_counter(t, k, 1).' --nodes 3 -c 2 \\
      --init 'ets:new(t, [named_table, public]), ets:insert(t, {k, 0}).'   3 nodes, 2 workers each

\b
CODE is the runtime's own syntax: an expression or statements (inlined in the
loop), a function definition whose arity says what it gets (`run(X) -> ... .`,
`def run(x): ...`), a reference ({M, F, Args} or m:f/N in Erlang, module:function
in Python), or a file holding function definitions (the first is the runner).
It runs as you, with your full rights and nothing sandboxed (as in erlperf):
a snippet that deletes files or runs commands does so.

\b
Modes (erlperf's):
  (default)             continuous: the workers iterate without end; a sample
                        of the running count every -d ms, after -w warm-ups
  -l, --loop N          timed: one worker runs exactly N iterations a sample
                        (100, 10K, 100M, 3G)
  -q, --squeeze         add workers until throughput stops growing; the row
                        is the peak (its workers in ||)
Sampling:
  -c, --concurrency N   workers at once (continuous) [1]
  -s, --samples N       counted samples [3]; 5 or more a snippet for Rel %'s
                        significance test
  -d, --sample-ms MS    the sample period (erlperf's --duration) [1000]
  -w, --warmup N        warm-up samples first, not counted [1; timed: 0]
  --cv F                continuous: sample until the last -s samples have a
                        coefficient of variation below F, at most --max-samples
  --max-samples N       with --cv [30]
  --min N, --max N      squeeze: the first and the last worker count [1, 64]
  -t, --threshold N     squeeze: steps short of the peak that end it [3]
Hooks (each pairs with the CODE before it; before any CODE, with the first):
  --init CODE           once, in the job, before the workers; its value goes to
                        init_runner/1 and done/1
  --init_runner CODE    once per worker (also --init-runner); its value goes to
                        runner/1 and runner/2 (whose second argument is the
                        previous call's result, the first time this value)
  --done CODE           once, after the workers are stopped
  --label TEXT          the snippet's name in the table
Runner:
{runners}
  -pa DIR, --path DIR   add a code path (Erlang -pa, Python sys.path);
                        ERL_LIBS works too
  --require MODULE      Node: load a module first
  -i, --isolated        each snippet in a fresh runtime process (default: one
                        process, the snippets one after another)
  --processes           Python: workers are OS processes, not threads
  --nodes K             run every snippet on K BEAM nodes at once (runners
                        with the feature `nodes`: erlang, elixir): init and
                        done once a node, -c workers a node; a row per node
                        and their sum [1]; not with -q
  --hosts H1,H2         nodes on other hosts, started by you (README.md, A
                        ring across nodes): K = hosts + 1
  --cookie-file F       their cookie [$RINGBENCH_COOKIE, ~/.erlang.cookie]
  --cores 1|all         1: pinned to one CPU, one scheduler [all]
  --timeout S           kill the runtime after S seconds without a record
                        [60; timed: 600]
  --clean-env/--keep-env  without the variables that tune a runtime [keep]
Output:
  -v, --verbose         the runtime's statistics per sample (BEAM: reductions,
                        scheduler utilisation, memory, processes; Python: GC)
  --wide                every column, the code whole
  --json                the run as JSON (every sample, the code verbatim)
  --db PATH             the store [results/ringbench.db]

\b
QPS is iterations per second of all the workers together (erlperf's QPS is per
sample period; with -d 1000 they agree); Time is what one iteration takes one
worker. The run is stored like any other: `ringbench show`, `compare
--fail-above` (a regression gate for your function), `export`, `report`.

\b
Exit status: 0 measured; 1 a snippet failed (raised, hung, crashed: the run
stops there, the runtime's message on one line); 2 bad input (code that does
not compile, a wrong arity, options that do not fit: nothing run or stored);
130 interrupted (the snippets finished before it are kept).
"""

_RUNTIME_FLAG = "  -r, --runtime NAME    "


def perf_help() -> str:
    """The help, its -r entry naming every perf runner the drivers' manifests list (`perf = NAME`)."""
    runners = api.perf_runners()
    listed = ", ".join(f"{n} (default)" if n == api.PERF_DEFAULT_RUNNER else n for n in runners) or "none found"
    text = f"{listed}: a driver whose manifest names `perf` (ringbench runtimes); or its runtime id"
    lines = textwrap.wrap(text, 78 - len(_RUNTIME_FLAG))
    indent = " " * len(_RUNTIME_FLAG)
    return PERF_HELP.replace("{runners}", "\n".join([_RUNTIME_FLAG + lines[0], *(indent + x for x in lines[1:])]))


# -- erlperf's command line --------------------------------------------------------------------------------
_VALUE = {
    "-r": "runtime", "--runtime": "runtime", "-c": "concurrency", "--concurrency": "concurrency",
    "-s": "samples", "--samples": "samples", "-d": "sample_ms", "--sample-ms": "sample_ms",
    "--sample_duration": "sample_ms", "--duration": "sample_ms", "-w": "warmup", "--warmup": "warmup",
    "--cv": "cv", "--max-samples": "max_samples", "-l": "loop", "--loop": "loop", "--min": "squeeze_min",
    "--max": "squeeze_max", "-t": "threshold", "--threshold": "threshold", "--cores": "cores", "--timeout": "timeout",
    "--db": "db", "-pa": "code_path", "--path": "code_path", "--require": "code_path", "--nodes": "nodes",
    "--hosts": "hosts", "--cookie-file": "cookie_file",
}  # fmt: skip
_FLAG = {
    "-q": "squeeze", "--squeeze": "squeeze", "-i": "isolated", "--isolated": "isolated", "--isolation": "isolated",
    "--processes": "processes", "-v": "verbose", "--verbose": "verbose", "--json": "as_json", "--wide": "wide",
    "--clean-env": "clean_env", "--keep-env": "keep_env",
}  # fmt: skip
_HOOK = {"--init": "init", "--init_runner": "init_runner", "--init-runner": "init_runner", "--done": "done",
         "--label": "label"}  # fmt: skip
_OPTION = re.compile(r"--?[A-Za-z][\w-]*")
_INTS = ("concurrency", "samples", "sample_ms", "warmup", "max_samples", "squeeze_min", "squeeze_max", "threshold",
         "nodes")  # fmt: skip


def _seconds(text: str, what: str) -> float:
    """'90s', '10m', '2h', '100ms' (or a bare number of seconds) → seconds."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(ms|[smh]?)\s*", text)
    if not m or float(m.group(1)) <= 0:
        raise InputError(f"{what} takes a duration like 100ms, 90s, 10m or 2h; got {text!r}")
    return float(m.group(1)) * {"ms": 1e-3, "": 1, "s": 1, "m": 60, "h": 3600}[m.group(2)]


def perf_args(argv: list[str]) -> tuple[list[dict], dict]:
    """erlperf's command line, in order: (snippets with their hooks, options). Each hook pairs with the code
    before it; a hook before any code goes with the first. InputError for a command line that does not fit."""
    snippets: list[dict] = []
    early: dict[str, str] = {}
    opts: dict = {"code_path": []}
    i = 0
    while i < len(argv):
        tok = argv[i]
        name, eq, inline = tok.partition("=") if tok.startswith("--") else (tok, "", "")
        if not _OPTION.fullmatch(name):
            snippets.append({"runner": tok})
            i += 1
            continue
        if name in _FLAG:
            if eq:
                raise InputError(f"{name} takes no value")
            opts[_FLAG[name]] = True
            i += 1
            continue
        if name not in _VALUE and name not in _HOOK:
            raise InputError(f"unknown option {name}")
        if eq:
            value = inline
            i += 1
        elif i + 1 < len(argv):
            value = argv[i + 1]
            i += 2
        else:
            raise InputError(f"{name} needs a value")
        if name in _HOOK:
            hook = _HOOK[name]
            target = snippets[-1] if snippets else early
            if hook in target:
                where = f"snippet {len(snippets)}" if snippets else "the first snippet"
                raise InputError(f"{name} given twice for {where}: each hook pairs with the code before it")
            target[hook] = value
            continue
        key = _VALUE[name]
        if key == "code_path":
            opts["code_path"].append(value)
        elif key in opts:
            raise InputError(f"{name} given twice")
        elif key in _INTS:
            text = value.strip().replace("_", "")
            if not text.isdigit():
                raise InputError(f"{name} takes a whole number, got {value!r}")
            opts[key] = int(text)
        elif key == "cv":
            try:
                opts[key] = float(value)
            except ValueError:
                raise InputError(f"--cv takes a fraction such as 0.02, got {value!r}") from None
        elif key == "timeout":
            opts[key] = _seconds(value, "--timeout")
        else:
            opts[key] = value
    if not snippets:
        raise InputError("give the code to run, e.g. ringbench perf 'rand:uniform().'")
    for hook, value in early.items():
        if hook in snippets[0]:
            raise InputError(f"--{hook} given twice for the first snippet (once before it, once after)")
        snippets[0][hook] = value
    clean, keep = opts.pop("clean_env", False), opts.pop("keep_env", False)
    if clean and keep:
        raise InputError("give --clean-env or --keep-env, not both")
    opts["clean_env"] = clean
    return snippets, opts


__all__ = ["PERF_HELP", "perf_args", "perf_help"]
