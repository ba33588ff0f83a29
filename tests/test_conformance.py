"""The conformance suite: every driver against the same vectors (docs/driver-contract.md).

A driver that cannot prove its count is not measured: these tests are the gate. Every variant runs every
vector of every workload its features allow; what a variant must list in `describe` is written once, in
tests/expected_features.toml, and that table (not the driver's own word) says which token, continuous,
stats, node, perf and selective cases run: a variant without a feature must refuse it as `unsupported`.
The parser's vectors (bad input, bounds, malformed arguments) run once a driver folder, whose variants
share the family library's parser, on a variant with every feature the bounds touch. Only the large-N
runs are `slow` (make test-slow). On CI a driver that is not built fails; here it is skipped (conftest).
"""

import collections
import json
import os
import select
import signal
import subprocess
import threading
import time
import tomllib
from pathlib import Path

import pytest
from conftest import EXPECTED_FEATURES, real_drivers

DRIVERS = real_drivers()
IDS = [d.name for d in DRIVERS]


def features_of(d):
    """What the variant must do, from the table: its describe features, and "selective" for that workload."""
    return EXPECTED_FEATURES.get(d.name, frozenset())


# Parsing is the family library's, the same for every variant of a driver: its vectors run once a folder, on
# the variant with the most features (pypy/greenlet, not switch, which has no tokens), not tuned, first by name.
PARSERS = [
    min((x for x in DRIVERS if x.base == base), key=lambda d: (-len(features_of(d)), d.tuned, d.name))
    for base in dict.fromkeys(d.base for d in DRIVERS)
]
PARSER_IDS = [d.base for d in PARSERS]


def each(vectors):
    """(driver, *vector) for every driver and every vector: these are all small and quick."""
    out = []
    for d in DRIVERS:
        for v in vectors:
            v = v if isinstance(v, tuple) else (v,)
            out.append(pytest.param(d, *v, id=f"{d.name}-{'-'.join(map(str, v))}"))
    return out


def having(feature):
    return [d for d in DRIVERS if feature in features_of(d)]


RING_VECTORS = [  # (n, m, tokens)
    (1, 1, 1),
    (2, 1, 1),
    (3, 3, 1),
    (1000, 7, 1),
    (10000, 1, 1),
    (1, 5, 1),
    (2, 2, 2),
    (7, 13, 3),
    (5, 2, 5),
    (100, 10, 4),
]
BAD_PARAMS = [  # (args after `run`, expected kind); the bounds of each key are in BOUNDS below
    (["ring", "n=-1", "m=1"], "bad_param"),
    (["ring", "n=abc", "m=1"], "bad_param"),
    (["ring", "n=1.5", "m=1"], "bad_param"),
    (["ring", "n=", "m=1"], "bad_param"),
    (["ring", "m=1"], "bad_param"),
    (["ring", "n=3", "m=0"], "bad_param"),
    (["ring", "n=3", "m=2", "colour=3"], "bad_param"),
    (["ring", "n=3", "m=2", "tokens=0"], "bad_param"),
    (["ring", "n=200000000", "m=1"], "bad_param"),
    (["no-such-workload", "n=3", "m=1"], "unknown_workload"),
]


def invoke(d, *args, timeout=120, processes=1000):
    """The driver launched as the orchestrator launches it for a cell of `processes` (its limits raised
    only as far as that cell needs). Every vector here takes well under a second on a quiet machine: a
    driver that has not answered in `timeout` seconds fails its test."""
    env = {**os.environ, **d.environ(2, processes)}
    p = subprocess.run(
        d.argv(2, processes) + list(args), capture_output=True, text=True, timeout=timeout, env=env, cwd=d.folder
    )
    records = [json.loads(line) for line in p.stdout.splitlines() if line.strip()]
    return p.returncode, records, p.stderr


