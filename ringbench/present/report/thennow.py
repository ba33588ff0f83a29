"""Then and now: the seeds' published figures (1998, 2009, 2010) and the skynet tree's (2016) beside today's
measurements of the same runtime families, as charts and one table, always labelled historical.

Runtimes are matched by family, the part of their id before the `/` (erlang/stock and erlang/tuned are
both Erlang), never by a full variant id.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from ...catalogue.workloads import NS_PER_HOP, NS_PER_TREE_PROCESS, TREE_MS
from ...results import analysis, stats
from ...results.analysis import family, per_repeat
from ...results.model import Cell
from .. import draw_plotly, seeds
from ..charts import Chart, Panel, Point, Series
from ..style import Style, cores_text, fmt_bytes, fmt_count, fmt_ns, shade, styles
from .html import e, ratio

_MARKERS = ("D", "s", "^", "v", "p", "h", "<", ">")
_NAMES = {"erlang": "Erlang", "java": "Java", "go": "Go"}


def _in_family(runtime: str, fam: str) -> bool:
    name = family(runtime)
    return name == fam or name.startswith(fam + "-")


def _family_style(fam: str, st: dict[str, Style]) -> Style:
    """The style of the first runtime of a seed's family in the report (java → java-threads), else its own."""
    for rt in sorted(st):
        if _in_family(rt, fam):
            return st[rt]
    stand_in = {"java": "java-threads"}.get(fam, fam)
    return styles({stand_in})[stand_in]


def chart(
    key: str,
    title: str,
    xlabel: str,
    ylabel: str,
    now: list[Series],
    seed: list[seeds.SeedSeries],
    st: dict[str, Style],
) -> tuple[Chart, str] | None:
    """Today's series of the seeds' families, then the published ones (historical: dash-dot, open markers,
    lighter hue, a legend group of their own); and a note naming the families only published."""
    mine = [s for s in now if any(x.matches(s.runtime) for x in seed)]
    hist = []
    for i, s in enumerate(seed):
        pts = [
            Point(p.n, p.ns, p.lo, p.hi, s.source.citation + (f" — {p.note}" if p.note else ""))
            for p in s.points
            if p.n
        ]
        if pts:
            fam = _family_style(s.runtime, st)
            # lighter than today's line of the same family; the Java family darker, to keep it apart from Erlang
            colour = shade(fam.colour, -0.12 if s.runtime == "java" else 0.16)
            hist.append(
                Series(s.label, "", pts, historical=True, style=Style(colour, _MARKERS[i % len(_MARKERS)], False))
            )
    if not hist:
        return None
    ch = Chart(key, title, xlabel, ylabel, "count", "ns", [Panel("", mine + hist)])
    missing = sorted({x.runtime for x in seed} - {x.runtime for x in seed for s in mine if x.matches(s.runtime)})
    note = (
        f" No run in this report measured {', '.join(missing)}: only the published figures are drawn for "
        f"{'it' if len(missing) == 1 else 'them'}."
        if missing
        else ""
    )
    return ch, note


