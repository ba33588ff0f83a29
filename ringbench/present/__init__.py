"""Showing results: tables, exports, charts (plot, report), the seeds' published figures."""

from .charts import KINDS

# The kinds of `ringbench plot`, from the chart registry (charts.py imports no drawing library).
PLOT_KINDS = tuple(KINDS)
