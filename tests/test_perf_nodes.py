"""`ringbench perf --nodes K` (contract section 11, across nodes) on the real Erlang runner: every snippet runs on
K BEAM nodes at once, init and done once a node, the iterations counted on each node; the table, --json and the
store have a figure per node and their sum. Bad input is one line and exit 2; no node outlives a normal run, a
Ctrl-C or a SIGKILL of the orchestrator (the pattern of test_nodes.py, conftest.RingProcesses).

Timings are never checked (the machine may be busy): the counts are, exactly where the mode makes them exact."""

import json
import os
import re
import signal
import sqlite3
import statistics
import subprocess
import time
from pathlib import Path

import pytest
from conftest import RINGBENCH, RingProcesses, q, real_drivers

from ringbench.present import tables
from ringbench.results import modes
from ringbench.results.store import Store

ROOT = Path(__file__).resolve().parent.parent
BUILT = {d.name for d in real_drivers()}
ON_CI = bool(os.environ.get("CI"))  # on CI a runner that is not built fails its tests (with its reason), never skips
needs_erlang = pytest.mark.skipif("erlang/stock" not in BUILT and not ON_CI, reason="the erlang driver is not built")
# Not `alone`: timings are never checked (the deadlines are a minute, for a loaded machine), and each test counts
# only the processes of its own orchestrator (conftest.RingProcesses), never another test's nodes.

# A runner that counts its own calls in a counter made by init, on each node; done prints the node's count.
COUNTING = [
    "run(C) -> counters:add(C, 1, 1).", "--init", "counters:new(1, [write_concurrency]).",
    "--init_runner", "init_runner(C) -> C.",
    "--done", 'done(C) -> io:format(standard_error, "COUNTED ~s ~b~n", [node(), counters:get(C, 1)]).',
]  # fmt: skip


def ringbench(*args, timeout=120, env=None):
    p = subprocess.run(
        [*RINGBENCH, *map(str, args)], capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=env
    )
    return p.returncode, p.stdout, p.stderr


def counted(err: str) -> dict[str, int]:
    """What each node's done hook printed: node name → the snippet's own count of its calls there."""
    return {m[1]: int(m[2]) for m in re.finditer(r"^COUNTED (\S+) (\d+)$", err, re.M)}


# -- counts per node ------------------------------------------------------------------------------------
@needs_erlang
def test_timed_iterations_are_counted_on_each_node_and_summed(tmp_path):
    procs = RingProcesses()
    loop, samples, warmup = 20_000, 2, 1
    rc, out, err = ringbench("perf", *COUNTING, "--nodes", 3, "-l", loop, "-s", samples, "-w", warmup, "--json",
                             "--db", tmp_path / "db", env=procs.env)  # fmt: skip
    assert rc == 0, err
    cell = json.loads(out)["cells"][0]
    x = cell["extra"]
    assert cell["params"]["nodes"] == 3
    # Each node's init made its own counter: three nodes, each counting exactly its own iterations.
    own = counted(err)
    assert sorted(own) == sorted(x["node_names"]) and len(set(own)) == 3, err
    totals = {t["name"]: t["count"] for t in x["node_totals"]}
    assert totals == own
    assert set(own.values()) == {loop * (samples + warmup)}
    assert x["total"] == sum(totals.values())
    # Each node's timed samples; the cell's figure for each sample is the sum of the nodes' QPS.
    per_node = x["node_records"]
    assert sorted({r["node"] for r in per_node}) == [0, 1, 2]
    assert all(r["count"] == loop for r in per_node) and len(per_node) == 3 * samples
    for rec in cell["records"]:
        mine = [r for r in per_node if r["iteration"] == rec["iteration"]]
        assert rec["count"] == loop * 3
        # run_ns is whole nanoseconds (rounded from the nodes' summed rates): within half a ns of exact
        exact = sum(r["count"] / r["run_ns"] for r in mine)
        assert rec["count"] / rec["run_ns"] == pytest.approx(exact, rel=0.5 / (rec["run_ns"] - 0.5))
    assert procs.left(10) == set(), "a node outlived a normal run"


