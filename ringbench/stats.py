"""Statistics over raw driver records. Pure functions: no I/O, no printing.

Every figure ringbench shows is derived here from the stored raw records, so a
table, an export and a comparison can never disagree.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

import numpy as np


@dataclass(frozen=True)
class Summary:
    median: float
    low: float      # minimum
    high: float     # maximum
    mad: float      # median absolute deviation
    count: int

    @property
    def spread_pct(self) -> float:
        """(max − min) / median, in %: how far apart the repeats were."""
        return 100.0 * (self.high - self.low) / self.median if self.median else 0.0


def summarize(values: Iterable[float]) -> Summary:
    a = np.asarray(list(values), dtype=float)
    if a.size == 0:
        raise ValueError("no values to summarize")
    med = float(np.median(a))
    return Summary(med, float(a.min()), float(a.max()), float(np.median(np.abs(a - med))), int(a.size))


# -- per-record metrics (ring) ------------------------------------------------
def ns_per_hop(rec: Mapping) -> float:
    return rec["run_ns"] / rec["count"]


def spawn_us_per_process(rec: Mapping) -> float:
    return rec["setup_ns"] / rec["n"] / 1e3


def cpu_per_wall(rec: Mapping) -> float:
    """CPU time over wall time of the message phase: >1 means several cores busy."""
    return rec["run_cpu_ns"] / rec["run_ns"] if rec["run_ns"] else 0.0


def rss_bytes_per_process(rec: Mapping) -> float:
    return (rec["rss_after"] - rec["rss_before"]) / rec["n"]


def relative_pct(medians: Mapping[str, float]) -> dict[str, float]:
    """Throughput relative to the fastest (lowest time) row: fastest = 100 %, half as fast = 50 %."""
    best = min(medians.values())
    return {k: 100.0 * best / v if v else 0.0 for k, v in medians.items()}
