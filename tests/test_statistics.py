"""Statistics and the continuous/squeeze arithmetic, against known answers."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ringbench.harness.protocol import DriverFailed, check_samples
from ringbench.results import sampling, stats


def test_summary_of_known_values():
    s = stats.summarize([3, 1, 2, 10])
    assert (s.median, s.low, s.high, s.count) == (2.5, 1, 10, 4)
    assert s.mad == 1.0  # |3-2.5|,|1-2.5|,|2-2.5|,|10-2.5| = .5,1.5,.5,7.5 -> median 1.0


def test_bootstrap_interval_of_constant_data_is_that_constant():
    assert stats.bootstrap_median_ci([7.0] * 6) == (7.0, 7.0)


@given(st.lists(st.floats(1, 1e6), min_size=2, max_size=30))
def test_bootstrap_interval_lies_within_the_data(values):
    lo, hi = stats.bootstrap_median_ci(values)
    assert min(values) <= lo <= hi <= max(values)


def test_separated_samples_are_significant_and_overlapping_are_not():
    fast, slow = [100, 101, 99, 100, 102], [200, 199, 201, 202, 200]
    d = stats.compare(fast, slow)
    assert d.significant and d.ratio == 2.0 and d.verdict() == "worse (+100.0 %)"
    assert d.p_value < 0.05
    noisy = stats.compare([100, 150, 90, 120, 110], [105, 140, 95, 115, 125])
    assert not noisy.significant and noisy.verdict() == "no significant difference"


def test_cv():
    assert stats.cv([10, 10, 10]) == 0
    assert stats.cv([9, 11]) == pytest.approx(1.41421356 / 10, rel=1e-6)


def sample(seq, elapsed, count, process=1):
    return {"seq": seq, "elapsed_ns": elapsed, "count": count, "process": process}


def test_rates_skip_the_warmup_sample():
    s = [sample(1, 1_000, 500), sample(2, 2_000, 1_500), sample(3, 3_000, 2_000)]
    assert sampling.intervals(s) == [(1000, 1000), (500, 1000)]
    assert sampling.rates(s) == [1e9, 5e8]
    d = sampling.describe_samples(s)
    assert d["counted_samples"] == 2 and d["ns_per_hop"] == 2000 / 1500 and not d["slower_than_one_sample"]


def test_a_sample_with_no_lap_is_reported_as_slow_not_zero():
    s = [sample(1, 1_000, 0), sample(2, 2_000, 0), sample(3, 3_000, 10)]
    d = sampling.describe_samples(s)
    assert d["slower_than_one_sample"]


@pytest.mark.parametrize(
    "bad,words",
    [
        ([sample(1, 1000, 10), sample(2, 900, 20)], "backwards"),
        ([sample(1, 1000, 20), sample(2, 2000, 10)], "backwards"),
        ([sample(1, 1000, 10), sample(2, 1001, 10_000)], "impossibly fast"),
        ([sample(1, 1000, 7), sample(2, 2000, 20)], "whole number of laps"),
    ],
)
def test_unbelievable_samples_are_rejected(bad, words):
    with pytest.raises(DriverFailed, match=words):
        check_samples(bad, 10, len(bad))


def test_squeeze_stops_after_threshold_steps_clearly_below_the_peak():
    sq = sampling.Squeeze(threshold=3)
    steps = {
        1: [100, 101, 99],
        2: [200, 201, 199],
        3: [300, 301, 299],
        4: [250, 251, 249],
        5: [240, 241, 239],
        6: [230, 231, 229],
        7: [500, 500, 500],
    }
    stopped_at = next(k for k, r in steps.items() if sq.add(k, r))
    assert stopped_at == 6
    assert sq.report()["peak_concurrency"] == 3
    assert "fell short" in sq.report()["stopped_because"]


def test_squeeze_does_not_stop_on_one_noisy_peak():
    # Step 2 has one lucky sample. A plain "no growth for 3 steps" rule stops at step 5 with
    # peak 2; here steps within the spread do not count against the peak, and real growth later
    # (step 6) is found.
    sq = sampling.Squeeze(threshold=3)
    steps = {
        1: [100, 100, 100],
        2: [200, 200, 400],
        3: [230, 231, 229],
        4: [232, 233, 231],
        5: [235, 236, 234],
        6: [600, 600, 600],
        7: [300, 301, 299],
        8: [300, 301, 299],
        9: [300, 300, 300],
    }
    stopped_at = next(k for k, r in steps.items() if sq.add(k, r))
    assert sq.report()["peak_concurrency"] == 6
    assert stopped_at == 9


def test_squeeze_ends_on_a_plateau():
    sq = sampling.Squeeze(threshold=2)
    results = [sq.add(k, [100 + k * 0.1, 100.5 + k * 0.1, 99.5 + k * 0.1]) for k in range(1, 10)]
    assert results.index(True) == 4  # 1 sets the peak, then 4 steps without significant growth
    assert "plateau" in sq.report()["stopped_because"]


def test_a_ratio_over_a_zero_median_warns_nothing():
    """perf: a sample interval without an iteration makes a median 0; the ratio's interval is open, quietly."""
    import warnings

    from ringbench.results import stats

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lo, hi = stats.bootstrap_ratio_ci([1.0, 2.0, 3.0], [0.0, 0.0, 1.0])
        d = stats.compare([0.0, 0.0, 1.0, 0.0, 0.0], [1.0, 2.0, 3.0, 4.0, 5.0])
    assert lo >= 1.0 and d.ratio == float("inf")