@needs_erlang
def test_continuous_samples_per_node_add_up_and_the_table_shows_each_node(tmp_path):
    c = 2
    rc, out, err = ringbench("perf", *COUNTING, "--nodes", 2, "-c", c, "-d", 100, "-s", 2, "-w", 0, "--json",
                             "--db", tmp_path / "db")  # fmt: skip
    assert rc == 0, err
    doc = json.loads(out)
    cell = doc["cells"][0]
    x = cell["extra"]
    per_node = x["node_samples"]
    assert sorted({s["node"] for s in per_node}) == [0, 1]
    assert all(s["tokens"] == c for s in per_node)
    for s in cell["samples"]:  # the cell's sample is every node's at once: counts summed, all workers
        mine = [p for p in per_node if (p["process"], p["seq"]) == (s["process"], s["seq"])]
        assert len(mine) == 2 and s["count"] == sum(p["count"] for p in mine) and s["tokens"] == 2 * c
    # Each node's call count against the snippet's own count there: within one iteration a worker.
    own = counted(err)
    totals = {t["name"]: t["count"] for t in x["node_totals"]}
    assert sorted(own) == sorted(totals), err
    for name, n in totals.items():
        assert n > 0 and 0 <= n - own[name] <= c, (name, n, own[name])
    assert x["total"] == sum(totals.values())
    # Stored: show has the sum's row and one per node (|| every node's workers, then each node's).
    rc, shown, err = ringbench("show", doc["run_id"], "--db", tmp_path / "db")
    assert rc == 0 and "└ node 0" in shown and "└ node 1" in shown, err
    # The sum's QPS is the median of the summed samples, which the note says (the node rows' medians need not
    # add up to it: the note used to say the sum row was the nodes' QPS added).
    words = " ".join(shown.split())
    assert "QPS the median of the nodes' QPS added sample by sample" in words, shown
    assert "need not equal the node rows' medians added" in words, shown
    rates = [(b["count"] - a["count"]) * 1e9 / (b["elapsed_ns"] - a["elapsed_ns"])
             for a, b in zip(cell["samples"], cell["samples"][1:], strict=False)]  # fmt: skip
    with Store(tmp_path / "db") as store:
        summed = store.load_run(doc["run_id"]).cells[0]
    assert modes.perf_figures(summed).qps == pytest.approx(statistics.median(rates))
    with Store(tmp_path / "db") as store:
        run = store.load_run(doc["run_id"])
    _, rows, _ = tables.perf_rows(run.cells)
    assert [r[0] for r in rows] == [tables.perf_code(run.cells[0]), "└ node 0", "└ node 1"]
    assert [r[1] for r in rows] == [str(2 * c), str(c), str(c)]


# -- bad input: one line, exit 2, nothing stored ----------------------------------------------------------
def _refused(tmp_path, *args) -> str:
    rc, out, err = ringbench("perf", "ok.", *args, "--db", tmp_path / "db")
    assert rc == 2, (rc, out, err)
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines and lines[-1].startswith("Error: "), err
    assert not (tmp_path / "db").exists()
    return lines[-1]


@needs_erlang
@pytest.mark.parametrize("args,says", [
    (["--nodes", "257"], "between 1 and 256"),
    (["--nodes", "0"], "between 1 and 256"),
    (["--nodes", "2", "-q"], "-q/--squeeze does not fit --nodes"),
    (["--nodes", "2", "--hosts", "a,b"], "makes 3 nodes"),
])  # fmt: skip
def test_bad_nodes_are_one_line_and_exit_2(tmp_path, args, says):
    assert says in _refused(tmp_path, *args)


@pytest.mark.skipif("python-threads/stock" not in BUILT and not ON_CI, reason="the python-threads driver is not built")
def test_a_runner_without_nodes_is_refused_in_one_line(tmp_path):
    rc, out, err = ringbench("perf", "-r", "python", "1 + 1", "--nodes", 2, "--db", tmp_path / "db")
    assert rc == 2 and "Traceback" not in err, err
    assert "cannot run perf on 2 nodes (no `nodes` feature)" in err.strip().splitlines()[-1]
    assert not (tmp_path / "db").exists()


def _run_begun(db: Path) -> bool:
    try:
        return bool(db.exists() and q(db, "SELECT id FROM runs"))
    except sqlite3.Error:
        return False


# -- nothing left running ---------------------------------------------------------------------------
@needs_erlang
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "sigkill"])
def test_an_interrupted_or_killed_orchestrator_leaves_no_node_running(tmp_path, sig):
    procs = RingProcesses()
    db = str(tmp_path / "db")
    cmd = [*RINGBENCH, "perf", "rand:uniform().", "--nodes", "3", "-d", "1000", "-s", "60", "--db", db]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=procs.env)
    procs.root = proc.pid
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(procs.peers()) < 2:  # the two nodes beside the driver's
            time.sleep(0.1)
        assert len(procs.peers()) >= 2, "the nodes never came up (connected)"
        while time.monotonic() < deadline and not _run_begun(tmp_path / "db"):  # the run is stored: measuring
            time.sleep(0.1)
        time.sleep(1)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    if sig == signal.SIGINT:
        assert proc.returncode == 130 and "Traceback" not in err, err
    assert procs.left() == set()
