"""The `ringbench` command line: options in, one ringbench.api call, a presenter out. No domain logic here.

Exit status of every command: 0 done; 1 some cell failed or a store/file could not be used;
2 bad input (nothing run, nothing stored); 3 stopped by --budget (resumable); 130 interrupted
(finished cells kept, resumable).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from . import api
from .catalogue import workloads
from .catalogue.drivers import DriverError, discover
from .catalogue.drivers import build as build_driver
from .present import PLOT_KINDS, exporting, tables
from .results import noise
from .results.model import Cell, Run
from .results.store import DEFAULT_DB, Store, StoreError

EXIT_BUDGET = 3
EXIT_INTERRUPTED = 130


def _width() -> int | None:
    """A terminal's own width; piped, $COLUMNS or 100 (the compact table is made to fit 100), less a
    few columns so that the odd two- or three-byte character (±, µ, ✓) keeps a line within that many
    bytes too, for tools that count bytes."""
    if sys.stdout.isatty():
        return None
    cols = os.environ.get("COLUMNS", "")
    return (int(cols) if cols.isdigit() and int(cols) > 40 else 100) - 2


out = Console(width=_width(), soft_wrap=False)
err = Console(stderr=True)


class BadInput(click.UsageError):
    """Exit 2 with one clear line (click's usage-error convention)."""


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


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="ringbench")
def main() -> None:
    """ringbench: how fast does a runtime spawn a process, pass a message, and what does a process cost?

    Joe Armstrong's ring, measured the same way in every runtime: N processes in a ring, a token
    sent round M times (N×M messages), the spawn phase and the message phase timed apart inside
    each runtime's own driver, every count verified, every result stored with its environment.

    \b
    Start with:
      ringbench runtimes                         which drivers exist, built or not
      ringbench bench                            the default comparison (one core and all cores)
      ringbench run ring --runtime all -n 10000  one cell per runtime (M calibrated)
      ringbench history                          what the store holds

    Exit status: 0 done; 1 a cell failed, or a store or file could not be used; 2 bad input
    (nothing run); 3 stopped by --budget; 130 interrupted. Both 3 and 130 keep every finished
    cell: `ringbench sweep --resume RUN` finishes the run.
    """


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
            help_ += f". One of {', '.join(p.words)}"
        if name == "m":
            help_ += ". Left out: calibrated so each repeat's timed phase lasts --target"
        help_ += ". Comma-separated values make a grid (-n 1000,10000)." if not p.words else "."
        f = click.option(p.flag, *p.aliases, name, default=None, help=help_)(f)
    return f


_db_option = click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=DEFAULT_DB,
    show_default=True,
    help="SQLite result store [default: the checkout's results/ringbench.db "
    "from any folder, or $RINGBENCH_DB]; measuring creates it and its folder.",
)


