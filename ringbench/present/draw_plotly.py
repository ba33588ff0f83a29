"""A chart as a Plotly figure (plain JSON: {"data": […], "layout": {…}}) for the HTML report: `draw(chart)`.

Panels side by side share the y axis where they share a unit; the legend sits outside on the right; buttons
switch the y axis between log and linear. A chart with published historical series puts today's series
and the published ones in two legend groups, so the two never read as one set of data.
Lines follow style.line_of, colours and markers style.styles, as `ringbench plot` does.
"""

from __future__ import annotations

import html
import math
from typing import Any

from .charts import Chart, Grid, PlotError, Point, Series
from .style import (
    FORMATTERS,
    Style,
    cores_text,
    fmt_count,
    fmt_ns,
    line_of,
    linear_ticks,
    log_span,
    log_ticks,
    styles,
    x_ticks,
)

NOW_GROUP = "measured now (this machine)"
THEN_GROUP = "published then (other machines)"
_FONT = {"family": "system-ui, -apple-system, Segoe UI, sans-serif", "size": 12}


def _e(x: object) -> str:
    return html.escape(str(x), quote=True)


def draw(ch: Chart, st: dict[str, Style] | None = None) -> dict:
    """The figure of any chart; `st`: the report's styles (default: the chart's runtimes' own)."""
    if ch.shape in ("heatmap", "surface"):
        return _heatmaps(ch)
    st = st if st is not None else styles(ch.runtimes(), ch.floors())
    return _dots(ch, st) if ch.shape == "dots" else _lines(ch, st)


def _ticks(values: list[float], unit: str, log: bool) -> dict:
    """An axis's ticks; on a log axis also its range when autorange would show fewer than two of them."""
    fmt = FORMATTERS[unit]
    pos = [v for v in values if v > 0 and math.isfinite(v)]
    if log and pos:
        ticks, lo, hi = log_span(pos)
        out: dict[str, Any] = {"tickmode": "array", "tickvals": ticks, "ticktext": [fmt(t) for t in ticks]}
        if len(log_ticks(min(pos), max(pos))) < 2 or sum(min(pos) <= t <= max(pos) for t in ticks) < 2:
            out["range"] = [math.log10(lo), math.log10(hi)]
        return out
    ticks = linear_ticks(max(values) if values else 1)
    return {"tickmode": "array", "tickvals": ticks, "ticktext": [fmt(t) for t in ticks]}


def _hover(ch: Chart, unit: str, ylabel: str, s: Series, p: Point) -> str:
    fy = FORMATTERS[unit]
    interval = "" if p.lo == p.hi else f"<br>{ch.interval}: {fy(p.lo)} – {fy(p.hi)}"
    return (
        f"<b>{_e(s.label)}</b><br>{_e(ch.xlabel.split(' (')[0])} = {fmt_count(p.x)}<br>"
        f"{_e(ylabel)}: <b>{fy(p.y)}</b>{interval}<br><span style='font-size:11px'>{_e(p.note)}</span>"
    )


def _trace(ch: Chart, unit: str, ylabel: str, s: Series, sty: Style, xaxis: str, yaxis: str, show: bool) -> dict:
    pts = sorted(s.points, key=lambda p: p.x)
    line = line_of(s.cores, sty.floor or s.floor, s.contrast, s.historical)
    t: dict[str, Any] = {
        "type": "scatter",
        "mode": "lines+markers",
        "name": s.label,
        "legendgroup": s.label,
        "showlegend": show,
        "x": [p.x for p in pts],
        "y": [p.y for p in pts],
        "xaxis": xaxis,
        "yaxis": yaxis,
        "line": {"color": sty.colour, "width": 1.4 if s.historical else 1.5 if sty.floor else 2, "dash": line.dash},
        "marker": {
            "symbol": sty.symbol + ("-open" if line.hollow else ""),
            "size": 6 if sty.floor else 8,
            "color": sty.colour,
            "line": {"color": sty.colour, "width": 1.5},
        },
        "hovertemplate": "%{customdata}<extra></extra>",
        "customdata": [_hover(ch, unit, ylabel, s, p) for p in pts],
    }
    if any(p.hi != p.lo for p in pts):
        t["error_y"] = {
            "type": "data",
            "symmetric": False,
            "array": [p.hi - p.y for p in pts],
            "arrayminus": [p.y - p.lo for p in pts],
            "color": sty.colour,
            "thickness": 1.2,
            "width": 3,
        }
    return t


def _log_linear_buttons(axes: list[tuple[str, dict, dict]], start_log: bool) -> list[dict]:
    """Buttons that switch every y axis (name, its log ticks, its linear ticks) between log and linear."""

    def args(kind: str, which: int) -> dict:
        a: dict[str, object] = {}
        for ax, *ticks in axes:
            a[f"{ax}.type"] = kind
            if "range" in ticks[which]:  # a narrow log axis keeps the range that shows its ticks
                a[f"{ax}.range"] = ticks[which]["range"]
            else:
                a[f"{ax}.autorange"] = True
            a[f"{ax}.tickvals"] = ticks[which]["tickvals"]
            a[f"{ax}.ticktext"] = ticks[which]["ticktext"]
        return a

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
            "buttons": [
                {"label": "log y", "method": "relayout", "args": [args("log", 0)]},
                {"label": "linear y", "method": "relayout", "args": [args("linear", 1)]},
            ],
            "font": {"size": 11},
        }
    ]


