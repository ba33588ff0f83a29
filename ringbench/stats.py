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


def relative_pct(medians: Mapping[str, float]) -> dict[str, float]:
    """Throughput relative to the fastest (lowest time) row: fastest = 100 %, half as fast = 50 %."""
    best = min(medians.values())
    return {k: 100.0 * best / v if v else 0.0 for k, v in medians.items()}


# -- uncertainty ------------------------------------------------------------------
BOOTSTRAP_RESAMPLES = 2000
CONFIDENCE = 0.95
MIN_REPEATS_FOR_CI = 5


def _rng() -> np.random.Generator:
    return np.random.default_rng(20261123)  # fixed: the same data always gives the same interval


def bootstrap_median_ci(values: Iterable[float]) -> tuple[float, float]:
    """Percentile bootstrap 95 % interval of the median."""
    a = np.asarray(list(values), dtype=float)
    if a.size < 2:
        return (float(a[0]), float(a[0])) if a.size else (float("nan"), float("nan"))
    meds = np.median(_rng().choice(a, size=(BOOTSTRAP_RESAMPLES, a.size), replace=True), axis=1)
    lo, hi = np.quantile(meds, [(1 - CONFIDENCE) / 2, (1 + CONFIDENCE) / 2])
    return float(lo), float(hi)


def bootstrap_ratio_ci(num: Iterable[float], den: Iterable[float]) -> tuple[float, float]:
    """95 % interval of median(num) / median(den), resampling both sides independently."""
    a, b = np.asarray(list(num), float), np.asarray(list(den), float)
    rng = _rng()
    ma = np.median(rng.choice(a, size=(BOOTSTRAP_RESAMPLES, a.size)), axis=1)
    mb = np.median(rng.choice(b, size=(BOOTSTRAP_RESAMPLES, b.size)), axis=1)
    lo, hi = np.quantile(ma / mb, [(1 - CONFIDENCE) / 2, (1 + CONFIDENCE) / 2])
    return float(lo), float(hi)


@dataclass(frozen=True)
class Difference:
    ratio: float                  # median(b) / median(a)
    ratio_ci: tuple[float, float]
    p_value: float | None         # Mann-Whitney U, two-sided (None with fewer than 2 values a side)
    significant: bool             # the two medians' 95 % bootstrap intervals do not overlap

    def verdict(self, lower_is_better: bool = True) -> str:
        if not self.significant:
            return "no significant difference"
        better = (self.ratio < 1) == lower_is_better
        return f"{'better' if better else 'worse'} ({(self.ratio - 1) * 100:+.1f} %)"


def compare(a: Iterable[float], b: Iterable[float]) -> Difference:
    """Is b different from a? Decided by non-overlapping 95 % bootstrap intervals of the medians
    (conservative with few repeats: then the intervals span nearly the whole range);
    the Mann-Whitney U p-value is reported beside it."""
    from scipy.stats import mannwhitneyu

    a, b = list(a), list(b)
    ci_a, ci_b = bootstrap_median_ci(a), bootstrap_median_ci(b)
    p = float(mannwhitneyu(a, b, alternative="two-sided").pvalue) if len(a) >= 2 and len(b) >= 2 else None
    significant = ci_a[1] < ci_b[0] or ci_b[1] < ci_a[0]
    return Difference(float(np.median(b) / np.median(a)), bootstrap_ratio_ci(b, a), p, significant)


def cv(values: Iterable[float]) -> float:
    """Coefficient of variation (sample standard deviation / mean)."""
    a = np.asarray(list(values), float)
    if a.size < 2 or a.mean() == 0:
        return 0.0
    return float(a.std(ddof=1) / a.mean())
