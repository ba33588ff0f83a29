"""The report's first section: the machine and its state, the findings, the best runtime at each N, the
growth of message cost with N. Every sentence is made from analysis.Findings, and every figure in it is
quoted from a table row (html.Quote), naming the parameters it compares (N, M, cores)."""

from __future__ import annotations

import json
from collections.abc import Iterable

from ...catalogue.workloads import (
    CPU_NS_PER_HOP,
    CPU_PER_WALL,
    NS_PER_HOP,
    PEAK_PER_PROC,
    RSS_PER_PROC,
    SPAWN_US,
    TREE_MS,
    Metric,
    Workload,
)
from ...results import analysis, stats
from ...results.analysis import Column, Extremes, Figure, Findings, Lead, per_repeat, without
from ...results.model import Cell, Run
from .. import tables
from ..style import LINES, Style, cores_text, fmt_count, fmt_rate, legend_text
from .html import Quote, e, param_name, params_text, ratio, who

_TITLE = {
    NS_PER_HOP.name: "message cost",
    CPU_NS_PER_HOP.name: "CPU per hop",
    SPAWN_US.name: "spawn",
    RSS_PER_PROC.name: "memory",
    TREE_MS.name: "tree",
    PEAK_PER_PROC.name: "tree memory",
}
_WHAT = {
    NS_PER_HOP.name: "time per hop, lowest",
    SPAWN_US.name: "time per process, lowest",
    RSS_PER_PROC.name: "bytes per process, fewest",
}


def _title(m: Metric) -> str:
    return _TITLE.get(m.name, m.label)


def _word(m: Metric) -> str:
    return "smaller than" if m in (RSS_PER_PROC, PEAK_PER_PROC) else "ahead of" if m.lower_is_better else "above"


def _span(ns: list[int]) -> str:
    ns = sorted(ns)
    return fmt_count(ns[0]) if len(ns) == 1 else f"{fmt_count(ns[0])}–{fmt_count(ns[-1])}"


# How a mode measured, in the words of a heading; timed (repeats of a fixed or calibrated M) needs none.
MODE_WORDS = {
    "continuous": "continuous (sampled while the ring runs)",
    "squeeze": "squeeze (tokens added until throughput stops growing)",
}


def where(
    cores: str, fixeds: list[dict], workload: Workload, calibrated: Iterable[str] = (), mode: str = "timed"
) -> str:
    """'1 core, M = 10 and 100', '1 core, M calibrated per runtime' or 'all cores, continuous (…)': what a
    comparison holds fixed and how it was measured."""
    texts = list(dict.fromkeys(params_text(f, workload) for f in fixeds))
    if len(texts) > 1:
        differ = [k for k in fixeds[0] if len({json.dumps(f.get(k)) for f in fixeds}) > 1]
        if len(differ) == 1 and all(set(f) == set(fixeds[0]) for f in fixeds):
            k = differ[0]
            same = params_text({x: v for x, v in fixeds[0].items() if x != k}, workload)
            vals = " and ".join(fmt_count(v) for v in sorted({f[k] for f in fixeds}))
            texts = [", ".join(x for x in (same, f"{param_name(k)} = {vals}") if x)]
    parts = [cores_text(cores), " and ".join(t for t in texts if t)]
    parts += [f"{param_name(p)} calibrated per runtime" for p in calibrated]
    parts.append(MODE_WORDS.get(mode, ""))
    return ", ".join(p for p in parts if p)


def describe(ld: Lead) -> str:
    """'message cost, 1 core, M = 100': what one lead compares, N aside."""
    return f"{_title(ld.metric)}, {where(ld.cores, [without(ld.params, 'n')], ld.workload, (), ld.mode)}"


def _range(figs: list[Figure], q: Quote) -> str:
    """'90–130 ns/hop': the least and the greatest of some figures, each quoted from its row."""
    lo, hi = min(figs, key=lambda f: f.value), max(figs, key=lambda f: f.value)
    if tables.fmt(lo.value) == tables.fmt(hi.value):
        return q(lo)
    return f"{q(lo, False)}–{q(hi)}"


