"""The `ringbench` command line: parse, call ringbench.api, hand the result to a presenter.

Exit status of every command: 0 done; 1 some cell failed or a store/file could not be used;
2 bad input (nothing run, nothing stored); 3 stopped by --budget (resumable); 130 interrupted
(finished cells kept, resumable). Every error is one line on stderr, never a traceback.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import click

from . import api, cli_help
from .cli_common import (
    EXIT_INTERRUPTED,
    EXIT_PIPE_CLOSED,
    BadInput,
    Failure,
    _db_option,
    _Group,
    _rank_option,
)
from .cli_measure import _BENCH as _BENCH  # read by the tests as ringbench.cli._BENCH
from .cli_measure import (
    _print_result,
    bench,
    run,
    sweep,
    trace,
)
from .cli_own import (
    perf,
    versus,
)
from .cli_own import perf_args as perf_args  # erlperf's argv as the command reads it (tests import it from here)
from .present import exporting, terminal
from .present.terminal import err, out
from .present.text import printable
from .present.text import shown as escape  # stored text verbatim: no markup, control characters escaped


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


class _PlotKind(click.Choice):
    """`plot --kind`'s values, read from the chart registry when the option is parsed or its help shown: read
    when the command line is built, they would load the charts' modules for every command."""

    def __init__(self) -> None:  # no tuple of choices fixed here: `choices` reads them
        self.case_sensitive = True

    @property
    def choices(self) -> tuple[str, ...]:  # type: ignore[override]  # read, never assigned
        from .present import PLOT_KINDS

        return ("auto", *PLOT_KINDS)


@cli.command()
@click.argument("run_id", type=int)
@click.option(
    "--kind", type=_PlotKind(), default="auto", show_default=True,
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


for _command in (run, sweep, bench, trace, versus, perf):  # the commands defined beside this module
    cli.add_command(_command)


if __name__ == "__main__":
    main()
