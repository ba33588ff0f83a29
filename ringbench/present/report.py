"""One self-contained HTML report of stored runs: findings first, then charts, tables and warnings.

Order, as a reader wants it:
  1. a summary computed from the data: the machine and its state, the fastest runtime per N for
     message cost, spawn cost and memory, how each runtime's cost grows with N, which differences
     are significant;
  2. interactive charts (Plotly; its script is inlined, so the file needs no network): hover for the
     value, click a legend entry to hide a runtime, switch the y axis between log and linear;
     then and now: the seeds' published figures beside today's measurements, labelled historical;
  3. compact sortable tables, one per run, with every cell's raw repeats on demand;
  4. warnings, one line per kind with the cells it applies to; the environment of every run.

Colours and markers come from plots.styles, so a runtime looks the same here and in `ringbench plot`.
"""

from __future__ import annotations

import datetime as dt
import html
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..results import stats
from ..results.model import Cell, Run
from . import plots, seeds, tables
from .plots import Chart, fmt_count, fmt_ns

_ALL_CORES = "all"


# -- which cells ---------------------------------------------------------------------
def _cell_key(c: Cell) -> str:
    return json.dumps([c.runtime, c.workload.name, c.params, c.cores, c.mode], sort_keys=True)


def _latest_cells(runs: list[Run]) -> tuple[list[Cell], int]:
    """Every cell of the runs; where runs measured the same cell, the later run's (and how many were replaced)."""
    chosen: dict[str, Cell] = {}
    replaced = 0
    for run in sorted(runs, key=lambda r: r.run_id):
        for c in run.cells:
            k = _cell_key(c)
            if k in chosen and c.ok:
                replaced += 1
            if k not in chosen or c.ok:
                chosen[k] = c
    return list(chosen.values()), replaced


def _table_rows(
    cells: list[Cell], baseline: str | None = None
) -> tuple[list[str], list[list[str]], list[str], list[dict[str, str]]]:
    """The one place the report asks for table rows: the terminal's compact table as text, the notes
    printed under it, and per row the wide table's further columns (shown with the row's details)."""
    cols, body, notes = tables.rows(cells, baseline)
    wide_cols, wide_body, _ = tables.rows(cells, baseline, wide=True)
    header = [c.header for c in cols]
    more = [
        {col.header: v for col, v in zip(wide_cols, row, strict=False) if col.header not in header and v}
        for row in wide_body
    ]
    return header, body, notes, more


# -- text helpers ----------------------------------------------------------------------
def _e(x: object) -> str:
    return html.escape(str(x), quote=True)


def _cores(cores: str) -> str:
    return "1 core" if cores == "1" else "all cores" if cores == _ALL_CORES else f"{cores} cores"


def _swatch(style: plots.Style) -> str:
    border = "dashed" if style.floor else "solid"
    return f'<span class="sw" style="background:{style.colour};border-style:{border}"></span>'


def _who(runtime: str, st: dict[str, plots.Style]) -> str:
    return f"{_swatch(st[runtime])}<b>{_e(runtime)}</b>" if runtime in st else f"<b>{_e(runtime)}</b>"


def _ratio(x: float) -> str:
    return f"{x:.2f}×" if x < 1.1 else f"{x:.1f}×" if x < 10 else f"{x:,.0f}×"


def _between(fmt, lo: float, hi: float) -> str:
    return fmt(lo) if fmt(lo) == fmt(hi) else f"{fmt(lo)}–{fmt(hi)}"


def _span(ns: list[float]) -> str:
    ns = sorted(ns)
    return fmt_count(ns[0]) if len(ns) == 1 else f"{fmt_count(ns[0])}–{fmt_count(ns[-1])}"


# -- summary ----------------------------------------------------------------------------
@dataclass
class _Lead:
    what: str  # "message cost, 1 core"
    n: float
    best: tuple[str, plots.Point]
    second: tuple[str, plots.Point] | None
    floor: tuple[str, plots.Point] | None
    diff: stats.Difference | None


def _leaders(
    ch: Chart,
    cores: str,
    st: dict[str, plots.Style],
    what: str = "",
    higher_is_better: bool = False,
    group: str = "message",
) -> list[_Lead]:
    """At every N of a chart: the best runtime at one core setting, its runner-up, the floor, and the test.

    Only runtimes of one hop group compete (message passing by default: mailboxes and channels); a
    hand-off or rendezvous idiom does less per hop and is ranked apart, as the tables do."""
    at: dict[float, list[tuple[str, plots.Point]]] = {}
    floors: dict[float, tuple[str, plots.Point]] = {}
    for s in ch.series:
        if s.cores != cores or s.variant:
            continue
        if not (st[s.runtime].floor or s.floor) and s.group != group:
            continue
        for p in s.points:
            if st[s.runtime].floor or s.floor:
                floors.setdefault(p.x, (s.runtime, p))
            else:
                at.setdefault(p.x, []).append((s.runtime, p))
    out = []
    for n in sorted(at):
        ranked = sorted(at[n], key=lambda rp: -rp[1].y if higher_is_better else rp[1].y)
        second = ranked[1] if len(ranked) > 1 else None
        diff = None
        if second and len(ranked[0][1].values) > 1 and len(second[1].values) > 1:
            diff = stats.compare(ranked[0][1].values, second[1].values)
        out.append(_Lead(what, n, ranked[0], second, floors.get(n), diff))
    return out


def _sig_badge(significant: bool | None, tested: bool = True) -> str:
    if not tested:
        return ""
    if significant is None:
        return (
            f' <span class="sig na" title="a test needs {stats.MIN_REPEATS_FOR_TEST} repeats a side">'
            "too few repeats to test</span>"
        )
    if significant:
        return ' <span class="sig yes" title="Mann-Whitney U, p &lt; 0.05">significant</span>'
    return ' <span class="sig no" title="Mann-Whitney U, p ≥ 0.05: within noise">not significant</span>'


def _lead_cell(lead: _Lead | None, fmt, st, word: str = "ahead of") -> str:
    if lead is None:
        return '<td class="na">–</td>'
    rt, p = lead.best
    text = f"{_who(rt, st)} {_e(fmt(p.y))}"
    if lead.second:
        rt2, p2 = lead.second
        factor = max(p.y, p2.y) / min(p.y, p2.y) if min(p.y, p2.y) > 0 else float("inf")
        sig = _sig_badge(lead.diff.significant if lead.diff else None, lead.diff is not None)
        text += f'<div class="sub">{_ratio(factor)} {word} {_e(rt2)} ({_e(fmt(p2.y))}){sig}</div>'
    if lead.floor:
        text += f'<div class="sub floor">floor {_e(lead.floor[0])}: {_e(fmt(lead.floor[1].y))}</div>'
    return f"<td>{text}</td>"


def _leaders_table(charts: dict[str, Chart], st) -> tuple[str, list[_Lead]]:
    cols: list[tuple[str, dict[float, _Lead], Callable[[float], str], str]] = []  # heading, {n: lead}, format, word
    msg = charts.get("hops-vs-n")
    all_leads: list[_Lead] = []
    if msg:
        for cores in ("1", _ALL_CORES):
            leads = _leaders(msg, cores, st, f"message cost, {_cores(cores)}")
            if leads:
                all_leads += leads
                cols.append(
                    (
                        f"message cost, {_cores(cores)}<div class='sub'>time per hop, lowest</div>",
                        {ld.n: ld for ld in leads},
                        fmt_ns,
                        "ahead of",
                    )
                )
    for key, head, fmt, word in (
        ("spawn", "spawn<div class='sub'>time per process, lowest</div>", fmt_ns, "ahead of"),
        ("memory", "memory<div class='sub'>bytes per process, fewest</div>", plots.fmt_bytes, "smaller than"),
    ):
        ch = charts.get(key)
        if not ch:
            continue
        for cores in ("1", _ALL_CORES):
            leads = _leaders(ch, cores, st, f"{key}, {_cores(cores)}")
            if leads:
                all_leads += leads
                cols.append(
                    (
                        head + ("" if cores == "1" else f"<div class='sub'>{_cores(cores)}</div>"),
                        {ld.n: ld for ld in leads},
                        fmt,
                        word,
                    )
                )
    if not cols:
        return "", []
    ns = sorted({n for _, leads, _, _ in cols for n in leads})
    head = "".join(f"<th>{h}</th>" for h, _, _, _ in cols)
    rows = "".join(
        f"<tr><th class='n'>{fmt_count(n)}</th>"
        + "".join(_lead_cell(leads.get(n), fmt, st, word) for _, leads, fmt, word in cols)
        + "</tr>"
        for n in ns
    )
    return (f"<table class='leaders'><thead><tr><th>N</th>{head}</tr></thead><tbody>{rows}</tbody></table>", all_leads)


