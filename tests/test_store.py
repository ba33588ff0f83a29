"""The result store under faults: every failure is one StoreError line with an exit code, and leaves no stray files.

Also: schema upgrade from version 1, run ownership between real processes (live, killed,
reused pid), no duplicate cells.
"""

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ringbench.catalogue.workloads import RING
from ringbench.results import store as store_mod
from ringbench.results.model import Cell
from ringbench.results.store import SCHEMA_VERSION, Store, StoreError

STORE_PY = Path(store_mod.__file__)
RECORD = {
    "count": 10,
    "setup_ns": 1,
    "run_ns": 1000,
    "setup_cpu_ns": 1,
    "run_cpu_ns": 900,
    "rss_before": 1,
    "rss_after": 2,
}

# The schema of version 1 as ringbench shipped it (commit b0aa9e7), frozen here so the upgrade
# is tested on a file made the way old releases made it, independent of the current module.
SCHEMA_V1 = """
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  status TEXT NOT NULL CHECK (status IN ('running', 'complete', 'failed', 'interrupted')),
  command TEXT NOT NULL,
  settings TEXT NOT NULL,
  environment TEXT NOT NULL,
  warnings TEXT NOT NULL DEFAULT '[]'
);
CREATE TABLE cells (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  runtime TEXT NOT NULL,
  workload TEXT NOT NULL,
  params TEXT NOT NULL,
  cores TEXT NOT NULL,
  mode TEXT NOT NULL,
  isolation TEXT NOT NULL,
  warmup INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'refused', 'timeout', 'interrupted')),
  reason TEXT,
  runtime_version TEXT,
  runtime_settings TEXT,
  extra TEXT NOT NULL DEFAULT '{}',
  finished_at TEXT NOT NULL
);
CREATE TABLE results (
  id INTEGER PRIMARY KEY,
  cell_id INTEGER NOT NULL REFERENCES cells(id),
  process INTEGER NOT NULL,
  iteration INTEGER NOT NULL,
  count INTEGER NOT NULL,
  setup_ns INTEGER NOT NULL,
  run_ns INTEGER NOT NULL,
  setup_cpu_ns INTEGER NOT NULL,
  run_cpu_ns INTEGER NOT NULL,
  rss_before INTEGER NOT NULL,
  rss_after INTEGER NOT NULL,
  record TEXT NOT NULL
);
CREATE TABLE samples (
  id INTEGER PRIMARY KEY,
  cell_id INTEGER NOT NULL REFERENCES cells(id),
  process INTEGER NOT NULL,
  tokens INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  elapsed_ns INTEGER NOT NULL,
  count INTEGER NOT NULL
);
CREATE INDEX cells_run ON cells(run_id);
CREATE INDEX samples_cell ON samples(cell_id);
CREATE INDEX results_cell ON results(cell_id);
PRAGMA user_version=1;
"""


def files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def cell(runtime="fake", n=10, cores="all", status="ok", records=(), samples=()) -> Cell:
    return Cell(runtime, RING, {"n": n, "m": 1}, cores, "timed", status, records=list(records), samples=list(samples))


def cell_rows(s: Store, run_id: int) -> list[sqlite3.Row]:
    return s.db.execute("SELECT * FROM cells WHERE run_id=? ORDER BY id", (run_id,)).fetchall()


def result_rows(s: Store, cell_id: int) -> list[dict]:
    rows = s.db.execute("SELECT record FROM results WHERE cell_id=? ORDER BY process, iteration", (cell_id,))
    return [json.loads(r["record"]) for r in rows]


def new_store(path: Path, cells: int = 0) -> int:
    """A closed version-2 store at path with one complete run of `cells` cells; returns the run id."""
    with Store(path) as s:
        run_id = s.begin_run("ringbench run", {"workload": "ring"}, {}, planned=cells)
        for i in range(cells):
            s.save_cell(run_id, cell(n=10 + i, records=[RECORD]))
        s.finish_run(run_id, "complete")
    return run_id