# -- known values: exact or hand-worked, and the process as the unit ------------------------------
def test_mann_whitney_p_is_the_exact_value_for_separated_samples():
    # 5 against 5 with no overlap: of the C(10, 5) = 252 equally likely splits, 2 are as extreme
    # (two-sided), so p = 2/252 exactly (no ties, so the exact distribution applies).
    d = stats.compare([1.0, 2, 3, 4, 5], [6.0, 7, 8, 9, 10])
    assert d.p_value == pytest.approx(2 / 252, rel=1e-9)
    assert d.significant and d.unit == "repeat"


def test_mann_whitney_p_agrees_with_scipy_on_overlapping_samples():
    from scipy.stats import mannwhitneyu

    a, b = [3.1, 4.7, 2.2, 5.9, 4.4, 3.3], [4.0, 6.1, 5.2, 7.4, 3.9]
    assert stats.compare(a, b).p_value == mannwhitneyu(a, b, alternative="two-sided").pvalue


def _exact_bootstrap_median_quantile(n: int, q: float) -> int:
    """The q-quantile (1-based rank) of the median of n draws with replacement from n distinct values,
    from the binomial law: P(median <= x_(k)) = P(at least (n+1)/2 draws are <= x_(k))."""
    from math import comb

    for k in range(1, n + 1):
        p = k / n
        cdf = sum(comb(n, j) * p**j * (1 - p) ** (n - j) for j in range((n + 1) // 2, n + 1))
        if cdf >= q:
            return k
    return n


def test_seeded_bootstrap_interval_matches_the_exact_bootstrap_distribution():
    # 11 distinct values, x_(k) = k. The 2.5 % and 97.5 % points of the exact law lie well inside a
    # step of it (P(med <= 2) = 0.0072, P(med <= 3) = 0.0512; P(med <= 8) = 0.9488, P(med <= 9) =
    # 0.9928), so 2,000 seeded draws find them whatever the seed.
    values = [float(v) for v in range(1, 12)]
    lo, hi = stats.bootstrap_median_ci(values)
    assert (lo, hi) == (_exact_bootstrap_median_quantile(11, 0.025), _exact_bootstrap_median_quantile(11, 0.975))
    assert (lo, hi) == (3.0, 9.0)
    assert stats.bootstrap_median_ci(values) == (lo, hi)  # seeded: the same data, the same interval


def test_hierarchical_bootstrap_resamples_processes_first():
    # Two processes, each constant: the processes are drawn (1,1), (1,5), (5,1), (5,5) with chance 1/4
    # each, and the pooled median is then 1, 3, 3 or 5: P = 1/4, 1/2, 1/4. A bootstrap of the six
    # values as if independent gives 22/64, 20/64, 22/64 instead.
    import numpy as np

    meds = stats._hierarchical_medians([[1.0] * 3, [5.0] * 3], np.random.default_rng(1))
    share = {v: float(np.mean(meds == v)) for v in (1.0, 3.0, 5.0)}
    assert share[3.0] == pytest.approx(0.5, abs=0.04) and share[1.0] == pytest.approx(0.25, abs=0.04)
    assert set(np.unique(meds)) == {1.0, 3.0, 5.0}


def test_hierarchical_interval_is_wider_than_the_flat_one_when_processes_differ():
    groups = [[100.0, 100.5, 99.5, 100.2], [110.0, 110.4, 109.6, 110.1], [104.0, 104.3, 103.8, 104.1]]
    flat_lo, flat_hi = stats.bootstrap_median_ci(stats.pooled(groups))
    lo, hi = stats.hierarchical_median_ci(groups)
    assert hi - lo > flat_hi - flat_lo
    assert lo <= 100.5 and hi >= 109.6  # a whole process either way is a possible draw


def test_welch_on_logs_matches_the_formula():
    import numpy as np
    from scipy.stats import t as student_t

    a, b = [100.0, 104.0, 98.0], [120.0, 131.0, 118.0, 125.0]
    la, lb = np.log(a), np.log(b)
    va, vb = la.var(ddof=1) / len(a), lb.var(ddof=1) / len(b)
    t = (la.mean() - lb.mean()) / np.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    assert stats.welch_log_p(a, b) == pytest.approx(2 * student_t.sf(abs(t), df), rel=1e-9)


def test_the_process_is_the_unit_of_the_test():
    # Ten repeats a side, but from two processes each: no test can tell ("?"), however separated.
    a2 = [[100.0, 101, 99, 100, 102], [98.0, 99, 97, 98, 100]]
    b2 = [[200.0, 199, 201, 202, 200], [190.0, 191, 189, 192, 190]]
    d = stats.compare_processes(a2, b2)
    assert d.significant is None and d.p_value is None and d.ratio == pytest.approx(1.96, rel=0.02)
    assert d.verdict() == "too few processes to tell (a test needs 3 a side)"
    # The same repeats counted as independent would have claimed it.
    assert stats.compare(stats.pooled(a2), stats.pooled(b2)).significant
    # Three processes a side, separated: significant, p from the per-process medians.
    a3, b3 = [*a2, [101.0, 100, 102]], [*b2, [195.0, 196, 194]]
    d3 = stats.compare_processes(a3, b3)
    assert d3.significant and d3.p_value == stats.welch_log_p(stats.process_medians(a3), stats.process_medians(b3))
    lo, hi = d3.ratio_ci
    assert lo <= d3.ratio <= hi


def test_processes_that_disagree_are_not_significant_however_many_repeats():
    # Within each process the repeats are tight, but the processes scatter: the per-process medians
    # overlap, so the difference is not significant even with 20 repeats a process.
    a = [[100.0 + i * 0.01 for i in range(20)], [130.0] * 20, [90.0] * 20]
    b = [[110.0] * 20, [95.0] * 20, [125.0 + i * 0.01 for i in range(20)]]
    assert stats.compare_processes(a, b).significant is False
    assert stats.compare(stats.pooled(a), stats.pooled(b)).significant is not None


def test_process_spread():
    assert stats.process_spread([[100.0, 100], [110.0, 110], [105.0]]) == pytest.approx(10 / 105)
    assert stats.process_spread([[1.0, 2.0, 3.0]]) is None
