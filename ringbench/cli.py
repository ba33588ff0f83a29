"""The `ringbench` command line: parse, call ringbench.api, hand the result to a presenter.

Exit status of every command: 0 done; 1 some cell failed or a store/file could not be used;
2 bad input (nothing run, nothing stored); 3 stopped by --budget (resumable); 130 interrupted
(finished cells kept, resumable). Every error is one line on stderr, never a traceback.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from . import api, cli_help, perf_cli
from .api import DEFAULT_DB, SETTLE_PCT, Run, StoreError, workloads
from .present import PLOT_KINDS, exporting, tables, terminal
from .present.terminal import err, out
from .present.text import printable
from .present.text import shown as escape  # stored text verbatim: no markup, control characters escaped

EXIT_BUDGET = 3
EXIT_INTERRUPTED = 130
EXIT_PIPE_CLOSED = 141  # 128 + SIGPIPE: the reader of the output went away (the work itself was finished)


class BadInput(click.UsageError):
    """Exit 2 with one clear line."""


class Failure(click.ClickException):
    """Exit 1 with one clear line: something outside the input went wrong (a store, a file)."""


def _store_error(e: StoreError) -> click.ClickException:
    return BadInput(str(e)) if e.exit_code == 2 else Failure(str(e))


class _Group(click.Group):
    """Every command: a store or file problem is one line and an exit status, never a traceback."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except StoreError as e:
            raise _store_error(e) from None
        except api.InputError as e:
            raise BadInput(str(e)) from None
        except BrokenPipeError:  # click.echo to a closed pipe: the output ends there, quietly
            terminal.output_ended()
            raise click.exceptions.Exit(EXIT_PIPE_CLOSED) from None
        except OSError as e:
            raise Failure(f"{e.filename or ''}: {e.strerror or e}".lstrip(": ")) from None


def _sigterm_as_interrupt() -> None:
    def handler(*_):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)


def _duration(text: str | None, what: str, unit: float = 1.0) -> float | None:
    """'90s', '10m', '2h', '100ms' (or a bare number in seconds) → in units of `unit` seconds."""
    if text is None:
        return None
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(ms|[smh]?)\s*", text)
    if not m or float(m.group(1)) <= 0:
        raise BadInput(f"{what} takes a duration like 100ms, 90s, 10m or 2h; got {text!r}")
    return float(m.group(1)) * {"ms": 1e-3, "": 1, "s": 1, "m": 60, "h": 3600}[m.group(2)] / unit


@click.group(
    cls=_Group, help=cli_help.MAIN, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100}
)
@click.version_option(package_name="ringbench")
def cli() -> None:
    pass  # the program's help: cli_help.MAIN


def main() -> None:
    """The console script: click's own usage errors as one line, like every other error; a reader that
    closed the pipe ends the output quietly, exit 141 where the command had succeeded."""
    try:
        _main()
    except SystemExit as e:
        if terminal.was_output_ended() and e.code in (0, None):
            sys.exit(EXIT_PIPE_CLOSED)
        raise


def _main() -> None:
    try:
        rc = cli.main(standalone_mode=False)
    except click.exceptions.Abort:
        err.print("interrupted")
        sys.exit(EXIT_INTERRUPTED)
    except click.ClickException as e:
        ctx = getattr(e, "ctx", None)
        where = f" (see `{ctx.command_path} --help`)" if isinstance(e, click.UsageError) and ctx else ""
        click.echo(f"Error: {printable(e.format_message())}{where}", err=True)
        sys.exit(e.exit_code)
    sys.exit(rc if isinstance(rc, int) else 0)


# -- options shared by run / bench / sweep, generated from the workload catalogue ---------------------
_Command = TypeVar("_Command", bound=Callable[..., Any])


def _param_options(f: _Command) -> _Command:
    for name, uses in reversed(list(workloads.cli_params().items())):
        p = uses[0][0]
        meanings: dict[str, list[str]] = {}
        for q, w in uses:
            meanings.setdefault(q.help, []).append(w.name)
        help_ = "; ".join(f"{text} ({', '.join(names)})" for text, names in meanings.items())
        if p.words:
            help_ += f": {' or '.join(p.words)}"
        if name == "m":
            help_ += "; left out, calibrated so each repeat's timed phase lasts --target"
        f = click.option(p.flag, *p.aliases, name, default=None, help=help_ + ".")(f)
    return f


_db_option = click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=DEFAULT_DB,
    help="SQLite result store [default: the checkout's results/ringbench.db from any folder, or "
    "$RINGBENCH_DB]; measuring creates it (and says so).",
)


_rank_option = click.option(
    "--rank",
    type=click.Choice(["wall", "cpu"]),
    default="wall",
    show_default=True,
    help="What Rel % ranks by: wall (ns/hop) or cpu (CPU ns/hop: what a hop costs the machine, "
    "which spinning idle workers cannot hide).",
)


def _warmup(_ctx, _param, value: str | None) -> int | None | str:
    if value is None or value == "auto":
        return value
    if not value.isdigit() or int(value) > 10_000:
        raise click.BadParameter("auto (until settled) or a number of iterations, 0 to 10,000")
    return int(value)


