"""The `ringbench` command line, built on ringbench.api. All input is validated before anything runs."""
from __future__ import annotations

import json
import re
import shlex
import signal
import sys
from pathlib import Path

import click
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from . import api, exporting, runner, stats, tables, workloads
from .drivers import DriverError, build as build_driver, discover, select
from .launch import describe, run_driver
from .protocol import DriverFailed
from .store import DEFAULT_DB, Store, StoreError

# Tables are wide: when stdout is not a terminal (a file, a pipe, a test) do not squeeze them to 80 columns.
out = Console(width=None if sys.stdout.isatty() else 220)
err = Console(stderr=True)


class BadInput(click.UsageError):
    """Exit 2 with one clear line (click's usage-error convention)."""


def _sigterm_as_interrupt() -> None:
    def handler(*_):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, handler)


def _duration(text: str | None) -> float | None:
    if text is None:
        return None
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smh]?)\s*", text)
    if not m or float(m.group(1)) <= 0:
        raise BadInput(f"--budget takes a duration like 90s, 10m or 2h; got {text!r}")
    return float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[m.group(2)]


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 110})
@click.version_option(package_name="ringbench")
def main() -> None:
    """ringbench: how fast does a runtime spawn a process, pass a message, and what does a process cost?

    Joe Armstrong's ring, measured the same way in every runtime: N processes in a ring, a token
    sent round M times (N×M messages), the spawn phase and the message phase timed apart inside
    each runtime's own driver, every count verified, every result stored with its environment.

    \b
    Start with:
      ringbench runtimes                         which drivers exist, built or not
      ringbench run ring --runtime all -n 10000 -m 100
      ringbench bench                            the default comparison (one core and all cores)
      ringbench history                          what the store holds
    """


# -- options shared by run / bench / sweep -------------------------------------------------------
def _param_options(f):
    opts = [
        click.option("-n", "n", help="Processes (≥ 1). Comma-separated values make a grid: -n 1000,10000."),
        click.option("-m", "m", help="Laps (ring), round trips (pingpong), messages per sender (fanin), "
                                     "rounds (selective)."),
        click.option("--tokens", "-k", "tokens", help="ring: tokens circulating at once [default: 1]; "
                                                      "total hops N×M×K."),
        click.option("--concurrency", "-c", "concurrency", help="Same as --tokens (K tokens at once, any mode)."),
        click.option("--hops", "hops", help="msgcost: total hops per run, fixed while N varies [default: 1,000,000]."),
        click.option("--reverse", "reverse", help="selective: 0 arrival order, 1 reverse order [default: 0,1]."),
    ]
    for o in reversed(opts):
        f = o(f)
    return f


