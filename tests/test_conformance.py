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


FEATURES = {}


def features_of(d):
    if d.name not in FEATURES:
        FEATURES[d.name] = set(invoke(d, "describe")[1][0]["features"])
    return FEATURES[d.name]


@pytest.mark.parametrize("d", DRIVERS, ids=IDS)
@pytest.mark.parametrize("n,m,tokens", RING_VECTORS)
def test_ring_count_is_exact(d, n, m, tokens):
    if tokens > 1 and "tokens" not in features_of(d):
        # A driver may refuse K tokens at once, honestly, but then must say so.
        code, recs, _ = invoke(d, "run", "ring", f"n={n}", f"m={m}", f"tokens={tokens}", "cores=2")
        assert code == 2 and recs[-1]["kind"] == "unsupported"
        return
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


# -- the workload catalogue (issue: spawn, pingpong, fanin, selective, trace, continuous) -------
from ringbench.cli import check_trace  # noqa: E402
from ringbench import modes  # noqa: E402

REQUIRED_WORKLOADS = {"ring", "spawn", "pingpong", "fanin", "trace"}


def describe_of(d):
    _, recs, _ = invoke(d, "describe")
    return recs[0]


def only(d, workload):
    desc = describe_of(d)
    if workload not in desc["workloads"]:
        pytest.fail(f"{d.name} does not implement {workload}")


def results_of(d, *args):
    code, recs, err = invoke(d, "run", *args, "cores=2")
    assert code == 0, (recs, err)
    res = [r for r in recs if r["type"] == "result"]
    assert len(res) == 1, recs
    return res[0], recs


@pytest.mark.parametrize("d", DRIVERS, ids=IDS)
def test_every_driver_has_the_catalogue(d):
    assert REQUIRED_WORKLOADS <= set(describe_of(d)["workloads"])


@pytest.mark.parametrize("d", DRIVERS, ids=IDS)
@pytest.mark.parametrize("n", [1, 100, 2000])
def test_spawn_counts_every_ready_process(d, n):
    r, _ = results_of(d, "spawn", f"n={n}")
    assert r["count"] == n and r["n"] == n
    assert r["rss_after"] >= r["rss_before"] > 0 and r["setup_ns"] > 0


@pytest.mark.parametrize("d", DRIVERS, ids=IDS)
@pytest.mark.parametrize("m", [1, 1000])
def test_pingpong_counts_round_trips(d, m):
    r, _ = results_of(d, "pingpong", f"m={m}")
    assert r["count"] == m and r["m"] == m and r["run_ns"] > 0


@pytest.mark.parametrize("d", DRIVERS, ids=IDS)
@pytest.mark.parametrize("n,m", [(1, 1), (10, 100), (100, 10)])
def test_fanin_counts_every_message(d, n, m):
    r, _ = results_of(d, "fanin", f"n={n}", f"m={m}")
    assert r["count"] == n * m


@pytest.mark.parametrize("d", DRIVERS, ids=IDS)
@pytest.mark.parametrize("n,m", [(3, 3), (1, 2), (4, 1), (5, 4)])
def test_trace_follows_the_ring_hop_by_hop(d, n, m):
    _, recs = results_of(d, "trace", f"n={n}", f"m={m}")
    hops = [r for r in recs if r["type"] == "hop"]
    assert check_trace(hops, n, m, recs) is None


@pytest.mark.parametrize("d", DRIVERS, ids=IDS)
def test_trace_refuses_large_rings(d):
    code, recs, _ = invoke(d, "run", "trace", "n=101", "m=1")
    assert code == 2 and recs[-1]["kind"] == "bad_param"


@pytest.mark.parametrize("d", DRIVERS, ids=IDS)
def test_selective_or_a_reason_why_not(d):
    if "selective" in describe_of(d)["workloads"]:
        for reverse in (0, 1):
            r, _ = results_of(d, "selective", "n=50", "m=2", f"reverse={reverse}")
            assert r["count"] == 100 and r["reverse"] == reverse
    else:
        code, recs, _ = invoke(d, "run", "selective", "n=50", "m=2", "reverse=0")
        assert code == 2 and recs[-1]["kind"] == "unsupported" and len(recs[-1]["message"]) > 10


@pytest.mark.parametrize("d", DRIVERS, ids=IDS)
def test_continuous_sampling(d):
    if "continuous" not in describe_of(d)["features"]:
        pytest.fail(f"{d.name} has no continuous mode")
    code, recs, err = invoke(d, "run", "ring", "n=100", "m=1", "sample_ms=100", "samples=4", "cores=2")
    assert code == 0, err
    samples = [{**r, "process": 1} for r in recs if r["type"] == "sample"]
    modes.check_samples(samples, 100, 4)
    assert [s["seq"] for s in samples] == [1, 2, 3, 4]
    assert samples[-1]["count"] > 0
    assert 300e6 <= samples[-1]["elapsed_ns"] <= 2e9


@pytest.mark.parametrize("d", DRIVERS, ids=IDS)
def test_runtime_stats_follow_each_result(d):
    if "stats" not in describe_of(d)["features"]:
        pytest.fail(f"{d.name} reports no runtime statistics")
    code, recs, err = invoke(d, "run", "ring", "n=100", "m=10", "repeats=2", "stats=1", "cores=2")
    assert code == 0, err
    kinds = [r["type"] for r in recs]
    assert kinds == ["result", "stats", "result", "stats"]
    assert all(isinstance(v, (int, float)) for r in recs if r["type"] == "stats" for k, v in r.items() if k not in ("type", "workload"))


# -- long runs, behind a flag (make test-slow) -----------------------------------------------
@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("RINGBENCH_SLOW"), reason="long run: make test-slow")
@pytest.mark.parametrize("d", DRIVERS, ids=IDS)
def test_ring_of_a_million(d):
    if d.os_threads_per_process:
        pytest.skip("one OS thread per process cannot reach a million here (see the results document)")
    r, _ = results_of(d, "ring", "n=1000000", "m=2")
    assert r["count"] == 2_000_000