def _runs_of_leader(leads: list[Lead]) -> str:
    """'go at N = 100–1k; erlang at N = 10k': consecutive N with the same leader grouped."""
    parts: list[tuple[str, list[int]]] = []
    for ld in leads:
        if parts and parts[-1][0] == ld.best.runtime:
            parts[-1][1].append(ld.n or 0)
        else:
            parts.append((ld.best.runtime, [ld.n or 0]))
    return "; ".join(f"<b>{e(rt)}</b> at N = {_span(ns)}" for rt, ns in parts)


def _merged(cols: Iterable[Column]) -> list[list[Column]]:
    """Columns of one core setting, workload, mode and conditions whose leader at every N is the same, as
    one line. Only the work per repeat (M) may differ between them: a ring across nodes or with several
    tokens is another condition, with a line of its own."""
    out: dict[str, list[Column]] = {}
    for c in cols:
        leaders = [(ld.n, ld.best.runtime) for ld in c.leads]
        conditions = without(c.fixed, c.workload.calibrates)
        k = json.dumps([c.cores, c.workload.name, c.mode, c.group, c.calibrated, conditions, leaders], sort_keys=True)
        out.setdefault(k, []).append(c)
    return list(out.values())


def _cost_line(label: str, cols: list[Column], q: Quote, several_workloads: bool) -> str:
    c0 = cols[0]
    w = where(c0.cores, [c.fixed for c in cols], c0.workload, c0.calibrated, c0.mode)
    w += f" ({c0.workload.name} workload)" if several_workloads else ""
    leads = [ld for c in cols for ld in c.leads]
    return (
        f"<b>{e(label)}, {e(w)}:</b> fastest {_runs_of_leader(list(cols[0].leads))} "
        f"({_range([ld.best for ld in leads], q)})."
    )


def _extremes_line(label: str, ex: Extremes, st: dict[str, Style], q: Quote) -> str:
    ld = ex.lead
    text = (
        f"<b>{e(label)}, N = {fmt_count(ld.n or 0)}, "
        f"{e(where(ld.cores, [without(ld.params, 'n')], ld.workload, (), ld.mode))}</b>"
        f" ({e(ld.workload.name)} workload): "
    )
    if len(ld.ranked) > 1:
        text += (
            f"cheapest {e(ld.best.runtime)} ({q(ld.best)}), dearest {e(ld.worst.runtime)} ({q(ld.worst)}, "
            f"{ratio(analysis.ratio(ld.best.value, ld.worst.value))}) of {len(ld.ranked)} message-passing runtimes"
        )
    else:
        text += f"{e(ld.best.runtime)} ({q(ld.best)}), the one message-passing runtime"
    apart = [(other.group, f) for other in ex.apart for f in other.ranked]
    if apart:
        text += "; ranked apart: " + ", ".join(f"{e(f.runtime)} ({e(g)}) {q(f)}" for g, f in apart)
    if ld.floor:
        text += f"; the floor {e(ld.floor.runtime)} {q(ld.floor)}"
    return text + "."


def _lead_text(ld: Lead, q: Quote) -> str:
    second = ld.runner_up
    text = f"{e(ld.best.runtime)} ({q(ld.best)}"
    if second:
        text += f"; {ratio(ld.factor)} {_word(ld.metric)} {e(second.runtime)}, {q(second)}"
    return text + ")"


def _message(found: Findings, q: Quote) -> list[str]:
    several = len({c.workload.name for c in found.message}) > 1
    merged = sorted(_merged(found.message), key=lambda cols: cols[0].workload.departures(cols[0].fixed))
    out = [_cost_line("Message cost", cols, q, several) for cols in merged]
    for group in dict.fromkeys(c.group for c in found.idioms):
        col = analysis.pick(c for c in found.idioms if c.group == group)
        if col:
            out.append(
                f"<b>{e(group.capitalize())} idioms</b> (ranked apart: a {e(group)} hop is not a message through a "
                f"mailbox or channel), {e(where(col.cores, [col.fixed], col.workload, col.calibrated, col.mode))}: "
                "fastest "
                f"{_runs_of_leader(list(col.leads))} ({_range([ld.best for ld in col.leads], q)})."
            )
    if found.floor:
        out.append(
            f"<b>The floor</b> (a stackless state machine, not a runtime) costs {_range(list(found.floor), q)}: "
            "what a hop costs with no runtime at all."
        )
    return out