def refused(exit_code: int, kind: str, path: Path, match: str = ""):
    """pytest.raises for a StoreError of this code and kind whose one line names the file."""

    class Check:
        def __enter__(self):
            self.ctx = pytest.raises(StoreError, match=match)
            self.info = self.ctx.__enter__()
            return self.info

        def __exit__(self, *exc):
            suppressed = self.ctx.__exit__(*exc)
            e = self.info.value
            assert (e.exit_code, e.kind) == (exit_code, kind), str(e)
            assert str(path) in str(e) and "\n" not in str(e)
            assert not isinstance(e.__context__, sqlite3.Error) or e.__suppress_context__
            return suppressed

    return Check()


# -- read-only files: chattr +i ------------------------------------------------------------------
# Root ignores chmod 0444 (CAP_DAC_OVERRIDE), and a read-only bind mount needs mount rights a test
# should not use. The immutable attribute stops root too, and is exactly the case reported in
# issue 12, so root tests use it; other users get chmod, which binds them.


@pytest.fixture
def make_read_only():
    done = []

    def apply(path: Path):
        if os.geteuid() != 0:
            path.chmod(0o555 if path.is_dir() else 0o444)
        else:
            if not shutil.which("chattr"):
                pytest.skip("running as root without chattr: no way to make a file read-only for root")
            r = subprocess.run(["chattr", "+i", str(path)], capture_output=True, text=True)
            if r.returncode:
                pytest.skip(f"chattr +i not supported here ({r.stderr.strip()}); root ignores chmod")
        done.append(path)

    yield apply
    for path in reversed(done):
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(path)], check=False)
        else:
            path.chmod(0o755 if path.is_dir() else 0o644)


# -- not a store -----------------------------------------------------------------------------------


@pytest.mark.parametrize("create", [True, False])
@pytest.mark.parametrize(
    "content",
    [os.urandom(4096), b"SQLite format 3\x00" + os.urandom(4080)],
    ids=["random-bytes", "sqlite-header-then-garbage"],
)
def test_a_file_that_is_not_sqlite_is_bad_input_and_left_alone(tmp_path, content, create):
    db = tmp_path / "g.db"
    db.write_bytes(content)
    with refused(2, "not-a-store", db, "not a ringbench store"):
        Store(db, create=create)
    assert db.read_bytes() == content
    assert files(tmp_path) == ["g.db"]


def test_a_foreign_sqlite_file_is_bad_input_and_left_in_its_journal_mode(tmp_path):
    db = tmp_path / "f.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE t(x)")
    con.commit()
    con.close()
    before = db.read_bytes()
    with refused(2, "not-a-store", db, "not a ringbench store"):
        Store(db)
    assert db.read_bytes() == before and files(tmp_path) == ["f.db"]


def test_a_newer_schema_is_bad_input_and_the_file_is_not_touched(tmp_path):
    db = tmp_path / "newer.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE runs(id)")
    con.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    con.commit()
    con.close()
    before = db.read_bytes()
    for create in (True, False):
        with refused(2, "newer", db, "newer ringbench"):
            Store(db, create=create)
    assert db.read_bytes() == before  # not even switched to WAL
    assert files(tmp_path) == ["newer.db"]


# -- missing files and folders ---------------------------------------------------------------------


def test_read_only_commands_refuse_a_missing_store_and_create_nothing(tmp_path):
    db = tmp_path / "no" / "such" / "store.db"
    with refused(2, "missing", db, "no store at"):
        Store(db, create=False)
    assert files(tmp_path) == []
    empty = tmp_path / "empty.db"
    empty.touch()
    with refused(2, "missing", empty, "empty"):
        Store(empty, create=False)
    assert files(tmp_path) == ["empty.db"] and empty.stat().st_size == 0


def test_writing_commands_create_a_missing_folder_and_say_so(tmp_path):
    db = tmp_path / "a" / "b" / "store.db"
    with Store(db) as s:
        assert s.created_folder == tmp_path / "a"
    assert db.exists()
    with Store(db) as s:
        assert s.created_folder is None


def test_a_path_through_a_file_or_to_a_folder_is_bad_input(tmp_path):
    (tmp_path / "plain").write_text("x")
    bad = tmp_path / "plain" / "sub" / "store.db"
    with refused(2, "folder", bad, "not a folder"):
        Store(bad)
    with refused(2, "folder", tmp_path, "is a folder"):
        Store(tmp_path)
    assert files(tmp_path) == ["plain"]