def _measure_options(cores_default: str, repeat_default: int, processes_default: int = 0):
    opts = [
        click.option(
            "--runtime",
            "-r",
            default="all",
            show_default=True,
            help="Comma-separated runtimes (see `ringbench runtimes`), or `all` built ones.",
        ),
        click.option(
            "--cores",
            default=cores_default,
            show_default=True,
            help="1 (pinned to one CPU, one scheduler thread), all, or 1,all for both.",
        ),
        click.option(
            "--repeat",
            default=None,
            type=click.IntRange(1, 10_000),
            help=f"timed: measured repeats per cell [default: {repeat_default}].",
        ),
        click.option(
            "--processes",
            default=None,
            type=click.IntRange(1, 10_000),
            help="timed: fresh driver processes the repeats are spread over "
            f"[default: {processes_default or 'one per repeat'}].",
        ),
        click.option("--in-process", is_flag=True, help="timed: all repeats in one driver process (--processes 1)."),
        click.option(
            "--warmup",
            default=None,
            type=click.IntRange(0, 10_000),
            help="timed: untimed iterations first in each driver process [default: 1]; 0 for a cold start.",
        ),
        click.option(
            "--target",
            default=None,
            help="timed: message-phase time per repeat that a calibrated M aims at [default: 100ms].",
        ),
        click.option(
            "--continuous",
            is_flag=True,
            help="Continuous mode (ring): the ring runs without end, sampled every --sample-ms.",
        ),
        click.option(
            "--squeeze",
            is_flag=True,
            help="Squeeze mode (ring): raise the tokens from --min until throughput stops growing.",
        ),
        click.option(
            "--samples",
            type=click.IntRange(1, 10_000),
            default=None,
            help="continuous/squeeze: counted samples after one warm-up sample; with --cv the window "
            "that must agree [default: 5].",
        ),
        click.option(
            "--sample-ms",
            type=click.IntRange(10, 600_000),
            default=None,
            help="continuous/squeeze: sample period in ms [default: 1000].",
        ),
        click.option(
            "--cv",
            type=float,
            default=None,
            help="continuous: sample until the last --samples have a coefficient of variation below "
            "this fraction (e.g. 0.02), at most --max-samples; only that window is reported.",
        ),
        click.option(
            "--max-samples",
            type=click.IntRange(2, 100_000),
            default=None,
            help="continuous with --cv: upper bound on samples [default: 30].",
        ),
        click.option("--min", "squeeze_min", type=click.IntRange(1), default=None, help="squeeze: first K [1]."),
        click.option("--max", "squeeze_max", type=click.IntRange(1), default=None, help="squeeze: last K [64]."),
        click.option(
            "--threshold",
            type=click.IntRange(1, 100),
            default=None,
            help="squeeze: steps falling short of the peak (beyond noise) that end the search [3].",
        ),
        click.option(
            "--runtime-stats",
            "-v",
            "runtime_stats",
            is_flag=True,
            help="Ask each runtime for its own statistics (GC, schedulers, memory); shown and stored.",
        ),
        click.option(
            "--baseline",
            default=None,
            help="Rel % reference: a runtime of this run [default: erlang if present, else the fastest].",
        ),
        click.option(
            "--timeout",
            type=click.FloatRange(min=1),
            default=None,
            help="Seconds per driver process before it is killed [default: from the size].",
        ),
        _db_option,
        click.option(
            "--json", "as_json", is_flag=True, help="Print every repeat's raw record and the summary as JSON."
        ),
        click.option("--wide", is_flag=True, help="More columns: spread, CPU/wall, p-value, count, version, details."),
    ]

    def wrap(f):
        for o in reversed(opts):
            f = o(f)
        return f

    return wrap


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
    target = kw.pop("target")
    kw["target_ms"] = _duration(target, "--target", 1e-3)
    picked = {
        k: kw.pop(k)
        for k in (
            "repeat",
            "processes",
            "warmup",
            "target_ms",
            "timeout",
            "runtime_stats",
            "samples",
            "sample_ms",
            "cv",
            "max_samples",
            "squeeze_min",
            "squeeze_max",
            "threshold",
        )
    }
    picked["runtime_stats"] = picked["runtime_stats"] or None
    if mode == "timed":
        picked = {**defaults, **{k: v for k, v in picked.items() if v is not None}}
    return {"mode": mode, **picked}


def _params(kw: dict) -> dict:
    given = {name: kw.pop(name, None) for name in workloads.cli_params()}
    return {k: v for k, v in given.items() if v is not None}


def _execute(
    workload: str, kw: dict, *, many_cells: bool, defaults: dict, resume: int | None = None, budget: float | None = None
) -> None:
    """Measure and print; exit with the run's status."""
    runtime, cores, db, as_json, baseline, wide = (
        kw.pop(k) for k in ("runtime", "cores", "db", "as_json", "baseline", "wide")
    )
    params = _params(kw)
    options = _options(kw, defaults)
    _sigterm_as_interrupt()
    command = "ringbench " + shlex.join(sys.argv[1:])
    if resume is not None:
        result = _with_progress(
            lambda s, d, t: api.resume(resume, db, on_start=s, on_done=d, on_tick=t, budget_s=budget)
        )
    else:
        if not Path(db).parent.exists():
            err.print(f"creating folder {Path(db).parent} for the store {db}")
        result = _with_progress(
            lambda s, d, t: api.measure(
                workload,
                runtime,
                params=params,
                cores=cores,
                db=db,
                command=command,
                budget_s=budget,
                baseline=baseline,
                keep_refusals=many_cells or "all" in runtime.split(","),
                on_start=s,
                on_done=d,
                on_tick=t,
                **options,
            )
        )
    _print_result(result, as_json, wide)
    if result.status == "interrupted":
        sys.exit(EXIT_INTERRUPTED)
    if result.status == "budget":
        sys.exit(EXIT_BUDGET)
    sys.exit(0 if result.status == "complete" and all(c.ok for c in result.cells) else 1)