def _runs_of_leader(leads: list[_Lead]) -> str:
    """'go at N = 100–1k; erlang at N = 10k': consecutive N with the same leader grouped."""
    parts: list[tuple[str, list[float]]] = []
    for ld in leads:
        if parts and parts[-1][0] == ld.best[0]:
            parts[-1][1].append(ld.n)
        else:
            parts.append((ld.best[0], [ld.n]))
    return "; ".join(f"<b>{_e(rt)}</b> at N = {_span(ns)}" for rt, ns in parts)


def _growth(ch: Chart, st) -> list[dict]:
    """How each runtime's message cost grows from its smallest to its largest N."""
    out = []
    for s in ch.series:
        pts = sorted(s.points, key=lambda p: p.x)
        if len(pts) < 2 or s.variant:
            continue
        a, b = pts[0], pts[-1]
        sig = stats.compare(a.values, b.values).significant if len(a.values) > 1 and len(b.values) > 1 else None
        out.append(
            {
                "runtime": s.runtime,
                "cores": s.cores,
                "a": a,
                "b": b,
                "ratio": b.y / a.y if a.y else math.nan,
                "significant": sig,
                "floor": st[s.runtime].floor or s.floor,
                "group": s.group,
            }
        )
    return out


def _growth_table(growth: list[dict], st) -> str:
    if not growth:
        return ""
    rows = []
    for g in sorted(growth, key=lambda g: (g["cores"] != "1", g["floor"], g["ratio"])):
        sig = {
            True: "<span class='sig yes'>yes</span>",
            False: "<span class='sig no'>no</span>",
            None: "<span class='sig na'>too few repeats</span>",
        }[g["significant"]]
        rows.append(
            f"<tr><td>{_who(g['runtime'], st)}</td><td>{_e(_cores(g['cores']))}</td>"
            f"<td>{fmt_count(g['a'].x)} → {fmt_count(g['b'].x)}</td>"
            f"<td>{_e(fmt_ns(g['a'].y))} → {_e(fmt_ns(g['b'].y))}</td>"
            f"<td class='num'>×{g['ratio']:.2f}</td><td>{sig}</td></tr>"
        )
    return (
        "<table class='growth sortable'><thead><tr><th>runtime</th><th>cores</th><th>N</th>"
        "<th>time per hop</th><th>growth</th><th title='the repeats at the smallest and at the largest N differ "
        "(Mann-Whitney U, p &lt; 0.05)'>significant</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
    )


def _machine(runs: list[Run]) -> str:
    machines: dict[tuple, list[Run]] = {}
    for r in runs:
        e = r.environment
        machines.setdefault(
            (e.get("cpu_model"), e.get("usable_cpus") or e.get("cpu_count"), e.get("memory_bytes"), e.get("kernel")), []
        ).append(r)
    parts = []
    for (cpu, cpus, mem, kernel), rs in machines.items():
        e = rs[0].environment
        mem_s = f"{mem / 2**30:.0f} GiB" if mem else "memory unknown"
        os_s = e.get("os", "")
        which = "" if len(machines) == 1 else f" (runs {', '.join(str(r.run_id) for r in rs)})"
        loads = [(r.environment.get("loadavg") or [None])[0] for r in rs]
        loads = [x for x in loads if x is not None]
        busy = [r.run_id for r in rs if any(w.kind == "load" for w in r.warnings)]
        load_s = (
            (
                f"load average {min(loads):.2f}"
                + (f"–{max(loads):.2f}" if max(loads) != min(loads) else "")
                + f" at the start on {cpus} CPU(s)"
            )
            if loads
            else "load unknown"
        )
        load_s += (
            f" — <b>not idle</b> in run{'s' if len(busy) > 1 else ''} {', '.join(map(str, busy))}"
            if busy
            else " — idle"
        )
        gov = e.get("cpu_governor")
        gov_s = f"frequency governor <b>{_e(gov)}</b>" if gov else "no frequency governor exposed (virtual machine?)"
        parts.append(
            f"<div><b>{_e(cpu)}</b>, {cpus} CPU(s), {mem_s}, Linux {_e(kernel)}{_e(which)} "
            f"<span class='sub'>{_e(os_s)}</span><br>{load_s}; {gov_s}</div>"
        )
    return "".join(parts)


def _state(cells: list[Cell], groups: list[dict]) -> str:
    ok = [c for c in cells if c.ok]
    refused = [c for c in cells if c.status == "refused"]
    failed = [c for c in cells if not c.ok and c.status != "refused"]
    reps = sorted({len(c.values()) for c in ok if c.mode == "timed"})  # as measured, not as asked
    bits = [
        f"{len(ok)} cells measured"
        + (f", {len(refused)} n/a (too large for this machine or not supported)" if refused else "")
        + (f", <b>{len(failed)} failed</b>" if failed else "")
    ]
    if reps:
        few = reps[0] < stats.MIN_REPEATS_FOR_TEST
        bits.append(
            f"{'–'.join(map(str, (reps[0], reps[-1])) if len(reps) > 1 else str(reps[0]))} repeats per cell"
            + (f" (too few to test a difference: the test needs {stats.MIN_REPEATS_FOR_TEST})" if few else "")
        )
    for g in groups:
        if g["cells"]:
            bits.append(f"{len(g['cells'])} of {len(ok)} cells: {_e(g['short'])}")
    return "; ".join(bits) + "."


def _other_workloads(cells: list[Cell], st) -> list[str]:
    """Workloads with no chart of their own (pingpong, fanin): the fastest runtime at each parameter point."""
    out = []
    charted = {"ring", "msgcost", "spawn", "memory", "selective"}
    for name in sorted({c.workload.name for c in cells} - charted):
        points: dict[tuple, list[tuple[float, str]]] = {}
        for c in cells:
            if (
                c.workload.name == name
                and c.ok
                and c.mode == "timed"
                and c.headline
                and not st[c.runtime].floor
                and getattr(c, "hop_group", "message") == "message"
            ):
                points.setdefault((c.cores, tuple(sorted(c.params.items()))), []).append((c.headline.median, c.runtime))
        bits = []
        for (cores, params), ranked in sorted(points.items()):
            ranked.sort()
            where = ", ".join(f"{k.upper() if len(k) == 1 else k} = {fmt_count(v)}" for k, v in params)
            unit = next(c for c in cells if c.workload.name == name).workload.headline.label
            bits.append(
                f"{_e(ranked[0][1])} ({tables.fmt(ranked[0][0])} {_e(unit)}, {_cores(cores)}, {where}"
                + (
                    f"; next {_e(ranked[1][1])}, {_ratio(ranked[1][0] / ranked[0][0])}"
                    if len(ranked) > 1 and ranked[0][0]
                    else ""
                )
                + ")"
            )
        if bits:
            out.append(
                f"<b>{_e(name.capitalize())}:</b> fastest "
                + "; ".join(bits[:4])
                + (f"; and {len(bits) - 4} more points in the tables" if len(bits) > 4 else "")
                + "."
            )
    return out