def test_a_folder_that_cannot_be_created_fails_and_leaves_nothing(tmp_path, make_read_only):
    parent = tmp_path / "locked"
    parent.mkdir()
    make_read_only(parent)
    db = parent / "new" / "store.db"
    with refused(1, "folder", db.parent, "cannot create folder"):
        Store(db)
    assert files(parent) == []


# -- read-only stores ------------------------------------------------------------------------------


def test_a_read_only_store_refuses_writing_commands_and_leaves_no_side_files(tmp_path, make_read_only):
    db = tmp_path / "ro.db"
    new_store(db, cells=2)
    before = db.read_bytes()
    make_read_only(db)
    with refused(1, "read-only", db, "read-only"):
        Store(db)
    assert files(tmp_path) == ["ro.db"]
    with Store(db, create=False) as s:  # read-only commands still read it
        assert s.read_only
        (run,) = s.runs()
        assert (run["status"], run["done"], run["planned"]) == ("complete", 2, 2)
        assert len(cell_rows(s, run["id"])) == 2
        with refused(1, "read-only", db, "read-only"):
            s.begin_run("x", {}, {})
        with refused(1, "read-only", db, "read-only"):
            s.claim(run["id"])
    assert files(tmp_path) == ["ro.db"] and db.read_bytes() == before


def test_a_store_in_a_read_only_folder(tmp_path, make_read_only):
    folder = tmp_path / "ro"
    folder.mkdir()
    db = folder / "store.db"
    new_store(db, cells=1)
    make_read_only(folder)
    with refused(1, "read-only", db, "read-only"):  # SQLite would need to create store.db-wal there
        Store(db)
    with Store(db, create=False) as s:
        assert s.runs()[0]["done"] == 1
    assert files(folder) == ["store.db"]
    fresh = folder / "fresh.db"
    with refused(1, "read-only", fresh, "read-only"):
        Store(fresh)
    assert files(folder) == ["store.db"]


def test_a_read_only_version_1_store_is_read_through_an_upgraded_copy(tmp_path, make_read_only):
    db = tmp_path / "v1.db"
    make_v1(db)
    make_read_only(db)
    with Store(db, create=False) as s:
        assert [r["id"] for r in s.runs()] == [1, 2]
        assert len(cell_rows(s, 1)) == 3
    assert user_version(db) == 1 and files(tmp_path) == ["v1.db"]


# -- locks and full disks --------------------------------------------------------------------------


def test_a_store_locked_past_the_timeout_is_a_failure_naming_the_file(tmp_path):
    db = tmp_path / "store.db"
    run_id = new_store(db)
    holder = Store(db)
    waiter = Store(db, timeout=0.1)
    with holder.tx():  # another writer holds the write lock
        started = time.monotonic()
        with refused(1, "locked", db, "locked by another ringbench process"):
            waiter.begin_run("x", {}, {})
        with refused(1, "locked", db, "locked"):
            waiter.claim(run_id)
        assert time.monotonic() - started < 5
    assert waiter.begin_run("x", {}, {})  # usable once the lock is gone
    waiter.close()
    holder.close()
    assert files(tmp_path) == ["store.db"]


def test_a_locked_store_that_needs_an_upgrade_fails_without_touching_side_files(tmp_path):
    db = tmp_path / "v1.db"
    make_v1(db)
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with refused(1, "locked", db, "locked"):
            Store(db, timeout=0.1)
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert user_version(db) == 1
    with Store(db) as s:
        assert len(s.runs()) == 2


def test_a_full_disk_is_a_failure_and_keeps_what_was_stored(tmp_path):
    # SQLite reports a full disk and a reached max_page_count with the same SQLITE_FULL error,
    # 'database or disk is full'; the page limit makes the disk full without filling a real disk.
    db = tmp_path / "store.db"
    s = Store(db)
    run_id = s.begin_run("x", {}, {}, planned=2)
    s.save_cell(run_id, cell(n=1, records=[RECORD]))
    pages = s.db.execute("PRAGMA page_count").fetchone()[0]
    s.db.execute(f"PRAGMA max_page_count={pages}")
    big = [dict(RECORD, note="x" * 4000, iteration=i) for i in range(50)]
    with refused(1, "disk-full", db, "disk full"):
        s.save_cell(run_id, cell(n=2, records=big))
    assert [json.loads(c["params"])["n"] for c in cell_rows(s, run_id)] == [1]  # the failed cell left nothing
    assert s.run(run_id)["done"] == 1
    s.db.execute("PRAGMA max_page_count=1000000")
    s.save_cell(run_id, cell(n=2, records=big))
    s.finish_run(run_id, "complete")
    s.close()
    assert files(tmp_path) == ["store.db"]