def _with_progress(call):
    """Run `call(on_start, on_done, on_tick)` with a progress bar: the cell under way and its repeat, cells
    done of all, elapsed, ETA."""
    columns = [
        TextColumn("{task.description}"),
        BarColumn(bar_width=20),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    ]
    with Progress(*columns, console=err, transient=True) as progress:
        task = progress.add_task("starting", total=None)

        def start(spec, i, total):
            progress.update(task, total=total, description=f"{escape(spec.label)}")

        def tick(spec, text):
            progress.update(task, description=f"{escape(spec.label)} · {text}")

        def finished(c: Cell):
            progress.advance(task)
            mark = "[green]ok[/green]" if c.ok else f"[red]{c.status}[/red]: {escape((c.reason or '').splitlines()[0])}"
            progress.console.print(f"  {escape(c.label)}: {mark}")

        return call(start, finished, tick)


def _print_result(result: Run, as_json: bool, wide: bool = False) -> None:
    if as_json:
        click.echo(
            json.dumps(
                {
                    "run_id": result.run_id,
                    "status": result.status,
                    "settings": result.settings,
                    "baseline": result.baseline,
                    "environment": result.environment,
                    "warnings": result.warnings,
                    "cells": tables.as_json(result.cells, result.baseline),
                },
                indent=1,
                default=str,
            )
        )
        return
    show_run(result, wide)


def show_run(result: Run, wide: bool = False) -> None:
    o = result.options
    title = f"{result.workload.name} ({o.mode}), run {result.run_id} ({result.status})"
    t, notes = tables.table(result.cells, title, result.baseline, wide)
    out.print(t)
    out.print(
        result.mode_object.describe(o, result.workload) + "; ±95% = half-width of the bootstrap "
        "95 % interval of the median.",
        highlight=False,
    )
    for n in notes:
        out.print(n, highlight=False, width=out.width - 6)  # notes carry ✓, ≈, µ: room for their bytes
    if o.mode != "timed":
        for c in result.cells:
            if c.ok:
                out.print(escape(f"{c.label}: {tables.mode_details(c)}"), highlight=False)
    for c in result.cells:
        if c.mode == "squeeze" and c.ok:
            out.print(tables.squeeze_history(c))
    st = tables.runtime_stats(result.cells)
    if st:
        out.print(st)
    for w in noise.grouped(result.warnings):
        out.print(f"[yellow]warning:[/yellow] {escape(w)}", highlight=False)


def _workload_help() -> str:
    return "\b\nWorkloads:\n" + "\n".join(f"  {w.name:<10} {w.summary}" for w in workloads.WORKLOADS.values())


_TIMED = {"repeat": 5, "warmup": 1}