def figures(charts: dict[str, Chart], st: dict[str, Style]) -> list[tuple[str, str, str, dict]]:
    """(element id, title, caption, Plotly figure) of every then-and-now chart that has something to show."""
    out = []
    tree = charts.get("tree")
    for key, now, seed, title, ylabel, about in (
        (
            "then-now-message",
            charts.get("hops-vs-n"),
            seeds.message_series(),
            "Then and now: time per message against N",
            "time per message",
            "1998: Ericsson's Erlang/Java report; 2009: the Erlang ring on a ThinkPad T60",
        ),
        (
            "then-now-spawn",
            charts.get("spawn"),
            seeds.spawn_series(),
            "Then and now: spawn time per process against N",
            "spawn time per process",
            "1998: Ericsson's Erlang/Java report; 2009: the Erlang ring on a ThinkPad T60",
        ),
        (
            "then-now-tree",
            tree,
            seeds.tree_series() if tree else [],
            "Then and now: the skynet tree, time per tree against N",
            "time per tree",
            "2016: the skynet benchmark's README, one tree of 1M leaves with fanout 10",
        ),
    ):
        xlabel = "N (leaves of the tree)" if key == "then-now-tree" else "N (processes)"
        # today's series of the chart's first figure (a tree's time, not its memory), whole: every core setting
        mine = [
            replace(s, in_cores_panel=False)
            for p in (now.panels if now else [])
            if now and now.panel_unit(p) == now.panel_unit(now.panels[0])
            for s in p.series
        ]
        made = chart(key, title, xlabel, ylabel, mine, seed, st)
        if made:
            ch, note = made
            caption = (
                f"The published figures are <b>historical</b>, measured on other machines ({e(about)}): a "
                f"reference, not data of this report. {e(ch.legend(now='measured here'))}{e(note)}"
            )
            out.append((f"chart-{key}", title, caption, draw_plotly.draw(ch, st)))
    return out


# -- the table ----------------------------------------------------------------------------------------
@dataclass
class Row:
    what: str
    then: list[tuple[str, seeds.Source, float | None]] = field(default_factory=list)  # html, source, compared
    now: list[tuple[str, str, float]] = field(default_factory=list)  # label, html, compared value
    now_note: str = "not measured in these runs"


def _now_at(ch: Chart | None, fam: str, n: float, fmt) -> list[tuple[str, str, float]]:
    """Today's figure of each runtime of a family nearest N (one core where both were measured: the closer
    match to the single-CPU machines of the seeds)."""
    if not ch:
        return []
    out = []
    for s in ch.series:
        if not _in_family(s.runtime, fam) or s.variant or not s.points:
            continue
        if s.cores != "1" and any(o.runtime == s.runtime and o.cores == "1" for o in ch.series):
            continue
        near = min(s.points, key=lambda p: abs(math.log10(p.x / n)))
        text = f"<b>{e(fmt(near.y))}</b>" + (f" (N = {fmt_count(near.x)})" if near.x != n else "")
        out.append((f"{s.runtime} · {cores_text(s.cores)}", text, near.y))
    return out


def _run_ns(c: Cell) -> float:
    return stats.summarize([r["run_ns"] for r in c.records]).median


def _tree_now(cells: list[Cell], fam: str, pub: seeds.TreeFigure) -> list[tuple[str, str, float]]:
    """Today's tree of each runtime of the family and core setting nearest the published one; compared per
    process, so a smaller tree still compares."""
    best: dict[tuple[str, str], Cell] = {}
    for c in cells:
        if not (per_repeat(c) and _in_family(c.runtime, fam) and analysis.figure(c, TREE_MS)):
            continue

        def dist(x: Cell) -> tuple:
            return (x.params.get("fanout") != pub.fanout, abs(math.log10(x.params["n"] / pub.n)))

        k = (c.runtime, c.cores)
        if k not in best or dist(c) < dist(best[k]):
            best[k] = c
    out = []
    for (rt, cores), c in sorted(best.items(), key=lambda kv: (kv[0][0], kv[0][1] != "1")):
        t, per = analysis.figure(c, TREE_MS), analysis.figure(c, NS_PER_TREE_PROCESS)
        if t is None or per is None:
            continue
        at = (
            ""
            if (c.params["n"], c.params.get("fanout")) == (pub.n, pub.fanout)
            else (
                f" (N = {fmt_count(c.params['n'])}, fanout {c.params.get('fanout')}; "
                f"{e(fmt_ns(per.value))} per process)"
            )
        )
        out.append((f"{rt} · {cores_text(cores)}", f"<b>{e(fmt_ns(t.value * 1e6))}</b>{at}", per.value))
    return out