def _findings(charts: dict[str, Chart], st, growth: list[dict], leads: list[_Lead], cells: list[Cell]) -> list[str]:
    out = []
    msg = charts.get("hops-vs-n")
    if msg:
        for cores in ("1", _ALL_CORES):
            ls = _leaders(msg, cores, st)
            if ls:
                out.append(
                    f"<b>Message cost, {_cores(cores)}:</b> fastest {_runs_of_leader(ls)} "
                    f"({_e(_between(fmt_ns, min(ld.best[1].y for ld in ls), max(ld.best[1].y for ld in ls)))}"
                    " per hop)."
                )
        others = sorted({s.group for s in msg.series if not (s.floor or st[s.runtime].floor)} - {"message"})
        for group in others:
            ls = _leaders(msg, "1", st, group=group) or _leaders(msg, _ALL_CORES, st, group=group)
            if ls:
                out.append(
                    f"<b>{_e(group.capitalize())} idioms</b> (ranked apart: a {_e(group)} hop is not a "
                    f"message through a mailbox or channel): fastest {_runs_of_leader(ls)}."
                )
        floor = [p.y for s in msg.series if st[s.runtime].floor for p in s.points]
        if floor:
            out.append(
                f"<b>The floor</b> (a stackless state machine, not a runtime) costs "
                f"{_e(_between(fmt_ns, min(floor), max(floor)))} per hop: what a hop costs with no runtime at all."
            )
    for key, what, fmt in (("spawn", "Spawn", fmt_ns), ("memory", "Memory", plots.fmt_bytes)):
        ch = charts.get(key)
        if not ch:
            continue
        pts = [
            (s.runtime, p)
            for s in ch.series
            if not (st[s.runtime].floor or s.floor) and s.group == "message"
            for p in s.points
        ]
        if not pts:
            continue
        n_max = max(p.x for _, p in pts)
        at_max = sorted(((rt, p) for rt, p in pts if p.x == n_max), key=lambda rp: rp[1].y)
        lo, hi = at_max[0], at_max[-1]
        unit = "per process"
        text = f"<b>{what}:</b> at N = {fmt_count(n_max)}, cheapest {_e(lo[0])} ({_e(fmt(lo[1].y))} {unit})"
        if len({rt for rt, _ in at_max}) > 1:
            text += f", dearest {_e(hi[0])} ({_e(fmt(hi[1].y))}, {_ratio(hi[1].y / lo[1].y)})"
        out.append(text + ".")
    message = [g for g in growth if not g["floor"] and g["group"] == "message"]
    grow = [g for g in message if g["cores"] == "1"] or message
    if grow:
        grow.sort(key=lambda g: g["ratio"])
        med = stats.summarize([g["ratio"] for g in grow]).median
        least, most = grow[0], grow[-1]
        if len(grow) == 1:
            out.append(
                f"<b>Growth with N</b> ({_cores(least['cores'])}): message cost of {_e(least['runtime'])} changed "
                f"×{least['ratio']:.2f} from N = {fmt_count(least['a'].x)} to {fmt_count(least['b'].x)}."
            )
        else:
            out.append(
                f"<b>Growth with N</b> ({_cores(least['cores'])}): message cost at a runtime's largest N over "
                f"its cost at its smallest N is lowest for {_e(least['runtime'])} (×{least['ratio']:.2f}, "
                f"{fmt_count(least['a'].x)} → {fmt_count(least['b'].x)}) and highest for {_e(most['runtime'])} "
                f"(×{most['ratio']:.2f}); median ×{med:.2f} over {len(grow)} runtimes."
            )
    tested = [ld for ld in leads if ld.diff is not None and ld.diff.significant is not None]
    untested = [ld for ld in leads if ld.diff is not None and ld.diff.significant is None]
    if untested and not tested:
        out.append(f"<b>Significance:</b> not tested: fewer than {stats.MIN_REPEATS_FOR_TEST} repeats per cell.")
    if tested:
        sig = [ld for ld in tested if ld.diff is not None and ld.diff.significant]
        weak = [ld for ld in tested if ld.diff is not None and not ld.diff.significant]
        text = (
            f"<b>Significance:</b> {len(sig)} of {len(tested)} leads over the runner-up are significant "
            "(Mann-Whitney U on the repeats, p &lt; 0.05)"
        )
        if weak:
            shown = "; ".join(
                f"{_e(ld.what)}: {_e(ld.best[0])} vs {_e(ld.second[0])} at N = {fmt_count(ld.n)}"
                for ld in weak[:4]
                if ld.second  # a tested lead has a runner-up
            )
            text += f"; within noise: {shown}" + (f" and {len(weak) - 4} more" if len(weak) > 4 else "")
        out.append(text + ".")
    sel = charts.get("selective")
    if sel:
        by = {(s.runtime, s.cores, s.variant): {p.x: p for p in s.points} for s in sel.series}
        found = []
        for (rt, cores, variant), rev_at in by.items():
            if variant != "reverse order" or (rt, cores, "arrival order") not in by or st[rt].floor:
                continue
            arr_at = by[(rt, cores, "arrival order")]
            both = sorted(set(rev_at) & set(arr_at))
            if both:
                n = both[-1]
                found.append((rt, n, rev_at[n].y, arr_at[n].y))
        if found:
            parts = "; ".join(
                f"{_e(rt)} {_ratio(rev / arr)} at N = {fmt_count(n)} ({_e(fmt_ns(rev))} vs {_e(fmt_ns(arr))} per reply)"
                for rt, n, rev, arr in found
            )
            out.append(
                f"<b>Selective receive:</b> replies taken in reverse order cost, against arrival order: {parts}."
            )
    out += _other_workloads(cells, st)
    sq = charts.get("squeeze")
    if sq:
        bits = []
        for s in sq.series:
            peak = max(s.points, key=lambda p: p.y)
            bits.append(f"{_e(s.runtime)} at K = {peak.x:,.0f} ({_e(plots.fmt_rate(peak.y))})")
        out.append("<b>Squeeze:</b> throughput peaked for " + "; ".join(bits) + ".")
    return out


# -- charts as Plotly figures ------------------------------------------------------------
_DASH = {"floor": "dash", "reverse": "dashdot", _ALL_CORES: "dot", "1": "solid"}


def _axis_ticks(values: list[float], unit: str, log: bool) -> dict:
    fmt = plots.FORMATTERS[unit]
    pos = [v for v in values if v > 0 and math.isfinite(v)]
    if log and pos:
        ticks = plots.log_ticks(min(pos), max(pos))
    else:
        ticks = plots.linear_ticks(max(values) if values else 1)
    return {"tickmode": "array", "tickvals": ticks, "ticktext": [fmt(t) for t in ticks]}


def _hover(ch: Chart, s: plots.Series, p: plots.Point) -> str:
    fy = plots.FORMATTERS[ch.yunit]
    interval = "" if p.lo == p.hi else f"<br>{ch.interval}: {fy(p.lo)} – {fy(p.hi)}"
    return (
        f"<b>{_e(s.label)}</b><br>{_e(ch.xlabel.split(' (')[0])} = {fmt_count(p.x)}<br>"
        f"{_e(ch.ylabel)}: <b>{fy(p.y)}</b>{interval}<br><span style='font-size:11px'>{_e(p.note)}</span>"
    )


def _trace(
    ch: Chart, s: plots.Series, st: plots.Style, xaxis: str, yaxis: str, show: bool, group: str | None = None
) -> dict:
    pts = sorted(s.points, key=lambda p: p.x)
    dash = _DASH["reverse"] if "reverse" in s.variant else _DASH["floor"] if st.floor else _DASH.get(s.cores, "solid")
    hollow = s.cores != "1" or "reverse" in s.variant
    t = {
        "type": "scatter",
        "mode": "lines+markers",
        "name": s.label,
        "legendgroup": group or s.label,
        "showlegend": show,
        "x": [p.x for p in pts],
        "y": [p.y for p in pts],
        "xaxis": xaxis,
        "yaxis": yaxis,
        "line": {"color": st.colour, "width": 1.5 if st.floor else 2, "dash": dash},
        "marker": {
            "symbol": st.symbol + ("-open" if hollow else ""),
            "size": 6 if st.floor else 8,
            "color": st.colour,
            "line": {"color": st.colour, "width": 1.5},
        },
        "hovertemplate": "%{customdata}<extra></extra>",
        "customdata": [_hover(ch, s, p) for p in pts],
    }
    if any(p.hi != p.lo for p in pts):
        t["error_y"] = {
            "type": "data",
            "symmetric": False,
            "array": [p.hi - p.y for p in pts],
            "arrayminus": [p.y - p.lo for p in pts],
            "color": st.colour,
            "thickness": 1.2,
            "width": 3,
        }
    return t


