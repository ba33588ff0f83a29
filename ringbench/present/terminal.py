"""The terminal's view of results: the run table with its notes and warnings, the wide block, the runtimes,
the history of a store, a comparison of two runs, and the progress display of a measurement. Every
table fits 100 columns with each row identifiable (figures are never cut; long text wraps).
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import TYPE_CHECKING

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..catalogue.workloads import WORKLOADS
from ..results import noise
from ..results.model import Cell, Run
from ..results.modes import MODES, Options, settled, squeeze_history
from ..results.relative import ordered
from . import tables
from .text import shown

if TYPE_CHECKING:
    from rich.progress import Progress, ProgressColumn, TaskID

# Tables are ruled with ASCII only: a line of box-drawing characters is three bytes a column, and
# tools that count bytes (awk, mail, some CI logs) would see a 100-column table as 300 wide.
HEAD_RULE = box.Box("    \n    \n -- \n    \n    \n    \n    \n    \n")


def _width() -> int | None:
    """A terminal's own width; piped, $COLUMNS or 100 (the compact table is made to fit 100), less a
    few columns so that the odd two- or three-byte character (±, µ, ✓) keeps a line within that many
    bytes too, for tools that count bytes."""
    if sys.stdout.isatty():
        return None
    cols = os.environ.get("COLUMNS", "")
    return (int(cols) if cols.isdigit() and int(cols) > 40 else 100) - 2


_output_ended = False


def output_ended(stream=None) -> None:
    """The reader of `stream` (stdout by default) went away (`ringbench run … | head -3`): what is still
    printed there goes to /dev/null, quietly, and the work goes on, so a run is stored whole."""
    global _output_ended
    _output_ended = True
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, (stream or sys.stdout).fileno())
    os.close(devnull)


def was_output_ended() -> bool:
    """Whether a reader closed its end of our output (the CLI then exits 141, as a shell reports SIGPIPE)."""
    return _output_ended


class _Console(Console):
    def on_broken_pipe(self) -> None:
        # rich's own raises SystemExit(1), which would end a measurement in the middle and leave its run
        # abandoned in the store.
        self.quiet = True
        output_ended(self.file)


out = _Console(width=_width(), soft_wrap=False)
err = _Console(stderr=True, width=_width() if not sys.stderr.isatty() else None)


def _table(title: str, columns: list[tables.Column], body: list[list[str]], wrap_left: bool = False) -> Table:
    # A table narrower than its title (an interrupted run: "nothing measured") is widened to it, so the
    # title is not folded into the table's few columns.
    t = Table(
        title=shown(title),
        title_justify="left",
        box=HEAD_RULE,
        pad_edge=False,
        collapse_padding=True,
        min_width=min(len(title), out.width),
    )
    for i, col in enumerate(columns):
        # Figures never wrap or shrink. The first column (the row's name) stays whole where other text
        # columns wrap (wrap_left); else it folds, only when the table is wider than the terminal (a
        # long program label in a versus run): never a figure cut short.
        if i == 0 and not wrap_left:
            t.add_column(col.header, no_wrap=False, overflow="fold")
            continue
        t.add_column(col.header, justify="right" if col.right else "left", no_wrap=not wrap_left or col.right or i == 0)
    for r in body:
        t.add_row(*map(shown, r))
    return t


def show_run(run: Run, wide: bool = False) -> None:
    if run.workload.subject:  # snippets of code compared: erlperf's table
        show_perf(run, wide)
        return
    o = run.options
    rank = tables.rank_metric(run.cells, run.rank)
    cells = ordered(run.cells, run.baseline, rank)
    title = f"{run.workload.name} ({o.mode}), run {run.run_id} ({run.status})"
    cols, body, notes = tables.rows(cells, run.baseline, rank=rank)
    out.print(_table(title, cols, body))
    out.print(
        shown(run.mode_object.describe(o, run.workload))
        + "; ±95% = half-width of the bootstrap 95 % interval of the median.",
        highlight=False,
    )
    for n in notes:
        out.print(shown(n), highlight=False, width=(out.width or 100) - 6)  # notes carry ✓, ≈, µ
    if wide:
        wcols, wbody = tables.wide_block(cells, run.baseline)
        if wbody:
            out.print(_table("details", wcols, wbody, wrap_left=True))
    elif run.mode_object.sampled or run.mode_object.details_under_table:
        for c in cells:
            if c.ok:
                out.print(shown(f"{c.label}: {c.mode_object.details(c)}"), highlight=False)
    for c in cells:
        if c.ok and c.extra.get("history"):
            head, rows_ = tables.squeeze_rows(c)
            title = f"squeeze: {c.label} — {c.extra.get('stopped_because', '')}"
            out.print(_table(title, [tables.Column(h) for h in head], rows_))
    show_nodes(cells)
    st = tables.runtime_stats_rows(cells)
    if st:
        cols_ = [tables.Column(h, False) for h in ("Runtime", "Cores", "repeat", "statistics")]
        out.print(_table("runtime statistics (per repeat, as the runtime reports them)", cols_, st, wrap_left=True))
    print_warnings(run.warnings)


def show_nodes(cells: list[Cell]) -> None:
    """Rings across nodes: each beside its in-node ring (ns per cross-node hop), and the cluster views."""
    ncols, nbody, nnotes = tables.nodes_rows(cells)
    if nbody:
        out.print(_table("across nodes: ns per cross-node hop, against the in-node ring of this run", ncols, nbody))
        for n in nnotes:
            out.print(shown(n), highlight=False, width=(out.width or 100) - 6)
    for c in cells:
        head, rows_ = tables.view_rows(c) if c.ok else ([], [])
        if rows_:
            cols = [tables.Column(h, i > 0) for i, h in enumerate(head)]
            out.print(_table(f"cluster view: {c.label.strip()} (per node, over the counted samples)", cols, rows_))


def print_warnings(warnings: list[noise.RunWarning]) -> None:
    """One line per kind of warning; a command to run comes on a line of its own, whole, so it can be
    pasted however long its --db path is."""
    with_hint = [w for w in warnings if w.hint]
    for line in noise.grouped([w for w in warnings if not w.hint]):
        out.print(f"[yellow]warning:[/yellow] {shown(line)}", highlight=False)
    for w in with_hint:
        out.print(f"[yellow]warning:[/yellow] {shown(w.what)}; {shown(w.advice)}:", highlight=False)
        out.print(f"  {shown(w.hint)}", highlight=False, soft_wrap=True)


def show_header(run: Run) -> None:
    env = run.environment
    out.print(
        shown(
            f"run {run.run_id}: {env.get('date')}, {env.get('cpu_model')}, {env.get('usable_cpus')} CPU(s), "
            f"Linux {env.get('kernel')}, ringbench {env.get('git_revision')}"
        ),
        highlight=False,
    )
    out.print(shown(f"command: {run.command}"), highlight=False)


# -- runtimes ----------------------------------------------------------------------------------------
def _workloads_text(have: list[str], features: list[str]) -> str:
    every = set(WORKLOADS) - {"memory", "msgcost"} | {"trace"}
    missing = sorted(every - set(have))
    text = "all" if not missing else ("all but " + ", ".join(missing)) if len(missing) < 3 else ", ".join(have)
    if "tokens" not in features and have:
        text += "; tokens=1 only"
    return text


def show_runtimes(rows: list[dict]) -> None:
    t = Table(title="ringbench runtimes", title_justify="left", box=HEAD_RULE, pad_edge=False, collapse_padding=True)
    for col in ("Runtime", "hop", "State", "Version", "Workloads"):
        t.add_column(col, no_wrap=col in ("Runtime", "hop", "State"), overflow="fold")
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
        name = r["runtime"] + (" (1t)" if r["single_threaded"] else "")
        t.add_row(shown(name), hop, state, shown(r["version"] or ""), _workloads_text(r["workloads"], r["features"]))
    out.print(t)
    out.print(
        "hop: mbox mailbox, chan channel, rdv rendezvous, hand hand-off (slot + wake-up), floor not a runtime; "
        "* the driver's own mailbox; (1t) one thread runs every process. Tuned variants are measured when "
        "named or with --tuned. Details: `ringbench runtimes --json`.",
        highlight=False,
    )
    if any(not r["built"] for r in rows):
        out.print("Build with `ringbench build [RUNTIME…]` (or `make setup`, which also installs toolchains).")


# -- history -----------------------------------------------------------------------------------------
def show_runtime_env(rows: list[dict]) -> None:
    """Per driver folder: the variables that tune its runtime and change its build (its manifest), and what
    its last build found set (removed from the build, or kept with --keep-env)."""
    seen: set[str] = set()
    for r in rows:
        base = r["runtime"].split("/")[0]
        if base in seen:
            continue
        seen.add(base)
        build = r.get("build") or {}
        found = "; ".join(
            f"{how} {', '.join(f'{k}={v}' for k, v in build[what].items())}"
            for how, what in (("removed", "removed"), ("kept", "kept"))
            if build.get(what)
        )
        last = found or ("nothing set" if build else "not recorded (built before builds were recorded)")
        out.print(shown(f"{base}: run {' '.join(r['tuning_env']) or '–'}"), highlight=False)
        out.print(shown(f"  build {' '.join(r['build_env']) or '–'}; last build: {last}"), highlight=False)


def _words(workload: str) -> dict[str, tuple[str, ...]]:
    """A workload's parameters that the command line takes as words (burst: spread or burst; node_placement:
    contiguous or interleaved), as a user gives them, never their internal numbers."""
    w = WORKLOADS.get(workload)
    return {p.name: p.words for p in w.params if p.words} if w else {}


def _value_text(words: dict[str, tuple[str, ...]], k: str, v: object) -> str:
    ws = words.get(k, ())
    return ws[v] if isinstance(v, int) and 0 <= v < len(ws) else tables.short_count(v)  # type: ignore[arg-type]


def grid_text(s: dict) -> str:
    values: dict[str, list] = {}
    for g in s.get("grid", []):
        for k, v in json.loads(g).items():
            values.setdefault(k, [])
            if v not in values[k]:
                values[k].append(v)
    words = _words(s.get("workload", ""))
    return " ".join(
        ",".join(_value_text(words, k, v) for v in vs) if k in words else f"{k}={','.join(map(tables.short_count, vs))}"
        for k, vs in values.items()
        if (k, vs) not in (("tokens", [1]), ("burst", [0]))  # the defaults: one token, spread
    )


def spec_label(spec) -> str:
    """A cell under way, as the progress display names it: its parameters as the command line gives them."""
    words = _words(spec.workload.name)
    ps = " ".join(_value_text(words, k, v) if k in words else f"{k}={v:,}" for k, v in spec.params.items())
    return f"{spec.driver.name} [{spec.cores} core{'s' if spec.cores != '1' else ''}] {spec.workload.name} {ps}"


def _runtimes_text(names: list[str]) -> str:
    if len(names) <= 2:
        return ",".join(names)
    return f"{names[0]},{names[1]} +{len(names) - 2}"


def show_history(runs: list[dict], db: str, db_flag: str) -> None:
    t = Table(title=f"runs in {db}", title_justify="left", box=HEAD_RULE, pad_edge=False)
    t.add_column("Run", justify="right", no_wrap=True)
    t.add_column("Started (UTC)", no_wrap=True)
    t.add_column("Status", no_wrap=True)
    t.add_column("Cells", justify="right", no_wrap=True)
    t.add_column("What", overflow="fold")
    t.add_column("Runtimes", overflow="fold")
    for r in runs:
        s = r["settings"]
        cells = f"{r['ok']}/{r['planned']}" if r.get("planned") else f"{r['ok']}/{r['done']}"
        what = f"{s.get('workload', '')} {s.get('mode', '') if s.get('mode') != Options.mode else ''}".strip()
        if "perf" in s:  # a perf run: its mode and its snippets, not a grid
            what = f"{s['mode'].replace('-', ' ')}: {', '.join(s['perf'].get('labels', []))}"
        t.add_row(
            str(r["id"]),
            shown(r["started_at"][:16].replace("T", " ")),
            shown(r["status"]),
            cells,
            shown(f"{what} {grid_text(s) if s.get('grid') else ''} cores={','.join(s.get('cores', []))}"),
            shown(_runtimes_text(s.get("runtimes", []))),
        )
    out.print(t)
    resumable = [
        r["id"]
        for r in runs
        if r["status"] in ("interrupted", "budget", "abandoned", "failed")
        and MODES[r["settings"].get("mode", "timed")].resumable
    ]
    if resumable:
        out.print(
            f"Cells = ok/planned. `ringbench sweep --resume {resumable[-1]}{db_flag}` finishes run "
            f"{resumable[-1]} (or any interrupted, budget-stopped, failed or abandoned run).",
            highlight=False,
        )


# -- compare -----------------------------------------------------------------------------------------
_VERDICT = {True: "{}", False: "same", None: "few"}


def show_compare(run_a: int, run_b: int, changes: list, metric: str) -> None:
    """Per cell: the headline in each run and one figure of the change, `slower` (the sense and number the
    --fail-above gate uses): how much more time a hop or an iteration takes in run B, + slower, − faster."""
    out.print(f"run {run_a} → run {run_b}", highlight=False)
    t = Table(box=HEAD_RULE, pad_edge=False)
    rows = []
    keyed = 0
    for ch in changes:
        c, d = ch.after, ch.diff
        slower = ch.slower_pct
        lo, hi = ch.slower_ci
        verdict = ("slower" if slower > 0 else "faster") if d.significant else _VERDICT[d.significant]
        params = _short_params(c)
        if c.workload.label:  # a perf cell: its code whole on a line of its own, its key in the table
            keyed += 1
            out.print(shown(f"#{keyed}  {tables.perf_code(c)}"), highlight=False)
            params = f"#{keyed}"
        runtime = c.runtime
        if ch.before.runtime != c.runtime:  # two installations of one runtime (compare across installations)
            runtime = f"{ch.before.runtime} → @{c.runtime.partition('@')[2] or 'default'}"
        rows.append([
            shown(runtime),
            tables.cores_text(c),
            shown(params),
            _headline(ch.before),
            _headline(c),
            f"{slower:+.1f}%",
            f"{lo:+.0f}..{hi:+.0f}%",
            "–" if d.p_value is None else f"{d.p_value:.3f}",
            verdict,
        ])  # fmt: skip
    heads = ("Runtime", "Cores", "Params", f"run {run_a}", f"run {run_b}", "slower", "95% CI", "p", "verdict")
    for i, col in enumerate(heads):
        # Every column but the parameters keeps its whole width; the parameters wrap, never a figure.
        widest = max([len(col), *(len(r[i]) for r in rows)])
        wraps = col == "Params"
        t.add_column(col, justify="left" if col in ("Runtime", "Params", "verdict") else "right",
                     no_wrap=not wraps, min_width=None if wraps else widest, overflow="fold")  # fmt: skip
    for r in rows:
        t.add_row(*r)
    out.print(t)
    unsettled = any(tables.NOT_SETTLED_MARK in r[3] + r[4] for r in rows)
    rate = "" if all(ch.lower_is_better for ch in changes) else f" (of a rate, {metric}: run {run_a} / run {run_b} − 1)"
    out.print(
        f"{metric}, median of repeats; slower = the time a hop or an iteration takes in run {run_b} against run "
        f"{run_a}{rate}, + slower, − faster, with its bootstrap 95 % interval: the figure --fail-above compares. "
        f"slower/faster: significant ({_tests_words(changes)}); same: not significant; few: too few to tell."
        + (
            f" {tables.NOT_SETTLED_MARK} = not settled (a process reached the warm-up cap or moved after settling)."
            if unsettled
            else ""
        ),
        highlight=False,
    )


def _headline(c: Cell) -> str:
    """A side's headline as the run's table shows it: marked when a process of it never settled."""
    hl = c.headline
    text = tables.fmt(hl.median) if hl else "–"
    return text + tables.NOT_SETTLED_MARK if c.mode_object.settles and not settled(c) else text


def _tests_words(changes: list) -> str:
    """The tests the verdicts come from, as the differences say (stats.compare, stats.compare_processes)."""
    words = {
        "process": "Welch's t on the log of per-process medians, p < 0.05, ≥ {} processes a side",
        "repeat": "Mann-Whitney U, p < 0.05, ≥ {} repeats a side",
    }
    units = dict.fromkeys(ch.diff.unit for ch in changes)
    needed = {ch.diff.unit: ch.diff.needed for ch in changes}
    return "; ".join(words[u].format(needed[u]) for u in units)


def _short_params(c: Cell) -> str:
    if c.workload.label:  # a perf cell: its snippet
        return c.label
    defaults = {p.name: p.default[0] for p in c.workload.params if p.default and len(p.default) == 1}
    return " ".join(
        f"{tables._param_header(k)}={tables.short_count(v) if k != 'burst' else ('burst' if v else 'spread')}"
        for k, v in c.used_params.items()
        if defaults.get(k) != v
    )


# -- progress ----------------------------------------------------------------------------------------
# rich.progress is imported when a display begins: a command that measures nothing does not load it.
def _eta_column(estimate_s: float) -> ProgressColumn:
    """Time left: the plan's own estimate until the first steps are done, then extrapolated from them."""
    from rich.progress import ProgressColumn

    started = time.monotonic()

    class Eta(ProgressColumn):
        def render(self, task) -> Text:
            done, total = task.completed, task.total or 0
            spent = time.monotonic() - started
            if done >= 2 and total:
                left = spent / done * (total - done)
            else:
                left = max(estimate_s - spent, 0)
            return Text(f"~{_duration(left)} left", style="progress.remaining")

    return Eta()