def _measure_options(cores_default: str, repeat_default: int):
    opts = [
        click.option("--runtime", "-r", default="all", show_default=True,
                     help="Comma-separated runtimes (see `ringbench runtimes`), or `all` built ones."),
        click.option("--cores", default=cores_default, show_default=True,
                     help="1 (pinned to one CPU, one scheduler thread), all, or 1,all for both."),
        click.option("--repeat", default=repeat_default, show_default=True, type=click.IntRange(1, 10_000),
                     help="timed: measured repeats per cell."),
        click.option("--warmup", default=None, type=click.IntRange(0, 10_000),
                     help="timed: unreported iterations run first inside each driver process "
                          "[default: 1; 0 for spawn and memory, whose RSS a warm-up would hide]."),
        click.option("--in-process", is_flag=True,
                     help="timed: all repeats in one driver process (default: a fresh process per repeat)."),
        click.option("--continuous", is_flag=True,
                     help="Continuous mode (ring): the ring runs without end, sampled every --sample-ms."),
        click.option("--squeeze", is_flag=True,
                     help="Squeeze mode (ring): raise the tokens from --min until throughput stops growing."),
        click.option("--samples", type=click.IntRange(1, 10_000), default=None,
                     help="continuous/squeeze: counted samples, after one warm-up sample [default: 3]."),
        click.option("--sample-ms", type=click.IntRange(10, 600_000), default=None,
                     help="continuous/squeeze: sample period in ms [default: 1000]."),
        click.option("--cv", type=float, default=None,
                     help="continuous: sample until the last --samples have a coefficient of variation below "
                          "this fraction (e.g. 0.02), at most --max-samples."),
        click.option("--max-samples", type=click.IntRange(2, 100_000), default=None,
                     help="continuous with --cv: upper bound on samples [default: 30]."),
        click.option("--min", "squeeze_min", type=click.IntRange(1), default=None, help="squeeze: first concurrency [1]."),
        click.option("--max", "squeeze_max", type=click.IntRange(1), default=None, help="squeeze: last concurrency [64]."),
        click.option("--threshold", type=click.IntRange(1, 100), default=None,
                     help="squeeze: steps falling short of the peak (beyond noise) that end the search [3]."),
        click.option("--runtime-stats", "-v", "runtime_stats", is_flag=True,
                     help="Ask each runtime for its own statistics (GC, schedulers, memory); shown and stored."),
        click.option("--baseline", default=None, help="Rel % against this runtime instead of the fastest row."),
        click.option("--timeout", type=click.FloatRange(min=1), default=None,
                     help="Seconds per driver process before it is killed [default: from the size]."),
        click.option("--db", type=click.Path(dir_okay=False, path_type=Path), default=DEFAULT_DB, show_default=True,
                     help="SQLite result store."),
        click.option("--json", "as_json", is_flag=True, help="Print every repeat's raw record and the summary as JSON."),
    ]

    def wrap(f):
        for o in reversed(opts):
            f = o(f)
        return f
    return wrap


def _options(kw: dict) -> dict:
    """Mode and its settings from the command line; a setting that belongs to another mode is an error."""
    continuous, squeeze = kw.pop("continuous"), kw.pop("squeeze")
    if continuous and squeeze:
        raise BadInput("choose one of --continuous and --squeeze")
    mode = "continuous" if continuous else "squeeze" if squeeze else "timed"
    sampling = ("samples", "sample_ms", "cv", "max_samples")
    squeezing = ("squeeze_min", "squeeze_max", "threshold")
    for name in sampling + squeezing:
        if kw.get(name) is not None and (mode == "timed" or (name in squeezing and mode != "squeeze")):
            flag = {"squeeze_min": "--min", "squeeze_max": "--max"}.get(name, "--" + name.replace("_", "-"))
            raise BadInput(f"{flag} belongs to {'--squeeze' if name in squeezing else '--continuous/--squeeze'}")
    if kw.get("cv") is not None and mode != "continuous":
        raise BadInput("--cv belongs to --continuous")
    if mode != "timed" and kw.get("in_process"):
        raise BadInput("--in-process belongs to timed mode")
    picked = {k: kw.pop(k) for k in ("repeat", "warmup", "in_process", "timeout", "runtime_stats", *sampling,
                                     *squeezing)}
    return {"mode": mode, **{k: v for k, v in picked.items() if v is not None}}


def _params(kw: dict) -> dict:
    tokens, conc = kw.pop("tokens"), kw.pop("concurrency")
    if tokens is not None and conc is not None:
        raise BadInput("give --tokens or --concurrency, not both")
    given = {"n": kw.pop("n"), "m": kw.pop("m"), "tokens": tokens if tokens is not None else conc,
             "hops": kw.pop("hops"), "reverse": kw.pop("reverse")}
    return {k: v for k, v in given.items() if v is not None}


def _execute(workload: str, kw: dict, command: str, *, many_cells: bool, resume: int | None = None,
             budget: float | None = None) -> None:
    """Measure and print. `many_cells` (sweep, bench): a progress bar with ETA, and cells too large for
    this machine are stored as refused instead of refusing the whole command."""
    runtime, cores, db, as_json, baseline = (kw.pop(k) for k in ("runtime", "cores", "db", "as_json", "baseline"))
    params = _params(kw)
    options = _options(kw)
    if options["mode"] == "squeeze":
        params.setdefault("m", "1")  # continuous rings ignore m
    if options["mode"] != "timed":
        params.setdefault("m", "1")
    _sigterm_as_interrupt()
    try:
        if resume is not None:
            result = _with_progress(lambda s, d: api.resume(resume, db, on_start=s, on_done=d, budget_s=budget),
                                    many_cells)
        else:
            result = _with_progress(lambda s, d: api.measure(
                workload, runtime, params=params, cores=cores, db=db, command=command, budget_s=budget,
                keep_refusals=many_cells or "all" in runtime.split(","), on_start=s, on_done=d, **options),
                many_cells)
    except api.InputError as e:
        raise BadInput(str(e)) from None
    _print_result(result, as_json, baseline)
    if result.status == "interrupted":
        sys.exit(130)
    sys.exit(0 if result.status == "complete" and all(c.ok for c in result.cells) else 1)


