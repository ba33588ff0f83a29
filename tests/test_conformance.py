"""The conformance suite: every built driver against the same vectors (docs/driver-contract.md).

A driver that cannot prove its count is not measured: these tests are the gate. Every variant runs every
workload; a tuned variant (its stock variant's code, other settings) the first vector of each; the
parser's vectors (bad input, bounds, malformed arguments) run once a driver folder, whose variants share
the family library's parser.
"""
import json
import os
import subprocess

import pytest
from conftest import real_drivers

DRIVERS = real_drivers()
IDS = [d.name for d in DRIVERS]
# Parsing is the family library's, the same for every variant of a driver: its vectors run once a folder.
PARSERS = list({d.base: d for d in sorted(DRIVERS, key=lambda d: d.tuned, reverse=True)}.values())
PARSER_IDS = [d.base for d in PARSERS]


def each(vectors):
    """(driver, *vector) for every driver and vector; a tuned variant, which runs its stock variant's code
    with other settings, takes the first vector only (the full suite runs on the stock variant)."""
    out = []
    for d in DRIVERS:
        for v in vectors[:1] if d.tuned else vectors:
            v = v if isinstance(v, tuple) else (v,)
            out.append(pytest.param(d, *v, id=f"{d.name}-{'-'.join(map(str, v))}"))
    return out

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
    (["ring", "n=200000000", "m=1"], "bad_param"),
    (["no-such-workload", "n=3", "m=1"], "unknown_workload"),
]