def _log_linear_buttons(axes: list[str], log_ticks: dict, lin_ticks: dict, start_log: bool) -> list[dict]:
    def args(kind: str, ticks: dict) -> dict:
        a: dict[str, object] = {}
        for ax in axes:
            a[f"{ax}.type"] = kind
            a[f"{ax}.autorange"] = True
            a[f"{ax}.tickvals"] = ticks["tickvals"]
            a[f"{ax}.ticktext"] = ticks["ticktext"]
        return a

    buttons = [
        {"label": "log y", "method": "relayout", "args": [args("log", log_ticks)]},
        {"label": "linear y", "method": "relayout", "args": [args("linear", lin_ticks)]},
    ]
    return [
        {
            "type": "buttons",
            "direction": "right",
            "showactive": True,
            "active": 0 if start_log else 1,
            "x": 0,
            "xanchor": "left",
            "y": 1.0,
            "yanchor": "bottom",
            "pad": {"b": 6},
            "buttons": buttons,
            "font": {"size": 11},
        }
    ]


def _figure(ch: Chart, st: dict[str, plots.Style]) -> dict:
    """A Plotly figure of a chart: panels side by side sharing the y axis, legend outside on the right."""
    k = len(ch.panels)
    gap = 0.04
    width = (1 - gap * (k - 1)) / k
    traces: list[dict] = []
    layout: dict[str, Any] = {}  # a Plotly layout (JSON)
    shown: set[str] = set()
    ys = [v for s in ch.series for p in s.points for v in (p.lo, p.y, p.hi)]
    xs = [p.x for s in ch.series for p in s.points]
    log_t, lin_t = _axis_ticks(ys, ch.yunit, True), _axis_ticks(ys, ch.yunit, False)
    x_ticks = plots.x_ticks(xs, ch.xlog)
    x_t = {"tickmode": "array", "tickvals": x_ticks, "ticktext": [plots.FORMATTERS[ch.xunit](t) for t in x_ticks]}
    yaxes = []
    for i, panel in enumerate(ch.panels):
        sx = "" if i == 0 else str(i + 1)
        xa, ya = f"x{sx}", f"y{sx}"
        layout[f"xaxis{sx}"] = {
            "type": "log" if ch.xlog else "linear",
            "domain": [i * (width + gap), i * (width + gap) + width],
            "anchor": ya,
            "title": {"text": ch.xlabel},
            **x_t,
            "showgrid": True,
            "gridcolor": "#e6e6e6",
            "zeroline": False,
            "showline": True,
            "linecolor": "#999",
            "ticks": "outside",
        }
        layout[f"yaxis{sx}"] = {
            "type": "log" if ch.ylog else "linear",
            "anchor": xa,
            **(log_t if ch.ylog else lin_t),
            "showgrid": True,
            "gridcolor": "#e6e6e6",
            "zeroline": False,
            "showline": True,
            "linecolor": "#999",
            "ticks": "outside",
            **({"title": {"text": ch.ylabel}} if i == 0 else {"matches": "y", "showticklabels": False}),
        }
        if not ch.ylog:
            layout[f"yaxis{sx}"]["rangemode"] = "tozero"
        yaxes.append(f"yaxis{sx}")
        for s in panel.series:
            traces.append(_trace(ch, s, st[s.runtime], xa, ya, s.label not in shown))
            shown.add(s.label)
        if k > 1:
            layout.setdefault("annotations", []).append(
                {
                    "text": f"<b>{_e(panel.title)}</b>",
                    "xref": "paper",
                    "yref": "paper",
                    "x": i * (width + gap) + width / 2,
                    "y": 1.0,
                    "yanchor": "bottom",
                    "showarrow": False,
                    "font": {"size": 12},
                }
            )
    entries = len(shown)
    layout.update(
        {
            "height": int(min(900, max(440, 110 + 27 * entries))),
            "margin": {"l": 70, "r": 20, "t": 50 if k > 1 else 36, "b": 56},
            "legend": {
                "x": 1.02,
                "xanchor": "left",
                "y": 1,
                "yanchor": "top",
                "font": {"size": 11},
                "groupclick": "toggleitem",
                "tracegroupgap": 8,
            },
            "hovermode": "closest",
            "hoverlabel": {"align": "left"},
            "font": {"family": "system-ui, -apple-system, Segoe UI, sans-serif", "size": 12},
            "paper_bgcolor": "white",
            "plot_bgcolor": "white",
            "updatemenus": _log_linear_buttons(yaxes, log_t, lin_t, ch.ylog),
        }
    )
    return {"data": traces, "layout": layout}


def _heatmap_figure(g: plots.Grid) -> dict:
    k = len(g.panels)
    cols = min(k, 4 if k <= 16 else 6)
    rows = math.ceil(k / cols)
    vals = [v for _, _, z in g.panels for row in z for v in row if v]
    lo, hi = math.log10(min(vals)), math.log10(max(vals))
    ticks = plots.log_ticks(min(vals), max(vals))
    hgap, vgap = 0.035, min(0.12, 0.9 / (rows * 2.2 + 1))
    w = (1 - hgap * (cols - 1)) / cols
    h = (1 - vgap * (rows - 1)) / rows
    traces: list[dict] = []
    layout: dict[str, Any] = {}  # a Plotly layout (JSON)
    notes: list[dict] = []
    xs = [fmt_count(n) for n in g.ns]
    ys = [fmt_count(m) for m in g.ms]
    for i, (rt, cores, z) in enumerate(g.panels):
        r, c = divmod(i, cols)
        sx = "" if i == 0 else str(i + 1)
        x0, y1 = c * (w + hgap), 1 - r * (h + vgap)
        layout[f"xaxis{sx}"] = {
            "domain": [x0, x0 + w],
            "anchor": f"y{sx}",
            "type": "category",
            "tickfont": {"size": 10},
            **({"title": {"text": "N", "standoff": 2}} if r == rows - 1 else {}),
        }
        layout[f"yaxis{sx}"] = {
            "domain": [y1 - h, y1],
            "anchor": f"x{sx}",
            "type": "category",
            "tickfont": {"size": 10},
            **({"title": {"text": "M", "standoff": 2}} if c == 0 else {}),
        }
        text = [[fmt_ns(v) if v else "" for v in row] for row in z]
        hover = [
            [
                (
                    f"<b>{_e(rt)} · {_cores(cores)}</b><br>N = {g.ns[j]:,}, M = {g.ms[i2]:,}<br>message phase: "
                    f"<b>{fmt_ns(v)}</b><br>{fmt_ns(g.per_hop.get((rt, cores, g.ns[j], g.ms[i2]), math.nan))} per hop"
                )
                if v
                else "not measured"
                for j, v in enumerate(row)
            ]
            for i2, row in enumerate(z)
        ]
        traces.append(
            {
                "type": "heatmap",
                "x": xs,
                "y": ys,
                "z": [[math.log10(v) if v else None for v in row] for row in z],
                "coloraxis": "coloraxis",
                "text": text,
                "texttemplate": "%{text}",
                "textfont": {"size": 9},
                "customdata": hover,
                "hovertemplate": "%{customdata}<extra></extra>",
                "xgap": 1,
                "ygap": 1,
                "xaxis": f"x{sx}",
                "yaxis": f"y{sx}",
                "name": f"{rt} · {_cores(cores)}",
            }
        )
        notes.append(
            {
                # family on one line, variant and cores on the next: long names stay inside a narrow panel
                "text": f"<b>{_e(rt.split('/')[0])}</b><br>"
                + " · ".join(x for x in (_e(rt.partition("/")[2]), _cores(cores)) if x),
                "xref": "paper",
                "yref": "paper",
                "x": x0 + w / 2,
                "y": y1,
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"size": 10},
            }
        )
    layout.update(
        {
            "height": int(90 + rows * 200),
            "margin": {"l": 50, "r": 20, "t": 40, "b": 40},
            "annotations": notes,
            "coloraxis": {
                "colorscale": "Viridis",
                "cmin": lo,
                "cmax": hi,
                "colorbar": {
                    "title": {"text": "message-phase time", "side": "right"},
                    "tickvals": [math.log10(t) for t in ticks],
                    "ticktext": [fmt_ns(t) for t in ticks],
                    "len": min(1.0, 520 / (90 + rows * 200)),
                    "y": 1,
                    "yanchor": "top",
                },
            },
            "font": {"family": "system-ui, -apple-system, Segoe UI, sans-serif", "size": 12},
            "paper_bgcolor": "white",
            "plot_bgcolor": "white",
        }
    )
    return {"data": traces, "layout": layout}