def _with_progress(call, bar: bool):
    """Run `call(on_start, on_done)` showing the cell under way (and for sweeps a bar with ETA)."""
    def done(c: api.CellResult) -> None:
        mark = "[green]ok[/green]" if c.ok else f"[red]{c.status}[/red]: {escape((c.reason or '').splitlines()[0])}"
        err.print(f"  {escape(c.label)}: {mark}")

    if bar:
        columns = [TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   TextColumn("ETA"), TimeRemainingColumn()]
        with Progress(*columns, console=err, transient=True) as progress:
            task = progress.add_task("starting", total=None)

            def start(spec, i, total):
                progress.update(task, total=total, description=f"cell {i}/{total}: {escape(spec.label)}")

            def finished(c):
                progress.advance(task)
                done(c)
            return call(start, finished)
    with err.status("") as spinner:
        def start(spec, i, total):
            spinner.update(f"\\[{i}/{total}] {escape(spec.label)}")
        return call(start, done)


def _print_result(result: api.RunResult, as_json: bool, baseline: str | None) -> None:
    if as_json:
        click.echo(json.dumps({"run_id": result.run_id, "status": result.status, "settings": result.settings,
                               "environment": result.environment, "warnings": result.warnings,
                               "cells": tables.as_json(result.cells, baseline)}, indent=1, default=str))
        return
    show_run(result, baseline)


def show_run(result: api.RunResult, baseline: str | None = None) -> None:
    o = result.options
    out.print(tables.table(result.cells, f"{result.workload.name} ({o.mode}) — run {result.run_id} "
                                         f"({result.status}), store {result.db}", baseline))
    if o.mode == "timed":
        where = "all in one warm driver process" if o.in_process else "each in a fresh driver process"
        out.print(f"{result.workload.headline.label}: median over {o.repeat} repeats ({where}, {o.warmup} unreported "
                  f"warm-up iteration(s) first); spread = min–max; 95 % CI by bootstrap.")
        if o.warmup and any(m.name == "rss_bytes_per_process" for m in result.workload.metrics):
            out.print("RSS B/proc is read after a warm-up iteration, when runtimes reuse its memory: it understates "
                      "a fresh process's cost. `ringbench run memory` measures that (no warm-up).")
    else:
        out.print(f"ns/hop per sample interval ({o.sample_ms} ms; the first sample is a warm-up and not counted).")
    out.print("Rel % = throughput against the " + (f"baseline {baseline}" if baseline else "fastest row") +
              "; sig. = the medians' 95 % intervals do not overlap (else the difference is noise).")
    for c in result.cells:
        if c.mode == "squeeze" and c.ok:
            out.print(tables.squeeze_history(c))
    st = tables.runtime_stats(result.cells)
    if st:
        out.print(st)
    for w in result.warnings:
        out.print(f"[yellow]warning:[/yellow] {escape(w)}")


def _workload_help() -> str:
    return "\b\nWorkloads:\n" + "\n".join(f"  {w.name:<10} {w.summary}" for w in workloads.WORKLOADS.values())