def _measure_options(cores_default: str, defaults: dict):
    repeat, processes, target = defaults["repeat"], defaults.get("processes", 0), defaults.get("target_ms", 100.0)
    clean = defaults.get("clean_env", False)
    opts = [
        click.option(
            "--runtime", "-r", default="all", show_default=True,
            help="Comma-separated runtimes (see `ringbench runtimes`), or `all` built ones (stock variants).",
        ),
        click.option("--tuned", is_flag=True, help="Add the tuned variants of the runtimes asked (ranked apart)."),
        click.option(
            "--cores", default=cores_default, show_default=True,
            help="1 (pinned to one CPU, one scheduler thread), all, or 1,all for both.",
        ),
        click.option(
            "--repeat", default=None, type=click.IntRange(1, 10_000),
            help=f"timed: measured repeats per cell [default: {repeat}].",
        ),
        click.option(
            "--processes", default=None, type=click.IntRange(1, 10_000),
            help=f"timed: fresh driver processes the repeats are spread over [default: {processes or 'one a repeat'}].",
        ),
        click.option("--in-process", is_flag=True, help="timed: all repeats in one driver process (--processes 1)."),
        click.option(
            "--warmup", default=None, callback=_warmup,
            help=f"timed: untimed iterations first in each driver process: auto (until the last 8 neither drift "
            f"nor alternate by over {SETTLE_PCT:g} %; a JIT runtime first passes its floor) or N; 0 for a cold "
            "start [default: auto].",
        ),
        click.option(
            "--target", default=None,
            help=f"timed: message-phase time per repeat that a calibrated M aims at [default: {target:g}ms].",
        ),
        click.option(
            "--order", type=click.Choice(["interleaved", "sequential"]), default=None,
            help="timed: take the repeats of comparable cells in turn, or measure cell after cell "
            "[default: interleaved].",
        ),
        click.option(
            "--clean-env/--keep-env", "clean_env", default=None,
            help="Start drivers without the variables that tune a runtime (GOGC, JAVA_TOOL_OPTIONS, ERL_FLAGS…) "
            f"[default: {'clean' if clean else 'keep, recorded and warned about'}].",
        ),
        click.option(
            "--continuous", is_flag=True,
            help="Continuous mode (ring): the ring runs without end, sampled every --sample-ms.",
        ),
        click.option(
            "--squeeze", is_flag=True,
            help="Squeeze mode (ring): raise the tokens from --min until throughput stops growing.",
        ),
        click.option(
            "--samples", type=click.IntRange(1, 10_000), default=None,
            help="continuous/squeeze: counted samples after one warm-up sample; with --cv the window "
            "that must agree [default: 5].",
        ),
        click.option(
            "--sample-ms", type=click.IntRange(10, 600_000), default=None,
            help="continuous/squeeze: sample period in ms [default: 1000].",
        ),
        click.option(
            "--cv", type=float, default=None,
            help="continuous: sample until the last --samples have a coefficient of variation below this "
            "fraction (e.g. 0.02), at most --max-samples; only that window is reported.",
        ),
        click.option(
            "--max-samples", type=click.IntRange(2, 100_000), default=None,
            help="continuous with --cv: upper bound on samples [default: 30].",
        ),
        click.option("--min", "squeeze_min", type=click.IntRange(1), default=None, help="squeeze: first K [1]."),
        click.option("--max", "squeeze_max", type=click.IntRange(1), default=None, help="squeeze: last K [64]."),
        click.option(
            "--threshold", type=click.IntRange(1, 100), default=None,
            help="squeeze: steps falling short of the peak (beyond noise) that end the search [3].",
        ),
        click.option(
            "--hosts", default=None,
            help="ring across nodes: nodes on other hosts, [name@]host[:port] comma-separated (name ringbench), "
            "started by you (README.md, A ring across nodes); with this machine's node they make --nodes.",
        ),
        click.option(
            "--cookie-file", default=None,
            help="with --hosts: the file (mode 0600) holding their cookie [default: $RINGBENCH_COOKIE, "
            "else ~/.erlang.cookie].",
        ),
        click.option(
            "--runtime-stats", "-v", "runtime_stats", is_flag=True,
            help="Ask each runtime for its own statistics (GC, schedulers, memory); shown and stored.",
        ),
        click.option(
            "--baseline", default=None,
            help="Rel % reference: a message-passing runtime of this run [default: erlang if present, "
            "else the fastest].",
        ),
        click.option(
            "--timeout", type=click.FloatRange(min=1), default=None,
            help="Seconds per driver process before it is killed [default: from the size].",
        ),
        _db_option,
        click.option("--json", "as_json", is_flag=True, help="Print the run as JSON (every raw record, the summary)."),
        click.option(
            "--wide", is_flag=True,
            help="Also the details: spread, CPU/wall, p-value, count, warm-ups, version.",
        ),
        _rank_option,
    ]  # fmt: skip

    def wrap(f):
        for o in reversed(opts):
            f = o(f)
        return f

    return wrap


_MODE_FIELDS = (
    "repeat processes warmup target_ms timeout order clean_env runtime_stats samples sample_ms cv max_samples "
    "squeeze_min squeeze_max threshold hosts cookie_file"
).split()