def test_no_sqlite_error_escapes_a_closed_store(tmp_path):
    db = tmp_path / "store.db"
    s = Store(db)
    s.close()
    s.close()
    for call in (s.runs, lambda: s.run(1), lambda: s.load_run(1), lambda: s.begin_run("x", {}, {})):
        with refused(1, "closed", db, "closed"):
            call()


# -- version 1 → 2 ---------------------------------------------------------------------------------


def user_version(db: Path) -> int:
    con = sqlite3.connect(db.resolve().as_uri() + "?mode=ro&immutable=1", uri=True)
    try:
        return con.execute("PRAGMA user_version").fetchone()[0]
    finally:
        con.close()


def dump(db: Path, table: str) -> list[tuple]:
    con = sqlite3.connect(db)
    try:
        return con.execute(f"SELECT * FROM {table} ORDER BY id").fetchall()
    finally:
        con.close()


def make_v1(db: Path, duplicate: bool = False) -> None:
    """A version-1 store: a complete run of 3 cells (results, samples) and one left 'running'."""
    con = sqlite3.connect(db)
    con.executescript(SCHEMA_V1)
    settings = json.dumps(
        {"workload": "ring", "runtimes": ["a", "b", "c"], "grid": ['{"m": 1, "n": 10}'], "cores": ["all"]}
    )
    con.execute("INSERT INTO runs VALUES (1, 't0', 't1', 'complete', 'ringbench run', ?, '{}', '[\"w\"]')", (settings,))
    con.execute("INSERT INTO runs VALUES (2, 't2', NULL, 'running', 'ringbench sweep', '{}', '{}', '[]')")
    keys = ["a", "b", "c"] + (["a"] if duplicate else [])
    for i, rt in enumerate(keys, 1):
        con.execute(
            "INSERT INTO cells VALUES (?, 1, ?, 'ring', '{\"m\": 1, \"n\": 10}', 'all', 'timed',"
            " 'process', 0, 'ok', NULL, '1.0', '{}', '{}', 't')",
            (i, rt),
        )
        con.execute(
            "INSERT INTO results VALUES (NULL, ?, 1, 0, 10, 1, ?, 1, 1, 1, 2, ?)",
            (i, 1000 * i, json.dumps(dict(RECORD, run_ns=1000 * i))),
        )
        con.execute("INSERT INTO samples VALUES (NULL, ?, 1, 1, 0, 5, ?)", (i, i))
    con.commit()
    con.close()


def test_a_version_1_store_is_upgraded_keeping_every_row(tmp_path):
    db = tmp_path / "v1.db"
    make_v1(db)
    old = {t: dump(db, t) for t in ("runs", "cells", "results", "samples")}
    with Store(db) as s:
        runs = s.runs()
    assert user_version(db) == SCHEMA_VERSION
    for t in ("cells", "results", "samples"):
        assert dump(db, t) == old[t]
    assert [r[:8] for r in dump(db, "runs")] == old["runs"]  # the new columns come after the old ones
    first, second = runs
    assert (first["status"], first["done"], first["ok"], first["planned"], first["baseline"]) == (
        "complete",
        3,
        3,
        3,
        None,
    )  # planned from the stored settings: runtimes × grid × cores
    assert (second["status"], second["stored_status"], second["planned"]) == ("abandoned", "running", None)
    assert files(tmp_path) == ["v1.db"]


def test_an_upgraded_store_has_the_same_schema_as_a_new_one(tmp_path):
    make_v1(tmp_path / "old.db")
    Store(tmp_path / "old.db").close()
    Store(tmp_path / "new.db").close()

    def shape(db):
        con = sqlite3.connect(db)
        tables = {t: con.execute(f"PRAGMA table_info({t})").fetchall() for t in ("runs", "cells", "results", "samples")}
        indexes = sorted(con.execute("SELECT name FROM sqlite_master WHERE type='index' AND sql IS NOT NULL"))
        con.close()
        return tables, indexes

    assert shape(tmp_path / "old.db") == shape(tmp_path / "new.db")
    assert sorted(store_mod.MIGRATIONS) == list(range(1, SCHEMA_VERSION))  # one step per version