def rows(charts: dict[str, Chart], cells: list[Cell]) -> list[Row]:
    """One row per published figure kind and family: every published value, today's of the same family."""
    out: dict[str, Row] = {}

    def row(what: str, now: list[tuple[str, str, float]]) -> Row:
        return out.setdefault(what, Row(what, now=now))

    msg, spawn, mem = charts.get("hops-vs-n"), charts.get("spawn"), charts.get("memory")
    published = seeds.message_series()
    for s in published:
        # N = 10k where the family's series reach it (Erlang), else 1k (Java): one row per family
        at = {p.n for q in published if q.runtime == s.runtime for p in q.points}
        n = 10_000 if 10_000 in at else 1_000
        p = next((p for p in s.points if p.n == n), None)
        if p:
            r = row(
                f"{_NAMES.get(s.runtime, s.runtime)}: time per message, N = {fmt_count(n)}",
                _now_at(msg, s.runtime, n, fmt_ns),
            )
            r.then.append((f"<b>{fmt_ns(p.ns)}</b> · {s.year}, {e(s.machine)}", s.source, p.ns))
    for s in seeds.spawn_series():
        p = next((p for p in s.points if p.n in (1_000, 100_000)), None) or (s.points[0] if s.points else None)
        if p is None:
            continue
        r = row(
            f"{_NAMES.get(s.runtime, s.runtime)}: spawn time per process",
            _now_at(spawn, s.runtime, p.n or 10_000, fmt_ns),
        )
        r.then.append(
            (
                f"<b>{fmt_ns(p.ns)}</b>{' (' + e(p.note) + ')' if p.note else ''} · "
                f"{'N = ' + fmt_count(p.n) if p.n else 'N not given'} · {s.year}, {e(s.machine)}",
                s.source,
                p.ns,
            )
        )
    for s in seeds.memory_series():
        p = s.points[0]
        r = row(f"{_NAMES.get(s.runtime, s.runtime)}: memory per process", _now_at(mem, s.runtime, 10_000, fmt_bytes))
        r.then.append((f"<b>{e(p.note or fmt_bytes(p.ns))}</b> · {s.year}, {e(s.machine)}", s.source, p.ns))
    for pub in seeds.ring_table():  # the 2009 table, wherever today's runs measured the same N and M
        now = [
            (f"{c.runtime} · {cores_text(c.cores)}", f"<b>{e(fmt_ns(_run_ns(c)))}</b>", _run_ns(c))
            for c in cells
            if c.ok
            and per_repeat(c)
            and _in_family(c.runtime, pub["runtime"])
            and c.workload.headline is NS_PER_HOP
            and c.params.get("tokens", 1) == 1
            and (c.params.get("n"), c.params.get("m")) == (pub["n"], pub["m"])
        ]
        if now:
            r = row(
                f"{_NAMES.get(pub['runtime'], pub['runtime'])}: ring of N = {fmt_count(pub['n'])}, "
                f"M = {fmt_count(pub['m'])} laps, message phase",
                sorted(now),
            )
            r.then.append(
                (f"<b>{pub['value']:,} ms</b> · {pub['year']}, {e(pub['machine'])}", pub["source"], pub["value"] * 1e6)
            )
    for pub in sorted(seeds.selective_series(), key=lambda p: -p["reverse"]):
        order = "reverse" if pub["reverse"] else "arrival"
        now = [
            (f"{c.runtime} · {cores_text(c.cores)}", f"<b>{e(fmt_ns(_run_ns(c)))}</b>", _run_ns(c))
            for c in cells
            if c.ok
            and per_repeat(c)
            and _in_family(c.runtime, pub["runtime"])
            and c.params.get("reverse") == pub["reverse"]
            and c.params.get("n") == pub["n"]
        ]
        r = row(
            f"{_NAMES.get(pub['runtime'], pub['runtime'])}: {fmt_count(pub['n'])} replies by selective receive, "
            f"{order} order",
            now,
        )
        r.then.append(
            (f"<b>{pub['value']:,} ms</b> · {pub['year']}, {e(pub['system'])}", pub["source"], pub["value"] * 1e6)
        )
    for fig in sorted(seeds.tree_table(), key=lambda t: t.runtime is None):  # families ringbench drives first
        fam = fig.runtime
        what = (
            f"{_NAMES.get(fam, fam)}: skynet tree of {fmt_count(fig.n)} leaves, fanout {fig.fanout} "
            "(compared per process)"
            if fam
            else f"Skynet tree of {fmt_count(fig.n)} leaves: runtimes ringbench has no driver for"
        )
        r = row(what, _tree_now(cells, fam, fig) if fam else [])
        if not fam:
            r.now_note = "no ringbench driver"
        shown = fig.note.replace("published as ", "") if fig.note else f"{fig.ms:g} ms"
        r.then.append(
            (
                f"{'' if fam else e(fig.system) + ': '}<b>{e(shown.strip(chr(34)))}</b>"
                f"{' · ' + e(fig.system) if fam else ''} · {fig.year}, {e(fig.machine)}",
                fig.source,
                fig.ms * 1e6 / fig.processes if fam else None,
            )
        )
    return list(out.values())