_AXIS = {"showgrid": True, "gridcolor": "#e6e6e6", "zeroline": False, "showline": True, "linecolor": "#999"}


def _lines(ch: Chart, st: dict[str, Style]) -> dict:
    k = len(ch.panels)
    if not k or not ch.series:
        raise PlotError("no measured cells fit this plot")
    gap = 0.04 if len({ch.panel_unit(p)[1] for p in ch.panels}) == 1 else 0.08
    width = (1 - gap * (k - 1)) / k
    historical = any(s.historical for s in ch.series)
    traces: list[dict] = []
    layout: dict[str, Any] = {}  # a Plotly layout (JSON)
    shown: set[str] = set()
    xs = [p.x for s in ch.series for p in s.points]
    xt = x_ticks(xs, ch.xlog)
    x_t = {"tickmode": "array", "tickvals": xt, "ticktext": [FORMATTERS[ch.xunit](t) for t in xt]}
    if historical:
        x_t = _ticks(xs, ch.xunit, True)
    first_of_unit: dict[str, str] = {}
    yaxes: list[tuple[str, dict, dict]] = []
    for i, panel in enumerate(ch.panels):
        sx = "" if i == 0 else str(i + 1)
        xa, ya = f"x{sx}", f"y{sx}"
        ylabel, unit = ch.panel_unit(panel)
        ys = [
            v
            for p2 in ch.panels
            if ch.panel_unit(p2)[1] == unit
            for s in p2.series
            for p in s.points
            for v in (p.lo, p.y, p.hi)
        ]
        log_t, lin_t = _ticks(ys, unit, True), _ticks(ys, unit, False)
        layout[f"xaxis{sx}"] = {
            "type": "log" if ch.xlog else "linear",
            "domain": [i * (width + gap), i * (width + gap) + width],
            "anchor": ya,
            "title": {"text": ch.xlabel},
            **x_t,
            **_AXIS,
            "ticks": "outside",
        }
        shares = first_of_unit.get(unit)
        layout[f"yaxis{sx}"] = {
            "type": "log" if ch.ylog else "linear",
            "anchor": xa,
            **(log_t if ch.ylog else lin_t),
            **_AXIS,
            "ticks": "outside",
            **({"matches": shares, "showticklabels": False} if shares else {"title": {"text": ylabel}}),
        }
        first_of_unit.setdefault(unit, ya)
        if not ch.ylog:
            layout[f"yaxis{sx}"]["rangemode"] = "tozero"
        yaxes.append((f"yaxis{sx}", log_t, lin_t))
        for s in panel.series:
            sty = s.style or st[s.runtime]
            t = _trace(ch, unit, ylabel, s, sty, xa, ya, s.label not in shown)
            if historical:
                group = THEN_GROUP if s.historical else NOW_GROUP
                t["legendgroup"] = group
                t["legendgrouptitle"] = {"text": f"<b>{group}</b>"}
            traces.append(t)
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
    height = min(900, max(460, 170 + 27 * len(traces))) if historical else min(900, max(440, 110 + 27 * len(shown)))
    layout.update(
        {
            "height": int(height),
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
            "font": _FONT,
            "paper_bgcolor": "white",
            "plot_bgcolor": "white",
            "updatemenus": _log_linear_buttons(yaxes, ch.ylog),
        }
    )
    return {"data": traces, "layout": layout}


