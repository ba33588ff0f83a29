"""Statistics over raw driver records. Pure functions: no I/O, no printing.

Every figure ringbench shows is derived here from the stored raw records, so a
table, an export and a comparison can never disagree.

numpy and scipy are imported inside the functions that use them: every command imports this
module, and one that computes no figure (`--help`, `history`, a run until its first warm-up)
need not load them.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class Summary:
    median: float
    low: float  # minimum
    high: float  # maximum
    mad: float  # median absolute deviation
    count: int


def summarize(values: Iterable[float]) -> Summary:
    import numpy as np

    a = np.asarray(list(values), dtype=float)
    if a.size == 0:
        raise ValueError("no values to summarize")
    med = float(np.median(a))
    return Summary(med, float(a.min()), float(a.max()), float(np.median(np.abs(a - med))), int(a.size))


# -- uncertainty ------------------------------------------------------------------
BOOTSTRAP_RESAMPLES = 2000
CONFIDENCE = 0.95


def _rng() -> np.random.Generator:
    import numpy as np

    return np.random.default_rng(20261123)  # fixed: the same data always gives the same interval


def bootstrap_median_ci(values: Iterable[float]) -> tuple[float, float]:
    """Percentile bootstrap 95 % interval of the median."""
    import numpy as np

    a = np.asarray(list(values), dtype=float)
    if a.size < 2:
        return (float(a[0]), float(a[0])) if a.size else (float("nan"), float("nan"))
    meds = np.median(_rng().choice(a, size=(BOOTSTRAP_RESAMPLES, a.size), replace=True), axis=1)
    lo, hi = np.quantile(meds, [(1 - CONFIDENCE) / 2, (1 + CONFIDENCE) / 2])
    return float(lo), float(hi)


def bootstrap_ratio_ci(num: Iterable[float], den: Iterable[float]) -> tuple[float, float]:
    """95 % interval of median(num) / median(den), resampling both sides independently."""
    import numpy as np

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
    p_value: float | None  # two-sided (compare: Mann-Whitney U; compare_processes: Welch); None: too few to test
    significant: bool | None  # p < ALPHA; None: too few values to tell
    unit: str = "repeat"  # what the test counted: "process" (timed cells) or "repeat" (samples of one process)

    @property
    def needed(self) -> int:
        """How many units a side the test needs."""
        return MIN_PROCESSES_FOR_TEST if self.unit == "process" else MIN_REPEATS_FOR_TEST

    def verdict(self, lower_is_better: bool = True) -> str:
        if self.significant is None:
            units = "processes" if self.unit == "process" else "repeats"
            return f"too few {units} to tell (a test needs {self.needed} a side)"
        if not self.significant:
            return "no significant difference"
        better = (self.ratio < 1) == lower_is_better
        return f"{'better' if better else 'worse'} ({(self.ratio - 1) * 100:+.1f} %)"


def compare(a: Iterable[float], b: Iterable[float]) -> Difference:
    """Is b different from a? One test everywhere (run, compare, report): the two-sided Mann-Whitney U
    test on the repeats (no assumption of normal timings; benchstat's choice), significant when
    p < 0.05, and only with at least MIN_REPEATS_FOR_TEST values on each side. The ratio of medians
    and its bootstrap 95 % interval say how large the difference is."""
    import numpy as np
    from scipy.stats import mannwhitneyu

    a, b = list(a), list(b)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = float(np.median(b) / np.median(a))
    ci = bootstrap_ratio_ci(b, a) if len(a) > 1 and len(b) > 1 else (ratio, ratio)
    if min(len(a), len(b)) < MIN_REPEATS_FOR_TEST:
        return Difference(ratio, ci, None, None)
    p = float(mannwhitneyu(a, b, alternative="two-sided").pvalue)
    return Difference(ratio, ci, p, p < ALPHA)


# -- the fresh process as the unit ---------------------------------------------------------------
# Iterations of one driver process share its JIT decisions, heap layout and scheduler placement, so
# they are not independent draws of the runtime: the spread between fresh processes is the larger
# part of a runtime's variation (docs/statistics.md). Intervals resample processes first, then
# iterations within each chosen process (a two-stage, "hierarchical" bootstrap); the test compares
# the per-process medians. A Welch t-test on their logarithms can reach p < 0.05 with 3 processes a
# side where a rank test on 3 against 3 cannot go below p = 0.1 (Mann-Whitney's floor), and on the
# log scale a multiplicative change (what a faster runtime is) is a shift.
MIN_PROCESSES_FOR_TEST = 3
Groups = Sequence[Sequence[float]]


def _padded(groups: Groups) -> tuple[np.ndarray, np.ndarray]:
    """The groups as rows of one array, padded with NaN, and each row's length."""
    import numpy as np

    sizes = np.array([len(g) for g in groups])
    out = np.full((len(groups), int(sizes.max())), np.nan)
    for i, g in enumerate(groups):
        out[i, : len(g)] = g
    return out, sizes


def _hierarchical_medians(groups: Groups, rng: np.random.Generator) -> np.ndarray:
    """BOOTSTRAP_RESAMPLES medians of the pooled values of a two-stage resample: processes drawn with
    replacement, then each drawn process's values drawn with replacement from its own."""
    import numpy as np

    data, sizes = _padded(groups)
    p, width = data.shape
    chosen = rng.integers(p, size=(BOOTSTRAP_RESAMPLES, p))
    picks = np.floor(rng.random((BOOTSTRAP_RESAMPLES, p, width)) * sizes[chosen][..., None]).astype(int)
    drawn = data[chosen[..., None], picks]
    drawn[np.arange(width)[None, None, :] >= sizes[chosen][..., None]] = np.nan  # a shorter process's own size
    return np.nanmedian(drawn.reshape(BOOTSTRAP_RESAMPLES, -1), axis=1)


def _nonempty(groups: Groups) -> list[list[float]]:
    return [list(map(float, g)) for g in groups if len(g)]


def pooled(groups: Groups) -> list[float]:
    return [v for g in groups for v in g]


def hierarchical_median_ci(groups: Groups) -> tuple[float, float]:
    """95 % interval of the median of values grouped by driver process, processes resampled first."""
    import numpy as np

    groups = _nonempty(groups)
    values = pooled(groups)
    if len(values) < 2:
        return (values[0], values[0]) if values else (float("nan"), float("nan"))
    lo, hi = np.quantile(_hierarchical_medians(groups, _rng()), [(1 - CONFIDENCE) / 2, (1 + CONFIDENCE) / 2])
    return float(lo), float(hi)


def process_medians(groups: Groups) -> list[float]:
    """Each process's own median: the values the test compares."""
    import numpy as np

    return [float(np.median(g)) for g in _nonempty(groups)]


def process_spread(groups: Groups) -> float | None:
    """How far the processes' own medians lie apart, as a share of their median (None with one process)."""
    import numpy as np

    meds = process_medians(groups)
    if len(meds) < 2 or np.median(meds) == 0:
        return None
    return float((max(meds) - min(meds)) / np.median(meds))


def welch_log_p(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided p of Welch's t-test on the logarithms of two sets of positive values."""
    import numpy as np
    from scipy.stats import ttest_ind

    la, lb = np.log(np.asarray(a, float)), np.log(np.asarray(b, float))
    if la.std() == 0 and lb.std() == 0:  # no spread on either side: the difference is exact or absent
        return 1.0 if la.mean() == lb.mean() else 0.0
    with warnings.catch_warnings():  # nearly equal values: scipy warns of lost precision, the p stands
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(ttest_ind(la, lb, equal_var=False).pvalue)


def compare_processes(a: Groups, b: Groups) -> Difference:
    """Is b different from a, with the fresh driver process as the unit? The ratio of the pooled
    medians, its interval from the two-stage bootstrap of each side, and Welch's t-test on the log of
    the per-process medians, only with at least MIN_PROCESSES_FOR_TEST processes a side."""
    import numpy as np

    a, b = _nonempty(a), _nonempty(b)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = float(np.median(pooled(b)) / np.median(pooled(a)))
    if len(pooled(a)) > 1 and len(pooled(b)) > 1:
        rng = _rng()
        ma, mb = _hierarchical_medians(a, rng), _hierarchical_medians(b, rng)
        with np.errstate(divide="ignore", invalid="ignore"):
            lo, hi = np.nanquantile(mb / ma, [(1 - CONFIDENCE) / 2, (1 + CONFIDENCE) / 2])
        ci = (float(lo), float(hi))
    else:
        ci = (ratio, ratio)
    if min(len(a), len(b)) < MIN_PROCESSES_FOR_TEST:
        return Difference(ratio, ci, None, None, unit="process")
    p = welch_log_p(process_medians(a), process_medians(b))
    return Difference(ratio, ci, p, p < ALPHA, unit="process")


def cv(values: Iterable[float]) -> float:
    """Coefficient of variation (sample standard deviation / mean)."""
    import numpy as np

    a = np.asarray(list(values), float)
    if a.size < 2 or a.mean() == 0:
        return 0.0
    return float(a.std(ddof=1) / a.mean())
