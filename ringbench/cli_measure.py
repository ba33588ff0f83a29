"""The commands that measure the runtimes: run, sweep, bench and trace (parsed here, run by ringbench.api)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click

from . import api, cli_help
from .api import Run, workloads
from .cli_common import (
    EXIT_BUDGET,
    EXIT_INTERRUPTED,
    BadInput,
    _duration,
    _measure_options,
    _options,
    _param_options,
    _params,
    _sigterm_as_interrupt,
)
from .present import terminal
from .present.terminal import err, out
from .present.text import shown as escape  # stored text verbatim: no markup, control characters escaped


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


@click.command(epilog=cli_help.workloads_epilog())
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


@click.command(epilog=cli_help.workloads_epilog())
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
# a side), so 3 processes a cell; 2 repeats each; 30 ms message phases. The 48 cells of 24 ranked variants
# took 273 s (docs/results/bench.md, run 92), most of it the JIT runtimes' floors (about 2 s a process,
# 48 processes and 8 probes), then process start-up and the iterations (a window of 10 warm-ups, 2
# repeats and one unreported iteration for the drift check). The drivers' hand-written mailboxes wait
# for --all-idioms: 6 cells, about 50 s more.
_BENCH = {"repeat": 6, "processes": 3, "target_ms": 30.0, "clean_env": True}


@click.command()
@click.option("-n", "n", default="1000", show_default=True, help="Processes in the ring.")
@click.option("-m", "m", default=None, help="Laps [default: calibrated to --target].")
@click.option(
    "--all-idioms",
    is_flag=True,
    help="Also the hand-off and rendezvous variants (go/handoff, …), shown apart and never ranked, and "
    "the drivers' hand-written mailboxes (java-threads/parkbox, …), ranked apart.",
)
@_measure_options("1,all", _BENCH)
def bench(n, m, all_idioms, **kw):
    """The default comparison: the ring on every built runtime, on one core and on all cores.

    Every built runtime as it comes, in each idiom that is ranked (the runtime's own mailboxes and
    channels; the floor for scale; hand-offs, rendezvous and hand-written mailboxes with
    --all-idioms, tuned variants with --tuned, each ranked apart). Each cell: 6 repeats in 3 fresh
    driver processes (2 each: the process is the unit of the intervals and tests, and a test needs 3
    a side), after warm-up until the runtime has settled (its last 10 iterations without drift or
    alternation; a JIT runtime first passes its floor: 10 M hops, 50 iterations or 2 s), M
    calibrated so a repeat's message phase lasts about 30 ms; drivers start without the variables
    that tune a runtime. About 5 minutes on a 2-core machine with every driver built, half of it the
    JIT runtimes' warm-ups. Same as `ringbench run ring --runtime RANKED --cores 1,all -n 1000
    --repeat 6 --processes 3 --target 30ms --clean-env`, RANKED the built variants that are neither
    hand-offs, rendezvous nor hand-written mailboxes.
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


@click.command()
@click.option("--runtime", "-r", required=True, help="Runtime(s) to trace, comma-separated.")
@click.option("-n", "n", default="3", show_default=True, help=f"Processes (1…{workloads.TRACE_LIMIT}).")
@click.option("-m", "m", default="3", show_default=True, help=f"Laps (1…{workloads.TRACE_LIMIT}).")
@click.option(
    "--nodes",
    default=None,
    help="nodes (OS processes of the runtime) the ring is spread over, over the runtime's own remoting "
    "(drivers with the feature `nodes`; refused by the others, naming those).",
)
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
