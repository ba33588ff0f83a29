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


@pytest.mark.parametrize("bad,words", [
    ([sample(1, 1000, 10), sample(2, 900, 20)], "backwards"),
    ([sample(1, 1000, 20), sample(2, 2000, 10)], "backwards"),
    ([sample(1, 1000, 10), sample(2, 1001, 10_000)], "impossibly fast"),
    ([sample(1, 1000, 7), sample(2, 2000, 20)], "whole number of laps"),
])
def test_unbelievable_samples_are_rejected(bad, words):
    with pytest.raises(DriverFailed, match=words):
        check_samples(bad, 10, len(bad))


def test_squeeze_stops_after_threshold_steps_clearly_below_the_peak():
    sq = sampling.Squeeze(threshold=3)
    steps = {1: [100, 101, 99], 2: [200, 201, 199], 3: [300, 301, 299], 4: [250, 251, 249],
             5: [240, 241, 239], 6: [230, 231, 229], 7: [500, 500, 500]}
    stopped_at = next(k for k, r in steps.items() if sq.add(k, r))
    assert stopped_at == 6
    assert sq.report()["peak_concurrency"] == 3
    assert "fell short" in sq.report()["stopped_because"]


def test_squeeze_does_not_stop_on_one_noisy_peak():
    # Step 2 has one lucky sample. A plain "no growth for 3 steps" rule stops at step 5 with
    # peak 2; here steps within the spread do not count against the peak, and real growth later
    # (step 6) is found.
    sq = sampling.Squeeze(threshold=3)
    steps = {1: [100, 100, 100], 2: [200, 200, 400], 3: [230, 231, 229], 4: [232, 233, 231],
             5: [235, 236, 234], 6: [600, 600, 600], 7: [300, 301, 299], 8: [300, 301, 299], 9: [300, 300, 300]}
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