class BatchSession:
    """One driver process answering `run`s line by line (the verb `batch`, contract section 2): a case that
    checks only what a run prints (counts, traces, refusals) needs no VM start-up of its own. Its stderr is
    read by a thread, and its last lines are kept for failure messages."""

    def __init__(self, argv, env, cwd):
        self.proc = subprocess.Popen(
            argv + ["batch"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
            start_new_session=True,
        )
        self.buf = b""
        self.err = collections.deque(maxlen=100)
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read_stderr(self):
        with self.proc.stderr:
            for line in self.proc.stderr:
                self.err.append(line.decode(errors="replace"))

    def stderr_tail(self):
        return "".join(self.err)[-4000:]

    def ask(self, args, timeout):
        """(exit, records, stderr tail) of one line: the records up to the `done` record, its exit; or, if the
        process ended first, what it printed and its exit status (self.proc.poll() is then not None)."""
        try:
            self.proc.stdin.write(("\t".join(args) + "\n").encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass  # it has exited: EOF below says so
        fd, records, deadline = self.proc.stdout.fileno(), [], time.monotonic() + timeout
        while True:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                if not line.strip():
                    continue
                rec = json.loads(line)
                if rec.get("type") == "done":
                    if rec["exit"] in (1, 3):  # the driver exits after a failure or a limit
                        self.proc.wait(timeout=max(1.0, deadline - time.monotonic()))
                    return rec["exit"], records, self.stderr_tail()
                records.append(rec)
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                self.kill()
                pytest.fail(
                    f"batch: `run {' '.join(args)}` unanswered within {timeout} s "
                    f"({os.environ.get('PYTEST_CURRENT_TEST', '')}); printed {records[-3:]}; "
                    f"stderr: {self.stderr_tail()[-1000:]}",
                    pytrace=False,
                )
            chunk = os.read(fd, 65536)
            if not chunk:
                return self.proc.wait(timeout=10), records, self.stderr_tail()
            self.buf += chunk

    def kill(self):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            try:
                pipe.close()
            except OSError:
                pass


# This worker's sessions, one per variant, command and environment (`processes` changes both); `-n 2`
# gives each xdist worker its own.
_SESSIONS: dict = {}


@pytest.fixture(scope="module", autouse=True)
def _sessions_end_with_the_module():
    """No session outlives this module: the tests after it may count the processes left running."""
    yield
    while _SESSIONS:
        _SESSIONS.popitem()[1].kill()


def run_case(d, *args, timeout=120, processes=1000):
    """(exit, records, stderr) of `run <args>` for a case that checks only what the run prints: through the
    variant's batch session where the table lists `batch` for it, else in a fresh process (invoke)."""
    if "batch" not in features_of(d):
        return invoke(d, "run", *args, timeout=timeout, processes=processes)
    argv, extra = d.argv(2, processes), d.environ(2, processes)
    key = (d.name, tuple(argv), tuple(sorted(extra.items())))
    session = _SESSIONS.get(key)
    if session is None:
        session = _SESSIONS[key] = BatchSession(argv, {**os.environ, **extra}, d.folder)
    try:
        code, records, err = session.ask(list(args), timeout)
    except BaseException:  # unanswered, or a line that is not JSON: the session cannot be trusted further
        session.kill()
        raise
    finally:
        if session.proc.poll() is not None:  # it ended (a failure, a limit, a crash): the next case starts anew
            del _SESSIONS[key]
            session.kill()
    return code, records, err


def lines_within(pipe, k, seconds, parse=json.loads):
    """The first `k` records a driver prints on `pipe` (binary), or a failure naming what came if they take
    longer than `seconds`: a hung driver fails the test, it never hangs it."""
    fd, buf, deadline = pipe.fileno(), b"", time.monotonic() + seconds
    while buf.count(b"\n") < k:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise AssertionError(f"{k} records not printed within {seconds} s; printed: {buf[-500:]!r}")
        chunk = os.read(fd, 65536)
        if not chunk:
            raise AssertionError(f"the driver closed its output after {buf[-500:]!r}")
        buf += chunk
    return [parse(line) for line in buf.split(b"\n")[:k]]


def test_some_driver_is_built():
    assert [d for d in DRIVERS if d.is_built() and not d.missing_tools()], "no driver is built: run `make setup`"


def test_the_table_names_every_driver_and_no_other():
    """tests/expected_features.toml has a line for each variant under drivers/, and none for one not there."""
    names = {d.name for d in DRIVERS}
    assert set(EXPECTED_FEATURES) - names == set(), "lines for no driver in tests/expected_features.toml"
    assert names - set(EXPECTED_FEATURES) == set(), "variants with no line in tests/expected_features.toml"
    known = {"tokens", "continuous", "stats", "nodes", "perf", "selective", "batch"}
    assert {f for v in EXPECTED_FEATURES.values() for f in v} <= known


REQUIRED_WORKLOADS = {"ring", "spawn", "pingpong", "fanin", "tree", "trace"}


@pytest.mark.parametrize("d", DRIVERS, ids=IDS)
def test_describe(d):
    """Contract 4: the describe record, with the features and workloads tests/expected_features.toml lists."""
    code, recs, err = invoke(d, "describe")
    assert code == 0, err
    assert len(recs) == 1 and recs[0]["type"] == "describe"
    desc = recs[0]
    assert desc["name"] == d.base
    assert desc["variant"] == d.variant
    assert desc["version"]
    assert isinstance(desc["clock"], str) and desc["clock"], "describe names its clock (contract 3)"
    assert desc["collector"] == d.collector, "the collector the process runs is the one the manifest names"
    workloads = set(desc["workloads"])
    assert REQUIRED_WORKLOADS <= workloads, f"missing workloads: {REQUIRED_WORKLOADS - workloads}"
    assert workloads <= REQUIRED_WORKLOADS | {"selective"}, workloads
    said = set(desc["features"]) | (workloads & {"selective"})
    assert said == features_of(d), (
        f"{d.name} describes {sorted(said)}; tests/expected_features.toml says {sorted(features_of(d))}"
    )
    assert desc["contract"] == 4, f"{d.name} is still on contract {desc['contract']} (describe says so)"


@pytest.mark.parametrize("d", DRIVERS, ids=IDS)
def test_a_variant_is_chosen_by_the_one_option(d):
    """Contract 3: `--variant=<name>` is the only option a driver takes before its verb (the manifest's
    command; that the driver runs the variant it names, test_describe)."""
    options = [a for a in d.command if a.startswith("--")]
    if d.variant:
        assert options == [f"--variant={d.variant}"], options
    else:
        assert options == [], options


@pytest.mark.parametrize("d", PARSERS, ids=PARSER_IDS)
def test_an_unknown_variant_is_bad_param(d):
    """The family library's parser reads --variant, the same for every variant of a folder: once a folder."""
    code, recs, _ = invoke(d, "--variant=no-such-variant", "describe")
    assert code == 2 and recs and recs[-1]["kind"] == "bad_param", recs


@pytest.mark.parametrize("d", DRIVERS, ids=IDS)
def test_each_result_is_printed_as_its_iteration_ends(d):
    """Contract 3: the orchestrator reads results as they come and stops the driver once it has enough,
    so a driver asked for many repeats must print the first ones long before it would finish (a million
    10-hop iterations: hours; three of them within 60 s, a JVM's start on a loaded machine included)."""
    proc = subprocess.Popen(
        d.argv(2, 1000) + ["run", "ring", "n=10", "m=10", "repeats=1000000", "cores=2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **d.environ(2, 1000)},
        cwd=d.folder,
        start_new_session=True,
    )
    try:
        lines = lines_within(proc.stdout, 3, 60)
        assert [r["iteration"] for r in lines] == [1, 2, 3], lines
    finally:
        os.killpg(proc.pid, 9)
        proc.wait()


CS_FIELDS = ("setup_vcsw", "setup_ivcsw", "run_vcsw", "run_ivcsw")


def switches_counted(d, r):
    """Contract 4: every result record carries the process's voluntary and involuntary context switches over
    its spawn phase and its message phase, non-negative integers. Checked on every result this suite reads
    (no launch of its own); describe's contract 4 in test_describe."""
    missing = [f for f in CS_FIELDS if f not in r]
    assert not missing, f"{d.name} {r.get('workload')}: no {', '.join(missing)} (still on contract 3?)"
    for f in CS_FIELDS:
        assert type(r[f]) is int and r[f] >= 0, (r.get("workload"), f, r[f])
    return r


def _folders_stock(d):
    """The variant a folder's once-a-folder cases run on: its first not tuned, `stock` if it has one."""
    return d == min((x for x in DRIVERS if x.base == d.base), key=lambda x: (x.tuned, x.variant != "stock", x.name))


# Every vector on every variant, but for the 10,000-process ring where each process is an OS thread of its own
# (the manifest's os_threads_per_process): there it runs on the folder's stock variant only. No clause needs
# 10,000 rather than 1,000 (the counts, the gate and the tokens are every variant's in the other vectors, the
# 1,000-process one included); what 10,000 adds is starting that many threads within the runtime's own limits,
# and a folder's variants start their threads with the same code (they differ in mailbox, hop or settings).
# 10,000 thread starts took 3-8 s a variant of a quiet run. Variants whose processes are of another kind than
# their folder's first (ruby/threads, pypy/stackless) are not flagged by the manifest and keep the vector.
RING_CASES = [
    c
    for c in each(RING_VECTORS)
    if c.values[1] != 10000 or not c.values[0].os_threads_per_process or _folders_stock(c.values[0])
]


@pytest.mark.parametrize("d,n,m,tokens", RING_CASES)
def test_ring_count_is_exact(d, n, m, tokens):
    if tokens > 1 and "tokens" not in features_of(d):
        # A driver may refuse K tokens at once, honestly, but then must say so.
        code, recs, _ = run_case(d, "ring", f"n={n}", f"m={m}", f"tokens={tokens}", "cores=2")
        assert code == 2 and recs[-1]["kind"] == "unsupported"
        return
    code, recs, err = run_case(d, "ring", f"n={n}", f"m={m}", f"tokens={tokens}", "cores=2")
    assert code == 0, (recs, err)
    results = [r for r in recs if r["type"] == "result"]
    assert len(results) == 1
    r = results[0]
    assert (r["workload"], r["n"], r["m"], r["tokens"], r["burst"], r["iteration"]) == ("ring", n, m, tokens, 0, 1)
    assert r["count"] == n * m * tokens
    assert r["ready"] == n, "the spawn phase must end with every process blocked in its first receive"
    switches_counted(d, r)
    for f in ("setup_ns", "run_ns", "setup_cpu_ns", "run_cpu_ns", "rss_before", "rss_after"):
        assert isinstance(r[f], int) and r[f] >= 0, f
    assert r["run_ns"] > 0 and r["rss_before"] > 0


@pytest.mark.parametrize("d", PARSERS, ids=PARSER_IDS)
@pytest.mark.parametrize("args,kind", BAD_PARAMS, ids=[" ".join(a) for a, _ in BAD_PARAMS])
def test_bad_input_gives_error_record(d, args, kind):
    code, recs, _ = run_case(d, *args)
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


def results_of(d, *args, processes=1000, fresh=False):
    """The one result of `run <args> cores=2` and every record printed; `fresh`: in a process of its own
    (a case that checks the process, its memory say, never a batch session's)."""
    if fresh:
        code, recs, err = invoke(d, "run", *args, "cores=2", processes=processes)
    else:
        code, recs, err = run_case(d, *args, "cores=2", processes=processes)
    assert code == 0, (recs, err)
    res = [r for r in recs if r["type"] == "result"]
    assert len(res) == 1, recs
    return switches_counted(d, res[0]), recs


@pytest.mark.parametrize("d,n", each([1, 100, 2000]))
def test_spawn_counts_every_ready_process(d, n):
    r, _ = results_of(d, "spawn", f"n={n}", fresh=n >= 2000)  # its memory is a fresh process's
    assert r["count"] == n and r["n"] == n and r["ready"] == n
    assert r["rss_after"] > 0 and r["rss_before"] > 0 and r["setup_ns"] > 0
    if n >= 2000:
        # A few processes' growth can hide behind memory the VM gives back meanwhile (BEAM; G1 uncommitting
        # heap after the contract's collection, against 2,000 virtual threads of ~1 KB): where the runtime
        # accounts its own memory, that is what the processes must grow.
        if "runtime_mem_after" in r and "runtime_mem_before" in r:
            assert r["runtime_mem_after"] > r["runtime_mem_before"], "2,000 idle processes grow the runtime's memory"
        else:
            assert r["rss_after"] > r["rss_before"], "2,000 idle processes grow the resident memory"


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


@pytest.mark.parametrize("d", DRIVERS, ids=IDS)
def test_selective_or_a_reason_why_not(d):
    if "selective" in features_of(d):
        for reverse in (0, 1):
            r, _ = results_of(d, "selective", "n=50", "m=2", f"reverse={reverse}")
            assert r["count"] == 100 and r["reverse"] == reverse and r["ready"] == 50
    else:
        code, recs, _ = run_case(d, "selective", "n=50", "m=2", "reverse=0")
        assert code == 2 and recs[-1]["kind"] == "unsupported" and len(recs[-1]["message"]) > 10


def refuses_as_unsupported(d, *args):
    code, recs, _ = run_case(d, *args, "cores=2")
    assert code == 2 and recs and recs[-1]["kind"] == "unsupported" and recs[-1]["message"], recs


@pytest.mark.parametrize("d", DRIVERS, ids=IDS)
def test_continuous_sampling(d):
    if "continuous" not in features_of(d):
        return refuses_as_unsupported(d, "ring", "n=100", "m=1", "sample_ms=100", "samples=4")
    # A fresh process prints its samples and exits 0 without teardown (section 5): that ending is the family's
    # code, checked once a folder, on its parser's variant; the other variants run the line through their batch
    # session where the table lists batch, whose `done` follows the ring's stop (section 2).
    args = ("ring", "n=100", "m=1", "sample_ms=50", "samples=4", "cores=2")
    code, recs, err = invoke(d, "run", *args) if d in PARSERS else run_case(d, *args)
    assert code == 0, err
    samples = [{**r, "process": 1} for r in recs if r["type"] == "sample"]
    check_samples(samples, 100, 4)
    assert [s["seq"] for s in samples] == [1, 2, 3, 4]
    assert samples[-1]["count"] > 0
    # at least the three intervals after the first sample; at most far more than a loaded machine ever takes
    # (sample_ms read as seconds, say, would be 200 s; as microseconds, 0.2 ms). 50 ms, not 100: the bounds
    # tell the same mistakes apart, and the 52 variants wait 10 s less in all.
    assert 150e6 <= samples[-1]["elapsed_ns"] <= 30e9


@pytest.mark.parametrize("d", DRIVERS, ids=IDS)
def test_repeats_warmup_memory_and_stats(d):
    """One launch, the clauses of a process that runs several iterations: a warm-up prints nothing and the
    measured ones count from 1; later iterations echo the first spawn's memory (never a figure read after a
    warm-up reused memory); where the table lists stats, a stats record follows each result (else stats=1 is
    refused, in a launch of its own)."""
    stats = ["stats=1"] if "stats" in features_of(d) else []
    if not stats:
        refuses_as_unsupported(d, "ring", "n=100", "m=10", "repeats=2", "stats=1")
    code, recs, err = invoke(d, "run", "ring", "n=2000", "m=3", "repeats=3", "warmup=1", *stats, "cores=2")
    assert code == 0, (recs[-1:], err[-2000:])
    res = [switches_counted(d, r) for r in recs if r["type"] == "result"]
    assert [r["iteration"] for r in res] == [1, 2, 3], "repeats=3 warmup=1: iterations 1, 2, 3 printed"
    assert all(r["count"] == 6000 for r in res), [r["count"] for r in res]
    # memory, read around the first spawn of the process
    keys = [k for k in res[0] if k.startswith(("rss_", "runtime_mem_", "threads_"))]
    assert {"rss_before", "rss_after"} <= set(keys)
    for k in keys:
        assert len({r[k] for r in res}) == 1, f"{k} differs between iterations: {[r[k] for r in res]}"
    assert res[0]["rss_after"] > res[0]["rss_before"], "2,000 live processes must show in RSS"
    if d.os_threads_per_process:
        assert res[0]["threads_after"] - res[0]["threads_before"] >= 2000, "every process is one of its own threads"
    assert not [k for k in res[0] if k.startswith("kernel_stack_")], "nothing machine-wide (contract 3)"
    if not stats:
        assert not [r for r in recs if r["type"] == "stats"], "no stats records without stats=1"
        return
    kinds = [r["type"] for r in recs]
    assert kinds == ["result", "stats"] * 3, f"a stats record after each result: {kinds}"
    stats_recs = [r for r in recs if r["type"] == "stats"]
    assert all(
        isinstance(v, (int, float)) for r in stats_recs for k, v in r.items() if k not in ("type", "workload")
    ), stats_recs
    assert [(r.get("workload"), r.get("iteration")) for r in stats_recs] == [("ring", 1), ("ring", 2), ("ring", 3)], (
        "every stats record names the workload and the iteration it follows (contract 3)"
    )


TREE_VECTORS = [(1, 10), (10, 10), (100, 10), (1000, 10), (1, 2), (2, 2), (16, 2), (1024, 2), (27, 3)]


@pytest.mark.parametrize("d,n,fanout", each(TREE_VECTORS))
def test_tree_sums_every_leaf(d, n, fanout):
    r, _ = results_of(d, "tree", f"n={n}", f"fanout={fanout}")
    assert (r["workload"], r["n"], r["fanout"]) == ("tree", n, fanout)
    assert r["count"] == n * (n - 1) // 2
    assert r["run_ns"] > 0 and r["setup_ns"] == 0
    # Read, but not ordered: in a shared batch process the previous line's collection may still be handing
    # memory back (G1 uncommits a moment later) after rss_before is read. A fresh process's peak above its
    # before is asserted for every driver by the next test.
    assert r["rss_peak"] > 0 and r["rss_before"] > 0


@pytest.mark.parametrize("d", DRIVERS, ids=IDS)
def test_tree_fanout_defaults_to_ten_and_its_memory_is_the_first_trees(d):
    # 11,111 processes; 1,111 where each is an OS thread of its own (a stack and a kernel thread apiece: they
    # show in the peak at that size too, and 11,111 thread starts twice took 8-14 s of a loaded run each).
    n = 1000 if d.os_threads_per_process else 10000
    code, recs, err = invoke(d, "run", "tree", f"n={n}", "repeats=2", "cores=2")
    assert code == 0, err
    res = [switches_counted(d, r) for r in recs if r["type"] == "result"]
    assert [r["fanout"] for r in res] == [10, 10] and all(r["count"] == n * (n - 1) // 2 for r in res)
    for k in ("rss_before", "rss_after", "rss_peak"):
        assert res[0][k] == res[1][k], f"{k} is read on the first tree and echoed"
    assert res[0]["rss_peak"] > res[0]["rss_before"], f"{(10 * n - 1) // 9:,} processes must show in the peak"


@pytest.mark.parametrize("d", PARSERS, ids=PARSER_IDS)
@pytest.mark.parametrize("args", [["n=12", "fanout=10"], ["n=8", "fanout=3"], ["n=0"]])  # fanout's bounds: BOUNDS
def test_tree_refuses_a_size_that_is_not_a_power_of_the_fanout(d, args):
    code, recs, _ = run_case(d, "tree", *args)
    assert code == 2 and recs and recs[-1]["kind"] == "bad_param", recs


# -- contract 2: burst placement, the memory rule, exact bounds, lifetime ---------------------
BURST_VECTORS = [(1, 1, 1), (3, 3, 1), (7, 13, 3), (5, 2, 5), (100, 10, 4), (1000, 3, 16)]


@pytest.mark.parametrize("d,n,m,tokens", each(BURST_VECTORS))
def test_ring_burst_placement_count_is_exact(d, n, m, tokens):
    args = ("ring", f"n={n}", f"m={m}", f"tokens={tokens}", "burst=1", "cores=2")
    if tokens > 1 and "tokens" not in features_of(d):
        code, recs, _ = run_case(d, *args)
        assert code == 2 and recs[-1]["kind"] == "unsupported"
        return
    code, recs, err = run_case(d, *args)
    assert code == 0, (recs, err)
    (r,) = [r for r in recs if r["type"] == "result"]
    assert (r["burst"], r["tokens"], r["count"], r["ready"]) == (1, tokens, n * m * tokens, n)
    switches_counted(d, r)


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
    code, recs, _ = run_case(d, *args, f"{key}={bad}")
    assert code == 2 and recs and recs[-1]["kind"] == "bad_param", (key, bad, recs)
    if ok is not None:
        extra = [] if key == "cores" else ["cores=2"]
        code, recs, err = run_case(d, *args, f"{key}={ok}", *extra)
        if key == "tokens" and "tokens" not in features_of(d):
            assert code == 2 and recs[-1]["kind"] == "unsupported"
        else:
            assert code == 0, (key, ok, recs, err)


MALFORMED = [
    ["ring", "n=3", "n=3", "m=1"],
    ["ring", "n=+3", "m=1"],
    ["ring", "n3", "m=1"],
    ["ring", "n=3", "m=1", "tokens="],
    ["ring", "n= 3", "m=1"],
    ["ring", "n=٣", "m=1"],
]


@pytest.mark.parametrize("d", PARSERS, ids=PARSER_IDS)
@pytest.mark.parametrize("args", MALFORMED, ids=[" ".join(a) for a in MALFORMED])
def test_malformed_arguments_are_bad_param(d, args):
    code, recs, _ = run_case(d, *args)
    assert code == 2 and recs and recs[-1]["kind"] == "bad_param", recs


# -- section 2: the verb `batch` (feature `batch`), the runs of many lines in one process ------------------
BATCH = having("batch")
BATCH_IDS = [d.name for d in BATCH]
# A folder whose parser variant lacks the feature: `batch` is an unknown verb there (its other variants
# share the family's parser).
NO_BATCH = [d for d in PARSERS if "batch" not in features_of(d)]
BATCH_LINES = [  # (args of one run, its exit, the error kind or the result's (workload, count, ready))
    (["ring", "n=3", "m=2", "cores=2"], 0, ("ring", 6, 3)),
    (["ring", "n=-1", "m=1"], 2, "bad_param"),
    (["ring", "n= 3", "m=1"], 2, "bad_param"),  # a TAB separates arguments: the space arrives and is refused
    ([], 2, "bad_param"),  # an empty line: a run with no workload
    (["no-such-workload", "n=3", "m=1"], 2, "unknown_workload"),
    (["tree", "n=100", "fanout=10", "cores=2"], 0, ("tree", 4950, None)),
    (["spawn", "n=100", "cores=2"], 0, ("spawn", 100, 100)),
]


def batch(d, lines, timeout=120):
    """(exit, records, stderr, process group) of `batch` given `lines` (lists of arguments) and then the end
    of its input, in a process group of its own."""
    proc = subprocess.Popen(
        d.argv(2, 1000) + ["batch"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **d.environ(2, 1000)},
        cwd=d.folder,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate("".join("\t".join(a) + "\n" for a in lines), timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise AssertionError(f"{d.name}: batch of {len(lines)} lines not done within {timeout} s") from None
    return proc.returncode, [json.loads(x) for x in out.splitlines() if x.strip()], err, proc.pid


@pytest.mark.parametrize("d", BATCH, ids=BATCH_IDS)
def test_batch_answers_each_line_as_run_would_then_done(d):
    """Each line's records are those `run` prints (a result with its count, or one error of the kind), then
    {"type":"done","exit":E} with run's exit; at the end of input the driver exits 0 and its process group
    is gone (nothing of a run outlives it)."""
    code, recs, err, pgid = batch(d, [args for args, _, _ in BATCH_LINES])
    assert code == 0, (recs[-3:], err[-2000:])
    runs, current = [], []
    for r in recs:
        if r["type"] == "done":
            runs.append((current, r))
            current = []
        else:
            current.append(r)
    assert current == [], f"records after the last done: {current}"
    assert len(runs) == len(BATCH_LINES), [done for _, done in runs]
    for (args, status, want), (got, done) in zip(BATCH_LINES, runs, strict=True):
        assert done == {"type": "done", "exit": status}, (args, done, got)
        if status:
            assert [r["type"] for r in got] == ["error"] and got[0]["kind"] == want and got[0]["message"], (args, got)
            continue
        (r,) = [switches_counted(d, r) for r in got if r["type"] == "result"]
        assert (r["workload"], r["count"]) == want[:2], (args, r)
        assert want[2] is None or r["ready"] == want[2], (args, r)
        assert r["iteration"] == 1 and r["setup_ns"] + r["run_ns"] > 0 and r["rss_before"] > 0, (args, r)
        assert {x["type"] for x in got} == {"result"}, (args, got)
    deadline = time.monotonic() + 10.0  # the group ends with the driver: at once on a quiet machine
    while _group_alive(pgid) and time.monotonic() < deadline:
        time.sleep(0.02)
    alive = _group_alive(pgid)
    if alive:
        os.killpg(pgid, signal.SIGKILL)
    assert not alive, f"{d.name}: batch's process group outlived the end of its input by 10 s"


# Once a folder, on its parser's variant: the verb's reading loop is the family library's (the variants differ in
# their processes); every variant's end of input after lines, exit 0 and its group gone, is the test above.
BATCH_PARSERS = [d for d in PARSERS if "batch" in features_of(d)]


@pytest.mark.parametrize("d", BATCH_PARSERS, ids=[d.base for d in BATCH_PARSERS])
def test_batch_with_no_input_exits_0_printing_nothing(d):
    code, recs, err, _ = batch(d, [])
    assert (code, recs) == (0, []), (code, recs, err[-2000:])


@pytest.mark.parametrize("d", NO_BATCH, ids=[d.base for d in NO_BATCH])
def test_a_driver_without_batch_refuses_the_verb(d):
    """The table does not list `batch`: the verb is unknown, bad_param (exit 2), with a line on its input
    that a driver answering `batch` would run."""
    code, recs, err, _ = batch(d, [["ring", "n=3", "m=1"]])
    assert code == 2 and recs and recs[-1]["type"] == "error" and recs[-1]["kind"] == "bad_param", (recs, err)
    assert not [r for r in recs if r["type"] in ("result", "done")], recs


_ORCHESTRATOR_SIDE = """
import sys
from ringbench.catalogue import drivers
from ringbench.harness import launch
d = drivers.discover()[sys.argv[1]]
launch.run_driver(d, ["run", "ring", "n=1000", "m=1", "sample_ms=50", "samples=2400", "cores=1"], cores="1",
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

    side = subprocess.Popen(
        [sys.executable, "-c", _ORCHESTRATOR_SIDE, d.name],
        stdout=subprocess.PIPE,
        env={k: v for k, v in os.environ.items() if k != "RINGBENCH_DRIVER_PATH"},
    )
    try:
        assert lines_within(side.stdout, 1, 120, parse=bytes.strip) == [b"sample"], "the driver never sampled"
        (driver_pid,) = _children(side.pid)
        side.kill()
        side.wait()
        # at once on a quiet machine; 10 s is for a loaded one (the ring would run on for 2 minutes)
        deadline = time.monotonic() + 10.0
        while _group_alive(driver_pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        alive = _group_alive(driver_pid)
        if alive:
            os.killpg(driver_pid, signal.SIGKILL)
        assert not alive, f"{d.name}: driver process group {driver_pid} outlived its orchestrator by 10 s"
    finally:
        side.kill()


# -- long runs, behind a flag (make test-slow) -----------------------------------------------
@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("RINGBENCH_SLOW"), reason="long run: make test-slow")
# one OS thread per process cannot reach a million here (see the results document)
@pytest.mark.parametrize(
    "d",
    [d for d in DRIVERS if not d.os_threads_per_process],
    ids=[d.name for d in DRIVERS if not d.os_threads_per_process],
)
def test_ring_of_a_million(d):
    r, _ = results_of(d, "ring", "n=1000000", "m=2", processes=1_000_000, fresh=True)
    assert r["count"] == 2_000_000


# -- section 10: a ring across nodes (drivers that describe the feature `nodes`) -----------------------
from ringbench.catalogue.workloads import cross_hops  # noqa: E402

# Each shape once: n = K (the bound nodes <= n, one process a node), uneven contiguous blocks on two and on
# three nodes, interleaved on two with tokens, four nodes interleaved and uneven (99 = 4 x 24 + 3) with a
# burst of tokens, a large contiguous ring with a burst. Four nodes cost three peer start-ups a vector (a
# JVM each, on pekko: 7-10 s a vector of a quiet run), so they run once: (9, 2, 1, 0, 4, 1) and
# (100, 10, 4, 1, 4, 1) were one vector each, which (99, 10, 4, 1, 4, 1) now checks at once.
NODE_VECTORS = [  # (n, m, tokens, burst, nodes, node_placement)
    (2, 1, 1, 0, 2, 0),
    (3, 3, 1, 0, 2, 0),
    (10, 2, 2, 0, 2, 1),
    (7, 13, 3, 0, 3, 0),
    (99, 10, 4, 1, 4, 1),
    (1000, 3, 5, 1, 2, 0),
]


def node_of(i, n, k, placement):
    return i * k // n if placement == 0 else i % k


NODES = having("nodes")  # the table's, never the driver's own word: a driver that stopped listing it fails
NODE_IDS = [d.name for d in NODES]
NO_NODES = [d for d in DRIVERS if d not in NODES]


@pytest.mark.parametrize("d", NO_NODES, ids=[d.name for d in NO_NODES])
def test_a_driver_without_nodes_refuses_them(d):
    code, recs, _ = run_case(d, "ring", "n=3", "m=1", "nodes=2")
    assert code == 2 and recs and recs[-1]["kind"] in ("bad_param", "unsupported"), recs


# Every vector on each runtime's first variant (its stock one); a runtime's other variants share its code across
# nodes and differ only in settings, so they run one contiguous and one interleaved vector (the peers start on
# every run: a vector costs K VM start-ups, most of what this suite spends on nodes).
NODE_CASES = [
    pytest.param(d, *v, id=f"{'-'.join(map(str, v))}-{d.name}")
    for d in NODES
    for v in (NODE_VECTORS if d == min((x for x in NODES if x.base == d.base), key=lambda x: (x.tuned, x.name))
              else [NODE_VECTORS[1], NODE_VECTORS[2]])
]  # fmt: skip


@pytest.mark.parametrize("d,n,m,tokens,burst,k,placement", NODE_CASES)
def test_ring_across_nodes_proves_its_count_and_its_cross_node_hops(d, n, m, tokens, burst, k, placement):
    r, _ = results_of(
        d,
        "ring",
        *(f"n={n}", f"m={m}", f"tokens={tokens}", f"burst={burst}", f"nodes={k}", f"node_placement={placement}"),
    )
    assert (r["nodes"], r["node_placement"], r["count"], r["ready"]) == (k, placement, n * m * tokens, n)
    want = cross_hops({"n": n, "m": m, "tokens": tokens, "nodes": k, "node_placement": placement})
    assert r["cross_hops"] == want
    if placement == 0:
        assert r["cross_hops"] == k * m * tokens, "contiguous blocks: K cross-node hops a lap"


@pytest.mark.parametrize("d", NODES, ids=NODE_IDS)
def test_ring_on_one_node_reports_no_cross_node_hops(d):
    r, _ = results_of(d, "ring", "n=10", "m=2", "nodes=1")
    assert r["count"] == 20 and "cross_hops" not in r


@pytest.mark.parametrize("d", NODES, ids=NODE_IDS)
# contiguous, and interleaved (5 on two nodes: its last hop, 4 -> 0, stays on node 0, as 2 -> 0 of 3 would)
@pytest.mark.parametrize("n,m,placement", [(3, 2, 0), (5, 3, 1)])
def test_trace_across_two_nodes_follows_the_ring_and_names_each_node(d, n, m, placement):
    r, recs = results_of(d, "trace", f"n={n}", f"m={m}", "nodes=2", f"node_placement={placement}")
    hops = [x for x in recs if x["type"] == "hop"]
    assert check_trace(hops, n, m, recs) is None
    assert [h["node"] for h in hops] == [node_of(h["to"], n, 2, placement) for h in hops]
    assert r["cross_hops"] == cross_hops({"n": n, "m": m, "tokens": 1, "nodes": 2, "node_placement": placement})


@pytest.mark.parametrize("d", NODES, ids=NODE_IDS)
@pytest.mark.parametrize(
    "args", [["nodes=0"], ["nodes=4"], ["nodes=257"], ["nodes=2", "node_placement=2"], ["node_placement=-1"]]
)
def test_nodes_out_of_bounds_are_bad_param(d, args):
    code, recs, _ = run_case(d, "ring", "n=3", "m=1", *args)
    assert code == 2 and recs and recs[-1]["kind"] == "bad_param", recs


@pytest.mark.parametrize("d", NODES, ids=NODE_IDS)
@pytest.mark.parametrize("k", [1, 2])
def test_cluster_view_reports_every_node_after_every_sample(d, k):
    code, recs, err = run_case(d, "ring", "n=100", "sample_ms=100", "samples=3", "stats=1", f"nodes={k}", "cores=2")
    assert code == 0, err
    samples = [{**r, "process": 1} for r in recs if r["type"] == "sample"]
    check_samples(samples, 100, 3)
    views = [r for r in recs if r["type"] == "node"]
    assert [(v["seq"], v["node"]) for v in views] == [(s, j) for s in (1, 2, 3) for j in range(k)]
    assert sum(v["processes_in_ring"] for v in views if v["seq"] == 1) == 100
    for v in views:
        for f in (
            "elapsed_ns",
            "laps",
            "sched_active",
            "sched_total",
            "dist_in",
            "dist_out",
            "memory",
            "processes",
            "cpu_ns",
        ):
            assert isinstance(v[f], int) and v[f] >= 0, (f, v)
    last = [v for v in views if v["seq"] == 3]
    assert all(v["laps"] > 0 for v in last), "every node's first process counts the laps passing it"
    if k == 2:
        assert all(v["dist_in"] > 0 and v["dist_out"] > 0 for v in last), "hops cross between the nodes"


# -- perf (contract section 10): the user's own code in a tight loop ---------------------------------------
def _perf_name(d):
    return tomllib.loads((d.folder / "driver.toml").read_text()).get("perf")


# The runner perf runs is a driver's first variant that is not tuned (contract section 10), of each driver
# the table lists with `perf`.
PERF_DRIVERS = list({d.base: d for d in reversed(DRIVERS) if not d.tuned and "perf" in features_of(d)}.values())[::-1]
PERF_IDS = [d.name for d in PERF_DRIVERS]
# Each vector's code in each runner's language: tests/perf_code/<runner>.toml (a new runner adds its file).
# What a snippet prints goes to stderr (section 11).
PERF_CODE = {p.stem: tomllib.loads(p.read_text()) for p in (Path(__file__).parent / "perf_code").glob("*.toml")}
# A runner of a language another runner has vectors for uses that file: PyPy runs python.toml.
PERF_LANGUAGE = {"pypy": "python"}


def perf_job(d, snippets, **kw):
    """A job file's content (section 10): every key present, the snippets' code from PERF_CODE by name."""
    runner = _perf_name(d)
    code = PERF_CODE[PERF_LANGUAGE.get(runner, runner)]
    job = {
        "perf": 1,
        "mode": "continuous",
        "concurrency": 1,
        "loop": 0,
        "samples": 2,
        "sample_ms": 50,
        "warmup": 0,
        "ask": False,
        "max_samples": 2,
        "min": 1,
        "max": 1,
        "processes": False,
        "code_path": [],
        "stats": False,
        "cores": 2,
        **kw,
    }
    job["snippets"] = [
        {"snippet": k, "runner": None, "init": None, "init_runner": None, "done": None, "file": None, **code[name]}
        for k, name in enumerate(snippets, 1)
    ]
    return job


def run_perf(d, job, answers="", timeout=120, env=None):
    """(exit code, records, stderr) of `perf <job.json>`; `answers` is the driver's stdin (more / enough),
    `env` variables added to the driver's."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "job.json")
        with open(path, "w") as f:
            json.dump(job, f)
        p = subprocess.run(
            d.argv(2, 1000) + ["perf", path],
            input=answers,
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, **d.environ(2, 1000), **(env or {})},
            cwd=d.folder,
        )
    return p.returncode, [json.loads(line) for line in p.stdout.splitlines() if line.strip()], p.stderr


def _of(recs, kind):
    return [r for r in recs if r["type"] == kind]


def _counted(stderr):
    (line,) = [x for x in stderr.splitlines() if x.startswith("count=")]
    return int(line.split("=")[1])


def test_perf_runners_are_the_tables():
    """The drivers whose manifest names a perf runner are the ones the table lists with `perf` (each of
    whose describe says so, test_describe), every one with its vectors in tests/perf_code; erlang's and
    python's among them."""
    table = {d.base for d in DRIVERS if "perf" in features_of(d)}
    assert {d.base for d in DRIVERS if _perf_name(d)} == table
    assert {d.base for d in PERF_DRIVERS} == table
    assert {"erlang", "python-threads"} <= table
    assert all(PERF_LANGUAGE.get(_perf_name(d), _perf_name(d)) in PERF_CODE for d in PERF_DRIVERS)


@pytest.mark.parametrize("d,workers", [pytest.param(d, c, id=f"{d.name}-c{c}") for d in PERF_DRIVERS for c in (1, 3)])
def test_perf_continuous_counts_every_call(d, workers):
    """`total` is the runner's calls to within one a worker (the call each was in); samples only grow."""
    code, recs, err = run_perf(d, perf_job(d, ["count"], concurrency=workers, samples=3, max_samples=3))
    assert code == 0, (recs, err)
    assert _of(recs, "ready") == [{"type": "ready", "snippets": 1, "runner_arity": [1]}]
    samples = _of(recs, "sample")
    assert [s["seq"] for s in samples] == [0, 1, 2, 3]
    assert all(s["concurrency"] == workers and s["step"] == 1 and s["snippet"] == 1 for s in samples)
    counts = [s["count"] for s in samples]
    assert counts == sorted(counts) and counts[-1] > 0
    elapsed = [s["elapsed_ns"] for s in samples]
    assert elapsed == sorted(elapsed)
    (total,) = _of(recs, "total")
    assert counts[-1] <= total["count"]
    assert 0 <= total["count"] - _counted(err) <= workers, (total, err)
    assert [r["phase"] for r in _of(recs, "phase")] == ["init", "init_runner", "running", "done"]
    assert recs[-1] == {"type": "finished", "snippet": 1}


@pytest.mark.parametrize("d", PERF_DRIVERS, ids=PERF_IDS)
def test_perf_timed_runs_exactly_the_loop(d):
    """Timed: each sample is exactly `loop` calls; the warm-up ones run too but print nothing."""
    code, recs, err = run_perf(d, perf_job(d, ["count"], mode="timed", loop=1000, samples=3, warmup=1))
    assert code == 0, (recs, err)
    results = _of(recs, "result")
    assert [(r["iteration"], r["count"], r["loop"], r["workload"]) for r in results] == [
        (i, 1000, 1000, "perf") for i in (1, 2, 3)
    ]
    assert all(r["run_ns"] > 0 and r["run_cpu_ns"] >= 0 for r in results)
    assert _of(recs, "total")[0]["count"] == _counted(err) == 4000
    assert not _of(recs, "sample")


@pytest.mark.parametrize("d", PERF_DRIVERS, ids=PERF_IDS)
def test_perf_state_threads_through_the_runner(d):
    """erlperf's example: runner/2 with init_runner 1 and -l 5 prints 1 … 5, each sample afresh (as erlperf)."""
    code, recs, err = run_perf(d, perf_job(d, ["state"], mode="timed", loop=5, samples=2, warmup=1))
    assert code == 0, (recs, err)
    assert err.split() == ["1", "2", "3", "4", "5"] * 3
    assert _of(recs, "ready")[0]["runner_arity"] == [2]


@pytest.mark.parametrize("d", PERF_DRIVERS, ids=PERF_IDS)
def test_perf_hooks_run_once_each_with_their_values(d):
    """init once, init_runner once a worker (given init's value), done once (given it too)."""
    code, recs, err = run_perf(d, perf_job(d, ["hooks"], concurrency=3))
    assert code == 0, (recs, err)
    lines = [" ".join(x.replace("(", " ").replace(")", " ").replace(",", " ").split()) for x in err.splitlines()]
    assert lines == ["init", "init_runner 42", "init_runner 42", "init_runner 42", "done 42"], err


@pytest.mark.parametrize("d", PERF_DRIVERS, ids=PERF_IDS)
def test_perf_workers_run_at_once(d):
    """A runner that sleeps 10 ms: three workers make well over the calls of one, so they really run at
    once (one at a time, they could make no more calls than one worker: each call takes 10 ms).

    3.0x on a quiet machine for every runner; under CI's load, 1.9x (elixir). 10 ms, not 1: a 1 ms
    sleep is near the timer's grain (1.6x under load). One at a time, three workers make at most 1.0x: 1.3x
    is far enough above that for a machine loaded well past CI's. Over three intervals of 300 ms, not one:
    on a slowed host under three test workers one interval gave erlang 1.13x (2026-11-29).

    The BEAM's schedulers without busy waiting (+sbwt none): under CPU contention the stock busy
    wait makes a 10 ms sleep take 100s of ms (20 sleeps of `erl` beside six busy loops on two cores:
    8.4 s stock, 0.3 s with +sbwt none or +S 1; 2026-11-29), so the rates measured the host's load, not
    whether workers overlap (a fresh-clone CI run: elixir 1.24x). Busy waiting is not what is tested."""
    env = {"ERL_AFLAGS": "+sbwt none +sbwtdcpu none +sbwtdio none"} if d.perf in ("erlang", "elixir") else None
    rates = []
    for workers in (1, 3):
        job = perf_job(d, ["sleep"], concurrency=workers, sample_ms=300, warmup=1, samples=4, max_samples=4)
        code, recs, err = run_perf(d, job, env=env)
        assert code == 0, (recs, err)
        s = _of(recs, "sample")
        rates.append((s[-1]["count"] - s[1]["count"]) / (s[-1]["elapsed_ns"] - s[1]["elapsed_ns"]))
    assert rates[1] > 1.3 * rates[0], rates


@pytest.mark.parametrize("d", PERF_DRIVERS, ids=PERF_IDS)
def test_perf_squeeze_adds_workers_step_by_step(d):
    """Squeeze: step k runs min + k - 1 workers; `more` on stdin goes on, end of input ends it."""
    code, recs, err = run_perf(d, perf_job(d, ["count"], mode="squeeze", min=2, max=4, samples=1), answers="more\n")
    assert code == 0, (recs, err)
    assert [(r["step"], r["concurrency"]) for r in _of(recs, "step")] == [(1, 2), (2, 3)]
    assert {(s["step"], s["concurrency"]) for s in _of(recs, "sample")} == {(1, 2), (2, 3)}
    assert 0 <= _of(recs, "total")[0]["count"] - _counted(err) <= 3


@pytest.mark.parametrize("d", PERF_DRIVERS, ids=PERF_IDS)
def test_perf_check_compiles_and_says_ready(d):
    code, recs, err = run_perf(d, perf_job(d, ["count", "state", "sleep"], mode="check"))
    assert code == 0, (recs, err)
    assert recs == [{"type": "ready", "snippets": 3, "runner_arity": [1, 2, 0]}]


PERF_BAD = ["syntax", "arity_without_init_runner", "too_many_arguments", "init_with_an_argument"]


@pytest.mark.parametrize("d,name", [pytest.param(d, b, id=f"{d.name}-{b}") for d in PERF_DRIVERS for b in PERF_BAD])
def test_perf_bad_code_is_bad_param_before_anything_runs(d, name):
    code, recs, err = run_perf(d, perf_job(d, ["count", name]))
    assert code == 2, (recs, err)
    assert len(recs) == 1 and recs[0]["kind"] == "bad_param", recs
    assert "snippet 2" in recs[0]["message"], recs


@pytest.mark.parametrize(
    "d,name,phase",
    [
        pytest.param(d, n, p, id=f"{d.name}-{n}")
        for d in PERF_DRIVERS
        for n, p in (("raises", "runner"), ("raises_in_init", "init"))
    ],
)
def test_perf_a_failure_stops_at_once_with_the_runtimes_message(d, name, phase):
    """A snippet that raises: a failure record naming it and its phase; no figure, and the next never runs."""
    code, recs, err = run_perf(d, perf_job(d, [name, "count"]))
    assert code == 1, (recs, err)
    assert recs[-1]["type"] == "error" and recs[-1]["kind"] == "failure", recs
    assert (recs[-1]["snippet"], recs[-1]["phase"]) == (1, phase)
    assert recs[-1]["message"].strip()
    assert not _of(recs, "total") and not _of(recs, "result")
    assert all(r.get("snippet", 1) == 1 for r in recs)


@pytest.mark.parametrize("d", PERF_DRIVERS, ids=PERF_IDS)
def test_perf_bad_job_is_bad_param(d):
    job = perf_job(d, ["count"])
    for broken in (
        {**job, "colour": 1},
        {k: v for k, v in job.items() if k != "samples"},
        {**job, "mode": "fast"},
        {**job, "samples": "3"},
    ):
        code, recs, _ = run_perf(d, broken)
        assert code == 2 and len(recs) == 1 and recs[0]["kind"] == "bad_param", (broken, recs)


@pytest.mark.parametrize("d", PERF_DRIVERS, ids=PERF_IDS)
def test_perf_stats_follow_each_sample(d):
    """stats: true: a stats record after each sample taken while the workers run (seq 1 on)."""
    code, recs, err = run_perf(d, perf_job(d, ["count"], stats=True))
    assert code == 0, (recs, err)
    stats = _of(recs, "stats")
    assert [s["seq"] for s in stats] == [s["seq"] for s in _of(recs, "sample") if s["seq"] > 0], recs
    assert all(s["workload"] == "perf" and s["snippet"] == 1 for s in stats)
    assert all(isinstance(v, (int, float)) for s in stats for k, v in s.items() if k not in ("type", "workload"))


@pytest.mark.parametrize("d", PERF_DRIVERS, ids=PERF_IDS)
def test_perf_os_process_workers_or_unsupported(d):
    """processes: true runs OS-process workers (a runtime whose threads share one lock) or is `unsupported`."""
    code, recs, err = run_perf(d, perf_job(d, ["sleep"], processes=True, concurrency=2))
    if code == 2:
        assert len(recs) == 1 and recs[0]["kind"] == "unsupported", recs
        return
    assert code == 0, (recs, err)
    samples = _of(recs, "sample")
    assert samples[-1]["count"] > 0 and samples[-1]["concurrency"] == 2
    assert _of(recs, "total")[0]["count"] >= samples[-1]["count"]