def _dots(ch: Chart, st: dict[str, Style]) -> dict:
    """One x (one N): a row per series, its median as a marker with its interval, best first, the values
    on a horizontal axis; panels (tree: time and memory) one above the other. The rows name themselves, so
    there is no legend; colours and markers are the runtimes' own, open markers all cores."""
    panels = [p for p in ch.panels if p.series]
    if not panels:
        raise PlotError("no measured cells fit this plot")
    tall = [60 + 24 * len(p.series) for p in panels]  # px a panel's rows take
    gap = 80  # px between panels: the upper one's value axis and the lower one's title
    margin_t, margin_b = (40 if len(panels) > 1 else 20), 50
    area = sum(tall) + gap * (len(panels) - 1)
    height = area + margin_t + margin_b
    traces: list[dict] = []
    layout: dict[str, Any] = {}
    top = 1.0
    for i, panel in enumerate(panels):
        sx = "" if i == 0 else str(i + 1)
        xa, ya = f"x{sx}", f"y{sx}"
        ylabel, unit = ch.panel_unit(panel)
        bottom = max(0.0, top - tall[i] / area)
        vals = [v for s in panel.series for p in s.points for v in (p.lo, p.y, p.hi)]
        ticks = _ticks(vals, unit, ch.ylog)
        labels = [s.label for s in panel.series]
        layout[f"xaxis{sx}"] = {
            "type": "log" if ch.ylog else "linear",
            "anchor": ya,
            "title": {"text": ylabel, "standoff": 4},
            **ticks,
            **_AXIS,
            "ticks": "outside",
            **({} if ch.ylog else {"rangemode": "tozero"}),
        }
        layout[f"yaxis{sx}"] = {
            "type": "category",
            "anchor": xa,
            "domain": [bottom, top],
            "categoryorder": "array",
            "categoryarray": labels[::-1],  # the best at the top
            "range": [-0.6, len(labels) - 0.4],  # half a row of room above the top row and below the last
            "automargin": True,
            "tickfont": {"size": 11},
            **_AXIS,
        }
        if len(panels) > 1:
            layout.setdefault("annotations", []).append(
                {
                    "text": f"<b>{_e(panel.title)}</b>",
                    "xref": "paper",
                    "yref": "paper",
                    "x": 0.5,
                    "y": top,
                    "yanchor": "bottom",
                    "showarrow": False,
                    "font": {"size": 12},
                }
            )
        for s in panel.series:
            sty = s.style or st[s.runtime]
            line = line_of(s.cores, sty.floor or s.floor, s.contrast, s.historical)
            p = s.points[0]
            t: dict[str, Any] = {
                "type": "scatter",
                "mode": "markers",
                "name": s.label,
                "showlegend": False,
                "x": [p.y],
                "y": [s.label],
                "xaxis": xa,
                "yaxis": ya,
                "marker": {
                    "symbol": sty.symbol + ("-open" if line.hollow else ""),
                    "size": 9,
                    "color": sty.colour,
                    "line": {"color": sty.colour, "width": 1.5},
                },
                "hovertemplate": "%{customdata}<extra></extra>",
                "customdata": [_hover(ch, unit, ylabel, s, p)],
            }
            if p.hi != p.lo:
                t["error_x"] = {
                    "type": "data",
                    "symmetric": False,
                    "array": [p.hi - p.y],
                    "arrayminus": [p.y - p.lo],
                    "color": sty.colour,
                    "thickness": 1.2,
                    "width": 3,
                }
            traces.append(t)
        top = bottom - gap / area
    layout.update(
        {
            "height": int(height),
            "margin": {"l": 10, "r": 20, "t": margin_t, "b": margin_b},
            "showlegend": False,
            "hovermode": "closest",
            "hoverlabel": {"align": "left"},
            "font": _FONT,
            "paper_bgcolor": "white",
            "plot_bgcolor": "white",
        }
    )
    return {"data": traces, "layout": layout}


def _heatmaps(ch: Chart) -> dict:
    if ch.grid is None:
        raise PlotError(f"the {ch.key} chart has no N × M grid")
    g: Grid = ch.grid
    k = len(g.panels)
    cols = min(k, max(4, min(6, math.ceil(k / 3))))  # up to 18 panels in three rows: one screen high
    rows = math.ceil(k / cols)
    vals = [v for _, _, z in g.panels for row in z for v in row if v]
    lo, hi = math.log10(min(vals)), math.log10(max(vals))
    ticks = log_ticks(min(vals), max(vals))
    hgap, vgap = 0.035, min(0.12, 0.9 / (rows * 2.2 + 1))
    w = (1 - hgap * (cols - 1)) / cols
    h = (1 - vgap * (rows - 1)) / rows
    traces: list[dict] = []
    layout: dict[str, Any] = {}  # a Plotly layout (JSON)
    notes: list[dict] = []
    xs = [fmt_count(n) for n in g.ns]
    ys = [fmt_count(m) for m in g.ms]
    xname, yname = ch.xlabel.split(" (")[0], ch.ylabel.split(" (")[0]
    for i, (rt, cores, z) in enumerate(g.panels):
        r, c = divmod(i, cols)
        sx = "" if i == 0 else str(i + 1)
        x0, y1 = c * (w + hgap), 1 - r * (h + vgap)
        layout[f"xaxis{sx}"] = {
            "domain": [x0, x0 + w],
            "anchor": f"y{sx}",
            "type": "category",
            "tickfont": {"size": 10},
            **({"title": {"text": xname, "standoff": 2}} if r == rows - 1 else {}),
        }
        layout[f"yaxis{sx}"] = {
            "domain": [y1 - h, y1],
            "anchor": f"x{sx}",
            "type": "category",
            "tickfont": {"size": 10},
            **({"title": {"text": yname, "standoff": 2}} if c == 0 else {}),
        }
        text = [[fmt_ns(v) if v else "" for v in row] for row in z]
        hover = [
            [
                (
                    f"<b>{_e(rt)} · {cores_text(cores)}</b><br>N = {g.ns[j]:,}, M = {g.ms[i2]:,}<br>message phase: "
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
                "name": f"{rt} · {cores_text(cores)}",
            }
        )
        notes.append(
            {
                # family on one line, variant and cores on the next: long names stay inside a narrow panel
                "text": f"<b>{_e(rt.split('/')[0])}</b><br>"
                + " · ".join(x for x in (_e(rt.partition("/")[2]), cores_text(cores)) if x),
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
            "font": _FONT,
            "paper_bgcolor": "white",
            "plot_bgcolor": "white",
        }
    )
    return {"data": traces, "layout": layout}
