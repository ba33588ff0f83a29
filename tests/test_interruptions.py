"""Stopping a measurement keeps every finished cell: --budget, Ctrl-C, SIGTERM, two writers on one
store, a fault or a timeout in one cell of a sweep."""

import json
import os
import signal
import sqlite3
import subprocess
import time

import pytest
from conftest import RINGBENCH, cells_stored, live_processes_with, q, run_cli


def rows(db, table):
    if not db.exists():
        return []
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    return con.execute(f"SELECT * FROM {table}").fetchall()


def run_begun(db) -> bool:
    """The run's row is stored (the store may exist a moment before its tables do)."""
    try:
        return bool(rows(db, "runs"))
    except sqlite3.Error:
        return False


def _env(fake_env):
    return {**os.environ, **fake_env}


def test_budget_stops_cleanly_and_resume_finishes_without_redoing(fake, db):
    fake(FAKE_FAULT="slow", FAKE_SLOW_S=0.6)
    r = run_cli(
        "sweep",
        "ring",
        "-r",
        "fake",
        "-n",
        "10,20,30,40",
        "-m",
        1,
        "--repeat",
        1,
        "--warmup",
        0,
        "--budget",
        "1s",
        "--db",
        db,
    )
    assert r.exit_code == 3, r.output  # a budget stop: its own status and exit code, not an interrupt
    first = q(db, "SELECT params FROM cells")
    assert 1 <= len(first) < 4
    assert q(db, "SELECT status FROM runs")[0]["status"] == "budget"
    assert "sweep --resume 1" in r.output
    r = run_cli("sweep", "--resume", 1, "--db", db)
    assert r.exit_code == 0, r.output
    cells = [json.loads(c["params"])["n"] for c in q(db, "SELECT params FROM cells")]
    assert sorted(cells) == [10, 20, 30, 40]  # each once: nothing lost, nothing duplicated
    assert q(db, "SELECT status FROM runs")[0]["status"] == "complete"


def test_sigint_keeps_finished_cells_and_resume_completes(fake, db, monkeypatch):
    fake(FAKE_FAULT="slow", FAKE_SLOW_S=0.7)
    cmd = RINGBENCH + [
        "sweep",
        "ring",
        "-r",
        "fake",
        "-n",
        "10,20,30,40,50",
        "-m",
        "1",
        "--repeat",
        "1",
        "--warmup",
        "0",
        "--db",
        str(db),
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if cells_stored(db) >= 2:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    kept = q(db, "SELECT count(*) AS k FROM cells")[0]["k"]
    assert 2 <= kept < 5
    assert q(db, "SELECT status FROM runs")[0]["status"] == "interrupted"
    monkeypatch.delenv("FAKE_FAULT")  # the slow driver was for the interrupt; the resume needs none of it
    done = run_cli("sweep", "--resume", "1", "--db", str(db))
    assert done.exit_code == 0, done.output
    ns = sorted(json.loads(c["params"])["n"] for c in q(db, "SELECT params FROM cells"))
    assert ns == [10, 20, 30, 40, 50]
    assert len(q(db, "SELECT * FROM results")) == 5


def test_a_run_interrupted_before_any_cell_prints_its_title_on_one_line(fake, db):
    fake(FAKE_FAULT="slow", FAKE_SLOW_S=5)
    cmd = RINGBENCH + [
        "run",
        "ring",
        "-r",
        "fake",
        "-n",
        "10",
        "-m",
        "1",
        "--repeat",
        "1",
        "--warmup",
        "0",
        "--db",
        str(db),
    ]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "COLUMNS": "100"}
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not run_begun(db):
        time.sleep(0.05)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    # the table holds one column ("nothing measured"); its title is not folded into that width
    assert "ring (timed), run 1 (interrupted)" in out.splitlines()[0], out
    assert "nothing measured" in out


