"""The commands that measure something of your own: versus (a driver against your program) and perf (your code,
erlperf's way)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click

from . import api, cli_help, perf_cli
from .api import DEFAULT_DB
from .cli_common import (
    EXIT_INTERRUPTED,
    BadInput,
    Failure,
    _db_option,
    _sigterm_as_interrupt,
)
from .present import exporting, tables, terminal
from .present.terminal import err, out
from .present.text import shown as escape  # stored text verbatim: no markup, control characters escaped


# -- versus: a driver against a program of your own --------------------------------------------------
@click.command(help=cli_help.VERSUS)
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
@click.option(
    "--nodes", "nodes", type=int, default=None, metavar="K",
    help="The driver's ring spread over K nodes (drivers with the feature `nodes`); the program gets {nodes} and "
    "{placement} (0 contiguous, 1 interleaved) and starts its own nodes.",
)  # fmt: skip
@click.option("--node-placement", default=None, help="with --nodes: contiguous (default) or interleaved.")
@click.option("--hosts", "hosts", default=None, hidden=True)  # refused below: `run` takes it, versus does not
@click.option("--json", "as_json", is_flag=True, help="Print the run as JSON (every round's wall times and records).")
@click.option("--markdown", is_flag=True, help="Print the table as Markdown with the commands, for pasting into docs.")
@_db_option
def versus(
    runtime, program, ns, m_opt, hops_opt, tokens, placement, cores, rounds, warmup_runs, env_pairs, no_driver_env,
    build_cmd, timeout, label, workload, fanout, short_n, with_default, nodes, node_placement, hosts, as_json, markdown,
    db,
):  # fmt: skip
    if as_json and markdown:
        raise BadInput("--json and --markdown exclude each other")
    if hosts is not None:
        raise BadInput("versus starts every node on this machine (--nodes K): --hosts is for `ringbench run`")
    _sigterm_as_interrupt()

    def say(text: str) -> None:
        err.print(escape(f"versus: {text}"), highlight=False, soft_wrap=True)

    try:
        run = api.versus(
            runtime, program, ns, m=m_opt, hops=hops_opt, tokens=tokens, placement=placement, cores=cores,
            rounds=rounds, warmup_runs=warmup_runs, env=env_pairs, no_driver_env=no_driver_env, build=build_cmd,
            timeout=timeout, label=label, workload=workload, fanout=fanout, short=short_n, with_default=with_default,
            nodes=1 if nodes is None else nodes, node_placement=node_placement,
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
        k, layout = s.get("nodes", 1), ("contiguous", "interleaved")[s.get("node_placement", 0)]
        across = f"the driver's ring across {k} nodes, {layout}" if k > 1 else ""
        out.print(
            escape(f"{run.settings['runtimes'][0]} against {run.settings['runtimes'][1]} = `{s.get('program')}`, "
                   f"cores {run.cells[0].cores}{pin}{', ' + across if across else ''}"),
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


@click.command(
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