def _options(kw: dict, defaults: dict) -> dict:
    """Mode and its settings from the command line (the mode objects validate them)."""
    continuous, squeeze = kw.pop("continuous"), kw.pop("squeeze")
    if continuous and squeeze:
        raise BadInput("choose one of --continuous and --squeeze")
    mode = "continuous" if continuous else "squeeze" if squeeze else "timed"
    if kw.pop("in_process"):
        if kw.get("processes") not in (None, 1):
            raise BadInput("give --in-process or --processes, not both")
        kw["processes"] = 1
    kw["target_ms"] = _duration(kw.pop("target"), "--target", 1e-3)
    picked = {k: kw.pop(k) for k in _MODE_FIELDS}
    picked["runtime_stats"] = picked["runtime_stats"] or None
    auto = picked["warmup"] == "auto"
    picked["warmup"] = None if auto else picked["warmup"]
    if set(defaults) & set(api.Options(mode=mode).mode_object.own):  # the command's defaults are this mode's
        given = {k: v for k, v in picked.items() if v is not None}
        picked = {**{k: v for k, v in defaults.items() if k != "warmup"}, **given}
    elif defaults.get("clean_env") and picked["clean_env"] is None:
        picked["clean_env"] = True
    return {"mode": mode, **picked}


def _params(kw: dict) -> dict:
    given = {name: kw.pop(name, None) for name in workloads.cli_params()}
    return {k: v for k, v in given.items() if v is not None}


def _execute(
    workload: str, kw: dict, *, many_cells: bool, defaults: dict, resume: int | None = None, budget: float | None = None
) -> None:
    """Measure and print; exit with the run's status."""
    runtime, cores, db, as_json, baseline, wide, tuned, rank = (
        kw.pop(k) for k in ("runtime", "cores", "db", "as_json", "baseline", "wide", "tuned", "rank")
    )
    if resume is None:
        api.check_rank(workload, rank)
    params = _params(kw)
    options = _options(kw, defaults)
    _sigterm_as_interrupt()
    command = "ringbench " + shlex.join(sys.argv[1:])
    if resume is not None:
        stored = api.load(resume, db)
        if stored.status == "complete":
            err.print(f"run {resume} is complete: every planned cell is stored; nothing to resume", highlight=False)
            _print_result(api.with_rank(stored, rank), as_json, wide)
            sys.exit(0)
        api.check_rank(stored.workload.name, rank)
        size = api.resume_estimate(resume, db)
        _say_resume_env(stored)
    else:
        _, cells = api.plan(
            workload, runtime, params=params, cores=cores, tuned=tuned, hosts=options.get("hosts") or ()
        )
        size = api.estimate(cells, options)
    shown = terminal.ProgressDisplay(size.seconds, size.processes, None if Path(db).exists() else str(db))
    try:
        if resume is not None:
            result = api.resume(
                resume, db, budget_s=budget, on_begin=shown.begin, on_step=shown.step, on_done=shown.done,
                on_tick=shown.tick,
            )  # fmt: skip
        else:
            result = api.measure(
                workload,
                runtime,
                params=params,
                cores=cores,
                db=db,
                command=command,
                budget_s=budget,
                baseline=baseline,
                tuned=tuned,
                keep_refusals=many_cells or "all" in runtime.split(","),
                on_begin=shown.begin,
                on_step=shown.step,
                on_done=shown.done,
                on_tick=shown.tick,
                **options,
            )
    finally:
        shown.stop()
    _print_result(api.with_rank(result, rank), as_json, wide)
    if result.status == "interrupted":
        sys.exit(EXIT_INTERRUPTED)
    if result.status == "budget":
        sys.exit(EXIT_BUDGET)
    sys.exit(0 if result.status == "complete" and all(c.ok for c in result.cells) else 1)


def _say_resume_env(stored: Run) -> None:
    """One line per variable that tuned the run's runtimes otherwise when it began: it is set back."""
    for k, (recorded, now) in api.resume_env_changes(stored).items():
        here = f"here {k}={shlex.quote(now)}" if now is not None else "unset here"
        began = f"with {k}={shlex.quote(recorded)}: set again" if recorded is not None else f"without {k}: unset"
        err.print(escape(f"run {stored.run_id} began {began} for its drivers ({here})"), highlight=False)


def _print_result(result: Run, as_json: bool, wide: bool = False) -> None:
    if as_json:
        click.echo(api.run_json(result))
        return
    terminal.show_run(result, wide)


_TIMED = {"repeat": 5, "target_ms": 100.0}


@cli.command(epilog=cli_help.workloads_epilog())
@click.argument("workload")
@_param_options
@_measure_options("all", _TIMED)
def run(workload, **kw):
    """Measure WORKLOAD on one or more runtimes; print a table and store every repeat.

    \b
    Examples:
      ringbench run ring --runtime erlang,go,c-pthreads,c-coro -n 10000
      ringbench run ring --runtime erlang -n 1000000 -m 10
      ringbench run ring --runtime go -n 10000 --json
      ringbench run ring --runtime all --cores 1,all -n 10000 --baseline go
      ringbench run ring --runtime erlang -n 10000 -m 1 --tokens 1000 --placement burst
      ringbench run ring --runtime go -n 1000 --continuous --samples 5 --sample-ms 500
      ringbench run ring --runtime go -n 1000 --squeeze --max 16
      ringbench run spawn --runtime all -n 100000
      ringbench run tree --runtime all -n 1000000
      ringbench run msgcost --runtime go -n 2,100,10000,1000000
      ringbench run selective --runtime erlang -n 1000 -m 10

    A cell the named runtimes cannot serve (too large for this machine, a workload or a token count
    they lack) stops the command before anything runs (exit 2); with `--runtime all` it is stored
    and shown as n/a, with the reason.
    """
    _execute(workload, kw, many_cells=False, defaults=_TIMED)


