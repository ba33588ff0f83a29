"""Statistics over raw driver records. Pure functions: no I/O, no printing.

Every figure ringbench shows is derived here from the stored raw records, so a
table, an export and a comparison can never disagree.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Summary:
    median: float
    low: float  # minimum
    high: float  # maximum
    mad: float  # median absolute deviation
    count: int


def summarize(values: Iterable[float]) -> Summary:
    a = np.asarray(list(values), dtype=float)
    if a.size == 0:
        raise ValueError("no values to summarize")
    med = float(np.median(a))
    return Summary(med, float(a.min()), float(a.max()), float(np.median(np.abs(a - med))), int(a.size))


# -- uncertainty ------------------------------------------------------------------
BOOTSTRAP_RESAMPLES = 2000
CONFIDENCE = 0.95


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
    with np.errstate(divide="ignore", invalid="ignore"):  # a median of 0 (perf: no iteration in a sample)
        ratios = ma / mb
        if np.isnan(ratios).all():
            return float("nan"), float("nan")
        lo, hi = np.nanquantile(ratios, [(1 - CONFIDENCE) / 2, (1 + CONFIDENCE) / 2])  # inf - inf between two
    return float(lo), float(hi)


ALPHA = 0.05
# With fewer values a side, no two-sided Mann-Whitney U test can reach p < 0.05 reliably
# (4 against 4 cannot go below 0.029, and one outlier decides it); benchstat asks for the same.
MIN_REPEATS_FOR_TEST = 5


@dataclass(frozen=True)
class Difference:
    ratio: float  # median(b) / median(a)
    ratio_ci: tuple[float, float]
    p_value: float | None  # Mann-Whitney U, two-sided; None with too few values to test
    significant: bool | None  # p < ALPHA; None: too few values to tell

    def verdict(self, lower_is_better: bool = True) -> str:
        if self.significant is None:
            return f"too few repeats to tell (a test needs {MIN_REPEATS_FOR_TEST} a side)"
        if not self.significant:
            return "no significant difference"
        better = (self.ratio < 1) == lower_is_better
        return f"{'better' if better else 'worse'} ({(self.ratio - 1) * 100:+.1f} %)"


def compare(a: Iterable[float], b: Iterable[float]) -> Difference:
    """Is b different from a? One test everywhere (run, compare, report): the two-sided Mann-Whitney U
    test on the repeats (no assumption of normal timings; benchstat's choice), significant when
    p < 0.05, and only with at least MIN_REPEATS_FOR_TEST values on each side. The ratio of medians
    and its bootstrap 95 % interval say how large the difference is."""
    from scipy.stats import mannwhitneyu

    a, b = list(a), list(b)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = float(np.median(b) / np.median(a))
    ci = bootstrap_ratio_ci(b, a) if len(a) > 1 and len(b) > 1 else (ratio, ratio)
    if min(len(a), len(b)) < MIN_REPEATS_FOR_TEST:
        return Difference(ratio, ci, None, None)
    p = float(mannwhitneyu(a, b, alternative="two-sided").pvalue)
    return Difference(ratio, ci, p, p < ALPHA)


def cv(values: Iterable[float]) -> float:
    """Coefficient of variation (sample standard deviation / mean)."""
    a = np.asarray(list(values), float)
    if a.size < 2 or a.mean() == 0:
        return 0.0
    return float(a.std(ddof=1) / a.mean())