@main.command(epilog=_workload_help())
@click.argument("workload")
@_param_options
@_measure_options("all", 3)
def run(workload, **kw):
    """Measure WORKLOAD on one or more runtimes; print a table and store every repeat.

    \b
    Examples:
      ringbench run ring --runtime erlang,go,c-pthreads,c-coro -n 10000 -m 100 --repeat 5
      ringbench run ring --runtime erlang -n 1000000 -m 10
      ringbench run ring --runtime go -n 10000 -m 100 --json
      ringbench run ring --runtime all --cores 1,all -n 10000 -m 100 --baseline erlang
      ringbench run ring --runtime go -n 1000 --continuous --samples 5 --sample-ms 500
      ringbench run ring --runtime go -n 1000 --squeeze --max 16
      ringbench run spawn --runtime all -n 100000
      ringbench run msgcost --runtime go -n 2,100,10000,1000000
      ringbench run selective --runtime erlang -n 1000 -m 10

    A cell too large for this machine stops the command before anything runs (exit 2) when its
    runtime was named; with `--runtime all` it is stored and shown as n/a, with the limit.

    Exit status: 0 all cells measured; 1 some cell failed or was refused (stored with its reason);
    2 bad input (nothing run, nothing stored); 130 interrupted (finished cells kept).
    """
    _execute(workload, kw, "ringbench " + shlex.join(sys.argv[1:]), many_cells=False)


@main.command(epilog=_workload_help())
@click.argument("workload", required=False)
@_param_options
@_measure_options("all", 3)
@click.option("--resume", type=int, default=None, help="Continue run RUN: its finished cells are not redone.")
@click.option("--budget", default=None, help="Stop cleanly after this long (90s, 10m, 2h); --resume later.")
def sweep(workload, resume, budget, **kw):
    """Run a grid of cells (comma-separated values) with a progress bar; every cell stored as it finishes.

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
    _execute(workload or "", kw, "ringbench " + shlex.join(sys.argv[1:]), many_cells=True, resume=resume,
             budget=_duration(budget))


@main.command()
@click.option("-n", "n", default="10000", show_default=True, help="Processes in the ring.")
@click.option("-m", "m", default="100", show_default=True, help="Laps.")
@_measure_options("1,all", 3)
def bench(n, m, **kw):
    """The default comparison: the ring on every built runtime, on one core and on all cores.

    Same as `ringbench run ring --runtime all --cores 1,all -n 10000 -m 100 --warmup 0`: no warm-up
    iteration by default, to keep it short (each repeat's million hops warms a JIT within the run;
    give --warmup 1 to exclude that). The one-OS-thread-per-process runtimes take most of its time.
    """
    kw.update(n=n, m=m, tokens=None, concurrency=None, hops=None, reverse=None)
    if kw["warmup"] is None:
        kw["warmup"] = 0
    _execute("ring", kw, "ringbench " + shlex.join(sys.argv[1:]), many_cells=True)


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
    try:
        params = workloads.TRACE.validate({"n": n, "m": m})
        drivers = select(runtime)
    except workloads.ParamError as e:
        raise BadInput(f"{e} (trace prints every hop; for larger rings use `ringbench run ring`)") from None
    except DriverError as e:
        raise BadInput(str(e)) from None
    for d in drivers:
        if "trace" not in runner.workloads_of(d):
            raise BadInput(f"{d.name} does not implement trace")
    n, m = params["n"], params["m"]
    failed = False
    for d in drivers:
        out.print(f"[bold]{d.name}[/bold]: ring of {n} processes, {m} lap(s), {n * m} hops")
        seen: list[dict] = []

        def show(rec: dict) -> None:
            if rec["type"] == "hop":
                seen.append(rec)
                sender = "main" if rec.get("from") == -1 else f"p{rec.get('from')}"
                out.print(f"  hop {rec.get('hop'):>5}  lap {rec.get('lap'):>3}:  p{rec.get('to')} ← {sender}")
        try:
            launch = run_driver(d, ["run", "trace", f"n={n}", f"m={m}"], n=n, timeout=timeout, on_record=show)
            problem = check_trace(seen, n, m, launch.records)
        except DriverFailed as e:
            problem = str(e)
        if problem:
            failed = True
            err.print(f"[red]{d.name}: trace is wrong: {escape(problem)}[/red]")
        else:
            out.print(f"  [green]{n * m} hops, each from its predecessor, in order[/green]")
    sys.exit(1 if failed else 0)


def check_trace(hops: list[dict], n: int, m: int, records: list[dict]) -> str | None:
    """The ring's rule, hop by hop: hop h reaches p((h-1) mod n) on lap (h-1) div n + 1 from its predecessor."""
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


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def runtimes(as_json):
    """List every driver found under drivers/: built or not, version, workloads, features."""
    rows = []
    for d in discover().values():
        info = {"runtime": d.name, "language": d.language, "description": d.description,
                "built": d.is_built(), "missing": d.missing_tools(), "version": None,
                "workloads": [], "features": []}
        if info["built"] and not info["missing"]:
            try:
                desc = describe(d)
                info.update(version=desc.get("version"), workloads=desc.get("workloads", []),
                            features=desc.get("features", []))
            except DriverFailed as e:
                info["problem"] = str(e)
        rows.append(info)
    if as_json:
        click.echo(json.dumps(rows, indent=1))
        return
    t = Table(title="ringbench runtimes", title_justify="left")
    for col in ("Runtime", "Language", "State", "Version", "Workloads", "Features", "What"):
        t.add_column(col)
    for r in rows:
        state = ("[red]needs " + ", ".join(r["missing"]) + "[/red]" if r["missing"] else
                 "[red]broken: " + r["problem"] + "[/red]" if r.get("problem") else
                 "[green]built[/green]" if r["built"] else "[yellow]not built[/yellow]")
        t.add_row(r["runtime"], r["language"], state, r["version"] or "", ", ".join(r["workloads"]),
                  ", ".join(r["features"]), r["description"])
    out.print(t)
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
_db_option = click.option("--db", type=click.Path(dir_okay=False, path_type=Path), default=DEFAULT_DB,
                          show_default=True, help="SQLite result store.")


