"""The `ringbench` command line. Every command validates all its input before anything runs."""
from __future__ import annotations

import json
import shlex
import signal
import sys
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from . import environment, runner, workloads
from .drivers import DriverError, build as build_driver, discover, select
from .launch import describe, run_driver
from .protocol import DriverFailed
from .store import DEFAULT_DB, Store, StoreError
from . import tables
from .tables import Row

# Tables are wide: when stdout is not a terminal (a file, a pipe, a test) do not squeeze them to 80 columns.
out = Console(width=None if sys.stdout.isatty() else 220)
err = Console(stderr=True)

CORES_CHOICES = ("1", "all")


class BadInput(click.UsageError):
    """Exit 2 with one clear line (click's usage-error convention)."""


def _parse_cores(text: str) -> list[str]:
    values = [c.strip() for c in text.split(",") if c.strip()]
    bad = [c for c in values if c not in CORES_CHOICES]
    if bad or not values:
        raise BadInput(f"--cores takes 1, all, or 1,all; got {text!r}")
    return list(dict.fromkeys(values))


def _sigterm_as_interrupt() -> None:
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))


def _open_store(db: Path) -> Store:
    try:
        return Store(db)
    except (StoreError, Exception) as e:  # sqlite3.DatabaseError for a file that is not SQLite
        raise BadInput(f"cannot use store {db}: {e}") from None


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
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
    """


def _measure(workload: workloads.Workload, runtime: str, grid: list[dict], cores: list[str],
             opts: runner.Options, db: Path, as_json: bool, command: str) -> int:
    try:
        drivers = select(runtime)
    except DriverError as e:
        raise BadInput(str(e)) from None
    cells = runner.plan(drivers, workload, grid, cores)
    refused = runner.refusals(cells)
    if refused:
        raise BadInput("; ".join(refused))
    store = _open_store(db)
    settings = {"workload": workload.name, "runtimes": [d.name for d in drivers], "grid": grid, "cores": cores,
                "repeat": opts.repeat, "warmup": opts.warmup, "isolation": opts.isolation,
                "timeout": opts.timeout, "mode": "timed"}
    run_id = store.begin_run(command, settings, environment.collect())
    outcomes: list[runner.Outcome] = []
    status = "complete"
    _sigterm_as_interrupt()
    try:
        with err.status("") as spinner:
            def start(spec: runner.CellSpec) -> None:
                spinner.update(f"[{len(outcomes) + 1}/{len(cells)}] {spec.label} × {opts.repeat}")

            def done(o: runner.Outcome) -> None:
                mark = "[green]ok[/green]" if o.status == "ok" else f"[red]{o.status}[/red]: {o.reason}"
                err.print(f"  {o.spec.label}: {mark}")

            outcomes = runner.run_cells(store, run_id, cells, opts, start, lambda o: (outcomes.append(o), done(o)))
    except KeyboardInterrupt:
        status = "interrupted"
        err.print(f"[yellow]interrupted: {len(outcomes)} of {len(cells)} cells finished and stored[/yellow]")
    finally:
        if status == "complete" and any(o.status != "ok" for o in outcomes):
            status = "failed"
        store.finish_run(run_id, status)
        store.close()
    rows = [Row(o.spec.driver.name, o.spec.cores, o.spec.params, o.status, o.reason, o.records) for o in outcomes]
    if as_json:
        click.echo(json.dumps({"run_id": run_id, "status": status, "settings": settings,
                               "cells": tables.as_json(workload, rows)}, indent=1))
    else:
        out.print(tables.table(workload, rows, title=f"{workload.name} — run {run_id} ({status}), store {db}"))
        out.print(f"{workload.headline.label}: median over repeats, spread = min–max; Rel % = throughput against "
                  f"the fastest row; each repeat in a {'single warm process' if opts.in_process else 'fresh driver process'}, "
                  f"{opts.warmup} unreported warm-up iteration(s) first.")
    return {"complete": 0, "interrupted": 130}.get(status, 1)


_common = [
    click.option("--runtime", "-r", default="all", show_default=True,
                 help="Comma-separated runtimes (see `ringbench runtimes`), or `all` built ones."),
    click.option("--repeat", default=3, show_default=True, type=click.IntRange(1, 10_000),
                 help="Measured repeats per cell."),
    click.option("--warmup", default=1, show_default=True, type=click.IntRange(0, 10_000),
                 help="Unreported iterations run first inside each driver process."),
    click.option("--in-process", is_flag=True,
                 help="Run all repeats in one driver process (default: a fresh process per repeat)."),
    click.option("--timeout", type=click.FloatRange(min=1), default=None,
                 help="Seconds per driver process before it is killed [default: from the size]."),
    click.option("--db", type=click.Path(dir_okay=False, path_type=Path), default=DEFAULT_DB, show_default=True,
                 help="SQLite result store."),
    click.option("--json", "as_json", is_flag=True, help="Print every repeat's raw record and the summary as JSON."),
]


def common_options(cores_default: str):
    cores = click.option("--cores", default=cores_default, show_default=True,
                         help="1 (pinned to one CPU, one scheduler thread), all, or 1,all for both.")

    def wrap(f):
        for opt in reversed([cores, *_common]):
            f = opt(f)
        return f
    return wrap


def _workload_help() -> str:
    return "\n".join(f"  {w.name:<10} {w.summary}" for w in workloads.WORKLOADS.values())


@main.command(epilog="\b\nWorkloads:\n" + _workload_help())
@click.argument("workload")
@click.option("-n", "n", help="Processes (≥ 1). Comma-separated values make a grid: -n 1000,10000.")
@click.option("-m", "m", help="Laps (ring), round trips (pingpong), messages per sender (fanin), rounds (selective).")
@click.option("--tokens", "-k", "tokens", help="ring: tokens circulating at once [default: 1; hops = N×M×K].")
@click.option("--hops", "hops", help="msgcost: total hops per run, fixed while N varies [default: 1,000,000].")
@click.option("--reverse", "reverse", help="selective: 0 arrival order, 1 reverse order [default: 0,1 (both)].")
@common_options("all")
def run(workload, n, m, tokens, hops, reverse, runtime, cores, repeat, warmup, in_process, timeout, db, as_json):
    """Measure WORKLOAD on one or more runtimes; print a table and store every repeat.

    \b
    Examples:
      ringbench run ring --runtime erlang,go,c-pthreads,c-coro -n 10000 -m 100 --repeat 5
      ringbench run ring --runtime erlang -n 1000000 -m 10
      ringbench run ring --runtime go -n 10000 -m 100 --json
      ringbench run ring --runtime all --cores 1,all -n 10000 -m 100
      ringbench run spawn --runtime all -n 100000
      ringbench run msgcost --runtime go -n 2,100,10000,1000000

    Exit status: 0 all cells measured; 1 some cell failed (stored as failed with its reason);
    2 bad input (nothing run, nothing stored); 130 interrupted (finished cells kept).
    """
    try:
        w = workloads.get(workload)
        given = {"n": n, "m": m, "tokens": tokens, "hops": hops, "reverse": reverse}
        grid = w.grid({k: v for k, v in given.items() if v is not None})
    except workloads.ParamError as e:
        raise BadInput(str(e)) from None
    opts = runner.Options(repeat=repeat, warmup=warmup, in_process=in_process, timeout=timeout)
    command = "ringbench " + shlex.join(sys.argv[1:])
    sys.exit(_measure(w, runtime, grid, _parse_cores(cores), opts, db, as_json, command))


@main.command()
@common_options("1,all")
@click.option("-n", "n", default="10000", show_default=True, help="Processes in the ring.")
@click.option("-m", "m", default="100", show_default=True, help="Laps.")
def bench(runtime, cores, repeat, warmup, in_process, timeout, db, as_json, n, m):
    """The default comparison: the ring on every built runtime, on one core and on all cores.

    Same as `ringbench run ring --runtime all --cores 1,all -n 10000 -m 100`.
    """
    try:
        params = workloads.RING.validate({"n": n, "m": m})
    except workloads.ParamError as e:
        raise BadInput(str(e)) from None
    cores_list = _parse_cores(cores)
    opts = runner.Options(repeat=repeat, warmup=warmup, in_process=in_process, timeout=timeout)
    command = "ringbench bench " + shlex.join(sys.argv[2:])
    sys.exit(_measure(workloads.RING, runtime, [params], cores_list, opts, db, as_json, command))


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
        if "trace" not in runner._workloads_of(d):
            raise BadInput(f"{d.name} does not implement trace")
    n, m = params["n"], params["m"]
    failed = False
    for d in drivers:
        out.print(f"[bold]{d.name}[/bold]: ring of {n} processes, {m} lap(s), {n * m} hops")
        seen = []

        def show(rec: dict) -> None:
            if rec["type"] != "hop":
                return
            seen.append(rec)
            sender = "main" if rec["from"] == -1 else f"p{rec['from']}"
            out.print(f"  hop {rec['hop']:>5}  lap {rec['lap']:>3}:  p{rec['to']} ← {sender}")
        try:
            launch = run_driver(d, ["run", "trace", f"n={n}", f"m={m}"], n=n, timeout=timeout, on_record=show)
            problem = _check_trace(seen, n, m, launch.records)
        except DriverFailed as e:
            problem = str(e)
        if problem:
            failed = True
            err.print(f"[red]{d.name}: trace is wrong: {problem}[/red]")
        else:
            out.print(f"  [green]{n * m} hops, each from the predecessor, in order[/green]")
    sys.exit(1 if failed else 0)


def _check_trace(hops: list[dict], n: int, m: int, records: list[dict]) -> str | None:
    """The ring's rule, hop by hop: hop h reaches p((h-1) mod n) on lap (h-1) div n + 1 from its predecessor."""
    if len(hops) != n * m:
        return f"{len(hops)} hops printed, expected {n * m}"
    for h, rec in enumerate(hops, 1):
        to = (h - 1) % n
        frm = -1 if h == 1 else (to - 1) % n
        want = {"hop": h, "lap": (h - 1) // n + 1, "to": to, "from": frm}
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
                 "[red]broken[/red]" if r.get("problem") else
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
                err.print(f"  {d.base}: [red]{e}[/red]")
    if failed:
        err.print(f"[red]{len(failed)} driver(s) failed to build: {', '.join(failed)}[/red]")
        sys.exit(1)


if __name__ == "__main__":
    main()