def _factor(then: list[float], now: float) -> str:
    ratios = sorted(v / now for v in then if v and now)
    if not ratios:
        return "–"
    lo, hi = ratios[0], ratios[-1]
    if lo >= 1:
        a, b = lo, hi
        word = "less"
    elif hi <= 1:
        a, b = sorted((1 / lo, 1 / hi))
        word = "more"
    else:
        return f"{ratio(1 / lo)} more – {ratio(hi)} less"
    return (ratio(a) if a == b else f"{ratio(a)[:-1]}–{ratio(b)}") + f" {word}"


def table(charts: dict[str, Chart], cells: list[Cell]) -> str:
    out = []
    for r in rows(charts, cells):
        then = "".join(f"<div>{t}</div>" for t, _, _ in r.then)
        then += "".join(f"<div class='sub'>{e(c)}</div>" for c in sorted({src.citation for _, src, _ in r.then}))
        if r.now:
            now = "<br>".join(f"{e(label)}: {text}" for label, text, _ in r.now)
            fac = "<br>".join(_factor([v for _, _, v in r.then if v], value) for _, _, value in r.now)
        else:
            now, fac = f"<span class='na'>{e(r.now_note)}</span>", "–"
        out.append(f"<tr><td>{e(r.what)}</td><td>{then}</td><td>{now}</td><td class='num'>{fac}</td></tr>")
    if not out:
        return ""
    return (
        "<table class='thennow'><thead><tr><th>figure</th><th>then: published (historical, other machines)</th>"
        "<th>now: measured in these runs</th><th>now against then</th></tr></thead><tbody>"
        + "".join(out)
        + "</tbody></table>"
    )


def section(charts: dict[str, Chart], cells: list[Cell], st: dict[str, Style], specs: list[tuple[str, dict]]) -> str:
    """The then-and-now section; its charts' figures are appended to `specs`."""
    from .html import chart_box

    parts = [
        "<section id='then-and-now' class='historical'><h2>Then and now (historical reference)</h2>"
        "<p>The benchmarks this project grew from published their figures: Ericsson's 1998 measurements of "
        "Erlang processes and Java threads, the 2009 Erlang ring on a ThinkPad T60, a 2010 measurement of "
        "Erlang's selective receive and the 2016 skynet tree. They are shown beside today's measurements of the "
        "same runtime families as a <b>historical reference</b>: other machines, other software, other methods, "
        "never mixed into the measured data above. Sources: "
        + "; ".join(f"{e(s.citation)} (transcribed from {e(s.transcribed_from)})" for s in seeds.sources().values())
        + ".</p>"
    ]
    for fid, title, caption, fig in figures(charts, st):
        specs.append((fid, fig))
        parts.append(chart_box(fid, title, caption))
    parts.append(table(charts, cells) + "</section>")
    return "".join(parts)