def _duration(s: float) -> str:
    s = int(s)
    return f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


class ProgressDisplay:
    """A progress display on stderr, shown once the measurement has begun (bad input prints only its error
    line): the cell under way and what it does, steps done of all, elapsed time and an estimate of what
    is left. `begin`, `step`, `tick` and `done` are the API's callbacks; `stop` ends the display."""

    def __init__(self, estimate_s: float, total: int, creating: str | None = None):
        self.estimate_s, self.total, self.creating = estimate_s, total, creating
        self.bar: Progress | None = None
        self.task: TaskID | None = None
        self.width = max(20, (err.width or 100) - 45)

    def begin(self, run_id: int) -> None:
        if self.creating:
            err.print(f"creating the store {self.creating}", highlight=False)
        err.print(f"run {run_id}: {self.total} step(s), about {_duration(self.estimate_s)}", highlight=False)
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        columns = [
            TextColumn("{task.description}", table_column=None),
            BarColumn(bar_width=10),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            _eta_column(self.estimate_s),
        ]
        self.bar = Progress(*columns, console=err, transient=True)
        self.task = self.bar.add_task("starting", total=self.total)
        self.bar.start()

    def _describe(self, spec, text: str) -> str:
        line = f"{spec_label(spec)} · {text}"
        return shown(line if len(line) <= self.width else line[: self.width - 1] + "…")

    def step(self, spec, what: str, i: int, n: int) -> None:
        if self.bar is not None and self.task is not None:
            self.bar.update(self.task, completed=i - 1, total=n, description=self._describe(spec, what))

    def tick(self, spec, text: str) -> None:
        if self.bar is not None and self.task is not None:
            self.bar.update(self.task, description=self._describe(spec, text))

    def done(self, c: Cell) -> None:
        mark = "[green]ok[/green]" if c.ok else f"[red]{shown(tables.reason_line(c))}[/red]"
        (self.bar.console if self.bar else err).print(f"  {shown(c.label)}: {mark}")

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