def test_upgrading_keeps_the_newest_of_duplicate_cells_with_its_results(tmp_path):
    db = tmp_path / "v1.db"
    make_v1(db, duplicate=True)  # version 1 let two resuming processes store cell 'a' twice
    with Store(db) as s:
        cells = cell_rows(s, 1)
        assert [c["runtime"] for c in cells] == ["b", "c", "a"]
        assert result_rows(s, cells[-1]["id"])[0]["run_ns"] == 4000  # the newest copy
        assert len(dump(db, "results")) == len(dump(db, "samples")) == 3


def test_final_statuses(tmp_path):
    db = tmp_path / "v1.db"
    make_v1(db)
    with Store(db) as s:
        s.claim(2)
        s.finish_run(2, "budget")
        assert s.run(2)["status"] == "budget"
        for wrong in ("complete-ish", "running", "imported"):  # a run is imported whole, never finished so
            with refused(2, "error", db, "unknown final run status"):
                s.finish_run(2, wrong)
        s.claim(2)


# -- cells: one per key ----------------------------------------------------------------------------


def test_storing_a_cell_again_replaces_it_results_and_all(tmp_path):
    db = tmp_path / "store.db"
    with Store(db) as s:
        run_id = s.begin_run("x", {}, {}, planned=3, baseline="go")
        first = s.save_cell(run_id, cell(n=1, status="failed"))
        s.save_cell(run_id, cell(n=2, records=[RECORD]))
        again = s.save_cell(
            run_id,
            cell(
                n=1,
                records=[RECORD, dict(RECORD, process=2)],
                samples=[{"process": 1, "tokens": 1, "seq": 0, "elapsed_ns": 1, "count": 1}],
            ),
        )
        s.save_cell(run_id, cell(n=1, cores="1"))  # another key: cores differ
        assert again == first  # it keeps its place in the run
        cells = cell_rows(s, run_id)
        assert [(json.loads(c["params"])["n"], c["cores"], c["status"]) for c in cells] == [
            (1, "all", "ok"),
            (2, "all", "ok"),
            (1, "1", "ok"),
        ]
        assert len(result_rows(s, first)) == 2
        assert len(s.db.execute("SELECT * FROM samples WHERE cell_id=?", (first,)).fetchall()) == 1
        run = s.run(run_id)
        assert (run["done"], run["planned"], run["baseline"], run["status"]) == (3, 3, "go", "running")
    assert len(dump(db, "results")) == 3


# -- ownership between real processes --------------------------------------------------------------

CHILD = r"""
import sys
from ringbench.catalogue.workloads import RING
from ringbench.results import store as m
from ringbench.results.model import Cell
s = m.Store(sys.argv[2])
cell = lambda n: Cell("fake", RING, {"n": n, "m": 1}, "all", "timed", "ok")
if sys.argv[3] == "begin":
    run_id = s.begin_run("child", {}, {}, planned=4)
    s.save_cell(run_id, cell(1))
    print(run_id, flush=True)
else:  # claim run argv[4], then measure all four cells
    try:
        s.claim(int(sys.argv[4]))
    except m.StoreError as e:
        print("refused", e.kind, flush=True)
    else:
        for n in range(1, 5):
            s.save_cell(int(sys.argv[4]), cell(n))
        print("claimed", flush=True)
sys.stdin.read()  # hold on (stay the owner) until the test closes stdin
"""


