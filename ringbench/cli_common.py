"""What the commands of the command line share: exit statuses, errors as one line, the options of run, sweep
and bench generated from the workload catalogue, and their reading into the API's settings."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from . import api
from .api import DEFAULT_DB, SETTLE_PCT, SETTLE_WINDOW, StoreError, workloads
from .present import terminal

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
    """SIGTERM ends a measuring command as Ctrl-C does (KeyboardInterrupt), and neither is lost on the way."""
    api.interrupt_on_stop()


def _duration(text: str | None, what: str, unit: float = 1.0) -> float | None:
    """'90s', '10m', '2h', '100ms' (or a bare number in seconds) → in units of `unit` seconds."""
    if text is None:
        return None
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(ms|[smh]?)\s*", text)
    if not m or float(m.group(1)) <= 0:
        raise BadInput(f"{what} takes a duration like 100ms, 90s, 10m or 2h; got {text!r}")
    return float(m.group(1)) * {"ms": 1e-3, "": 1, "s": 1, "m": 60, "h": 3600}[m.group(2)] / unit


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
            help="timed: untimed iterations first in each driver process: auto (until the last "
            f"{SETTLE_WINDOW} neither drift nor alternate by over {SETTLE_PCT:g} %; a JIT runtime first passes "
            "its floor) or N; 0 for a cold "
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
            "started by you (README.md, A ring across nodes); with this machine's node they make --nodes "
            "(refused by runtimes that start their nodes themselves).",
        ),
        click.option(
            "--cookie-file", default=None,
            help="with --hosts: the file (mode 0600) holding their cookie, Erlang distribution's privacy (other "
            "runtimes: their README) [default: $RINGBENCH_COOKIE, else ~/.erlang.cookie].",
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
