"""Rel %, the rules on the result model (the layout of the table is tests/test_tables_layout.py's):
rows are ranked only among rows that differ in the runtime alone, against a named reference, with
significance only from enough repeats. Exact, with fake drivers' fake clocks: 2 repeats give a Rel % (5 are
asked only where significance is checked)."""

import pytest

import ringbench
from ringbench import api
from ringbench.results.relative import ranked, relatives


def rel(run):
    """(runtime, cores, n) -> Relative for every ranked row of the run."""
    r = relatives(run.cells, run.baseline)
    return {(c.runtime, c.cores, c.params["n"]): r.get(i) for i, c in enumerate(run.cells)}


def test_rows_are_ranked_only_against_rows_that_differ_in_the_runtime_alone(zoo, db):
    run = ringbench.measure(
        "ring", "erlang,fastgo,floor,baton", grid=None, params={"n": "10,20", "m": 5}, cores="1,all", repeat=2, db=db
    )
    got = rel(run)
    for n in (10, 20):
        for cores in ("1", "all"):
            assert got[("erlang", cores, n)].is_reference  # the reference runtime of every group
            assert got[("fastgo", cores, n)].rel_pct == pytest.approx(200.0)
            assert got[("fastgo", cores, n)].reference == "erlang"
            assert got[("floor", cores, n)] is None  # the floor is never ranked
            assert got[("baton", cores, n)] is None  # a hand-off is not ranked against mailboxes
    assert [c.runtime for c in run.cells if not ranked(c)] == ["floor", "baton"] * 4


def test_without_erlang_the_reference_is_the_fastest_real_runtime_and_a_lone_row_has_none(zoo, db):
    run = ringbench.measure("ring", "rust-tokio,fastgo,floor", params={"n": 10, "m": 5}, repeat=2, db=db)
    got = rel(run)
    assert got[("fastgo", "all", 10)].is_reference
    assert got[("rust-tokio/current-thread", "all", 10)].rel_pct == pytest.approx(100 * 100 / 150)
    alone = ringbench.measure("ring", "fastgo", params={"n": 10, "m": 5}, repeat=2, db=db)
    assert rel(alone)[("fastgo", "all", 10)] is None


def test_a_named_baseline_is_the_reference_and_is_stored(zoo, db):
    run = ringbench.measure("ring", "erlang,fastgo", params={"n": 10, "m": 5}, repeat=2, baseline="fastgo", db=db)
    got = rel(run)
    assert got[("fastgo", "all", 10)].is_reference and got[("erlang", "all", 10)].rel_pct == pytest.approx(50.0)
    assert api.load(run.run_id, db).baseline == "fastgo"


@pytest.mark.parametrize(
    "baseline,words", [("nosuch", "not a runtime of this run"), ("floor", "never ranked"), ("baton", "hand-offs")]
)
def test_a_baseline_that_cannot_apply_is_bad_input_naming_why(zoo, db, baseline, words):
    with pytest.raises(api.InputError, match=words):
        ringbench.measure("ring", "erlang,fastgo,floor,baton", params={"n": 10, "m": 5}, baseline=baseline, db=db)
    assert not db.exists()
    run = ringbench.measure("ring", "erlang,fastgo,floor,baton", params={"n": 10, "m": 5}, repeat=1, db=db)
    with pytest.raises(api.InputError, match=words):
        api.with_baseline(run, baseline)


def test_tuned_variants_are_left_out_of_all_and_ranked_among_themselves(zoo, db):
    stock = ringbench.measure("ring", "all", params={"n": 10, "m": 5}, repeat=1, db=db)
    assert "beam/tuned" not in {c.runtime for c in stock.cells} and "beam/stock" in {c.runtime for c in stock.cells}
    both = ringbench.measure("ring", "erlang,beam", params={"n": 10, "m": 5}, repeat=2, tuned=True, db=db)
    got = rel(both)
    assert got[("erlang", "all", 10)].is_reference and got[("beam/stock", "all", 10)].rel_pct == pytest.approx(100)
    assert got[("beam/tuned", "all", 10)] is None  # alone in the tuned group: nothing to rank it against
    named = ringbench.measure("ring", "beam/tuned,erlang", params={"n": 10, "m": 5}, repeat=1, db=db)
    assert {c.runtime for c in named.cells} == {"beam/tuned", "erlang"}


def test_no_significance_from_fewer_than_five_repeats(zoo, db):
    few = ringbench.measure("ring", "erlang,fastgo", params={"n": 10, "m": 5}, repeat=2, db=db)
    assert rel(few)[("fastgo", "all", 10)].significant is None
    enough = ringbench.measure("ring", "erlang,fastgo", params={"n": 10, "m": 5}, repeat=5, db=db)
    assert rel(enough)[("fastgo", "all", 10)].significant is True
