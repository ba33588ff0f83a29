"""The conformance suite: every built driver against the same vectors (docs/driver-contract.md).

A driver that cannot prove its count is not measured: these tests are the gate.
"""
import json
import os
import subprocess

import pytest

from conftest import real_drivers

DRIVERS = real_drivers()
IDS = [d.name for d in DRIVERS]

RING_VECTORS = [  # (n, m, tokens)
    (1, 1, 1), (2, 1, 1), (3, 3, 1), (1000, 7, 1), (10000, 1, 1), (1, 5, 1), (2, 2, 2),
    (7, 13, 3), (5, 2, 5), (100, 10, 4),
]
BAD_PARAMS = [  # (args after `run`, expected kind)
    (["ring", "n=0", "m=1"], "bad_param"),
    (["ring", "n=-1", "m=1"], "bad_param"),
    (["ring", "n=abc", "m=1"], "bad_param"),
    (["ring", "n=1.5", "m=1"], "bad_param"),
    (["ring", "n=", "m=1"], "bad_param"),
    (["ring", "m=1"], "bad_param"),
    (["ring", "n=3", "m=0"], "bad_param"),
    (["ring", "n=3", "m=2", "colour=3"], "bad_param"),
    (["ring", "n=3", "m=2", "tokens=4"], "bad_param"),
    (["ring", "n=3", "m=2", "tokens=0"], "bad_param"),
    (["ring", "n=20000000", "m=1"], "bad_param"),
    (["no-such-workload", "n=3", "m=1"], "unknown_workload"),
]


def invoke(d, *args, timeout=300):
    env = {**os.environ, **d.environ(2, 262144)}
    p = subprocess.run(d.argv(2, 262144) + list(args), capture_output=True, text=True, timeout=timeout,
                       env=env, cwd=d.folder)
    records = [json.loads(line) for line in p.stdout.splitlines() if line.strip()]
    return p.returncode, records, p.stderr


def test_some_driver_is_built():
    assert DRIVERS, "no driver is built: run `make setup`"


@pytest.mark.parametrize("d", DRIVERS, ids=IDS)
def test_describe(d):
    code, recs, err = invoke(d, "describe")
    assert code == 0, err
    assert len(recs) == 1 and recs[0]["type"] == "describe"
    desc = recs[0]
    assert desc["contract"] == 1
    assert desc["name"] == d.base
    assert desc["variant"] == d.variant
    assert desc["version"]
    assert "ring" in desc["workloads"]


@pytest.mark.parametrize("d", DRIVERS, ids=IDS)
@pytest.mark.parametrize("n,m,tokens", RING_VECTORS)
def test_ring_count_is_exact(d, n, m, tokens):
    code, recs, err = invoke(d, "run", "ring", f"n={n}", f"m={m}", f"tokens={tokens}", "cores=2")
    assert code == 0, (recs, err)
    results = [r for r in recs if r["type"] == "result"]
    assert len(results) == 1
    r = results[0]
    assert (r["workload"], r["n"], r["m"], r["tokens"], r["iteration"]) == ("ring", n, m, tokens, 1)
    assert r["count"] == n * m * tokens
    for f in ("setup_ns", "run_ns", "setup_cpu_ns", "run_cpu_ns", "rss_before", "rss_after"):
        assert isinstance(r[f], int) and r[f] >= 0, f
    assert r["run_ns"] > 0 and r["rss_before"] > 0


@pytest.mark.parametrize("d", DRIVERS, ids=IDS)
def test_repeats_and_warmup(d):
    code, recs, err = invoke(d, "run", "ring", "n=50", "m=3", "repeats=3", "warmup=2", "cores=2")
    assert code == 0, err
    results = [r for r in recs if r["type"] == "result"]
    assert [r["iteration"] for r in results] == [1, 2, 3]
    assert all(r["count"] == 150 for r in results)


@pytest.mark.parametrize("d", DRIVERS, ids=IDS)
@pytest.mark.parametrize("args,kind", BAD_PARAMS, ids=[" ".join(a) for a, _ in BAD_PARAMS])
def test_bad_input_gives_error_record(d, args, kind):
    code, recs, _ = invoke(d, "run", *args)
    assert code == 2
    assert recs and recs[-1]["type"] == "error" and recs[-1]["kind"] == kind, recs
    assert recs[-1]["message"]
    assert not [r for r in recs if r["type"] == "result"]


@pytest.mark.parametrize("d", DRIVERS, ids=IDS)
def test_no_verb_is_bad_param(d):
    code, recs, _ = invoke(d)
    assert code == 2 and recs[-1]["kind"] == "bad_param"