@cli.command(epilog=cli_help.workloads_epilog())
@click.argument("workload", required=False)
@_param_options
@_measure_options("all", _TIMED)
@click.option(
    "--resume", type=int, default=None,
    help="Continue run RUN (from run, bench or sweep) with its own settings: its finished cells are not redone.",
)  # fmt: skip
@click.option("--budget", default=None, help="Stop cleanly after this long (90s, 10m, 2h); exit 3; --resume later.")
def sweep(workload, resume, budget, **kw):
    """Run a grid of cells (comma-separated values); every cell stored as it finishes.

    Cells a runtime cannot serve (too large for this machine, or a workload it lacks) are stored and
    shown as n/a, with the reason.

    --resume measures the cells left with the run's own settings and the environment it began with:
    the variables that tune a runtime (ERL_FLAGS, GOGC, …) recorded then are set again for its
    drivers, and those set only now are left out (one line says so for each); every other variable is
    as now. With --clean-env the run's drivers had none, and still have none.

    \b
    Examples:
      ringbench sweep ring --runtime erlang,go -n 1000,10000,100000 -m 100,1000
      ringbench sweep msgcost --runtime all -n 2,10,100,1000,10000,100000,1000000
      ringbench sweep spawn --runtime all -n 100,1000,10000,100000,1000000 --budget 10m
      ringbench sweep --resume 7
    """
    if resume is None and workload is None:
        raise BadInput("name a WORKLOAD, or --resume RUN")
    if resume is not None:
        ctx = click.get_current_context()
        given = [
            p.opts[0]
            for p in ctx.command.params
            if isinstance(p, click.Option)
            and p.name not in ("resume", "budget", "db", "as_json", "wide")
            and ctx.get_parameter_source(p.name) is click.core.ParameterSource.COMMANDLINE
        ]
        if workload is not None or given:
            extra = ", ".join(([workload] if workload else []) + given)
            raise BadInput(f"--resume continues a run with its own settings; leave out {extra}")
    _execute(workload or "", kw, many_cells=True, defaults=_TIMED, resume=resume, budget=_duration(budget, "--budget"))


# The process is the unit of the statistics (a test needs stats.MIN_PROCESSES_FOR_TEST = 3 fresh processes
# a side), so 3 processes a cell; 2 repeats each; 30 ms message phases. By the bench's own estimate
# (api.estimate) about 310 s for the 48 cells of 24 ranked variants, which ran 15 % under it before
# (238 s measured, 280 s estimated): the JIT floors about 140 s (60 processes and 10 probes at 2 s),
# process start-up about 80 s, the iterations (a window of 8 warm-ups and 2 repeats) about 65 s.
_BENCH = {"repeat": 6, "processes": 3, "target_ms": 30.0, "clean_env": True}


@cli.command()
@click.option("-n", "n", default="1000", show_default=True, help="Processes in the ring.")
@click.option("-m", "m", default=None, help="Laps [default: calibrated to --target].")
@click.option(
    "--all-idioms",
    is_flag=True,
    help="Also the hand-off and rendezvous variants (go/handoff, …), shown apart and never ranked.",
)
@_measure_options("1,all", _BENCH)
def bench(n, m, all_idioms, **kw):
    """The default comparison: the ring on every built runtime, on one core and on all cores.

    Every built runtime as it comes, in each idiom that is ranked (mailboxes and channels; the floor
    for scale; hand-offs and rendezvous with --all-idioms, tuned variants with --tuned, both ranked
    apart). Each cell: 6 repeats in 3 fresh driver processes (2 each: the process is the unit of
    the intervals and tests, and a test needs 3 a side), after warm-up until the runtime has
    settled (its last 8 iterations without drift or alternation; a JIT runtime first passes its
    floor: 10 M hops, 50 iterations or 2 s), M calibrated so a repeat's message phase lasts about
    30 ms; drivers start without the variables that tune a runtime. About 4-5 minutes on a 2-core
    machine with every driver built, half of it the JIT runtimes' warm-ups. Same as `ringbench run
    ring --runtime RANKED --cores 1,all -n 1000 --repeat 6 --processes 3 --target 30ms --clean-env`,
    RANKED the built variants that are neither hand-offs nor rendezvous.
    """
    if kw["runtime"] == "all" and not all_idioms:
        kw["runtime"] = ",".join(api.ranked_runtimes(kw["tuned"])) or "all"
    if kw.get("repeat") is not None and kw.get("processes") is None and not kw.get("in_process"):
        kw["processes"] = min(kw["repeat"], _BENCH["processes"])  # --repeat 2: a process each
    kw.update({name: None for name in workloads.cli_params()}, n=n, m=m)
    waited = []
    api.wait_until_idle(
        lambda busy: (
            waited.append(busy)
            or (
                len(waited) == 1
                and err.print(
                    f"waiting for the machine to settle: CPUs {busy * 100:.0f} % busy (a set-up or build just ran?)"
                )
            )
        )
    )
    _execute("ring", kw, many_cells=True, defaults=_BENCH)