# -- perf: erlperf's table ---------------------------------------------------------------------------
PERF_MODE_WORDS = {"perf-continuous": "continuous", "perf-timed": "timed", "perf-squeeze": "squeeze"}


def perf_title(run: Run) -> str:
    c = run.cells[0] if run.cells else None
    runtime = f"{c.runtime} ({c.version})" if c and c.version else (c.runtime if c else "")
    cores = f", cores {c.cores}" if c else ""
    mode = PERF_MODE_WORDS.get(run.options.mode, run.options.mode)
    return f"perf ({mode}), run {run.run_id} ({run.status}): {runtime}{cores}"


def show_perf(run: Run, wide: bool = False) -> None:
    """erlperf's table: the code cut to the room the figures leave (whole with --wide), then the notes, the
    squeeze steps, the runtime's statistics per sample (-v) and the warnings."""
    cells = ordered(run.cells, None)
    cols, body, notes = tables.perf_rows(cells, None, wide)
    out.print(shown(perf_title(run)), highlight=False)
    if not body:  # interrupted before a snippet finished: no table, no legend; the warnings say what happened
        print_warnings(run.warnings)
        return
    details: list[str] = []
    if wide:  # the code whole, each snippet on lines of its own, #k in the table; the details under it
        cols, body, details = _perf_wide(cols, body)
    t = Table(box=HEAD_RULE, pad_edge=False, collapse_padding=True)
    figures = sum(max([len(col.header), *(len(r[i]) for r in body)]) + 1 for i, col in enumerate(cols) if i > 0)
    room = max(20, (out.width or 100) - figures - 2) if not wide else None
    for i, col in enumerate(cols):
        if i == 0:
            t.add_column(col.header, justify="left", no_wrap=not wide, overflow="fold" if wide else "ellipsis",
                         max_width=room)  # fmt: skip
        else:
            t.add_column(col.header, justify="right" if col.right else "left", no_wrap=col.right,
                         overflow="fold")  # fmt: skip
    for r in body:
        t.add_row(*map(shown, r))
    out.print(t)
    for line in details:
        out.print(shown(line), highlight=False)
    out.print(shown(run.mode_object.describe(run.options, run.workload)) + ".", highlight=False)
    for n in notes:
        out.print(shown(n), highlight=False, width=(out.width or 100) - 6)
    if not wide:
        for c in cells:
            if c.ok:
                out.print(shown(f"{c.label}: {c.mode_object.details(c)}"), highlight=False)
    for c in cells:
        if c.ok and c.extra.get("history"):
            rows_ = [
                [str(h["concurrency"]), tables.qps_text(h["hops_per_s"]), tables.qps_text(h["sd"]), str(h["samples"]),
                 "← peak" * h["peak"]]
                for h in squeeze_history(c)
            ]  # fmt: skip
            cols_ = [tables.Column(h) for h in ("||", "QPS (mean)", "sd", "samples", "")]
            out.print(_table(f"squeeze: {c.label} — {c.extra.get('stopped_because', '')}", cols_, rows_))
    st = [
        [c.label, str(s.get("step", 1)), str(s.get("seq", "")), _stats_text(s)]
        for c in cells if c.ok for s in c.extra.get("runtime_stats", [])
    ]  # fmt: skip
    if st:
        cols_ = [tables.Column(h, False) for h in ("Code", "step", "sample", "statistics")]
        out.print(_table("runtime statistics (per sample, as the runtime reports them)", cols_, st, wrap_left=True))
    print_warnings(run.warnings)


