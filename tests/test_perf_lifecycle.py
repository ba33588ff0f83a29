"""`ringbench perf` on the real perf runners when something ends it early or gets in its way: a Ctrl-C (one or
two), a killed orchestrator's leftovers, a store that cannot be opened (docs/driver-contract.md, section 11;
issue 40). Each test drives the real command line in a process of its own, with real runner processes.

Timings here are bounds a slow machine still meets (a Ctrl-C answered within a few seconds, not the ten an
orchestrator waiting for its runner took); the figures themselves are never checked."""

import json
import os
import signal
import sqlite3
import subprocess
import time
import uuid
from pathlib import Path

import pytest
from conftest import RINGBENCH, cells_stored, live_processes_with, q, run_cli

from ringbench.harness import perf as perf_harness

ROOT = Path(__file__).resolve().parent.parent


def need(runner: str) -> None:
    """Skip a test whose perf runner is not built here; on CI (env CI set) that is a failure, not a skip."""
    drivers = perf_harness.perf_drivers().get(runner, [])
    if not any(d.is_built() and not d.missing_tools() for d in drivers):
        reason = f"the {runner} perf runner is not built"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)


@pytest.fixture
def env(tmp_path):
    """The command's environment: a temp folder of its own (what it leaves there is seen) and a marker that
    finds every process it started."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    return {**os.environ, "TMPDIR": str(tmp), "RINGBENCH_TEST_MARKER": uuid.uuid4().hex}


def start(env, *args):
    return subprocess.Popen([*RINGBENCH, "perf", *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, cwd=ROOT)  # fmt: skip


def processes_left(env, within: float = 3.0) -> list[int]:
    """The processes the command started that are still alive after waiting up to `within` seconds."""
    deadline = time.monotonic() + within
    while (left := live_processes_with(env["RINGBENCH_TEST_MARKER"])) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def wait_for_cells(db: Path, k: int, proc: subprocess.Popen, within: float = 120.0) -> None:
    deadline = time.monotonic() + within
    while cells_stored(db) < k:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"no {k} cell(s) stored within {within} s"
        time.sleep(0.02)


SNIPPETS = {
    "erlang": ["rand:uniform().", "erlang:unique_integer().", "os:timestamp()."],
    "python": ["sum(xs)", "--init_runner", "xs = [1, 2]", "len(xs)", "--init_runner", "xs = [1, 2]", "max(xs)",
               "--init_runner", "xs = [1, 2]"],
}  # fmt: skip


# -- Ctrl-C ---------------------------------------------------------------------------------------------
@pytest.mark.alone  # times the exit on the wall clock: beside other tests a loaded machine could stretch it
@pytest.mark.parametrize("runner", ["erlang", "python"])
@pytest.mark.parametrize("sig,presses", [(signal.SIGINT, 1), (signal.SIGINT, 2), (signal.SIGTERM, 1)],
                         ids=["ctrl-c", "ctrl-c-twice", "sigterm"])  # fmt: skip
def test_ctrl_c_stops_at_once_keeping_the_finished_snippets(tmp_path, env, runner, sig, presses):
    """Ctrl-C after the first of three snippets of 1 s each: exit 130 within a few seconds (the old
    orchestrator waited up to 10 s while the runner measured snippets whose figures it then dropped), the
    finished snippet stored and shown, no runner process and no job file left; a second Ctrl-C while the
    first is handled changes none of it (it used to leave ringbench-perf-*/job.json behind); SIGTERM is a
    Ctrl-C."""
    need(runner)
    db = tmp_path / "s.db"
    proc = start(env, "-r", runner, *SNIPPETS[runner], "-d", 500, "-s", 2, "-w", 0, "--db", db)
    wait_for_cells(db, 1, proc)
    t0 = time.monotonic()
    for _ in range(presses):
        proc.send_signal(sig)
        time.sleep(0.01)
    out, err = proc.communicate(timeout=60)
    took = time.monotonic() - t0
    assert proc.returncode == 130, (out, err)
    assert took < 3.0, f"exit {took:.1f} s after the Ctrl-C"
    assert "Traceback" not in err, err
    assert "interrupted" in err
    assert not processes_left(env)
    assert os.listdir(env["TMPDIR"]) == []
    cells = q(db, "SELECT status, params FROM cells ORDER BY id")
    assert cells and all(c["status"] == "ok" for c in cells)
    assert len(cells) < 3  # the snippets after the Ctrl-C were not measured
    if presses == 1:
        (run,) = q(db, "SELECT status FROM runs")
        assert run["status"] == "interrupted"
        first = SNIPPETS[runner][0]
        assert any(line.lstrip().startswith(first) for line in out.splitlines()), out


def _recorded(db: Path) -> bool:
    try:
        return bool(db.exists() and q(db, "SELECT id FROM runs"))
    except sqlite3.OperationalError:  # the store is being created
        return False


def test_ctrl_c_before_any_snippet_finished_prints_no_empty_table_and_the_show_command_once(tmp_path, env):
    """Interrupted while its only snippet is measured: no table header with no rows under it; the warning
    says none finished and gives the command to measure it again, and the command that shows the run is
    named once."""
    need("python")
    db = tmp_path / "s.db"
    proc = start(env, "-r", "python", "sum(xs)", "--init_runner", "xs = [1, 2]", "-d", 500, "-s", 60, "--db", db)
    deadline = time.monotonic() + 120
    while not _recorded(db):  # the run is recorded: its one cell is under way
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    assert "(interrupted)" in out and "QPS" not in out, out
    assert "0 of 1 cells finished" in " ".join((out + err).split()), (out, err)
    assert "measure it again with: ringbench perf -r python" in " ".join(out.split()), out
    assert (out + err).count("ringbench show 1") == 1, (out, err)


def test_a_killed_orchestrators_job_folder_is_swept_at_the_next_start(tmp_path, env):
    """SIGKILL leaves no chance to clean up: the folder is named after its owner, removed once that process
    is gone (a live owner's is kept)."""
    need("python")
    tmp = Path(env["TMPDIR"])
    stale = tmp / f"{perf_harness.TEMP_PREFIX}999999999-abc123"  # above the kernel's largest pid: never alive
    stale.mkdir()
    (stale / "job.json").write_text("{}")
    alive = tmp / f"{perf_harness.TEMP_PREFIX}{os.getpid()}-def456"
    alive.mkdir()
    proc = start(env, "-r", "python", "sum(xs)", "--init_runner", "xs = [1]", "-d", 20, "-s", 1, "-w", 0,
                 "--db", tmp_path / "s.db")  # fmt: skip
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert sorted(os.listdir(tmp)) == [alive.name]


# -- the store ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("where", ["/proc/ringbench-test.db", "{tmp}/a-folder"])
def test_a_store_that_cannot_be_used_is_refused_before_anything_runs(tmp_path, env, where):
    """The store is checked first, as `run` does: one line, and no runtime was started (the snippet's module
    code, run as it is loaded, before `ready`, leaves a file; the store used to be opened only at `ready`)."""
    need("python")
    (tmp_path / "a-folder").mkdir()
    ran = tmp_path / "ran"
    code = f"_ = open({str(ran)!r}, 'w').close()\ndef run():\n    pass\n"
    proc = start(env, "-r", "python", code, "-d", 500, "--db", where.format(tmp=tmp_path))
    out, err = proc.communicate(timeout=120)
    assert proc.returncode in (1, 2), (out, err)
    assert "Traceback" not in err
    assert [x for x in err.splitlines() if x.strip()][-1].startswith("Error: "), err
    assert not ran.exists()
    assert not processes_left(env)


def test_code_that_does_not_compile_leaves_no_store_file(tmp_path, env):
    need("python")
    db = tmp_path / "new.db"
    proc = start(env, "-r", "python", "def run(:", "--db", db)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 2, (out, err)
    assert "invalid syntax" in err
    assert sorted(os.listdir(tmp_path)) == ["tmp"]  # no store, no -wal/-shm beside it


# -- the records' own channel ---------------------------------------------------------------------------
# A runner that writes, past the runtime's own stdout handling, a line that would pass for a record.
FAKE = '{"type":"finished","snippet":1}'
WRITES_TO_STDOUT = {
    "erlang": [f"erlang:display('{FAKE}')."],
    "elixir": [f":erlang.display(:'{FAKE}')"],
    "python": [f"os.write(1, b'{FAKE}\\n')", "--init", "import os"],
    "pypy": [f"os.write(1, b'{FAKE}\\n')", "--init", "import os"],
    "node": [f"require('fs').writeSync(1, '{FAKE}\\n')"],
}


@pytest.mark.parametrize("runner", sorted(WRITES_TO_STDOUT))
def test_what_a_snippet_writes_to_stdout_never_reaches_the_records(tmp_path, env, runner):
    """The records travel on a descriptor of their own: a snippet writing to fd 1 (erlang:display/1,
    os.write(1, ...), fs.writeSync(1, ...)) is passed on to stderr, and the run is measured in full (it used
    to end with "garbled: output is not JSON", or take the line for a record)."""
    need(runner)
    db = tmp_path / "s.db"
    proc = start(env, "-r", runner, *WRITES_TO_STDOUT[runner], "-l", 3, "-s", 2, "--json", "--db", db)
    out, err = proc.communicate(timeout=180)
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    assert err.count("finished") >= 6, err  # 3 iterations a sample, 2 samples: every write passed on
    assert json.loads(out)["status"] == "complete"  # stdout is the --json document alone
    (cell,) = q(db, "SELECT status FROM cells")
    assert cell["status"] == "ok"
    assert [r["count"] for r in q(db, "SELECT count FROM results")] == [3, 3]


# -- a snippet that ends the runtime ----------------------------------------------------------------------
@pytest.mark.parametrize("runner,argv,where,kept", [
    ("erlang", ["ok.", "--done", "halt()."], "done hook", True),
    ("erlang", ["halt()."], "runner", False),
    ("erlang", ["ok.", "--init", "halt()."], "init hook", False),
    ("python", ["pass", "--init", "import os", "--done", "os._exit(0)"], "done hook", True),
    ("python", ["os._exit(0)", "--init", "import os"], "runner", False),
])  # fmt: skip
def test_a_snippet_that_ends_the_runtime_is_said_in_plain_words(tmp_path, env, runner, argv, where, kept):
    """`halt().`, `os._exit(0)`: the runtime exited with its status, in the snippet's phase (it used to be
    "garbled: the runtime process ended in the middle of snippet 1"); ended in the done hook, the snippet
    was measured in full and its figures are kept (they used to be thrown away)."""
    need(runner)
    db = tmp_path / "s.db"
    proc = start(env, "-r", runner, *argv, "-d", 50, "-s", 2, "-w", 0, "--db", db)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, (out, err)
    line = [x for x in err.splitlines() if x.strip()][-1]
    assert f"the runtime exited with status 0 in snippet 1's {where}" in line, line
    assert "garbled" not in line
    (run,) = q(db, "SELECT status FROM runs")
    assert run["status"] == "failed"
    (cell,) = q(db, "SELECT id, status FROM cells")
    samples = q(db, "SELECT * FROM samples WHERE cell_id = ?", cell["id"])
    if kept:
        assert cell["status"] == "ok" and len(samples) == 3, (cell["status"], len(samples))
        assert "its figures are kept" in line
        row = next(x for x in out.splitlines() if x.lstrip().startswith(argv[0] + " "))
        assert row.split()[1:3] != ["1", "–"] and len(row.split()) >= 5, row  # a figure, shown
    else:
        assert cell["status"] == "failed" and not samples
    assert not processes_left(env)


# -- a runner that never returns --------------------------------------------------------------------------
@pytest.mark.parametrize("runner,code", [
    ("erlang", "receive after infinity -> ok end."),
    ("elixir", "receive do\n  :never -> :ok\nend"),
])  # fmt: skip
def test_a_runner_that_never_returns_finished_no_iteration(tmp_path, env, runner, code):
    """erlperf's call count counts a call when it starts: the one call that never returned was "1
    iterations in all" beside 0 QPS. The runner says it was unfinished; the table says 0."""
    need(runner)
    db = tmp_path / "s.db"
    proc = start(env, "-r", runner, code, "-d", 100, "-s", 2, "-w", 0, "--json", "--db", db)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    (cell,) = json.loads(out)["cells"]
    assert cell["extra"]["total"] == 1 and cell["extra"]["unfinished"] == 1, cell["extra"]
    shown = run_cli("show", "1", "--db", db)  # reading the stored run: in this process
    assert shown.exit_code == 0, shown.output
    words = " ".join(shown.stdout.split())
    assert "0 iterations in all" in words and "1 iterations in all" not in words, shown.stdout


def test_a_second_ctrl_c_that_skips_the_job_folders_removal_still_leaves_no_folder(monkeypatch):
    """A second Ctrl-C can land after the first, while the runtime is being stopped and before its job
    folder goes (a fresh-clone CI run left ringbench-perf-<pid>-* behind): the command removes what is left
    of its own folders as it ends. Here the removal in `close` is cut short as that Ctrl-C would cut it."""
    need("python")
    original = perf_harness._Process._remove_files

    def cut_short(self):
        self.cluster.close()
        raise KeyboardInterrupt  # the second Ctrl-C, before the folder went

    req = perf_harness.plan(["pass"], "python", samples=1, sample_ms=50, warmup=0)
    folders = []
    monkeypatch.setattr(perf_harness._Process, "_remove_files", cut_short)
    made = perf_harness.tempfile.mkdtemp

    def remembered(**kw):
        folders.append(made(**kw))
        return folders[-1]

    monkeypatch.setattr(perf_harness.tempfile, "mkdtemp", remembered)
    with pytest.raises(KeyboardInterrupt):
        perf_harness.measure(req, lambda cell: None)
    monkeypatch.setattr(perf_harness._Process, "_remove_files", original)
    assert folders and not any(os.path.exists(f) for f in folders)