@cli.command()
@click.option("--runtime", "-r", required=True, help="Runtime(s) to trace, comma-separated.")
@click.option("-n", "n", default="3", show_default=True, help=f"Processes (1…{workloads.TRACE_LIMIT}).")
@click.option("-m", "m", default="3", show_default=True, help=f"Laps (1…{workloads.TRACE_LIMIT}).")
@click.option("--nodes", default=None, help="BEAM nodes the ring is spread over (drivers with the feature `nodes`).")
@click.option("--node-placement", default=None, help="with --nodes: contiguous (default) or interleaved.")
@click.option("--timeout", type=click.FloatRange(min=1), default=60, show_default=True)
def trace(runtime, n, m, nodes, node_placement, timeout):
    """Print every hop of a small ring as it happens: which process received which lap from whom.

    A teaching view, not a measurement (printing inside the loop is the point here). The output has
    the same shape for every runtime, and ringbench checks each hop against the ring's rule.

    \b
    Example:
      ringbench trace --runtime erlang -n 3 -m 3
      ringbench trace --runtime erlang -n 4 -m 2 --nodes 2 --node-placement interleaved
    """
    drivers, n, m = api.trace_drivers(runtime, n, m, nodes, node_placement)
    k = workloads.NODES.check(nodes) if nodes is not None else 1
    layout = workloads.NODE_PLACEMENT.check(node_placement) if node_placement is not None else 0
    failed = False
    for d in drivers:
        across = f", over {k} nodes" if k > 1 else ""
        out.print(f"[bold]{d.name}[/bold]: ring of {n} processes, {m} lap(s), {n * m} hops{across}")

        def show(rec: dict) -> None:
            sender = "main" if rec.get("from") == -1 else f"p{rec.get('from')}"
            on = f"  (node {rec['node']})" if "node" in rec else ""
            out.print(f"  hop {rec.get('hop'):>5}  lap {rec.get('lap'):>3}:  p{rec.get('to')} ← {sender}{on}")

        problem = api.trace(d, n, m, show, timeout, k, layout)
        if problem:
            failed = True
            err.print(f"[red]{d.name}: trace is wrong: {escape(problem)}[/red]")
        else:
            out.print(f"  [green]{n * m} hops, each from its predecessor, in order[/green]")
    sys.exit(1 if failed else 0)


@cli.group(invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output, with workloads and features.")
@click.option(
    "-v", "--verbose", is_flag=True,
    help="Also each driver's environment: the variables that tune its runtime, those that change its build, "
    "and what its last build removed or kept.",
)  # fmt: skip
@click.pass_context
def runtimes(ctx, as_json, verbose):
    """List every driver found under drivers/: built or not, kind of hop, version, workloads; then the
    other installations of runtimes declared with `ringbench runtimes add`."""
    if ctx.invoked_subcommand is not None:
        return
    rows = api.runtimes()
    installed = api.installations()
    if as_json:
        import json

        # each declared installation after the drivers: {"installation": name, "runtime": its driver, ...}
        click.echo(json.dumps(rows + [{"installation": i.pop("name"), **i} for i in installed], indent=1))
        return
    terminal.show_runtimes(rows)
    if verbose:
        terminal.show_runtime_env(rows)
    if installed:
        out.print("\nOther installations (-r <runtime>@<name>; ringbench build <runtime>@<name>):")
        for i in installed:
            state = i.get("problem") or f"{i['version']:<10} " + (
                "built" if i["built"] else f"not built: ringbench build {i['runtime']}@{i['name']}"
            )
            out.print(escape(f"  {i['name']:<12} {i['runtime']:<14} {state}\n  {'':<12} home {i['home']}"))


@runtimes.command("add")
@click.argument("name")
@click.option("--runtime", "-r", "runtime", required=True, help="The driver folder, e.g. java-threads or go.")
@click.option("--home", required=True, help="The installation: its home folder (a JDK), or go's toolchain name.")
def runtimes_add(name, runtime, home):
    """Declare another installation of a runtime, NAME, selected as `-r <runtime>@NAME`: stored in
    results/installations.toml, its version read from it now. Then `ringbench build <runtime>@NAME`."""
    path, version = api.add_installation(name, runtime, home)
    out.print(escape(f"{name}: {runtime} at {home}, {version} (in {path}); next: ringbench build {runtime}@{name}"))


@cli.command()
@click.argument("names", nargs=-1)
@click.option(
    "--keep-env", is_flag=True,
    help="Keep the variables that change a build (RUSTFLAGS, GOFLAGS, CFLAGS…: each manifest's build_env) "
    "instead of removing them; the build is then recorded as tuned and every run of it warns.",
)  # fmt: skip
def build(names, keep_env):
    """Build the named drivers (default: every driver) with each runtime's own tools, in an environment
    without the variables that would change the build (a stock build is the ecosystem's standard release
    build). `ringbench runtimes -v` shows what each build found."""

    def each(name: str, problem: str | None) -> None:
        err.print(f"  {name}: [green]built[/green]" if problem is None else f"  {name}: [red]{escape(problem)}[/red]")

    def env(name: str, record: dict) -> None:
        for how, what in (("removed from", "removed"), ("kept in", "kept")):
            if record.get(what):
                names_ = ", ".join(f"{k}={v}" for k, v in record[what].items())
                err.print(escape(f"  {name}: {names_} {how} the build's environment"), highlight=False)

    with err.status("building …"):
        failed = api.build(list(names), each, keep_env, env)
    if failed:
        err.print(f"[red]{len(failed)} driver(s) failed to build: {', '.join(failed)}[/red]")
        sys.exit(1)


# -- the store ---------------------------------------------------------------------------------
@cli.command()
@_db_option
def history(db):
    """List the stored runs, one line each: id, start, status, cells ok/planned, workload, runtimes."""
    runs = api.history(db)
    terminal.show_history(runs, str(db), api.db_flag(db))


@cli.command()
@click.argument("run_id", type=int)
@click.option("--baseline", default=None, help="Rel % against this runtime instead of the one the run used.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--wide", is_flag=True, help="Also the details block.")
@_rank_option
@_db_option
def show(run_id, baseline, as_json, wide, rank, db):
    """Print stored run RUN_ID as `run` printed it: table, notes, warnings (recomputed from raw records)."""
    result = api.with_rank(api.with_baseline(api.load(run_id, db), baseline), rank)
    if as_json:
        _print_result(result, True)
        return
    terminal.show_header(result)
    terminal.show_run(result, wide)


@cli.command()
@click.argument("run_a", type=int)
@click.argument("run_b", type=int)
@click.option(
    "--fail-above", type=click.FloatRange(min=0), default=None, metavar="PCT",
    help="Exit 1 if some cell got slower by more than PCT % and the change is significant (a regression gate).",
)  # fmt: skip
@_db_option
def compare(run_a, run_b, fail_above, db):
    """Change from RUN_A to RUN_B for every cell both have, with its interval and significance.

    Significant = two-sided Mann-Whitney U test on the repeats, p < 0.05, with at least 5 repeats on
    each side (fewer: "too few repeats to tell"); the interval is the bootstrap 95 % interval of the
    ratio of medians.

    \b
    As a regression gate (exit 1 when a cell is significantly slower by more than 5 %):
      ringbench compare 12 13 --fail-above 5
    """
    _, _, changes = api.compare(run_a, run_b, db)
    terminal.show_compare(run_a, run_b, changes, changes[0].after.headline_metric.label)
    regressions = [ch for ch in changes if fail_above is not None and ch.regression(fail_above)]
    for ch in regressions:
        err.print(
            escape(
                f"regression: {ch.after.label}: {ch.slower_pct:+.1f} % slower (p = {ch.diff.p_value:.3f}), "
                f"more than --fail-above {fail_above:g} %"
            ),
            highlight=False,
        )
    sys.exit(1 if regressions else 0)


def _umask() -> int:
    """This process's umask, read without changing it where /proc says it (Linux 4.7 on)."""
    try:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1], 8) for line in f if line.startswith("Umask:"))
    except (OSError, StopIteration, ValueError, IndexError):
        mask = os.umask(0o022)
        os.umask(mask)
        return mask


