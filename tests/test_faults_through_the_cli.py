"""Faults through the command line: every store or file error is one line and an exit status, no
traceback, no stray files; runs whose owner died read 'abandoned' and resume; a live run is never
measured twice; drivers never outlive the orchestrator."""

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import live_processes_with, run_cli

from ringbench.catalogue import drivers

RINGBENCH = [sys.executable, "-m", "ringbench.cli"]


def cli(*args, env=None, timeout=120):
    p = subprocess.run(
        RINGBENCH + [str(a) for a in args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )
    return p.returncode, p.stdout, p.stderr


def one_line_error(err: str) -> bool:
    lines = [x for x in err.strip().splitlines() if x.strip()]
    return "Traceback" not in err and len(lines) <= 3 and lines[-1].startswith("Error")


def side_files(db: Path) -> list[str]:
    return sorted(p.name for p in db.parent.iterdir() if p.name != db.name and p.name.startswith(db.name))


def make_run(db):
    """A complete run of the fake in `db`: set-up, measured in this process."""
    r = run_cli("run", "ring", "-r", "fake", "-n", 10, "-m", 2, "--repeat", 2, "--db", db)
    assert r.exit_code == 0, r.output


STORE_COMMANDS = [
    ["history"],
    ["show", 1],
    ["export", 1],
    ["compare", 1, 2],
    ["report", 1, "--out", "{tmp}/r.html"],
    ["plot", 1, "--out", "{tmp}/p.png"],
    ["run", "ring", "-r", "fake", "-n", 3, "-m", 1],
    ["sweep", "--resume", 1],
]


@pytest.mark.parametrize("args", STORE_COMMANDS, ids=[a[0] for a in STORE_COMMANDS])
def test_a_file_that_is_not_a_store_is_one_line_exit_2_for_every_command(fake, tmp_path, args):
    db = tmp_path / "g.db"
    db.write_bytes(os.urandom(4096))
    before = db.read_bytes()
    code, out, err = cli(*[str(a).replace("{tmp}", str(tmp_path)) for a in args], "--db", db)
    assert code == 2 and one_line_error(err), (code, out, err)
    assert str(db) in err
    assert db.read_bytes() == before and side_files(db) == []


def test_a_store_from_a_newer_ringbench_is_refused(fake, tmp_path):
    db = tmp_path / "new.db"
    con = sqlite3.connect(db)
    con.execute("PRAGMA user_version=99")
    con.close()
    for args in (["history"], ["run", "ring", "-r", "fake", "-n", 3, "-m", 1]):
        code, _, err = cli(*args, "--db", db)
        assert code == 2 and one_line_error(err) and "newer" in err


def test_a_missing_store_is_bad_input_for_reading_commands(fake, tmp_path):
    db = tmp_path / "none.db"
    for args in (["history"], ["show", 1], ["export", 1]):
        code, _, err = cli(*args, "--db", db)
        assert code == 2 and one_line_error(err) and "no store" in err
    assert not db.exists()


def test_measuring_into_a_missing_folder_creates_it_and_says_so(fake, tmp_path):
    db = tmp_path / "a" / "b" / "s.db"
    code, _, err = cli("run", "ring", "-r", "fake", "-n", 3, "-m", 1, "--repeat", 1, "--db", db)
    assert code == 0 and db.exists() and "creating the store" in err


def test_export_into_a_missing_folder_creates_it(fake, tmp_path):
    db = tmp_path / "s.db"
    make_run(db)
    code, _, err = cli("export", 1, "--out", tmp_path / "new" / "e.json", "--db", db)
    assert code == 0 and (tmp_path / "new" / "e.json").exists(), err


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("chattr"), reason="chattr +i needs root")
def test_a_read_only_store_is_one_line_exit_1_and_leaves_no_files(fake, tmp_path):
    db = tmp_path / "ro.db"
    make_run(db)
    for f in side_files(db):
        (tmp_path / f).unlink()
    if subprocess.run(["chattr", "+i", str(db)], capture_output=True).returncode:
        pytest.skip("this file system does not support chattr +i")
    try:
        code, _, err = cli("run", "ring", "-r", "fake", "-n", 3, "-m", 1, "--db", db)
        assert code == 1 and one_line_error(err) and "read-only" in err, err
        assert side_files(db) == []
        code, out, err = cli("history", "--db", db)
        assert code == 0 and "complete" in out, err  # reading a read-only store still works
        assert side_files(db) == []
    finally:
        subprocess.run(["chattr", "-i", str(db)])