def _cpu_per_wall(c: Cell) -> float | None:
    """The median CPU/wall of a cell's message phases long enough to judge (tables.more_than_one_core's)."""
    ratios = [
        v
        for r in c.records
        if r.get("run_ns", 0) >= tables.MIN_PHASE_FOR_CPU_NS
        for v in [CPU_PER_WALL.of(r)]
        if v is not None
    ]
    return stats.summarize(ratios).median if ratios else None


def _cpu(found: Findings, q: Quote) -> list[str]:
    """One line: per core setting, the runtime with the least CPU time per hop (the driver process's CPU time
    over the message phase, per hop) at the comparison a finding speaks of (analysis.pick), beside the
    fastest in wall time where that is another runtime; and the runtimes that spent more than one core's
    worth of CPU time (idle workers spinning, or work spread over cores)."""
    if not found.cpu:
        return []
    bits = []
    for cores in sorted({c.cores for c in found.cpu}, key=lambda k: (k != "1", k)):
        col = analysis.pick(c for c in found.cpu if c.cores == cores)
        if col is None:
            continue
        ld = col.last
        wall = next(
            (
                m.at(ld.n)
                for m in found.message
                if (m.cores, m.workload.name, m.mode, m.fixed) == (col.cores, col.workload.name, col.mode, col.fixed)
            ),
            None,
        )
        text = (
            f"{e(where(cores, [col.fixed], col.workload, col.calibrated, col.mode))}, N = {fmt_count(ld.n or 0)}: "
            f"{e(ld.best.runtime)} ({q(ld.best)}"
        )
        if wall is not None and wall.best.runtime != ld.best.runtime:
            text += f"; fastest in wall time {e(wall.best.runtime)}, {q(wall.best)}"
        bits.append(text + ")")
    over: dict[str, float] = {}
    for f in (f for c in found.cpu for ld in c.leads for f in ld.ranked):
        ratio_ = _cpu_per_wall(f.cell)
        if ratio_ is not None and tables.more_than_one_core(f.cell):
            over[f.runtime] = max(ratio_, over.get(f.runtime, 0.0))
    text = "<b>Least CPU time per hop</b>, " + "; ".join(bits)
    if over:
        named = ", ".join(f"{e(rt)} ({v:.2f})" for rt, v in sorted(over.items(), key=lambda kv: -kv[1]))
        text += (
            f"; more than one core's worth of CPU time ({tables.MORE_THAN_ONE_CORE_MARK} in the tables, CPU/wall): "
            + named
        )
    return [text + "."]


def _tree(found: Findings, q: Quote) -> list[str]:
    if not found.tree:
        return []
    at = "; ".join(dict.fromkeys(params_text(ld.params, ld.workload, defaults=True) for ld in found.tree))
    text = f"<b>Tree</b> (skynet, {e(at)}): fastest " + "; ".join(
        f"on {e(cores_text(ld.cores))} {_lead_text(ld, q)}" for ld in found.tree
    )
    if found.tree_memory:
        text += "; least peak memory " + "; ".join(
            f"on {e(cores_text(ld.cores))} {_lead_text(ld, q)}" for ld in found.tree_memory
        )
    return [text + "."]


def _growth(found: Findings) -> list[str]:
    g = found.growth_spread
    if not g:
        return []
    least, most = g.entries[0], g.entries[-1]
    held = e(where(g.cores, [g.fixed], least.first.cell.workload))
    if len(g.entries) == 1:
        return [
            f"<b>Growth with N</b> ({held}): message cost of {e(least.runtime)} changed ×{least.ratio:.2f} from "
            f"N = {fmt_count(least.ns[0])} to {fmt_count(least.ns[1])}."
        ]
    return [
        f"<b>Growth with N</b> ({held}): message cost at a runtime's largest N over its cost at its smallest N "
        f"is lowest for {e(least.runtime)} (×{least.ratio:.2f}, {fmt_count(least.ns[0])} → "
        f"{fmt_count(least.ns[1])}) and highest for {e(most.runtime)} (×{most.ratio:.2f}); median "
        f"×{g.median:.2f} over {len(g.entries)} runtimes."
    ]