def invoke(d, *args, timeout=300, processes=1000):
    """The driver launched as the orchestrator launches it for a cell of `processes` (its limits raised
    only as far as that cell needs)."""
    env = {**os.environ, **d.environ(2, processes)}
    p = subprocess.run(d.argv(2, processes) + list(args), capture_output=True, text=True, timeout=timeout,
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
    assert desc["contract"] == 3
    assert desc["name"] == d.base
    assert desc["variant"] == d.variant
    assert desc["version"]
    assert "ring" in desc["workloads"]
    assert isinstance(desc["clock"], str) and desc["clock"], "describe names its clock (contract 3)"
    assert desc["collector"] == d.collector, "the collector the process runs is the one the manifest names"


@pytest.mark.parametrize("d", DRIVERS, ids=IDS)
def test_a_variant_is_chosen_by_the_one_option(d):
    """Contract 3: `--variant=<name>` is the only option a driver takes before its verb."""
    options = [a for a in d.command if a.startswith("--")]
    if d.variant:
        assert options == [f"--variant={d.variant}"], options
    else:
        assert options == [], options
    code, recs, _ = invoke(d, "--variant=no-such-variant", "describe")
    assert code == 2 and recs and recs[-1]["kind"] == "bad_param", recs


@pytest.mark.parametrize("d", DRIVERS, ids=IDS)
def test_each_result_is_printed_as_its_iteration_ends(d):
    """Contract 3: the orchestrator reads results as they come and stops the driver once it has enough,
    so a driver asked for many repeats must print the first ones long before it would finish."""
    import time
    proc = subprocess.Popen(d.argv(2, 1000) + ["run", "ring", "n=10", "m=10", "repeats=1000000", "cores=2"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env={**os.environ, **d.environ(2, 1000)}, cwd=d.folder, start_new_session=True)
    try:
        started = time.monotonic()
        lines = [json.loads(proc.stdout.readline()) for _ in range(3)]
        assert [r["iteration"] for r in lines] == [1, 2, 3], lines
        assert time.monotonic() - started < 60
    finally:
        os.killpg(proc.pid, 9)
        proc.wait()


FEATURES = {}


def features_of(d):
    if d.name not in FEATURES:
        FEATURES[d.name] = set(invoke(d, "describe")[1][0]["features"])
    return FEATURES[d.name]


@pytest.mark.parametrize("d,n,m,tokens", each(RING_VECTORS))
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
    assert (r["workload"], r["n"], r["m"], r["tokens"], r["burst"], r["iteration"]) == ("ring", n, m, tokens, 0, 1)
    assert r["count"] == n * m * tokens
    assert r["ready"] == n, "the spawn phase must end with every process blocked in its first receive"
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


@pytest.mark.parametrize("d", PARSERS, ids=PARSER_IDS)
@pytest.mark.parametrize("args,kind", BAD_PARAMS, ids=[" ".join(a) for a, _ in BAD_PARAMS])
def test_bad_input_gives_error_record(d, args, kind):
    code, recs, _ = invoke(d, "run", *args)
    assert code == 2
    assert recs and recs[-1]["type"] == "error" and recs[-1]["kind"] == kind, recs
    assert recs[-1]["message"]
    assert not [r for r in recs if r["type"] == "result"]


@pytest.mark.parametrize("d", PARSERS, ids=PARSER_IDS)
def test_no_verb_is_bad_param(d):
    code, recs, _ = invoke(d)
    assert code == 2 and recs[-1]["kind"] == "bad_param"


# -- the workload catalogue (issue: spawn, pingpong, fanin, selective, trace, continuous) -------
from ringbench.catalogue.workloads import check_trace  # noqa: E402
from ringbench.harness.protocol import check_samples  # noqa: E402

REQUIRED_WORKLOADS = {"ring", "spawn", "pingpong", "fanin", "tree", "trace"}


def describe_of(d):
    _, recs, _ = invoke(d, "describe")
    return recs[0]


def only(d, workload):
    desc = describe_of(d)
    if workload not in desc["workloads"]:
        pytest.fail(f"{d.name} does not implement {workload}")


def results_of(d, *args, processes=1000):
    code, recs, err = invoke(d, "run", *args, "cores=2", processes=processes)
    assert code == 0, (recs, err)
    res = [r for r in recs if r["type"] == "result"]
    assert len(res) == 1, recs
    return res[0], recs


@pytest.mark.parametrize("d", DRIVERS, ids=IDS)
def test_every_driver_has_the_catalogue(d):
    assert REQUIRED_WORKLOADS <= set(describe_of(d)["workloads"])


@pytest.mark.parametrize("d,n", each([1, 100, 2000]))
def test_spawn_counts_every_ready_process(d, n):
    r, _ = results_of(d, "spawn", f"n={n}")
    assert r["count"] == n and r["n"] == n and r["ready"] == n
    assert r["rss_after"] >= r["rss_before"] > 0 and r["setup_ns"] > 0


@pytest.mark.parametrize("d,m", each([1, 1000]))
def test_pingpong_counts_round_trips(d, m):
    r, _ = results_of(d, "pingpong", f"m={m}")
    assert r["count"] == m and r["m"] == m and r["run_ns"] > 0 and r["ready"] == 2


@pytest.mark.parametrize("d,n,m", each([(1, 1), (10, 100), (100, 10)]))
def test_fanin_counts_every_message(d, n, m):
    r, _ = results_of(d, "fanin", f"n={n}", f"m={m}")
    assert r["count"] == n * m and r["ready"] == n + 1


@pytest.mark.parametrize("d,n,m", each([(3, 3), (1, 2), (4, 1), (5, 4)]))
def test_trace_follows_the_ring_hop_by_hop(d, n, m):
    _, recs = results_of(d, "trace", f"n={n}", f"m={m}")
    hops = [r for r in recs if r["type"] == "hop"]
    assert check_trace(hops, n, m, recs) is None


@pytest.mark.parametrize("d", PARSERS, ids=PARSER_IDS)
def test_trace_refuses_large_rings(d):
    code, recs, _ = invoke(d, "run", "trace", "n=101", "m=1")
    assert code == 2 and recs[-1]["kind"] == "bad_param"


@pytest.mark.parametrize("d", DRIVERS, ids=IDS)
def test_selective_or_a_reason_why_not(d):
    if "selective" in describe_of(d)["workloads"]:
        for reverse in (0, 1):
            r, _ = results_of(d, "selective", "n=50", "m=2", f"reverse={reverse}")
            assert r["count"] == 100 and r["reverse"] == reverse and r["ready"] == 50
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
    check_samples(samples, 100, 4)
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
    stats = [r for r in recs if r["type"] == "stats"]
    assert [(r.get("workload"), r.get("iteration")) for r in stats] == [("ring", 1), ("ring", 2)], \
        "every stats record names the workload and the iteration it follows (contract 3)"


TREE_VECTORS = [(1, 10), (10, 10), (100, 10), (1000, 10), (1, 2), (2, 2), (16, 2), (1024, 2), (27, 3)]


@pytest.mark.parametrize("d,n,fanout", each(TREE_VECTORS))
def test_tree_sums_every_leaf(d, n, fanout):
    r, _ = results_of(d, "tree", f"n={n}", f"fanout={fanout}")
    assert (r["workload"], r["n"], r["fanout"]) == ("tree", n, fanout)
    assert r["count"] == n * (n - 1) // 2
    assert r["run_ns"] > 0 and r["setup_ns"] == 0
    assert r["rss_peak"] >= r["rss_before"] > 0


@pytest.mark.parametrize("d", DRIVERS, ids=IDS)
def test_tree_fanout_defaults_to_ten_and_its_memory_is_the_first_trees(d):
    code, recs, err = invoke(d, "run", "tree", "n=10000", "repeats=2", "cores=2")
    assert code == 0, err
    res = [r for r in recs if r["type"] == "result"]
    assert [r["fanout"] for r in res] == [10, 10] and all(r["count"] == 49995000 for r in res)
    for k in ("rss_before", "rss_after", "rss_peak"):
        assert res[0][k] == res[1][k], f"{k} is read on the first tree and echoed"
    assert res[0]["rss_peak"] > res[0]["rss_before"], "11,111 processes must show in the peak"


@pytest.mark.parametrize("d", PARSERS, ids=PARSER_IDS)
@pytest.mark.parametrize("args", [["n=12", "fanout=10"], ["n=10", "fanout=1"], ["n=1", "fanout=1001"],
                                  ["n=8", "fanout=3"], ["n=0"]])
def test_tree_refuses_a_size_that_is_not_a_power_of_the_fanout(d, args):
    code, recs, _ = invoke(d, "run", "tree", *args)
    assert code == 2 and recs and recs[-1]["kind"] == "bad_param", recs


# -- contract 2: burst placement, the memory rule, exact bounds, lifetime ---------------------
BURST_VECTORS = [(1, 1, 1), (3, 3, 1), (7, 13, 3), (5, 2, 5), (100, 10, 4), (1000, 3, 16)]


@pytest.mark.parametrize("d,n,m,tokens", each(BURST_VECTORS))
def test_ring_burst_placement_count_is_exact(d, n, m, tokens):
    args = ("run", "ring", f"n={n}", f"m={m}", f"tokens={tokens}", "burst=1", "cores=2")
    if tokens > 1 and "tokens" not in features_of(d):
        code, recs, _ = invoke(d, *args)
        assert code == 2 and recs[-1]["kind"] == "unsupported"
        return
    code, recs, err = invoke(d, *args)
    assert code == 0, (recs, err)
    (r,) = [r for r in recs if r["type"] == "result"]
    assert (r["burst"], r["tokens"], r["count"], r["ready"]) == (1, tokens, n * m * tokens, n)


@pytest.mark.parametrize("d", DRIVERS, ids=IDS)
def test_memory_is_read_around_the_first_spawn_of_the_process(d):
    """Later iterations echo the first spawn's memory: never a figure read after a warm-up reused memory."""
    code, recs, err = invoke(d, "run", "ring", "n=2000", "m=2", "repeats=3", "warmup=1", "cores=2")
    assert code == 0, err
    res = [r for r in recs if r["type"] == "result"]
    keys = [k for k in res[0] if k.startswith(("rss_", "runtime_mem_", "threads_"))]
    assert {"rss_before", "rss_after"} <= set(keys)
    for k in keys:
        assert len({r[k] for r in res}) == 1, f"{k} differs between iterations: {[r[k] for r in res]}"
    assert res[0]["rss_after"] > res[0]["rss_before"], "2,000 live processes must show in RSS"
    if d.os_threads_per_process:
        assert res[0]["threads_after"] - res[0]["threads_before"] >= 2000, "every process is one of its own threads"
    assert not [k for k in res[0] if k.startswith("kernel_stack_")], "nothing machine-wide (contract 3)"


BOUNDS = [  # (key, the bound, one past it, workload args); the bound itself must be accepted where cheap
    ("n", None, "100000001", ["ring", "m=1"]),
    ("m", None, "1000000001", ["ring", "n=1"]),
    ("tokens", "3", "4", ["ring", "n=3", "m=1"]),
    ("burst", "1", "2", ["ring", "n=3", "m=1"]),
    ("repeats", None, "1000001", ["ring", "n=3", "m=1"]),
    ("repeats", "1", "0", ["ring", "n=3", "m=1"]),
    ("warmup", "0", "1000001", ["ring", "n=3", "m=1"]),
    ("cores", "1024", "1025", ["ring", "n=3", "m=1"]),
    ("cores", "1", "0", ["ring", "n=3", "m=1"]),
    ("sample_ms", None, "86400001", ["ring", "n=3", "m=1"]),
    ("samples", "1", "0", ["ring", "n=3", "m=1", "sample_ms=10"]),
    ("samples", None, "1000001", ["ring", "n=3", "m=1", "sample_ms=10"]),
    ("stats", "1", "2", ["ring", "n=3", "m=1"]),
    ("n", "100", "101", ["trace", "m=1"]),
    ("m", "100", "101", ["trace", "n=1"]),
    ("n", "1", "0", ["ring", "m=1"]),
    ("fanout", "2", "1", ["tree", "n=1"]),
    ("fanout", "1000", "1001", ["tree", "n=1"]),
]


@pytest.mark.parametrize("d", PARSERS, ids=PARSER_IDS)
@pytest.mark.parametrize("key,ok,bad,args", BOUNDS, ids=[f"{a[0]}-{k}={b}" for k, _, b, a in BOUNDS])
def test_each_bound_and_one_past_it(d, key, ok, bad, args):
    code, recs, _ = invoke(d, "run", *args, f"{key}={bad}")
    assert code == 2 and recs and recs[-1]["kind"] == "bad_param", (key, bad, recs)
    if ok is not None:
        extra = [] if key == "cores" else ["cores=2"]
        code, recs, err = invoke(d, "run", *args, f"{key}={ok}", *extra)
        if key == "tokens" and "tokens" not in features_of(d):
            assert code == 2 and recs[-1]["kind"] == "unsupported"
        else:
            assert code == 0, (key, ok, recs, err)


MALFORMED = [["ring", "n=3", "n=3", "m=1"], ["ring", "n=+3", "m=1"], ["ring", "n3", "m=1"],
             ["ring", "n=3", "m=1", "tokens="], ["ring", "n= 3", "m=1"], ["ring", "n=٣", "m=1"]]


@pytest.mark.parametrize("d", PARSERS, ids=PARSER_IDS)
@pytest.mark.parametrize("args", MALFORMED, ids=[" ".join(a) for a in MALFORMED])
def test_malformed_arguments_are_bad_param(d, args):
    code, recs, _ = invoke(d, "run", *args)
    assert code == 2 and recs and recs[-1]["kind"] == "bad_param", recs


_ORCHESTRATOR_SIDE = """
import sys
from ringbench.catalogue import drivers
from ringbench.harness import launch
d = drivers.discover()[sys.argv[1]]
launch.run_driver(d, ["run", "ring", "n=1000", "m=1", "sample_ms=200", "samples=600", "cores=1"], cores="1",
                  n=1000, timeout=300, on_record=lambda rec: print("sample", flush=True) and False)
"""


def _group_alive(pgid):
    """Any process of the group that is not a zombie (a dead process its new parent has not reaped yet)."""
    import glob
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            fields = open(stat).read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


def _children(pid):
    out = []
    for stat in __import__("glob").glob("/proc/[0-9]*/stat"):
        try:
            fields = open(stat).read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.split("/")[2]))
    return out