@main.command(epilog=_workload_help())
@click.argument("workload")
@_param_options
@_measure_options("all", 5)
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
      ringbench run msgcost --runtime go -n 2,100,10000,1000000
      ringbench run selective --runtime erlang -n 1000 -m 10

    A cell too large for this machine stops the command before anything runs (exit 2) when its
    runtime was named; with `--runtime all` it is stored and shown as n/a, with the limit.
    """
    _execute(workload, kw, many_cells=False, defaults=_TIMED)


@main.command(epilog=_workload_help())
@click.argument("workload", required=False)
@_param_options
@_measure_options("all", 5)
@click.option(
    "--resume",
    type=int,
    default=None,
    help="Continue run RUN (from run, bench or sweep): its finished cells are not redone.",
)
@click.option("--budget", default=None, help="Stop cleanly after this long (90s, 10m, 2h); exit 3; --resume later.")
def sweep(workload, resume, budget, **kw):
    """Run a grid of cells (comma-separated values); every cell stored as it finishes.

    Cells a runtime cannot serve (too large for this machine, or a workload it lacks) are stored and
    shown as refused, with the reason.

    \b
    Examples:
      ringbench sweep ring --runtime erlang,go -n 1000,10000,100000 -m 100,1000
      ringbench sweep msgcost --runtime all -n 2,10,100,1000,10000,100000,1000000
      ringbench sweep spawn --runtime all -n 100,1000,10000,100000,1000000 --budget 10m
      ringbench sweep --resume 7
    """
    if resume is None and workload is None:
        raise BadInput("name a WORKLOAD, or --resume RUN")
    _execute(workload or "", kw, many_cells=True, defaults=_TIMED, resume=resume, budget=_duration(budget, "--budget"))


_BENCH_REPEAT, _BENCH_PROCESSES = 6, 2
_BENCH = {"repeat": _BENCH_REPEAT, "processes": _BENCH_PROCESSES, "warmup": 1, "target_ms": 40.0}


@main.command()
@click.option("-n", "n", default="1000", show_default=True, help="Processes in the ring.")
@click.option("-m", "m", default=None, help="Laps [default: calibrated to --target].")
@_measure_options("1,all", _BENCH_REPEAT, _BENCH_PROCESSES)
def bench(n, m, **kw):
    """The default comparison: the ring on every built runtime, on one core and on all cores.

    Every built runtime and idiom (variants that only tune a runtime, such as java-virtual/tuned,
    when named). Each cell: 6 repeats in 2 fresh driver processes (3 each, after one untimed warm-up in each,
    so JIT runtimes are measured warm like compiled ones), M calibrated so a repeat's message phase
    lasts about 40 ms. About a minute on a 2-core machine. Same as
    `ringbench run ring --runtime all --cores 1,all -n 1000 --repeat 6 --processes 2 --target 40ms`.
    """
    kw.update({name: None for name in workloads.cli_params()}, n=n, m=m)
    if kw["runtime"] == "all":  # every built runtime and idiom; tuning variants only when named
        stock = [d for d in discover().values() if not d.tuned and d.is_built() and not d.missing_tools()]
        kw["runtime"] = ",".join(d.name for d in stock) or "all"
    _execute("ring", kw, many_cells=True, defaults=_BENCH)


@main.command()
@click.option("--runtime", "-r", required=True, help="Runtime(s) to trace, comma-separated.")
@click.option("-n", "n", default="3", show_default=True, help=f"Processes (1…{workloads.TRACE_LIMIT}).")
@click.option("-m", "m", default="3", show_default=True, help=f"Laps (1…{workloads.TRACE_LIMIT}).")
@click.option("--timeout", type=click.FloatRange(min=1), default=60, show_default=True)
def trace(runtime, n, m, timeout):
    """Print every hop of a small ring as it happens: which process received which lap from whom.

    A teaching view, not a measurement (printing inside the loop is the point here). The output has
    the same shape for every runtime, and ringbench checks each hop against the ring's rule.

    \b
    Example:
      ringbench trace --runtime erlang -n 3 -m 3
    """
    drivers, n, m = api.trace_drivers(runtime, n, m)
    failed = False
    for d in drivers:
        out.print(f"[bold]{d.name}[/bold]: ring of {n} processes, {m} lap(s), {n * m} hops")

        def show(rec: dict) -> None:
            sender = "main" if rec.get("from") == -1 else f"p{rec.get('from')}"
            out.print(f"  hop {rec.get('hop'):>5}  lap {rec.get('lap'):>3}:  p{rec.get('to')} ← {sender}")

        problem = api.trace(d, n, m, show, timeout)
        if problem:
            failed = True
            err.print(f"[red]{d.name}: trace is wrong: {escape(problem)}[/red]")
        else:
            out.print(f"  [green]{n * m} hops, each from its predecessor, in order[/green]")
    sys.exit(1 if failed else 0)


def _workloads_text(have: list[str]) -> str:
    every = set(workloads.WORKLOADS) - {"memory", "msgcost"} | {"trace"}
    missing = sorted(every - set(have))
    return "all" if not missing else "all but " + ", ".join(missing) if len(missing) < 3 else ", ".join(have)


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output, with workloads and features.")
def runtimes(as_json):
    """List every driver found under drivers/: built or not, kind of hop, version, workloads."""
    rows = api.runtimes()
    if as_json:
        click.echo(json.dumps(rows, indent=1))
        return
    t = Table(
        title="ringbench runtimes", title_justify="left", box=tables.HEAD_RULE, pad_edge=False, collapse_padding=True
    )
    for col in ("Runtime", "hop", "State", "Version", "Workloads"):
        t.add_column(col, no_wrap=True, overflow="ellipsis", max_width=28 if col == "Version" else None)
    for r in rows:
        state = (
            "[red]needs " + ", ".join(r["missing"]) + "[/red]"
            if r["missing"]
            else "[red]broken[/red]"
            if r["problem"]
            else "[green]built[/green]"
            if r["built"]
            else "[yellow]not built[/yellow]"
        )
        hop = tables.HOP_SHORT.get(r["hop"], r["hop"]) + ("*" if r["mailbox"] == "hand-written" else "")
        t.add_row(r["runtime"], hop, state, escape(r["version"] or ""), _workloads_text(r["workloads"]))
    out.print(t)
    out.print(
        "hop: mbox mailbox, chan channel, rdv rendezvous, hand hand-off (slot + wake-up), floor not a runtime; "
        "* the driver's own mailbox. Details: `ringbench runtimes --json`.",
        highlight=False,
    )
    if any(not r["built"] for r in rows):
        out.print("Build with `ringbench build [RUNTIME…]` (or `make setup`, which also installs toolchains).")


@main.command()
@click.argument("names", nargs=-1)
def build(names):
    """Build the named drivers (default: every driver) with each runtime's own tools."""
    drivers = discover()
    folders = {d.base: d for d in drivers.values()}
    wanted = list(names) or list(folders)
    unknown = [n for n in wanted if n not in folders and n not in drivers]
    if unknown:
        raise BadInput(f"unknown runtime(s) {', '.join(unknown)}; known: {', '.join(folders)}")
    failed = []
    for name in wanted:
        d = folders.get(name) or drivers[name]
        with err.status(f"building {d.base} …"):
            try:
                build_driver(d)
                err.print(f"  {d.base}: [green]built[/green]")
            except DriverError as e:
                failed.append(d.base)
                err.print(f"  {d.base}: [red]{escape(str(e))}[/red]")
    if failed:
        err.print(f"[red]{len(failed)} driver(s) failed to build: {', '.join(failed)}[/red]")
        sys.exit(1)