def child(db: Path, *args) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(STORE_PY), str(db), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def test_a_live_owner_in_another_process_keeps_its_run_until_it_is_killed(tmp_path):
    db = tmp_path / "store.db"
    Store(db).close()
    owner = child(db, "begin")
    try:
        run_id = int(owner.stdout.readline())
        with Store(db) as s:
            run = s.run(run_id)
            assert (run["status"], run["owner_pid"], run["owner_alive"], run["done"], run["planned"]) == (
                "running",
                owner.pid,
                True,
                1,
                4,
            )
            with refused(1, "owned", db, f"process {owner.pid}") as e:
                s.claim(run_id)
            assert f"kill {owner.pid}" in str(e.value)
            with refused(1, "owned", db, "being measured"):
                s.save_cell(run_id, cell(n=2))
            with refused(1, "owned", db, "being measured"):
                s.finish_run(run_id, "interrupted")

            owner.send_signal(signal.SIGKILL)
            deadline = time.monotonic() + 5
            while s.run(run_id)["status"] != "abandoned" and time.monotonic() < deadline:
                time.sleep(0.01)  # unreaped, the child is a zombie: that already reads as gone
            run = s.run(run_id)
            assert (run["status"], run["stored_status"], run["done"], run["planned"]) == ("abandoned", "running", 1, 4)
            owner.wait()
            assert s.run(run_id)["status"] == "abandoned"

            s.claim(run_id)
            run = s.run(run_id)
            assert (run["status"], run["owner_pid"]) == ("running", os.getpid())
            s.save_cell(run_id, cell(n=2))
            s.finish_run(run_id, "complete")
            assert s.run(run_id)["done"] == 2
    finally:
        if owner.poll() is None:
            owner.kill()
        owner.stdin.close()
        owner.stdout.close()
        owner.wait()


def _open_together(path, barrier, answers):
    barrier.wait()  # every process opens the new file at the same instant
    try:
        with Store(path) as s:
            s.begin_run("x", {}, {})
        answers.put("ok")
    except StoreError as e:
        answers.put(str(e))


def test_processes_creating_one_new_store_at_once_all_succeed(tmp_path):
    # SQLite refuses a journal-mode change that meets another connection's lock at once, without
    # waiting; before the store retried it, about two in three pairs failed here as "locked".
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    for trial in range(25):
        path = tmp_path / f"store{trial}.db"
        barrier, answers = ctx.Barrier(3), ctx.Queue()
        procs = [ctx.Process(target=_open_together, args=(path, barrier, answers)) for _ in range(3)]
        for p in procs:
            p.start()
        got = [answers.get(timeout=60) for _ in procs]
        for p in procs:
            p.join()
        assert got == ["ok"] * 3, (trial, got)
        with Store(path) as s:
            assert len(s.runs()) == 3


def test_two_processes_resuming_one_run_cannot_both_measure_it(tmp_path):
    db = tmp_path / "store.db"
    with Store(db) as s:
        run_id = s.begin_run("x", {}, {}, planned=4)
        s.save_cell(run_id, cell(n=1, status="failed"))
        s.finish_run(run_id, "interrupted")
    rivals = [child(db, "claim", str(run_id)) for _ in range(2)]
    try:
        outcomes = sorted(p.stdout.readline().strip() for p in rivals)  # both still alive here
    finally:
        for p in rivals:
            p.stdin.close()
            p.wait(timeout=30)
            p.stdout.close()
    assert outcomes == ["claimed", "refused owned"]
    with Store(db) as s:
        cells = cell_rows(s, run_id)
        assert sorted(json.loads(c["params"])["n"] for c in cells) == [1, 2, 3, 4]
        assert all(c["status"] == "ok" for c in cells)


def test_a_reused_pid_a_reboot_and_another_host(tmp_path):
    db = tmp_path / "store.db"
    with Store(db) as s:
        run_id = s.begin_run("x", {}, {})
        pid, start, boot, host = store_mod.this_process()

        def owner(**kw):
            cols = {"owner_pid": pid, "owner_start": start, "owner_boot": boot, "owner_host": host, **kw}
            s.db.execute(
                "UPDATE runs SET status='running', " + ", ".join(f"{k}=?" for k in cols) + " WHERE id=?",
                (*cols.values(), run_id),
            )
            return s.run(run_id)

        assert owner()["status"] == "running"
        assert owner(owner_pid=os.getppid(), owner_start=(start or 0) + 12345)["status"] == "abandoned"  # pid reused
        assert owner(owner_pid=os.getppid(), owner_boot="another-boot")["status"] == "abandoned"
        assert owner(owner_pid=None, owner_start=None, owner_boot=None, owner_host=None)["status"] == "abandoned"
        run = owner(owner_pid=os.getppid(), owner_host="elsewhere.example")
        assert (run["status"], run["owner_alive"]) == ("running", None)  # cannot be checked from here
        with refused(1, "owned", db, "on host elsewhere.example"):
            s.claim(run_id)
        s.claim(run_id, force=True)
        assert s.run(run_id)["owner_host"] == host
        with refused(2, "missing", db, "no run 99"):
            s.claim(99)