@pytest.mark.parametrize("d", DRIVERS, ids=IDS)
def test_driver_dies_with_the_orchestrator(d):
    """Contract section 8: SIGKILL the orchestrator's side mid-run; the driver's process group is gone at once."""
    import signal
    import sys
    import time
    side = subprocess.Popen([sys.executable, "-c", _ORCHESTRATOR_SIDE, d.name], stdout=subprocess.PIPE, text=True,
                            env={k: v for k, v in os.environ.items() if k != "RINGBENCH_DRIVER_PATH"})
    try:
        assert side.stdout.readline().strip() == "sample", "the driver never started sampling"
        (driver_pid,) = _children(side.pid)
        side.kill()
        side.wait()
        deadline = time.monotonic() + 2.0
        while _group_alive(driver_pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        alive = _group_alive(driver_pid)
        if alive:
            os.killpg(driver_pid, signal.SIGKILL)
        assert not alive, f"{d.name}: driver process group {driver_pid} outlived its orchestrator by 2 s"
    finally:
        side.kill()


# -- long runs, behind a flag (make test-slow) -----------------------------------------------
@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("RINGBENCH_SLOW"), reason="long run: make test-slow")
@pytest.mark.parametrize("d", DRIVERS, ids=IDS)
def test_ring_of_a_million(d):
    if d.os_threads_per_process:
        pytest.skip("one OS thread per process cannot reach a million here (see the results document)")
    r, _ = results_of(d, "ring", "n=1000000", "m=2", processes=1_000_000)
    assert r["count"] == 2_000_000