# -- the store ---------------------------------------------------------------------------------
def _grid_text(s: dict) -> str:
    values: dict[str, list] = {}
    for g in s.get("grid", []):
        for k, v in json.loads(g).items():
            values.setdefault(k, [])
            if v not in values[k]:
                values[k].append(v)
    return " ".join(
        f"{k}={','.join(tables.count(v) for v in vs)}"
        for k, vs in values.items()
        if not (k in ("tokens", "burst") and vs in ([1], [0]))
    )


@main.command()
@_db_option
def history(db):
    """List the stored runs, one line each: id, start, status, cells done/planned, workload, runtimes."""
    runs = api.history(db)
    t = Table(title=f"runs in {db}", title_justify="left", box=tables.HEAD_RULE, pad_edge=False)
    t.add_column("Run", justify="right", no_wrap=True, min_width=3)
    t.add_column("Started (UTC)", no_wrap=True, min_width=16)
    t.add_column("Status", no_wrap=True, min_width=11)
    t.add_column("Cells", justify="right", no_wrap=True, min_width=7)
    t.add_column("What", no_wrap=True, overflow="ellipsis", max_width=30)
    t.add_column("Runtimes", no_wrap=True, overflow="ellipsis", max_width=18)
    for r in runs:
        s = r["settings"]
        cells = f"{r['ok']}/{r['planned']}" if r.get("planned") else f"{r['ok']}/{r['done']}"
        what = f"{s.get('workload', '')} {s.get('mode', '') if s.get('mode') != 'timed' else ''}".strip()
        t.add_row(
            str(r["id"]),
            r["started_at"][:16].replace("T", " "),
            r["status"],
            cells,
            f"{what} {_grid_text(s)} cores={','.join(s.get('cores', []))}",
            ",".join(s.get("runtimes", [])),
        )
    out.print(t)
    if any(r["status"] in ("interrupted", "budget", "abandoned") for r in runs):
        out.print(
            "Cells = ok/planned. An interrupted, budget-stopped or abandoned run: "
            "`ringbench sweep --resume RUN` finishes it.",
            highlight=False,
        )


@main.command()
@click.argument("run_id", type=int)
@click.option("--baseline", default=None, help="Rel % against this runtime instead of the one the run used.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--wide", is_flag=True, help="More columns.")
@_db_option
def show(run_id, baseline, as_json, wide, db):
    """Print stored run RUN_ID as `run` printed it: table, notes, warnings (recomputed from raw records)."""
    result = api.with_baseline(api.load(run_id, db), baseline)
    if as_json:
        _print_result(result, True)
        return
    env = result.environment
    out.print(
        f"run {run_id}: {env.get('date')}, {env.get('cpu_model')}, {env.get('usable_cpus')} CPU(s), "
        f"Linux {env.get('kernel')}, ringbench {env.get('git_revision')}",
        highlight=False,
    )
    out.print(f"command: {result.command}", highlight=False)
    show_run(result, wide)