def _write(path: Path, text: str) -> None:
    """Write the file whole or not at all: a temporary file beside it, then renamed over it."""
    if not path.parent.exists():
        err.print(f"creating folder {path.parent}")
        try:
            path.parent.mkdir(parents=True)
        except OSError as e:
            raise Failure(f"cannot create folder {path.parent}: {e.strerror}") from None
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp's 0600, as a plain open() would have made it
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError as e:
        if tmp and os.path.exists(tmp):
            os.unlink(tmp)
        raise Failure(f"cannot write {path}: {e.strerror or e}; nothing was written") from None


@cli.command()
@click.argument("run_id", type=int)
@click.option(
    "--format", "fmt", type=click.Choice(sorted(exporting.EXPORTERS)), default="json", show_default=True,
    help="json: everything, re-importable; csv: one line per repeat; markdown: the table, for a blog post.",
)  # fmt: skip
@click.option(
    "--out", "out_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
    help="Write to this file (its folder is created) instead of stdout.",
)  # fmt: skip
@_db_option
def export(run_id, fmt, out_path, db):
    """Export stored run RUN_ID as json, csv or markdown."""
    text = exporting.EXPORTERS[fmt](api.load(run_id, db))
    if out_path:
        _write(out_path, text)
        err.print(f"wrote {out_path}")
    else:
        click.echo(text, nl=False)


@cli.command(name="import")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@_db_option
def import_(path, db):
    """Import a JSON export (from `ringbench export`) as a new run, all or nothing (status imported)."""
    run_id = api.import_run(path, db)
    click.echo(f"imported {path} as run {run_id}; `ringbench show {run_id}{api.db_flag(db)}` prints it")


@cli.command()
@click.argument("run_id", type=int)
@click.option(
    "--kind", type=click.Choice(["auto", *PLOT_KINDS]), default="auto", show_default=True,
    help="What to draw (auto: chosen from the run's workload and mode).",
)  # fmt: skip
@click.option("--out", "out_path", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="Image file; .png or .svg.")  # fmt: skip
@click.option("--runtime", "-r", default=None, help="Only this runtime (needed for surface).")
@click.option("--fixed-n", type=int, default=None, help="time-vs-m: the N to hold fixed [middle of the run's N].")
@click.option("--fixed-m", type=int, default=None, help="hops-vs-n: the M to hold fixed [middle of the run's M].")
@_db_option
def plot(run_id, kind, out_path, runtime, fixed_n, fixed_m, db):
    """Draw a plot of stored run RUN_ID (medians with 95 % intervals).

    \b
    Examples:
      ringbench plot 3 --kind hops-vs-n --out ns-per-hop.png
      ringbench plot 3 --kind surface --runtime erlang --out erlang-surface.svg
    """
    from .present import plots

    if out_path.suffix.lower() not in (".png", ".svg"):
        raise BadInput("--out must end in .png or .svg")
    result = api.load(run_id, db)
    if kind == "auto":
        kind = plots.default_kind_for(result.cells)
    if not out_path.parent.exists():
        err.print(f"creating folder {out_path.parent}")
    try:
        plots.plot(result.cells, kind, out_path, runtime, fixed_n, fixed_m)
    except plots.PlotError as e:
        raise BadInput(str(e)) from None
    click.echo(f"wrote {out_path}")


