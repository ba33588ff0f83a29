"""Is one cell different from another? The one test of every table, comparison and finding
(docs/statistics.md): with the fresh driver process as the unit where both cells' values come from fresh
processes, over the samples of one process otherwise."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import stats

if TYPE_CHECKING:  # a cell is read through its methods alone: no import of the model at run time
    from ..catalogue.workloads import Metric
    from .model import Cell


def difference(before: Cell, after: Cell, metric: Metric | None = None) -> stats.Difference:
    """`after` against `before`, by the headline figure or `metric`."""
    if before.mode_object.unit == after.mode_object.unit == "process":
        return stats.compare_processes(before.groups(metric), after.groups(metric))
    return stats.compare(before.values(metric), after.values(metric))