def test_words(diffs: Iterable[stats.Difference | None]) -> str:
    """The test the tables' ✓ comes from (results.difference), in words: by its unit."""
    units = {d.unit for d in diffs if d is not None}
    if units == {"repeat"}:
        return "Mann-Whitney U over the samples of one process, p &lt; 0.05"
    return "Welch's t-test on each fresh process's median (log), p &lt; 0.05"


def _needed(diffs: Iterable[stats.Difference | None]) -> str:
    """'3 fresh processes' or '5 samples': what a test needs a side."""
    ds = [d for d in diffs if d is not None]
    if ds and all(d.unit != "process" for d in ds):
        return f"{stats.MIN_REPEATS_FOR_TEST} samples"
    return f"{stats.MIN_PROCESSES_FOR_TEST} fresh processes"


def _significance(found: Findings) -> list[str]:
    sig = found.significance
    every = [ld.diff for ld in (*sig.tested, *sig.untested)]
    if sig.untested and not sig.tested:
        return [f"<b>Significance:</b> not tested: fewer than {_needed(every)} a side."]
    if not sig.tested:
        return []
    text = (
        f"<b>Significance:</b> {len(sig.significant)} of {len(sig.tested)} leads over the runner-up are "
        f"significant ({test_words(every)})"
    )
    weak = sig.within_noise
    if weak:
        shown = "; ".join(
            f"{e(describe(ld))}: {e(ld.best.runtime)} vs {e(ld.runner_up.runtime)} at N = {fmt_count(ld.n or 0)}"
            for ld in weak[:4]
            if ld.runner_up  # a tested lead has a runner-up
        )
        text += f"; within noise: {shown}" + (f" and {len(weak) - 4} more" if len(weak) > 4 else "")
    return [text + "."]


def _the_rest(found: Findings, q: Quote) -> list[str]:
    """Selective receive, the workloads without a finding of their own (pingpong, fanin), the squeeze."""
    out = []
    if found.selective:
        orders = "; ".join(
            f"{e(o.runtime)} {ratio(o.ratio)} at N = {fmt_count(o.n)}, {e(cores_text(o.cores))} "
            f"({q(o.reverse, False)} vs {q(o.arrival)})"
            for o in found.selective
        )
        out.append(f"<b>Selective receive:</b> replies taken in reverse order cost, against arrival order: {orders}.")
    for wl, leads in found.others:
        bits = [
            f"{e(ld.best.runtime)} ({q(ld.best)}, {e(where(ld.cores, [ld.params], wl, (), ld.mode))}"
            + (f"; next {e(ld.runner_up.runtime)}, {ratio(ld.factor)}" if ld.runner_up else "")
            + ")"
            for ld in leads
        ]
        out.append(
            f"<b>{e(wl.name.capitalize())}:</b> fastest "
            + "; ".join(bits[:4])
            + (f"; and {len(bits) - 4} more points in the tables" if len(bits) > 4 else "")
            + "."
        )
    if found.squeeze:
        bits = [f"{e(p.runtime)} at K = {p.tokens:,} ({e(fmt_rate(p.hops_per_s))})" for p in found.squeeze]
        out.append("<b>Squeeze:</b> throughput peaked for " + "; ".join(bits) + ".")
    return out


def findings(found: Findings, st: dict[str, Style], q: Quote) -> list[str]:
    """The summary's sentences, one per finding, in the order a reader asks: message cost, spawn, memory,
    the tree, growth, significance, the rest."""
    costs = [_extremes_line(label, ex, st, q) for label, ex in (("Spawn", found.spawn), ("Memory", found.memory)) if ex]
    return (
        _message(found, q)
        + _cpu(found, q)
        + costs
        + _tree(found, q)
        + _growth(found)
        + _significance(found)
        + _the_rest(found, q)
    )