def test_sigterm_also_keeps_finished_cells(fake, db):
    fake(FAKE_FAULT="slow", FAKE_SLOW_S=0.7)
    cmd = RINGBENCH + [
        "sweep",
        "ring",
        "-r",
        "fake",
        "-n",
        "10,20,30",
        "-m",
        "1",
        "--repeat",
        "1",
        "--warmup",
        "0",
        "--db",
        str(db),
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not cells_stored(db):
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert q(db, "SELECT status FROM runs")[0]["status"] == "interrupted"
    assert q(db, "SELECT count(*) AS k FROM cells")[0]["k"] >= 1


def test_two_writers_on_one_store_lose_nothing(fake, db):
    cmd = RINGBENCH + [
        "sweep",
        "ring",
        "-r",
        "fake",
        "-n",
        ",".join(str(10 + i) for i in range(8)),
        "-m",
        "1",
        "--repeat",
        "2",
        "--warmup",
        "0",
        "--db",
        str(db),
    ]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    assert [r["status"] for r in q(db, "SELECT status FROM runs")] == ["complete", "complete"]
    assert len(q(db, "SELECT * FROM cells WHERE status='ok'")) == 16
    assert len(q(db, "SELECT * FROM results")) == 32


@pytest.mark.parametrize(
    "fault,status",
    [
        ("hang", "timeout"),
        ("crash", "failed"),
        ("exit1", "failed"),
        ("garbage", "failed"),
        ("wrong_count", "failed"),
        ("absurd", "failed"),
        ("missing_field", "failed"),
        ("negative", "failed"),
        ("limit", "refused"),
        ("slow", "ok"),
    ],
)
def test_a_fault_in_a_sweep_costs_one_cell_only(fake, db, fault, status):
    # The second cell's driver misbehaves; the first and third are measured and kept.
    # Only the hang needs a timeout of its own (the cell waits all of it): 6 s, which the ok cells' driver
    # processes stay well within on a loaded machine; any other fault ends its cell at once, under the
    # default timeout (a minute and more), which no ok cell reaches however loaded the machine.
    fake(FAKE_FAULT=fault, FAKE_FAULT_ON=2, FAKE_SLOW_S=0.3)
    timeout = ["--timeout", 6] if fault == "hang" else []
    r = run_cli("sweep", "ring", "-r", "fake", "-n", "10,20,30", "-m", 5, "--repeat", 1, *timeout, "--db", db)
    assert r.exit_code == (0 if status == "ok" else 1), r.output
    cells = q(db, "SELECT id, params, status, reason FROM cells ORDER BY id")
    assert [c["status"] for c in cells] == ["ok", status, "ok"]
    kept = q(db, "SELECT cell_id, count FROM results ORDER BY cell_id")
    expected = [(cells[0]["id"], 50), (cells[2]["id"], 150)]
    if status == "ok":
        expected.insert(1, (cells[1]["id"], 100))
    assert [(k["cell_id"], k["count"]) for k in kept] == expected
    if status != "ok":
        assert cells[1]["reason"]


@pytest.mark.parametrize("fault", ["slow", "hang"])
def test_a_slow_or_hung_driver_past_its_timeout_is_killed_with_its_children(fake, db, fault):
    """Slow: it would answer after 30 s; hung: never. Either is a `timeout` cell within the 2 s asked (20 s
    allowed a loaded machine), and no driver process is left."""
    fake(FAKE_FAULT=fault, FAKE_SLOW_S=30)
    started = time.monotonic()
    r = run_cli("run", "ring", "-r", "fake", "-n", 10, "-m", 1, "--repeat", 1, "--timeout", 2, "--db", db)
    assert r.exit_code == 1 and time.monotonic() - started < 20
    assert q(db, "SELECT status FROM cells")[0]["status"] == "timeout"
    assert live_processes_with(os.environ["FAKE_COUNTER_FILE"]) == []


@pytest.mark.parametrize(
    "fault,status,words",
    [
        ("crash", "failed", "SIGKILL"),
        ("exit1", "failed", "exit status 1"),
        ("garbage", "failed", "not JSON"),
        ("wrong_count", "failed", "expected 30"),
        ("absurd", "failed", "impossibly fast"),
        ("missing_field", "failed", "run_cpu_ns"),
        ("negative", "failed", "negative"),
        ("limit", "refused", "fake limit"),
    ],
)
def test_a_failed_cell_keeps_no_partial_results(fake, db, fault, status, words):
    fake(FAKE_FAULT=fault, FAKE_FAULT_ON=2)  # the second of three processes misbehaves
    r = run_cli("run", "ring", "-r", "fake", "-n", "3", "-m", "10", "--repeat", "3", "--db", str(db))
    assert r.exit_code == 1, r.output
    (cell,) = rows(db, "cells")
    assert cell["status"] == status and words in cell["reason"]
    assert rows(db, "results") == []  # repeat 1 succeeded, but a cell is all or nothing
    # a refusal (the runtime's own limit) is an answer, not a failure of the run; the exit status says both
    assert rows(db, "runs")[0]["status"] == ("complete" if status == "refused" else "failed")


# A fork hook that lets a signal land inside it, as logging's lock release let Ctrl-C land in CI: Python
# prints and drops an exception raised in a fork hook. Registered once per worker, armed by the test only.
_land_in_fork_hook: list[int] = []
os.register_at_fork(after_in_parent=lambda: _land_in_fork_hook and signal.raise_signal(_land_in_fork_hook.pop()))


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_signal_landing_while_a_driver_process_starts_still_stops_the_run(sig):
    from ringbench.cli_common import _sigterm_as_interrupt
    from ringbench.harness import launch

    mark = f"landed-{os.getpid()}-{sig}"
    previous = signal.getsignal(signal.SIGTERM)
    _sigterm_as_interrupt()  # as the command line turns SIGTERM into an interrupt
    try:
        _land_in_fork_hook.append(sig)
        with pytest.raises(KeyboardInterrupt):
            proc = launch.start(["sleep", "30"], env={**os.environ, "LANDED": mark}, stdout=subprocess.DEVNULL)
            launch.kill_group(proc)
            proc.wait()
    finally:
        _land_in_fork_hook.clear()
        signal.signal(signal.SIGTERM, previous)
    assert live_processes_with(mark) == []  # the process it had started is not left behind