def _perf_wide(
    cols: list[tables.Column], body: list[list[str]]
) -> tuple[list[tables.Column], list[list[str]], list[str]]:
    """The wide perf table within 100 columns: each snippet's code printed whole above the table after its
    key (#1, #2, …), which stands in the Code column; the details column printed under the table, by key."""
    has_details = cols[-1].header == "details"
    keyed: list[list[str]] = []
    details: list[str] = []
    k = 0
    for row in body:
        if row[0].startswith(tables.NODE_MARK):  # └ node j and its name: the name under the table
            mark, _, name = row[0].removeprefix(tables.NODE_MARK + " ").partition(" ")
            if name:
                details.append(f"#{k} node {mark}: {name}")
            keyed.append([f"{tables.NODE_MARK} {mark}", *(row[1:-1] if has_details else row[1:])])
            continue
        k += 1
        out.print(shown(f"#{k}  {row[0]}"), highlight=False)
        if has_details and row[-1]:
            details.append(f"#{k}: {row[-1]}")
        keyed.append([f"#{k}", *(row[1:-1] if has_details else row[1:])])
    return (cols[:-1] if has_details else cols), keyed, details


def _stats_text(s: dict) -> str:
    shown = {k: v for k, v in s.items() if k not in ("step", "seq")}
    return ", ".join(f"{k}={v:,}" if isinstance(v, int) else f"{k}={v}" for k, v in shown.items())