# -- then and now ------------------------------------------------------------------------
def _family_style(family: str, st: dict[str, plots.Style]) -> plots.Style:
    """The style of the first runtime of a seed's family in the report (java → java-threads), else its own."""
    for rt in sorted(st):
        if rt.split("/")[0] == family or rt.startswith(family + "-"):
            return st[rt]
    stand_in = {"java": "java-threads"}.get(family, family)
    return plots.styles({stand_in})[stand_in]


def _then_and_now_chart(
    ch: Chart | None, seed: list[seeds.SeedSeries], key: str, title: str, ylabel: str, st: dict[str, plots.Style]
) -> tuple[dict, str] | None:
    """Today's series of the seeds' runtimes, then the published ones: dash-dot, open markers, lighter hue,
    in a legend group of their own, so the two never read as one set of data."""
    now = [s for s in (ch.series if ch else []) if any(x.matches(s.runtime) for x in seed)]
    markers = ("D", "s", "^", "v", "p", "h", "<", ">")
    hist = []
    for i, s in enumerate(seed):
        pts = [
            plots.Point(p.n, p.ns, p.lo, p.hi, s.source.citation + (f" — {p.note}" if p.note else ""))
            for p in s.points
            if p.n
        ]
        if pts:
            fam = _family_style(s.runtime, st)
            # lighter than today's line of the same family; the Java family darker, to keep it apart from Erlang
            shade = plots._shade(fam.colour, 0.16 if s.runtime == "erlang" else -0.12)
            hist.append((plots.Series(s.label, "", pts), plots.Style(shade, markers[i % len(markers)], False)))
    if not hist:
        return None
    base = Chart(key, title, "N (processes)", ylabel, "count", "ns", [plots.Panel("", now)])
    fig = _figure(base, st)
    group_now, group_then = "measured now (this machine)", "published then (other machines)"
    for t in fig["data"]:
        t["legendgroup"] = group_now
        t["legendgrouptitle"] = {"text": f"<b>{group_now}</b>"}
    for ser, sty in hist:
        t = _trace(base, ser, sty, "x", "y", True, group_then)
        t["line"].update(dash="dashdot", width=1.4)
        t["marker"]["symbol"] = sty.symbol + "-open"
        t["legendgrouptitle"] = {"text": f"<b>{group_then}</b>"}
        fig["data"].append(t)
    ys = [v for t in fig["data"] for v in t["y"] if v and v > 0]
    log_t, lin_t = _axis_ticks(ys, "ns", True), _axis_ticks(ys, "ns", False)
    fig["layout"]["yaxis"].update(log_t)
    fig["layout"]["xaxis"].update(_axis_ticks([v for t in fig["data"] for v in t["x"] if v and v > 0], "count", True))
    fig["layout"]["updatemenus"] = _log_linear_buttons(["yaxis"], log_t, lin_t, True)
    fig["layout"]["height"] = int(min(900, max(460, 170 + 27 * len(fig["data"]))))
    missing = sorted({x.runtime for x in seed} - {x.runtime for x in seed for s in now if x.matches(s.runtime)})
    note = (
        f" No run in this report measured {', '.join(missing)}: only the published figures are drawn for "
        f"{'it' if len(missing) == 1 else 'them'}."
        if missing
        else ""
    )
    return fig, note


def _then_now_table(charts: dict[str, Chart], cells: list[Cell]) -> str:
    """One row per published figure kind: every published value, today's of the same runtime, the factor."""
    rows: dict[str, dict] = {}

    def now_at(ch: Chart | None, family: str, n: float) -> list[tuple[str, plots.Point]]:
        if not ch:
            return []
        out = []
        for s in ch.series:
            if not (s.runtime.split("/")[0] == family or s.runtime.startswith(family + "-")) or s.variant:
                continue
            if s.cores != "1" and any(o.runtime == s.runtime and o.cores == "1" for o in ch.series):
                continue  # one core is the closer match to the single-CPU machines of the seeds
            near = min(s.points, key=lambda p: abs(math.log10(p.x / n)))
            out.append((f"{s.runtime} · {_cores(s.cores)}", near))
        return out

    def add(what: str, then: str, src: seeds.Source, then_v: float | None, now, fmt, n: float | None) -> None:
        r = rows.setdefault(what, {"then": [], "now": now, "fmt": fmt, "n": n})
        r["then"].append((then, src, then_v))

    msg, spawn, mem = charts.get("hops-vs-n"), charts.get("spawn"), charts.get("memory")
    name = {"erlang": "Erlang", "java": "Java"}
    for s in seeds.message_series():
        n = 10_000 if s.runtime == "erlang" else 1_000
        p = next((p for p in s.points if p.n == n), None)
        if p:
            add(
                f"{name.get(s.runtime, s.runtime)}: time per message, N = {fmt_count(n)}",
                f"<b>{fmt_ns(p.ns)}</b> · {s.year}, {_e(s.machine)}",
                s.source,
                p.ns,
                now_at(msg, s.runtime, n),
                fmt_ns,
                n,
            )
    for s in seeds.spawn_series():
        p = next((p for p in s.points if p.n in (1_000, 100_000)), None) or (s.points[0] if s.points else None)
        if p is None:
            continue
        n = p.n or 10_000
        add(
            f"{name.get(s.runtime, s.runtime)}: spawn time per process",
            f"<b>{fmt_ns(p.ns)}</b>{' (' + _e(p.note) + ')' if p.note else ''} · "
            f"{'N = ' + fmt_count(p.n) if p.n else 'N not given'} · {s.year}, {_e(s.machine)}",
            s.source,
            p.ns,
            now_at(spawn, s.runtime, n),
            fmt_ns,
            p.n,
        )
    for s in seeds.memory_series():
        p = s.points[0]
        add(
            f"{name.get(s.runtime, s.runtime)}: memory per process",
            f"<b>{_e(p.note or plots.fmt_bytes(p.ns))}</b> · {s.year}, {_e(s.machine)}",
            s.source,
            p.ns,
            now_at(mem, s.runtime, 10_000),
            plots.fmt_bytes,
            None,
        )
    ring_now: dict[tuple[int, int | None], list[tuple[str, plots.Point]]] = {}
    for c in cells:
        if (
            c.ok
            and c.workload.name == "ring"
            and c.mode == "timed"
            and c.runtime == "erlang"
            and c.records
            and c.params.get("tokens", 1) == 1
        ):
            v = stats.summarize([r["run_ns"] for r in c.records]).median
            ring_now.setdefault((c.params["n"], c.params.get("m")), []).append(
                (f"erlang · {_cores(c.cores)}", plots.Point(c.params["n"], v, v, v))
            )
    for pub in seeds.ring_table():  # the 2009 table, wherever today's runs measured the same N and M
        if (pub["n"], pub["m"]) in ring_now:
            add(
                f"Erlang: ring of N = {fmt_count(pub['n'])}, M = {fmt_count(pub['m'])} laps, message phase",
                f"<b>{pub['value']:,} ms</b> · {pub['year']}, {_e(pub['machine'])}",
                pub["source"],
                pub["value"] * 1e6,
                sorted(ring_now[(pub["n"], pub["m"])]),
                fmt_ns,
                pub["n"],
            )
    today = {}
    for c in cells:
        if (
            c.ok
            and c.workload.name == "selective"
            and c.runtime == "erlang"
            and c.params.get("n") == 10_000
            and c.records
        ):
            today[(c.params.get("reverse"), c.cores)] = stats.summarize([r["run_ns"] for r in c.records]).median
    for pub in sorted(seeds.selective_series(), key=lambda p: -p["reverse"]):
        order = "reverse" if pub["reverse"] else "arrival"
        measured = [
            (f"erlang · {_cores(k[1])}", plots.Point(10_000, v, v, v))
            for k, v in today.items()
            if k[0] == pub["reverse"]
        ]
        add(
            f"Erlang: 10k replies by selective receive, {order} order",
            f"<b>{pub['value']:,} ms</b> · {pub['year']}, {_e(pub['system'])}",
            pub["source"],
            pub["value"] * 1e6,
            measured,
            fmt_ns,
            10_000,
        )
    if not rows:
        return ""
    out = []
    for what, r in rows.items():
        then = "".join(f"<div>{t}</div>" for t, _, _ in r["then"])
        cites = sorted({src.citation for _, src, _ in r["then"]})
        then += "".join(f"<div class='sub'>{_e(c)}</div>" for c in cites)
        if r["now"]:
            now = "<br>".join(
                f"{_e(lbl)}: <b>{_e(r['fmt'](p.y))}</b>"
                + (f" (N = {fmt_count(p.x)})" if r["n"] and p.x != r["n"] else "")
                for lbl, p in r["now"]
            )
            facs = []
            for _, p in r["now"]:
                ratios = sorted(v / p.y for _, _, v in r["then"] if v and p.y)
                if not ratios:
                    facs.append("–")
                    continue
                lo, hi = ratios[0], ratios[-1]
                word = "less" if lo >= 1 else "more" if hi <= 1 else ""
                inv = (lambda x: x) if lo >= 1 else (lambda x: 1 / x)
                a, b = sorted((inv(lo), inv(hi)))
                facs.append(
                    (_ratio(a) if a == b else f"{_ratio(a)[:-1]}–{_ratio(b)}") + f" {word}".rstrip()
                    if word
                    else f"{_ratio(1 / lo)} more – {_ratio(hi)} less"
                )
            fac = "<br>".join(facs)
        else:
            now, fac = "<span class='na'>not measured in these runs</span>", "–"
        out.append(f"<tr><td>{_e(what)}</td><td>{then}</td><td>{now}</td><td class='num'>{fac}</td></tr>")
    return (
        "<table class='thennow'><thead><tr><th>figure</th><th>then: published (historical, other machines)</th>"
        "<th>now: measured in these runs</th><th>now against then</th></tr></thead><tbody>"
        + "".join(out)
        + "</tbody></table>"
    )