# -- the tables of the summary ------------------------------------------------------------------------
def _sig_badge(diff: stats.Difference | None) -> str:
    if diff is None:
        return ""
    if diff.significant is None:
        units = "processes" if diff.unit == "process" else "samples"
        return f' <span class="sig na" title="a test needs {diff.needed} {units} a side">too few {units} to test</span>'
    words = test_words([diff])
    if diff.significant:
        return f' <span class="sig yes" title="{words}">significant</span>'
    return f' <span class="sig no" title="{words.replace("&lt;", "≥")}: within noise">not significant</span>'


def _lead_cell(ld: Lead | None, st: dict[str, Style], q: Quote) -> str:
    if ld is None:
        return '<td class="na">–</td>'
    text = f"{who(ld.best.runtime, st)} {q(ld.best)}"
    second = ld.runner_up
    if second:
        sig = _sig_badge(ld.diff)
        text += f'<div class="sub">{ratio(ld.factor)} {_word(ld.metric)} {e(second.runtime)} ({q(second)}){sig}</div>'
    if ld.floor:
        text += f'<div class="sub floor">floor {e(ld.floor.runtime)}: {q(ld.floor)}</div>'
    return f"<td>{text}</td>"


def leaders_table(cols: tuple[Column, ...], st: dict[str, Style], q: Quote) -> str:
    if not cols:
        return ""
    ns = sorted({ld.n or 0 for c in cols for ld in c.leads})
    head = "".join(
        f"<th>{e(_title(c.metric))}, {e(where(c.cores, [c.fixed], c.workload, c.calibrated, c.mode))}"
        f"<div class='sub'>{e(_WHAT.get(c.metric.name, c.metric.label))} · {e(c.workload.name)}</div></th>"
        for c in cols
    )
    rows = "".join(
        f"<tr><th class='n'>{fmt_count(n)}</th>" + "".join(_lead_cell(c.at(n), st, q) for c in cols) + "</tr>"
        for n in ns
    )
    return (
        f"<div class='scroll'><table class='leaders'><thead><tr><th>N</th>{head}</tr></thead><tbody>{rows}</tbody>"
        "</table></div>"
    )


def growth_table(growth: tuple[analysis.Growth, ...], st: dict[str, Style], q: Quote) -> str:
    if not growth:
        return ""
    rows = []
    for g in growth:
        sig = {
            True: "<span class='sig yes'>yes</span>",
            False: "<span class='sig no'>no</span>",
            None: "<span class='sig na'>too few to test</span>",
        }[g.significant]
        rows.append(
            f"<tr><td>{who(g.runtime, st)}</td><td>{e(cores_text(g.cores))}</td>"
            f"<td>{e(params_text(g.fixed, g.first.cell.workload))}</td>"
            f"<td>{fmt_count(g.ns[0])} → {fmt_count(g.ns[1])}</td>"
            f"<td>{q(g.first, False)} → {q(g.last)}</td>"
            f"<td class='num'>×{g.ratio:.2f}</td><td>{sig}</td></tr>"
        )
    return (
        "<table class='growth sortable'><thead><tr><th>runtime</th><th>cores</th><th>parameters</th><th>N</th>"
        "<th>time per hop</th><th>growth</th><th title='the figures at the smallest and at the largest N differ "
        "(the tables&#39; test)'>significant</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
    )


# -- the machine and the state of the runs ------------------------------------------------------------
def machine(runs: list[Run]) -> str:
    machines: dict[tuple, list[Run]] = {}
    for r in runs:
        env = r.environment
        machines.setdefault(
            (
                env.get("cpu_model"),
                env.get("usable_cpus") or env.get("cpu_count"),
                env.get("memory_bytes"),
                env.get("kernel"),
            ),
            [],
        ).append(r)
    parts = []
    for (cpu, cpus, mem, kernel), rs in machines.items():
        env = rs[0].environment
        mem_s = f"{mem / 2**30:.0f} GiB" if mem else "memory unknown"
        which = "" if len(machines) == 1 else f" (runs {', '.join(str(r.run_id) for r in rs)})"
        loads = [x for x in ((r.environment.get("loadavg") or [None])[0] for r in rs) if x is not None]
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
        gov = env.get("cpu_governor")
        gov_s = f"frequency governor <b>{e(gov)}</b>" if gov else "no frequency governor exposed (virtual machine?)"
        parts.append(
            f"<div><b>{e(cpu)}</b>, {cpus} CPU(s), {mem_s}, Linux {e(kernel)}{e(which)} "
            f"<span class='sub'>{e(env.get('os', ''))}</span><br>{load_s}; {gov_s}</div>"
        )
    return "".join(parts)