class PerfProgress:
    """`ringbench perf`'s progress on stderr: one status line (the snippet, its phase, the last sample's QPS),
    what the snippets print, and with --verbose each runtime-statistics record."""

    def __init__(self, verbose: bool = False):
        self.verbose = verbose
        self.status = err.status("perf: starting the runtime …")

    def start(self) -> None:
        self.status.start()

    def stop(self) -> None:
        self.status.stop()

    def event(self, what: str, d: dict) -> None:
        code = d.get("code", "")
        short = code if len(code) <= 40 else code[:39] + "…"
        if what == "phase":
            self.status.update(shown(f"perf: snippet {d['snippet']} `{short}`: {d['phase']}"))
        elif what == "sample":
            rate = d["rates"][-1] if d["rates"] else None
            kind = "warm-up" if d["counted"] <= 0 else f"sample {d['counted']}"
            figure = f", {tables.qps_text(rate)} QPS" if rate is not None and d["counted"] > 0 else ""
            self.status.update(shown(f"perf: `{short}` ({d['workers']} worker(s)): {kind}{figure}"))
        elif what == "result":
            self.status.update(
                shown(f"perf: `{short}`: timed sample {d['iteration']}, {tables.qps_text(d['qps'])} QPS")
            )
        elif what == "stats" and self.verbose:
            fields = {k: v for k, v in d.items() if k not in ("type", "workload", "snippet", "step", "seq")}
            err.print(
                shown(f"  {d['snippet']}.{d['seq']}: " + ", ".join(f"{k}={v}" for k, v in fields.items())),
                highlight=False,
                soft_wrap=True,
            )

    def stderr_line(self, line: str) -> None:
        err.print(shown(line), highlight=False, soft_wrap=True)

    def ready(self, run_id: int) -> None:
        self.status.update(f"perf: run {run_id}: measuring …")