# -- tables -----------------------------------------------------------------------------------
def _details(c: Cell) -> str:
    parts = []
    if not c.ok:
        parts.append(f"<p><b>{_e(c.status)}</b>: {_e(c.reason or '')}</p>")
    s = c.summaries() if c.ok else {}
    if s:
        parts.append(
            "<table class='mini'><thead><tr><th>figure</th><th>median</th><th>min</th><th>max</th>"
            "<th>repeats</th></tr></thead><tbody>"
            + "".join(
                f"<tr><td>{_e(k)}</td><td>{tables.fmt(v.median)}</td><td>{tables.fmt(v.low)}</td>"
                f"<td>{tables.fmt(v.high)}</td><td>{v.count}</td></tr>"
                for k, v in s.items()
            )
            + "</tbody></table>"
        )
    if c.records:
        wanted = ["process", "iteration", "count", "ready", "setup_ns", "run_ns", "run_cpu_ns"]
        wanted += ["rss_before", "rss_after"]
        cols = [k for k in wanted if any(k in r for r in c.records)]
        body = "".join(
            "<tr>"
            + "".join(f"<td>{_e(f'{r[k]:,}' if isinstance(r.get(k), int) else r.get(k, ''))}</td>" for k in cols)
            + "</tr>"
            for r in c.records
        )
        parts.append(
            "<table class='mini'><caption>raw records, one per repeat (as the driver printed them)</caption>"
            "<thead><tr>" + "".join(f"<th>{k}</th>" for k in cols) + f"</tr></thead><tbody>{body}</tbody></table>"
        )
    hist = c.extra.get("history") if c.extra else None
    if hist:
        peak = c.extra.get("peak_concurrency")
        parts.append(
            "<table class='mini'><caption>squeeze steps</caption><thead><tr><th>tokens</th><th>hops/s</th>"
            "<th>sd</th><th>samples</th><th></th></tr></thead><tbody>"
            + "".join(
                f"<tr><td>{h['concurrency']}</td><td>{h['hops_per_s']:,.0f}</td><td>{h['sd']:,.0f}</td>"
                f"<td>{h['samples']}</td><td>{'← peak' if h['concurrency'] == peak else ''}</td></tr>"
                for h in hist
            )
            + "</tbody></table>"
        )
    other = {k: v for k, v in (c.extra or {}).items() if k != "history"}
    if other:
        parts.append(f"<p class='sub'>{_e(json.dumps(other))}</p>")
    return "".join(parts) or "<p>no details</p>"


def _cell_table(run: Run, st) -> str:
    header, rows, notes, more = _table_rows(run.cells, getattr(run, "baseline", None))
    if not rows:
        return "<p>nothing measured</p>"
    head = "<th class='x'></th>" + "".join(f"<th>{_e(h)}</th>" for h in header)
    bodies = []
    for c, row, extra in zip(run.cells, rows, more, strict=False):
        cls = "" if c.ok else " class='bad'"
        first = f"{_swatch(st[c.runtime])}{_e(row[0])}" if c.runtime in st else _e(row[0])
        cols = list(row[1:])
        span = 1
        while not c.ok and len(cols) > 1 and cols[-1] == "":
            cols.pop()  # a failed cell's reason runs across the columns it has no figures for
            span += 1
        tds = (
            f"<td>{first}</td>"
            + "".join(f"<td>{_e(x)}</td>" for x in cols[:-1])
            + (f"<td colspan='{span}' class='reason'>{_e(cols[-1])}</td>" if span > 1 else f"<td>{_e(cols[-1])}</td>")
        )
        bodies.append(
            f"<tbody{cls}><tr class='row'><td class='x'><button aria-label='details' title='details'>▸</button>"
            f"</td>{tds}</tr><tr class='det' hidden><td colspan='{len(header) + 1}'>"
            f"{_wide(extra)}{_details(c)}</td></tr>"
            "</tbody>"
        )
    return (
        f"<div class='scroll'><table class='cells sortable'><thead><tr>{head}</tr></thead>{''.join(bodies)}"
        "</table></div>" + "".join(f"<p class='sub'>{_e(n)}</p>" for n in notes)
    )


def _wide(extra: dict[str, str]) -> str:
    """The wide table's columns for one row (spread, p, count, mode details, version) as a small list."""
    if not extra:
        return ""
    items = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in extra.items())
    return f"<table class='mini'><tbody>{items}</tbody></table>"


# -- warnings -----------------------------------------------------------------------------------
# A cell warning reads "<runtime> [<cores>] <k=v …>[ (<figure>)]: <advice>" (noise.cell).
def _group_warnings(runs: list[Run]) -> list[dict]:
    """One group per kind of warning (typed: results.noise.RunWarning): cell warnings with the cells they
    name and the range of their figures, run warnings with the runs they came from."""
    groups: dict[tuple[str, str], dict] = {}
    for run in runs:
        for w in run.warnings:
            key = (w.kind, w.what if w.cell else w.text)
            g = groups.setdefault(key, {"text": key[1], "advice": w.advice, "cv": [], "cells": [], "runs": []})
            if w.cell:
                where = w.where or {"runtime": w.cell, "cores": "", "params": {}}
                params = ", ".join(
                    f"{k.upper() if len(k) == 1 else k} = {fmt_count(int(v))}" for k, v in where["params"].items()
                )
                g["cells"].append((f"{where['runtime']} · {_cores(where['cores'])} · {params}", w.detail))
                if "cv" in w.figures:
                    g["cv"].append(w.figures["cv"] * 100)
            elif run.run_id not in g["runs"]:
                g["runs"].append(run.run_id)
    out = []
    for g in groups.values():
        cv = g["cv"]
        figures = f" (CV {min(cv):.1f}–{max(cv):.1f} %)" if len(cv) > 1 else f" (CV {cv[0]:.1f} %)" if cv else ""
        text = g["text"] + figures + (f"; {g['advice']}" if g["cells"] else "")
        out.append({"text": text, "short": g["text"].split(":")[0] + figures, "cells": g["cells"], "runs": g["runs"]})
    return sorted(out, key=lambda g: (bool(g["cells"]), -len(g["cells"])))


def _warnings_html(groups: list[dict]) -> str:
    if not groups:
        return "<p>No warnings.</p>"
    items = []
    for g in groups:
        if g["cells"]:
            cells = "".join(
                f"<li>{_e(name)}" + (f" <span class='sub'>({_e(v)})</span>" if v else "") + "</li>"
                for name, v in g["cells"]
            )
            items.append(
                f"<li><span class='wk'>{_e(g['text'])}</span> — <details class='inline'><summary>"
                f"{len(g['cells'])} cell{'s' if len(g['cells']) > 1 else ''}</summary><ul class='cols'>{cells}"
                "</ul></details></li>"
            )
        else:
            runs = ", ".join(map(str, g["runs"]))
            items.append(
                f"<li><span class='wk'>{_e(g['text'])}</span> — run{'s' if len(g['runs']) > 1 else ''} {runs}</li>"
            )
    return f"<ul class='warnings'>{''.join(items)}</ul>"


