"""Showing results: tables, exports, charts (plot, report), the seeds' published figures."""

from .charts import KINDS
from .tables import fmt  # a figure in a few characters, as every table prints it (scripts use it too)

__all__ = ["PLOT_KINDS", "fmt"]

# The kinds of `ringbench plot`, from the chart registry (charts.py imports no drawing library).
PLOT_KINDS = tuple(KINDS)
