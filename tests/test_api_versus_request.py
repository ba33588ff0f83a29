"""`api.versus` takes a request object (`api.VersusRequest`, the one `harness.versus.plan` checks); its keyword
form, which the command line and scripts/fidelity.py use, builds the same request and stores the same run."""

import json
import shlex
import sys

import pytest

from ringbench import api
from ringbench.harness import versus

PROG = f"{shlex.quote(sys.executable)} -S -c pass {{n}} {{m}}"


def timed(argv, env, cwd, cpu, timeout):
    """A wall clock for both sides (as test_versus's Clock): the driver's record is real and checked."""
    if "run" in argv:
        kv = dict(a.split("=", 1) for a in argv if "=" in a)
        n, m, k = int(kv["n"]), int(kv["m"]), int(kv["tokens"])
        rec = {"type": "result", "workload": "ring", "iteration": 1, "n": n, "m": m, "tokens": k, "burst": 0,
               "count": n * m * k, "ready": n, "setup_ns": 1, "run_ns": n * m * k * 100, "setup_cpu_ns": 1,
               "run_cpu_ns": 1, "rss_before": 1, "rss_after": 2}  # fmt: skip
        return versus.Timed(10**8 + n * m * k * 150, json.dumps(rec) + "\n", "", 0)
    return versus.Timed(10**7 + int(argv[-2]) * int(argv[-1]) * 100, "", "", 0)


def test_the_request_and_its_keyword_form_store_the_same_run(fake, monkeypatch, tmp_path):
    monkeypatch.setattr(versus, "run_timed", timed)
    fields = {"m": "10,100", "rounds": 2, "warmup_runs": 0, "env": ["X={cores}"], "label": "mine"}
    by_object = api.versus(api.VersusRequest("fake", PROG, "1000", **fields), db=tmp_path / "a.db")
    by_position = api.versus("fake", PROG, "1000", **fields, db=tmp_path / "b.db")
    by_keywords = api.versus(runtime="fake", program=PROG, n="1000", **fields, db=tmp_path / "c.db")  # fidelity.py's
    assert by_object.status == by_position.status == by_keywords.status == "complete"
    assert by_object.settings == by_position.settings == by_keywords.settings
    assert by_object.settings["versus"]["label"] == "mine"
    assert by_object.settings["versus"]["program_env"]["X"] == "{cores}"  # as given, filled in per run
    assert [c.runtime for c in by_object.cells] == ["fake", "program:mine"]


def test_a_bad_request_is_the_same_one_line_either_way_and_nothing_is_stored(tmp_path):
    db = tmp_path / "store.db"
    for call in (
        lambda: api.versus(api.VersusRequest("fake", PROG, "1000", m="100,10"), db=db),
        lambda: api.versus("fake", PROG, "1000", m="100,10", db=db),
    ):
        with pytest.raises(api.InputError, match="the long run must do more laps"):
            call()
    assert not db.exists()


def test_the_request_is_given_once():
    ask = api.VersusRequest("fake", PROG, 1000)
    with pytest.raises(TypeError, match="not both"):
        api.versus(ask, rounds=3)
    with pytest.raises(TypeError, match="'n'"):
        api.versus("fake", PROG)
    with pytest.raises(TypeError, match="no_such_field"):
        api.versus("fake", PROG, 1000, no_such_field=1)


def test_the_request_is_a_frozen_value():
    ask = api.VersusRequest("fake", PROG, 1000, rounds=3)
    with pytest.raises(AttributeError):
        ask.rounds = 4  # type: ignore[misc]
    assert ask == api.VersusRequest("fake", PROG, 1000, rounds=3)


def test_nodes_are_fields_of_the_request_refused_alike_either_way_for_a_driver_without_them(fake, tmp_path):
    from ringbench.harness import cluster

    db = tmp_path / "store.db"
    ask = api.VersusRequest("fake", PROG, "1000", m="10,100", nodes=2, node_placement="interleaved")
    assert (ask.nodes, ask.node_placement) == (2, "interleaved")
    for call in (
        lambda: api.versus(ask, db=db),
        lambda: api.versus("fake", PROG, "1000", m="10,100", nodes=2, node_placement="interleaved", db=db),
    ):
        with pytest.raises(api.InputError) as e:
            call()
        assert str(e.value) == cluster.no_nodes("fake", 2)
    with pytest.raises(api.InputError, match="give --nodes K"):
        api.versus("fake", PROG, "1000", m="10,100", node_placement="contiguous", db=db)
    assert not db.exists()