# -- the page ---------------------------------------------------------------------------------
_STYLE = """
:root { --ink:#1d1d1f; --sub:#5f6368; --line:#d9d9de; --bg2:#f6f6f8; }
* { box-sizing: border-box; }
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; padding: 1.2em 2em 3em;
       max-width: 1320px; color: var(--ink); line-height: 1.4; }
h1 { font-size: 1.6em; margin: 0 0 .15em; }
h2 { font-size: 1.25em; margin: 1.6em 0 .5em; border-bottom: 1px solid var(--line); padding-bottom: .2em; }
h3 { font-size: 1.05em; margin: .2em 0; }
nav { font-size: .9em; color: var(--sub); margin: .2em 0 .8em; } nav a { color: inherit; margin-right: 1em; }
.lede { color: var(--sub); margin: 0 0 .6em; }
.machine { background: var(--bg2); border: 1px solid var(--line); border-radius: 6px; padding: .5em .9em;
           margin: .4em 0 .7em; font-size: .95em; }
.machine div + div { margin-top: .4em; }
ul.findings { margin: .3em 0 .8em; padding-left: 1.2em; } ul.findings li { margin: .25em 0; }
.sub { color: var(--sub); font-size: .85em; font-weight: normal; }
.floor { font-style: italic; }
.sw { display: inline-block; width: .8em; height: .8em; border-radius: 2px; margin-right: .35em; vertical-align: -.05em;
      border: 1.5px solid rgba(0,0,0,.25); }
table { border-collapse: collapse; margin: .6em 0; font-size: .88em; }
th, td { border-bottom: 1px solid var(--line); padding: .3em .6em; text-align: left; vertical-align: top; }
thead th { background: var(--bg2); position: sticky; top: 0; }
td.num, th.n { text-align: right; white-space: nowrap; }
table.cells td { text-align: right; white-space: nowrap; }
table.cells td:nth-child(2), table.cells td:nth-child(3) { text-align: left; }
table.sortable thead th { cursor: pointer; user-select: none; } table.sortable thead th:hover { background: #ececf1; }
table.sortable th[aria-sort=ascending]::after { content: " ▲"; font-size: .75em; }
table.sortable th[aria-sort=descending]::after { content: " ▼"; font-size: .75em; }
td.x button { border: 0; background: none; cursor: pointer; font-size: 1em; padding: 0 .2em; color: var(--sub); }
tbody.open td.x button { transform: rotate(90deg); }
tr.det > td { background: #fbfbfd; text-align: left; white-space: normal; }
tbody.bad td { color: #8a1c1c; } table.cells td.reason { text-align: left; white-space: normal; }
.scroll { overflow-x: auto; }
table.mini { font-size: .95em; margin: .3em 1em .6em 0; display: inline-table; }
table.mini caption { text-align: left; color: var(--sub); }
.sig { font-size: .85em; padding: 0 .3em; border-radius: 3px; } .sig.yes { background: #e3f3e6; color: #1e6b2f; }
.sig.no { background: #f3efe3; color: #7a5b12; } .sig.na { background: #eeeeef; color: #555; }
.na { color: var(--sub); }
table.leaders td { min-width: 12em; max-width: 19em; } table.growth td { white-space: nowrap; }
.twocol { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 1.5em; align-items: start; }
@media (max-width: 1000px) { .twocol { grid-template-columns: 1fr; } }
figure.chart-box { margin: 1.2em 0 1.8em; }
figure.chart-box figcaption { color: var(--sub); font-size: .88em; margin-top: .2em; }
.chart { width: 100%; min-height: 300px; }
.historical { border-left: 4px solid #b9a46a; padding-left: 1em; }
ul.warnings li { margin: .35em 0; } .wk { font-weight: 500; }
details.inline { display: inline; } details.inline summary { display: inline; cursor: pointer; color: #2856a3; }
ul.cols { columns: 3 22em; font-size: .85em; color: var(--sub); margin: .3em 0; }
code { background: var(--bg2); padding: 0 .25em; border-radius: 3px; }
"""

_SCRIPT = """
(function () {
  // Charts: every .chart names the JSON figure it draws; data-rendered counts what was drawn.
  function draw() {
    document.querySelectorAll('.chart').forEach(function (el) {
      var fig = JSON.parse(document.getElementById(el.dataset.spec).textContent);
      Plotly.newPlot(el, fig.data, fig.layout, {displaylogo: false, responsive: true,
        modeBarButtonsToRemove: ['select2d', 'lasso2d'], toImageButtonOptions: {filename: el.id}})
        .then(function () {
          el.dataset.rendered = el.querySelectorAll('.scatterlayer .trace, .heatmaplayer .hm').length;
        })
        .catch(function (e) { console.error('chart ' + el.id + ': ' + e); });
    });
  }
  // Tables: click a heading to sort (numbers as numbers), a row's ▸ to show its raw repeats.
  function key(tb, i) {
    var cell = tb.rows[0].cells[i];
    var t = cell ? cell.textContent.trim() : '';
    var m = t.replace(/,/g, '').match(/^[×~]?(-?\\d+(?:\\.\\d+)?(?:e-?\\d+)?)/);
    return m ? parseFloat(m[1]) : t.toLowerCase();
  }
  document.querySelectorAll('table.sortable').forEach(function (table) {
    table.querySelectorAll('thead th').forEach(function (th, i) {
      th.addEventListener('click', function () {
        var up = th.getAttribute('aria-sort') !== 'ascending';
        table.querySelectorAll('thead th').forEach(function (o) { o.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', up ? 'ascending' : 'descending');
        var groups = table.tBodies.length > 1 ? Array.from(table.tBodies) : null;
        var items = groups || Array.from(table.tBodies[0].rows).map(function (r) { return {rows: [r], row: r}; });
        items.sort(function (a, b) {
          var x = key(a, i), y = key(b, i);
          var nx = typeof x === 'number', ny = typeof y === 'number';
          if (nx !== ny) return nx ? -1 : 1;  // text (failed, n/a) after numbers either way
          var c = nx ? x - y : String(x).localeCompare(String(y));
          return up ? c : -c;
        });
        if (groups) items.forEach(function (g) { table.appendChild(g); });
        else items.forEach(function (it) { table.tBodies[0].appendChild(it.row); });
      });
    });
  });
  document.querySelectorAll('table.cells tr.row').forEach(function (tr) {
    tr.querySelector('button').addEventListener('click', function () {
      var det = tr.nextElementSibling;
      det.hidden = !det.hidden;
      tr.parentElement.classList.toggle('open', !det.hidden);
    });
  });
  if (window.Plotly) draw(); else console.error('Plotly is missing from the report');
})();
"""


def _plotly_js() -> str:
    from plotly.offline import get_plotlyjs

    return get_plotlyjs()


def _json(obj: object) -> str:
    """JSON safe inside a <script> element."""
    return json.dumps(obj, ensure_ascii=False, allow_nan=False, default=_nan_free).replace("</", "<\\/")


def _nan_free(o):
    raise TypeError(f"not JSON: {o!r}")