@main.command()
@click.argument("run_a", type=int)
@click.argument("run_b", type=int)
@click.option(
    "--fail-above",
    type=click.FloatRange(min=0),
    default=None,
    metavar="PCT",
    help="Exit 1 if some cell got slower by more than PCT % and the change is significant (a regression gate for CI).",
)
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
    t = Table(title=f"run {run_a} → run {run_b}", title_justify="left", box=tables.HEAD_RULE, pad_edge=False)
    for col in ("Runtime", "Cores", "Params", f"run {run_a}", f"run {run_b}", "95 % CI of change", "p", "verdict"):
        t.add_column(
            col,
            justify="left" if col in ("Runtime", "Params", "verdict") else "right",
            no_wrap=col in ("Runtime", "verdict"),
        )
    regressions = []
    for ch in changes:
        c, d = ch.after, ch.diff
        t.add_row(
            c.runtime,
            c.cores,
            tables.params_text(c),
            tables.fmt(ch.before.headline.median),
            tables.fmt(c.headline.median),
            f"{(d.ratio_ci[0] - 1) * 100:+.0f}…{(d.ratio_ci[1] - 1) * 100:+.0f}%",
            "–" if d.p_value is None else f"{d.p_value:.3f}",
            d.verdict(ch.lower_is_better),
        )
        if fail_above is not None and ch.regression(fail_above):
            regressions.append(ch)
    out.print(t)
    metric = changes[0].after.mode_object.headline_label(changes[0].after.workload)
    out.print(
        f"{metric}, median of repeats. Significant: Mann-Whitney U, p < 0.05, ≥ 5 repeats a side.", highlight=False
    )
    for ch in regressions:
        err.print(
            escape(
                f"regression: {ch.after.label}: {ch.slower_pct:+.1f} % slower (p = {ch.diff.p_value:.3f}), "
                f"more than --fail-above {fail_above:g} %"
            ),
            highlight=False,
        )
    sys.exit(1 if regressions else 0)


def _write(path: Path, text: str) -> None:
    if not path.parent.exists():
        err.print(f"creating folder {path.parent}")
        path.parent.mkdir(parents=True)
    path.write_text(text)


@main.command()
@click.argument("run_id", type=int)
@click.option("--format", "fmt", type=click.Choice(["json", "csv", "markdown"]), default="json", show_default=True)
@click.option(
    "--out",
    "out_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write to this file (its folder is created) instead of stdout.",
)
@_db_option
def export(run_id, fmt, out_path, db):
    """Export stored run RUN_ID: json (everything, re-importable), csv (one line per repeat), markdown."""
    result = api.load(run_id, db)
    text = {"json": exporting.to_json, "csv": exporting.to_csv, "markdown": exporting.to_markdown}[fmt](result)
    if out_path:
        _write(out_path, text)
        err.print(f"wrote {out_path}")
    else:
        click.echo(text, nl=False)


@main.command(name="import")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@_db_option
def import_(path, db):
    """Import a JSON export (from `ringbench export`) into the store as a new run."""
    try:
        doc = exporting.read_json(path)
    except ValueError as e:
        raise BadInput(f"cannot import {path}: {e}") from None
    with Store(db) as store:
        run_id = exporting.import_doc(doc, store, path)
    click.echo(f"imported {path} as run {run_id}")


@main.command()
@click.argument("run_id", type=int)
@click.option(
    "--kind",
    type=click.Choice(["auto", *PLOT_KINDS]),
    default="auto",
    show_default=True,
    help="What to draw (auto: chosen from the run's workload and mode).",
)
@click.option(
    "--out",
    "out_path",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="Image file; .png or .svg.",
)
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
        kind = plots.default_kind(result.workload.name, result.options.mode)
    if not out_path.parent.exists():
        err.print(f"creating folder {out_path.parent}")
    try:
        plots.plot(result.cells, kind, out_path, runtime, fixed_n, fixed_m)
    except plots.PlotError as e:
        raise BadInput(str(e)) from None
    click.echo(f"wrote {out_path}")


@main.command()
@click.argument("run_ids", type=int, nargs=-1, required=True)
@click.option(
    "--out",
    "out_path",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="The HTML file to write (its folder is created).",
)
@_db_option
def report(run_ids, out_path, db):
    """Write one self-contained HTML report (charts embedded, no network needed) of stored runs."""
    from .present import report as report_mod

    runs = [api.load(run_id, db) for run_id in run_ids]
    with err.status("drawing charts …"):
        _write(out_path, report_mod.render([(r, r.command) for r in runs]))
    click.echo(f"wrote {out_path}")


if __name__ == "__main__":
    main()
