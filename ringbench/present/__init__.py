"""Showing results: tables, exports, charts (plot, report), the seeds' published figures."""

from .tables import fmt  # a figure in a few characters, as every table prints it (scripts use it too)

__all__ = ["PLOT_KINDS", "fmt"]

PLOT_KINDS: tuple[str, ...]  # the kinds of `ringbench plot`, read from the chart registry when first asked for


def __getattr__(name: str) -> tuple[str, ...]:
    """PLOT_KINDS on first use: importing the registry (charts.py and the analysis it draws) here would load
    it for every command, `--help` included. (charts.py imports no drawing library either.)"""
    if name == "PLOT_KINDS":
        from .charts import KINDS

        globals()[name] = kinds = tuple(KINDS)
        return kinds
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