def _clean(obj):
    """NaN and infinity are not JSON: Plotly takes null for a missing value."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    return obj


def render(runs: list[tuple[Run, str]]) -> str:
    results = [r for r, _ in runs]
    commands = {r.run_id: cmd for r, cmd in runs}
    cells, replaced = _latest_cells(results)
    st = plots.styles({c.runtime for c in cells}, plots.cell_floors(cells))
    charts: dict[str, Chart] = {}
    for kind in ("hops-vs-n", "spawn", "memory", "time-vs-m", "selective", "squeeze"):
        try:
            charts[kind] = plots.chart(cells, kind, panels=4)
        except plots.PlotError:
            pass
    try:
        grid = plots.grid(cells)
    except plots.PlotError:
        grid = None

    figures: list[tuple[str, str, str, dict, str]] = []  # (id, title, caption, figure, section)
    order = ("hops-vs-n", "spawn", "time-vs-m", "memory", "selective", "squeeze")
    for kind in order:
        if kind in charts:
            ch = charts[kind]
            figures.append((f"chart-{kind}", ch.title, ch.caption, _figure(ch, st), "charts"))
            if kind == "time-vs-m" and grid:
                figures.append(
                    (
                        "chart-surface",
                        "Message-phase time over N × M, one panel per runtime",
                        "The original ring benchmark's surface as small multiples, all on one (log) colour "
                        "scale: the same colour is the same time in every panel. Hover for the time per hop.",
                        _heatmap_figure(grid),
                        "charts",
                    )
                )
    if grid and "time-vs-m" not in charts:
        figures.append(
            (
                "chart-surface",
                "Message-phase time over N × M, one panel per runtime",
                "All panels on one (log) colour scale.",
                _heatmap_figure(grid),
                "charts",
            )
        )
    for key, measured, seed, title, ylabel in (
        (
            "then-now-message",
            charts.get("hops-vs-n"),
            seeds.message_series(),
            "Then and now: time per message against N",
            "time per message",
        ),
        (
            "then-now-spawn",
            charts.get("spawn"),
            seeds.spawn_series(),
            "Then and now: spawn time per process against N",
            "spawn time per process",
        ),
    ):
        made = _then_and_now_chart(measured, seed, key, title, ylabel, st)
        if made:
            fig, note = made
            figures.append(
                (
                    f"chart-{key}",
                    title,
                    "Dash-dot lines with open markers are <b>published historical figures</b> measured on "
                    "other machines (1998: Ericsson's Erlang/Java report; 2009: the Erlang ring on a ThinkPad "
                    "T60) — a reference, not data of this report. Solid lines are today's measurements of the "
                    "same runtimes here." + _e(note),
                    fig,
                    "then",
                )
            )

    groups = _group_warnings(results)
    leaders_html, leads = _leaders_table(charts, st)
    growth = _growth(charts["hops-vs-n"], st) if "hops-vs-n" in charts else []
    findings = _findings(charts, st, growth, leads, cells)

    dates = sorted(r.environment.get("date", "")[:10] for r in results if r.environment.get("date"))
    workloads = sorted({c.workload.name for c in cells})
    runtimes = sorted({c.runtime for c in cells})
    ns = sorted({c.params["n"] for c in cells if "n" in c.params})
    lede = (
        f"Run{'s' if len(results) > 1 else ''} {', '.join(str(r.run_id) for r in results)}"
        f"{' · ' + (dates[0] if dates[0] == dates[-1] else f'{dates[0]} to {dates[-1]}') if dates else ''} · "
        f"{', '.join(workloads)} · {len(runtimes)} runtime{'s' if len(runtimes) != 1 else ''}"
        + (f" · N from {fmt_count(ns[0])} to {fmt_count(ns[-1])}" if len(ns) > 1 else "")
        + (f" · {replaced} cells measured again in a later run: the later figures are used" if replaced else "")
    )

    parts = [
        f"<section id='summary'><h1>ringbench report</h1><p class='lede'>{_e(lede)}</p>",
        "<nav><a href='#summary'>Summary</a><a href='#charts'>Charts</a><a href='#then-and-now'>Then and now</a>"
        "<a href='#tables'>Tables</a><a href='#warnings'>Warnings</a><a href='#environment'>Environment</a></nav>",
        f"<div class='machine'>{_machine(results)}<div>{_state(cells, [g for g in groups if g['cells']])}</div></div>",
    ]
    if findings:
        parts.append("<ul class='findings'>" + "".join(f"<li>{f}</li>" for f in findings) + "</ul>")
    else:
        parts.append("<p>No measured cell to summarise.</p>")
    if leaders_html:
        parts.append(
            "<h3>Best runtime at each N</h3>"
            + leaders_html
            + "<p class='sub'>The runner-up is the next runtime at that N; significant: the two runtimes' "
            "repeats differ by a Mann-Whitney U test (p &lt; 0.05, at least "
            f"{stats.MIN_REPEATS_FOR_TEST} repeats a side). Message passing only (mailboxes and channels); "
            "the floor is not counted as a runtime.</p>"
        )
    if growth:
        parts.append("<h3>Growth of message cost with N</h3>" + _growth_table(growth, st))
    parts.append(
        "<p class='sub'>Every figure is a median over repeats (each repeat a fresh driver process unless the "
        "run says otherwise) with its 95 % bootstrap interval; every count was verified by its driver. "
        "Legend entries: filled markers and solid lines are one core, open markers and dotted lines all "
        "cores; the grey dashed line is the floor.</p></section>"
    )

    parts.append(
        "<section id='charts'><h2>Charts</h2><p class='sub'>Hover a point for its value and interval; click "
        "a legend entry to hide or show that runtime (double-click: only that one); switch the y axis "
        "between log and linear with the buttons above each chart.</p>"
    )
    specs = []
    for fid, title, caption, fig, section in figures:
        if section != "charts":
            continue
        specs.append((fid, fig))
        parts.append(
            f"<figure class='chart-box'><h3>{_e(title)}</h3><div class='chart' id='{fid}' "
            f"data-spec='{fid}-data'></div><figcaption>{caption}</figcaption></figure>"
        )
    if not any(f[4] == "charts" for f in figures):
        parts.append("<p>No chart fits these runs.</p>")
    parts.append("</section>")

    parts.append(
        "<section id='then-and-now' class='historical'><h2>Then and now (historical reference)</h2>"
        "<p>The benchmarks this project grew from published their figures: Ericsson's 1998 measurements of "
        "Erlang processes and Java threads, the 2009 Erlang ring on a ThinkPad T60 and a 2010 measurement of "
        "Erlang's selective receive. They are shown beside today's measurements of the same runtimes as a "
        "<b>historical reference</b>: other machines, other software, other methods, never mixed into the "
        "measured data above. Sources: "
        + "; ".join(f"{_e(s.citation)} (transcribed in {_e(s.transcribed_from)})" for s in seeds.sources().values())
        + ".</p>"
    )
    for fid, title, caption, fig, section in figures:
        if section == "then":
            specs.append((fid, fig))
            parts.append(
                f"<figure class='chart-box'><h3>{_e(title)}</h3><div class='chart' id='{fid}' "
                f"data-spec='{fid}-data'></div><figcaption>{caption}</figcaption></figure>"
            )
    parts.append(_then_now_table(charts, cells) + "</section>")

    parts.append(
        "<section id='tables'><h2>Tables</h2><p class='sub'>One table per run, the terminal's columns. "
        "Click a heading to sort; click ▸ for a cell's raw repeats and every figure.</p>"
    )
    for r in results:
        parts.append(
            f"<h3>Run {r.run_id}: {_e(r.workload.name)} ({_e(r.options.mode)}) — {_e(r.status)}</h3>"
            f"<p><code>{_e(commands.get(r.run_id, ''))}</code></p>{_cell_table(r, st)}"
        )
    parts.append("</section>")

    parts.append(f"<section id='warnings'><h2>Warnings</h2>{_warnings_html(groups)}</section>")

    parts.append("<section id='environment'><h2>Environment and settings</h2>")
    for r in results:
        env_rows = "".join(
            f"<tr><td>{_e(k)}</td><td>{_e(json.dumps(v) if isinstance(v, (list, dict)) else v)}</td></tr>"
            for k, v in r.environment.items()
        )
        set_rows = "".join(
            f"<tr><td>{_e(k)}</td><td>{_e(json.dumps(v))}</td></tr>" for k, v in r.settings.items() if k != "grid"
        )
        parts.append(
            f"<details><summary>Run {r.run_id}</summary><div class='twocol'><table><thead><tr><th>fact</th>"
            f"<th>value</th></tr></thead><tbody>{env_rows}</tbody></table><table><thead><tr><th>setting</th>"
            f"<th>value</th></tr></thead><tbody>{set_rows}</tbody></table></div></details>"
        )
    written = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    parts.append(f"<p class='sub'>Report written {written}.</p></section>")

    data = "".join(
        f"<script type='application/json' id='{fid}-data'>{_json(_clean(fig))}</script>" for fid, fig in specs
    )
    lib = f"<script>{_plotly_js()}</script>" if specs else ""
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>ringbench report: runs {', '.join(str(r.run_id) for r in results)}</title>"
        f"<style>{_STYLE}</style></head><body>{''.join(parts)}{data}{lib}<script>{_SCRIPT}</script></body></html>"
    )