def _load(run_id: int, db: Path) -> api.RunResult:
    if not db.exists():
        raise BadInput(f"no store at {db}")
    try:
        return api.load(run_id, db)
    except api.InputError as e:
        raise BadInput(str(e)) from None


@main.command()
@_db_option
def history(db):
    """List the stored runs: id, date, status, workload, runtimes, cells."""
    if not db.exists():
        raise BadInput(f"no store at {db}")
    try:
        store = Store(db)
    except StoreError as e:
        raise BadInput(str(e)) from None
    t = Table(title=f"runs in {db}", title_justify="left")
    for col in ("Run", "Started (UTC)", "Status", "Mode", "Workload", "Runtimes", "Cells ok/all", "Command"):
        t.add_column(col)
    for r in store.runs():
        s = json.loads(r["settings"])
        cells = store.cells(r["id"])
        t.add_row(str(r["id"]), r["started_at"], r["status"], s.get("mode", ""), s.get("workload", ""),
                  ", ".join(s.get("runtimes", [])), f"{sum(c['status'] == 'ok' for c in cells)}/{len(cells)}",
                  r["command"])
    store.close()
    out.print(t)


@main.command()
@click.argument("run_id", type=int)
@click.option("--baseline", default=None, help="Rel % against this runtime instead of the fastest row.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@_db_option
def show(run_id, baseline, as_json, db):
    """Print stored run RUN_ID: its table, environment and warnings (recomputed from raw records)."""
    result = _load(run_id, db)
    if as_json:
        _print_result(result, True, baseline)
        return
    env = result.environment
    out.print(f"run {run_id}: {env.get('date')}, {env.get('cpu_model')}, {env.get('usable_cpus')} CPU(s), "
              f"Linux {env.get('kernel')}, ringbench {env.get('git_revision')}")
    show_run(result, baseline)


@main.command()
@click.argument("run_a", type=int)
@click.argument("run_b", type=int)
@_db_option
def compare(run_a, run_b, db):
    """Change from RUN_A to RUN_B for every matching cell, with its interval and significance."""
    a, b = _load(run_a, db), _load(run_b, db)
    key = lambda c: (c.runtime, c.workload.name, json.dumps(c.params, sort_keys=True), c.cores, c.mode)
    before = {key(c): c for c in a.cells if c.ok}
    t = Table(title=f"run {run_a} → run {run_b}", title_justify="left")
    for col in ("Runtime", "Cores", "Workload", "Params", "metric", f"run {run_a}", f"run {run_b}", "change",
                "95 % CI of change", "p (Mann-Whitney)", "verdict"):
        t.add_column(col)
    matched = 0
    for c in b.cells:
        old = before.get(key(c))
        if not (old and c.ok):
            continue
        matched += 1
        d = stats.compare(old.values(), c.values())
        lower_better = c.mode != "timed" or c.workload.headline.lower_is_better
        label = "ns/hop" if c.mode != "timed" else c.workload.headline.label
        t.add_row(c.runtime, c.cores, c.workload.name, " ".join(f"{k}={v}" for k, v in c.params.items()), label,
                  tables.fmt(old.headline.median), tables.fmt(c.headline.median), f"{(d.ratio - 1) * 100:+.1f} %",
                  f"{(d.ratio_ci[0] - 1) * 100:+.1f} … {(d.ratio_ci[1] - 1) * 100:+.1f} %",
                  "–" if d.p_value is None else f"{d.p_value:.3f}", d.verdict(lower_better))
    if not matched:
        raise BadInput(f"runs {run_a} and {run_b} have no cell in common (same runtime, workload, params, cores, mode)")
    out.print(t)
    out.print("verdict: significant when the two medians' 95 % bootstrap intervals do not overlap; "
              "the Mann-Whitney p-value is shown beside it.")


@main.command()
@click.argument("run_id", type=int)
@click.option("--format", "fmt", type=click.Choice(["json", "csv", "markdown"]), default="json", show_default=True)
@click.option("--out", "out_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write to this file instead of stdout.")
@_db_option
def export(run_id, fmt, out_path, db):
    """Export stored run RUN_ID: json (everything, re-importable), csv (one line per repeat), markdown."""
    result = _load(run_id, db)
    store = Store(db)
    command = store.run(run_id)["command"]
    store.close()
    text = {"json": lambda: exporting.to_json(result, command), "csv": lambda: exporting.to_csv(result),
            "markdown": lambda: exporting.to_markdown(result)}[fmt]()
    if out_path:
        out_path.write_text(text)
        err.print(f"wrote {out_path}")
    else:
        click.echo(text, nl=False)


@main.command(name="import")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@_db_option
def import_(path, db):
    """Import a JSON export (from `ringbench export`) into the store as a new run."""
    try:
        store = Store(db)
        run_id = exporting.import_json(path, store)
    except (StoreError, ValueError, KeyError) as e:
        raise BadInput(f"cannot import {path}: {e}") from None
    store.close()
    click.echo(f"imported {path} as run {run_id}")


@main.command()
@click.argument("run_id", type=int)
@click.option("--kind", type=click.Choice(["auto", "hops-vs-n", "time-vs-m", "surface", "heatmap", "spawn", "memory",
                                           "squeeze"]), default="auto", show_default=True,
              help="What to draw (auto: chosen from the run's workload and mode).")
@click.option("--out", "out_path", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="Image file; .png or .svg.")
@click.option("--runtime", "-r", default=None, help="Only this runtime (needed for surface and heatmap).")
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
    from . import plots

    if out_path.suffix.lower() not in (".png", ".svg"):
        raise BadInput("--out must end in .png or .svg")
    result = _load(run_id, db)
    if kind == "auto":
        kind = plots.default_kind(result.workload.name, result.options.mode)
    try:
        plots.plot(result.cells, kind, out_path, runtime, fixed_n, fixed_m)
    except plots.PlotError as e:
        raise BadInput(str(e)) from None
    click.echo(f"wrote {out_path}")


@main.command()
@click.argument("run_ids", type=int, nargs=-1, required=True)
@click.option("--out", "out_path", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The HTML file to write.")
@_db_option
def report(run_ids, out_path, db):
    """Write one self-contained HTML report (plots embedded, no network needed) of stored runs."""
    from . import report as report_mod

    runs = []
    store = Store(db) if db.exists() else None
    for run_id in run_ids:
        result = _load(run_id, db)
        runs.append((result, store.run(run_id)["command"]))
    if store:
        store.close()
    with err.status("drawing plots …"):
        out_path.parent.mkdir(parents=True, exist_ok=True)
        out_path.write_text(report_mod.render(runs))
    click.echo(f"wrote {out_path}")


if __name__ == "__main__":
    main()