def _start_slow_sweep(db, cells=6, slow=1.0, runtime="fake", **fake_env):
    env = {**os.environ, "FAKE_FAULT": "slow", "FAKE_SLOW_S": str(slow), **fake_env}
    cmd = RINGBENCH + [
        "sweep",
        "ring",
        "-r",
        runtime,
        "-n",
        ",".join(str(10 + i) for i in range(cells)),
        "-m",
        "1",
        "--repeat",
        "1",
        "--warmup",
        "0",
        "--db",
        str(db),
    ]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _wait_for_cells(db, k, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            con = sqlite3.connect(db)
            n = con.execute("SELECT count(*) FROM cells").fetchone()[0]
            con.close()
            if n >= k:
                return
        except sqlite3.Error:
            pass
        time.sleep(0.05)
    raise AssertionError(f"fewer than {k} cells stored within {timeout} s")


def _fake_drivers_running() -> list[int]:
    return live_processes_with(os.environ["FAKE_COUNTER_FILE"])


def _wait_for_the_next_driver(timeout=60):
    """Until a second driver process has been launched (the fake counts its launches) and is running: killing
    the orchestrator then tests that it takes a live driver with it, not that none was running yet."""
    counter = Path(os.environ["FAKE_COUNTER_FILE"])
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if counter.exists() and int(counter.read_text() or 0) >= 2 and _fake_drivers_running():
            return
        time.sleep(0.02)
    raise AssertionError(f"no second driver running within {timeout} s")


def test_a_killed_orchestrator_leaves_an_abandoned_run_no_driver_and_resume_finishes(fake, tmp_path):
    db = tmp_path / "k.db"
    proc = _start_slow_sweep(db, cells=5, slow=1.5)
    _wait_for_cells(db, 1)
    _wait_for_the_next_driver()
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 10  # at once on a quiet machine; 10 s for a loaded one (the driver sleeps 1.5 s)
    while _fake_drivers_running() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _fake_drivers_running() == [], "a driver outlived its orchestrator"
    # what follows the kill runs in this process (the fake fixture set no fault here)
    r = run_cli("history", "--db", db)
    assert r.exit_code == 0 and "abandoned" in r.stdout
    assert "/5" in r.stdout  # done/planned cells of the unfinished run
    assert "sweep --resume" in r.stdout
    r = run_cli("sweep", "--resume", 1, "--db", db)
    assert r.exit_code == 0, r.output
    con = sqlite3.connect(db)
    params = [r[0] for r in con.execute("SELECT params FROM cells")]
    con.close()
    assert len(params) == len(set(params)) == 5


def test_resuming_a_run_that_is_still_being_measured_is_refused(fake, tmp_path):
    db = tmp_path / "live.db"
    # The first cell is measured at once; the second cell's driver waits until the resume has been refused
    # (FAKE_WAIT_FILE, 120 s at most), so the run is still being measured however long the resume takes
    # to start on a loaded machine; then the run goes on to its end.
    go_on = tmp_path / "go-on"
    proc = _start_slow_sweep(db, cells=4, slow=120, FAKE_FAULT_ON="2", FAKE_WAIT_FILE=str(go_on))
    try:
        _wait_for_cells(db, 1)
        code, _, err = cli("sweep", "--resume", 1, "--db", db)
        assert code == 1 and one_line_error(err) and "being measured" in err, err
    finally:
        go_on.touch()
        proc.communicate(timeout=120)
    assert proc.returncode == 0
    con = sqlite3.connect(db)
    params = [r[0] for r in con.execute("SELECT params FROM cells")]
    con.close()
    assert len(params) == len(set(params)) == 4  # no duplicate cells


def test_the_hint_after_an_interrupted_run_is_a_command_that_works(fake, tmp_path):
    db = tmp_path / "i.db"
    # The first cell is measured at once and the second cell's driver sleeps a minute: the Ctrl-C lands
    # while cells remain however loaded the machine (at 0.6 s a cell CI once saw the run finish before
    # the signal arrived). The resume below runs without the fault.
    env = {**os.environ, "FAKE_FAULT": "slow", "FAKE_FAULT_ON": "2", "FAKE_SLOW_S": "60"}
    proc = subprocess.Popen(
        RINGBENCH + ["run", "ring", "-r", "fake", "-n", "10,20,30,40", "-m", "1", "--repeat", "1", "--db", str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    _wait_for_cells(db, 1)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "ringbench sweep --resume 1" in out
    code, out, err = cli("sweep", "--resume", 1, "--db", db)
    assert code == 0, err
    listed = run_cli("history", "--db", db).stdout
    assert "complete" in listed and "4/4" in listed


def test_a_ctrl_c_while_the_launch_starts_its_timer_leaves_no_thread_and_no_driver(fake, monkeypatch):
    # The race CI once hit: SIGINT landing inside Timer.start(), before the launch's try/finally,
    # left a non-daemon timer that kept the interrupted orchestrator alive until the timeout.
    import threading

    from ringbench.harness import launch

    fake(FAKE_FAULT="slow", FAKE_SLOW_S="30")
    started = threading.Timer.start

    def start_then_interrupt(self):
        started(self)
        raise KeyboardInterrupt

    monkeypatch.setattr(threading.Timer, "start", start_then_interrupt)
    before = set(threading.enumerate())
    d = drivers.select("fake")[0]
    with pytest.raises(KeyboardInterrupt):
        launch.run_driver(d, ["run", "ring", "n=10", "m=1", "cores=1"], cores="1", timeout=600)
    left = [t for t in threading.enumerate() if t not in before and t.is_alive() and not t.daemon]
    assert left == []
    deadline = time.monotonic() + 5  # SIGKILL of the group is asynchronous
    while live_processes_with(os.environ["FAKE_COUNTER_FILE"]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert live_processes_with(os.environ["FAKE_COUNTER_FILE"]) == []