@cli.command()
@click.argument("run_ids", type=int, nargs=-1, required=True)
@click.option("--out", "out_path", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The HTML file to write (its folder is created).")  # fmt: skip
@_db_option
def report(run_ids, out_path, db):
    """Write one self-contained HTML report (charts embedded, no network needed) of stored runs."""
    from .present import report as report_mod

    runs = [api.load(run_id, db) for run_id in run_ids]
    with err.status("drawing charts …"):
        _write(out_path, report_mod.render([(r, r.command) for r in runs]))
    click.echo(f"wrote {out_path}")


# -- versus: a driver against a program of your own --------------------------------------------------
@cli.command(help=cli_help.VERSUS)
@click.option(
    "--runtime", "-r", required=True, metavar="RUNTIME",
    help="The driver, as `ringbench runtimes` lists it (one runtime, e.g. go/stock).",
)  # fmt: skip
@click.option(
    "--program", "-p", required=True, metavar="CMD",
    help="The independent program's command line with {n} and {m} (or {hops}) placeholders.",
)  # fmt: skip
@click.option("-n", "ns", required=True, metavar="N[,N...]", help="Ring sizes, comma-separated: two rows per N.")
@click.option(
    "-m", "m_opt", metavar="M2|M1,M2",
    help="Laps of the long run (the short run does M2/10), or both; the same for every N.",
)  # fmt: skip
@click.option(
    "--hops", "hops_opt", type=click.IntRange(min=2), metavar="H",
    help="Instead of -m: hops of the long run, M2 = H / (N x tokens), M1 = M2/10 [default: 5,000,000].",
)  # fmt: skip
@click.option(
    "--tokens", "-k", type=click.IntRange(min=1), default=1, show_default=True,
    help="Tokens circulating at once (the program needs {tokens} or {hops}).",
)  # fmt: skip
@click.option(
    "--placement", type=click.Choice(["spread", "burst"]), default="spread", show_default=True,
    help="The driver's token placement (burst: all tokens at p0); the program places its own.",
)  # fmt: skip
@click.option(
    "--cores", type=click.Choice(["1", "all"]), default="1", show_default=True,
    help="1: both sides pinned to one CPU with one scheduler thread; all: every CPU.",
)  # fmt: skip
@click.option(
    "--rounds", type=click.IntRange(min=1), default=5, show_default=True,
    help="Interleaved rounds (4 runs each); 5 or more for a significance test.",
)  # fmt: skip
@click.option(
    "--warmup-runs", type=click.IntRange(min=0), default=1, show_default=True,
    help="Untimed short runs of each side first (binaries into the page cache; fail fast).",
)  # fmt: skip
@click.option(
    "--env", "env_pairs", multiple=True, metavar="KEY=VALUE",
    help="Environment for the program (repeatable; {n}, {tokens}, {cores} allowed, e.g. GOMAXPROCS={cores}). "
    "To give both sides a variable, export it before running versus.",
)  # fmt: skip
@click.option("--no-driver-env", is_flag=True, help="Do not give the program the driver manifest's [env].")
@click.option(
    "--build", "build_cmd", metavar="CMD",
    help="A shell command run once first to build the program (e.g. go build -o /tmp/ring/ring ...).",
)  # fmt: skip
@click.option(
    "--timeout", type=click.FloatRange(min=0.1), default=600, show_default=True,
    help="Seconds allowed to any one run (its process group is killed).",
)  # fmt: skip
@click.option("--label", default=None, help="The program's name in the table, program:LABEL [its file name].")
@click.option(
    "--workload", "-w", type=click.Choice(["ring", "tree"]), default="ring", show_default=True,
    help="ring: laps at N (placeholders {n} {m} {tokens} {hops}); tree: skynet's tree of N leaves against a short "
    "one (placeholders {n} {fanout} {processes}).",
)  # fmt: skip
@click.option("--fanout", type=click.IntRange(2, 1000), default=10, show_default=True, help="tree: children a node.")
@click.option("--short", "short_n", type=click.IntRange(min=1), default=None,
              help="tree: leaves of the short tree [N / fanout].")  # fmt: skip
@click.option(
    "--with-default", is_flag=True,
    help="Each round also measures the driver as `ringbench run` does by default (a fresh process, warm-ups "
    "until settled, M calibrated): the figure ringbench prints, in the column 'default ns/hop'.",
)  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print the run as JSON (every round's wall times and records).")
@click.option("--markdown", is_flag=True, help="Print the table as Markdown with the commands, for pasting into docs.")
@_db_option
def versus(
    runtime, program, ns, m_opt, hops_opt, tokens, placement, cores, rounds, warmup_runs, env_pairs, no_driver_env,
    build_cmd, timeout, label, workload, fanout, short_n, with_default, as_json, markdown, db,
):  # fmt: skip
    if as_json and markdown:
        raise BadInput("--json and --markdown exclude each other")
    _sigterm_as_interrupt()

    def say(text: str) -> None:
        err.print(escape(f"versus: {text}"), highlight=False, soft_wrap=True)

    try:
        run = api.versus(
            runtime, program, ns, m=m_opt, hops=hops_opt, tokens=tokens, placement=placement, cores=cores,
            rounds=rounds, warmup_runs=warmup_runs, env=env_pairs, no_driver_env=no_driver_env, build=build_cmd,
            timeout=timeout, label=label, workload=workload, fanout=fanout, short=short_n, with_default=with_default,
            db=db, command="ringbench " + shlex.join(sys.argv[1:]), on_progress=say,
        )  # fmt: skip
    except api.RunFailed as e:
        raise Failure(str(e)) from None
    pairs = api.versus_pairs(run)
    stored = f"stored as run {run.run_id}: `{run.hint('show')}`"
    if run.status == "failed":
        why = next((p.failure for p in pairs if p.failure), None) or "a run failed"
        raise Failure(f"{why} ({stored})")
    if as_json:
        click.echo(api.run_json(run))
    elif markdown:
        click.echo(exporting.EXPORTERS["markdown"](run), nl=False)
        click.echo("".join(f"\n- N = {p.params['n']:,}: {p.verdict}\n" for p in pairs if p.verdict), nl=False)
    elif any(c.ok for c in run.cells):
        s = run.settings.get("versus", {})
        pin = f", pinned to CPU {run.cells[0].settings.get('pinned_cpu')}" if run.cells[0].cores == "1" else ""
        out.print(
            escape(f"{run.settings['runtimes'][0]} against {run.settings['runtimes'][1]} = `{s.get('program')}`, "
                   f"cores {run.cells[0].cores}{pin}"),
            highlight=False,
        )  # fmt: skip
        terminal.show_run(run)
        for p in pairs:
            if p.verdict:
                out.print(escape(f"N = {p.params['n']:,}: {p.verdict}"), highlight=False)
    if run.status == "interrupted":
        done, planned = sum(p.failure is None for p in pairs), len(run.settings["grid"])
        err.print(
            escape(f"interrupted: {done} of {planned} ring size(s) compared, {stored}"), highlight=False, soft_wrap=True
        )
        sys.exit(EXIT_INTERRUPTED)
    err.print(escape(stored), highlight=False, soft_wrap=True)
    sys.exit(0)


# -- perf: benchmark your own code, erlperf's way --------------------------------------------------------
class _PerfCommand(click.Command):
    """perf's help names every perf runner the drivers' manifests list, read when the help is shown."""

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self.help = perf_cli.perf_help()
        super().format_help_text(ctx, formatter)


def perf_args(argv: list[str]) -> tuple[list[dict], dict]:
    """erlperf's command line (perf_cli.perf_args); one that does not fit is BadInput."""
    try:
        return perf_cli.perf_args(argv)
    except api.InputError as e:
        raise BadInput(str(e)) from None


@cli.command(
    cls=_PerfCommand,
    help=perf_cli.PERF_HELP,
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True, "max_content_width": 100},
)
@click.argument("argv", nargs=-1, type=click.UNPROCESSED)
def perf(argv):
    raw = list(argv)
    snippets, opts = perf_args(raw)
    db = Path(opts.pop("db", DEFAULT_DB))
    as_json, wide, verbose = (bool(opts.pop(k, False)) for k in ("as_json", "wide", "verbose"))
    squeeze = opts.pop("squeeze", False)
    if squeeze and "loop" in opts:
        raise BadInput("choose one of -q (squeeze) and -l (timed)")
    mode = "squeeze" if squeeze else "timed" if "loop" in opts else "continuous"
    _sigterm_as_interrupt()
    progress = terminal.PerfProgress(verbose)
    progress.start()
    creating = not db.exists()
    command = "ringbench " + shlex.join(["perf", *raw])
    try:
        run = api.perf(
            snippets, runtime=opts.pop("runtime", api.PERF_DEFAULT_RUNNER), db=db, mode=mode, runtime_stats=verbose,
            command=command, on_ready=progress.ready, on_event=progress.event, on_stderr=progress.stderr_line, **opts,
        )  # fmt: skip
    finally:
        progress.stop()
    if creating and db.exists():
        err.print(f"created the store {db}", highlight=False)
    stored = f"stored as run {run.run_id}: `{run.hint('show')}`"
    if as_json:
        click.echo(api.run_json(run))
    else:
        terminal.show_perf(run, wide)
    if run.status == "interrupted":
        err.print(escape(f"interrupted; {stored}"), highlight=False, soft_wrap=True)
        sys.exit(EXIT_INTERRUPTED)
    if run.status == "failed":
        why = next((c for c in run.cells if not c.ok), None)
        line = f"{tables.perf_code(why)}: {tables.reason_line(why)}" if why else "a snippet failed"
        hook = next((c for c in run.cells if c.extra.get("done_failed")), None)
        if why is None and hook is not None:  # measured in full, then its done hook failed: figures kept
            first = str(hook.extra["done_failed"]).splitlines()[0]
            line = f"{tables.perf_code(hook)}: {first} (its figures are kept)"
        raise Failure(f"{line} ({stored})")
    err.print(escape(stored), highlight=False, soft_wrap=True)
    sys.exit(0)


if __name__ == "__main__":
    main()