def state(cells: list[Cell], warned: list[dict]) -> str:
    ok = [c for c in cells if c.ok]
    refused = [c for c in cells if c.status == "refused"]
    failed = [c for c in cells if not c.ok and c.status != "refused"]
    reps = sorted({len(c.values()) for c in ok if per_repeat(c)})  # as measured, not as asked
    bits = [
        f"{len(ok)} cells measured"
        + (f", {len(refused)} n/a (too large for this machine or not supported)" if refused else "")
        + (f", <b>{len(failed)} failed</b>" if failed else "")
    ]
    if reps:  # too few fresh processes to test: a warning of its own (warned), naming its cells
        bits.append(f"{'–'.join(map(str, (reps[0], reps[-1])) if len(reps) > 1 else str(reps[0]))} repeats per cell")
    # one count a kind: warnings of one kind whose texts differ (each not-settled process names its own move)
    # share their short form here, where the list under Warnings gives each its line
    by_short: dict[str, set[str]] = {}
    for g in warned:
        by_short.setdefault(g["short"], set()).update(label for label, _ in g["cells"])
    for short, labels in by_short.items():
        bits.append(f"{len(labels)} of {len(ok)} cells: {e(short)}")
    return "; ".join(bits) + "."


def section(
    runs: list[Run],
    lede: str,
    cells: list[Cell],
    found: Findings,
    warned: list[dict],
    st: dict[str, Style],
    q: Quote,
    more: Iterable[str] = (),
    nav: Iterable[tuple[str, str]] = (),
) -> str:
    """The summary section, the first screen of the report. `more`: findings of other sections (perf runs);
    `nav`: the sections the report has, (element id, name), after the summary."""
    lines = findings(found, st, q) + list(more)
    ring = [c for c in cells if not c.workload.subject]
    parts = [
        f"<section id='summary'><h1>ringbench report</h1><p class='lede'>{e(lede)}</p>",
        "<nav><a href='#summary'>Summary</a>" + "".join(f"<a href='#{i}'>{e(name)}</a>" for i, name in nav) + "</nav>",
        f"<div class='machine'>{machine(runs)}<div>{state(cells, warned)}</div></div>",
        "<ul class='findings'>" + "".join(f"<li>{f}</li>" for f in lines) + "</ul>"
        if lines
        else "<p>No measured cell to summarise.</p>",
    ]
    if found.leaders:
        diffs = [ld.diff for c in found.leaders for ld in c.leads]
        parts.append(
            "<h3>Best runtime at each N</h3>"
            + leaders_table(found.leaders, st, q)
            + "<p class='sub'>The runner-up is the next runtime at that N with everything else the same; significant: "
            f"the two runtimes differ by the tables' test ({test_words(diffs)}; at least {_needed(diffs)} a side). "
            "Message passing only "
            "(mailboxes and channels); "
            "the floor is not counted as a runtime. Every figure is the one its row in the tables shows.</p>"
        )
    if found.growth:
        parts.append("<h3>Growth of message cost with N</h3>" + growth_table(found.growth, st, q))
    notes = []
    if ring:
        sampled = any(not per_repeat(c) for c in ring)
        notes.append(
            "Every figure is a median over repeats (each repeat a fresh driver process unless the run says "
            "otherwise)"
            + (" or, in a continuous run, over its counted sample intervals," if sampled else "")
            + " with its 95 % bootstrap interval; every count was verified by its driver. "
            f"In the charts: {legend_text((ln, ln.meaning) for ln in LINES[:3])}"
        )
    if len(ring) < len(cells):
        notes.append(
            "A perf figure (QPS) is the median over the counted sample intervals (timed: over the timed samples), "
            "with its 95 % bootstrap interval."
        )
    parts.append(f"<p class='sub'>{' '.join(notes)}</p></section>")
    return "".join(parts)
