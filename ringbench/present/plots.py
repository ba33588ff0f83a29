"""`ringbench plot`: one chart of a stored run written as PNG or SVG.

The chart's data and the kinds are charts.py's; the drawing is draw_mpl's; the report draws the same
charts with Plotly (draw_plotly), so a runtime looks the same in every chart of both.

    from ringbench.present import plots
    plots.plot(run.cells, "hops-vs-n", Path("hops.png"))
"""

from __future__ import annotations

from pathlib import Path

from ..results.model import Cell
from . import charts, draw_mpl
from .charts import PlotError
from .style import base

__all__ = ["PlotError", "default_kind_for", "plot"]


def default_kind_for(cells: list[Cell]) -> str:
    """The kind that shows these cells best (charts.default_kind)."""
    return charts.default_kind(cells)


def plot(
    cells: list[Cell],
    kind: str,
    out: Path,
    runtime: str | None = None,
    fixed_n: int | None = None,
    fixed_m: int | None = None,
) -> Path:
    """Draw one kind of chart of the cells (of `runtime` alone, or its family, when given) into `out`."""
    cells = [c for c in cells if c.ok]
    if runtime:
        cells = [c for c in cells if c.runtime == runtime or base(c.runtime) == runtime]
    if not cells:
        raise PlotError("no measured cells to plot" + (f" for {runtime}" if runtime else ""))
    fig = draw_mpl.draw(charts.build(cells, kind, fixed_n, fixed_m))
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(out, dpi=110, bbox_inches="tight")
    finally:
        draw_mpl.close(fig)
    return out
