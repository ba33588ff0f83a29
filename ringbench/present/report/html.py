"""Small pieces of the report's HTML: escaping, a runtime's swatch, a figure quoted from its table row,
the report's CSS and JS (package data in present/assets/), chart boxes and their JSON."""

from __future__ import annotations

import html
import json
import math
from importlib import resources

from ...catalogue.workloads import CPU_NS_PER_HOP, PEAK_PER_PROC, RSS_PER_PROC, SPAWN_US, Metric, Workload
from ...results import modes
from ...results.analysis import Figure
from ...results.model import Cell
from .. import tables
from ..style import Style, fmt_count

# What the summary writes after a figure: the figure's unit, as its table column gives it.
_UNITS = {SPAWN_US.name: "µs/proc", RSS_PER_PROC.name: "B/proc", PEAK_PER_PROC.name: "B/proc at the peak"}


def e(x: object) -> str:
    return html.escape(str(x), quote=True)


def unit(metric: Metric) -> str:
    return _UNITS.get(metric.name, metric.label)


def swatch(style: Style) -> str:
    border = "dashed" if style.floor else "solid"
    return f'<span class="sw" style="background:{style.colour};border-style:{border}"></span>'


def who(runtime: str, st: dict[str, Style]) -> str:
    return f"{swatch(st[runtime])}<b>{e(runtime)}</b>" if runtime in st else f"<b>{e(runtime)}</b>"


def ratio(x: float) -> str:
    return f"{x:.2f}×" if x < 1.1 else f"{x:.1f}×" if x < 10 else f"{x:,.0f}×"


def cell_id(run_id: int, c: Cell) -> str:
    """What ties a figure quoted in the summary to its row in the tables: run, cell and mode."""
    return f"{run_id}:{c.key}"


class Quote:
    """Quotes figures as their table rows show them (tables.fmt), each tagged with its row and metric, so a
    reader (and a test) can find every figure of the summary in the tables."""

    def __init__(self, run_of: dict[int, int]):
        self.run_of = run_of

    def __call__(self, f: Figure, with_unit: bool = True) -> str:
        rid = self.run_of.get(id(f.cell), 0)
        shown = tables.fmt(f.value)
        if f.metric is CPU_NS_PER_HOP and tables.more_than_one_core(f.cell):
            shown += tables.MORE_THAN_ONE_CORE_MARK  # as the row marks it
        if f.cell.mode_object.settles and not modes.settled(f.cell):
            shown += tables.NOT_SETTLED_MARK  # a finding quotes an unsettled figure as its row does
        text = (
            f"<span class='fig' data-cell='{e(cell_id(rid, f.cell))}' data-metric='{e(f.metric.name)}'>"
            f"{e(shown)}</span>"
        )
        return text + (f" {e(unit(f.metric))}" if with_unit else "")


_PARAM_NAMES = {"tokens": "K", "burst": "placement"}  # as the tables head them


def param_name(k: str) -> str:
    return _PARAM_NAMES.get(k, k.upper() if len(k) == 1 else k)


def params_text(params: dict, workload: Workload, defaults: bool = False) -> str:
    """'N = 1k, M = 100': the parameters as asked, leaving out single-valued defaults (tokens 1, spread)
    unless `defaults`; N is always named."""
    by_name = {p.name: p for p in workload.params}
    order = [p.name for p in workload.params]
    parts = []
    for k, v in sorted(params.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order)):
        p = by_name.get(k)
        if not defaults and k != "n" and p and p.default and len(p.default) == 1 and p.default[0] == v:
            continue
        name = param_name(k)
        value = p.words[v] if p and p.words and 0 <= v < len(p.words) else fmt_count(v)
        parts.append(f"{name} = {value}")
    return ", ".join(parts)


# -- the page's own files and the charts' JSON -------------------------------------------------
def asset(name: str) -> str:
    return resources.files("ringbench.present").joinpath("assets", name).read_text(encoding="utf-8")


def plotly_js() -> str:
    from plotly.offline import get_plotlyjs

    return get_plotlyjs()


def _nan_free(o):
    raise TypeError(f"not JSON: {o!r}")


def clean(obj):
    """NaN and infinity are not JSON: Plotly takes null for a missing value."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [clean(v) for v in obj]
    return obj


def json_script(fid: str, fig: dict) -> str:
    """A chart's figure as JSON safe inside a <script> element."""
    text = json.dumps(clean(fig), ensure_ascii=False, allow_nan=False, default=_nan_free).replace("</", "<\\/")
    return f"<script type='application/json' id='{fid}-data'>{text}</script>"


def chart_box(fid: str, title: str, caption: str) -> str:
    return (
        f"<figure class='chart-box'><h3>{e(title)}</h3><div class='chart' id='{fid}' "
        f"data-spec='{fid}-data'></div><figcaption>{caption}</figcaption></figure>"
    )
