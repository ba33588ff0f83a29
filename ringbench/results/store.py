"""The result store: one SQLite file, raw records plus the settings and environment they came from.

Layout (schema version in PRAGMA user_version, currently 3):
  runs     one row per `ringbench run/bench/sweep` invocation or import: command, settings, environment,
           status, cells planned, the Rel % baseline asked for, and the process that owns (measures) the run
  cells    one row per (run, runtime, workload, parameters, cores): status, reason, runtime version and
           the exact argv/env used; that key is unique, so a run never lists a cell twice
  results  one row per measured iteration of an ok timed cell: the driver's raw record and its numbers
  samples  one row per sample of an ok continuous or squeeze cell

The store speaks the result model: `save_cell` takes a `model.Cell`, `load_run` gives a `model.Run`;
nothing outside this module maps rows to objects. A cell and all its results are written in one
transaction, so a failed or interrupted cell never leaves partial results; an import is one
transaction too. Summaries and warnings are computed when shown, never stored (the `warnings`
column of older runs is no longer read).

Every failure to open or use the store raises StoreError: one line naming the
file and saying what to do, with `exit_code` 2 for bad input (not a store,
newer schema, missing) and 1 for a failure (locked, disk full, read-only when
writing). No sqlite3 exception leaves a public method.

Ownership: a run being measured records its owner (pid, that pid's start time,
boot id, host name). A run stored as 'running' whose owner no longer exists is
read as 'abandoned'; `claim` lets one process at a time take a run over.

Older files are upgraded when opened (writable) or read through an upgraded
copy in memory (read-only), one step at a time along MIGRATIONS.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import socket
import sqlite3
import time
from collections.abc import Callable, Sequence
from functools import wraps
from pathlib import Path
from types import TracebackType
from typing import Concatenate, ParamSpec, TypeVar

from ..catalogue import workloads
from .model import CHECKOUT_DB, WRITTEN_STATUSES, Cell, Run, cell_key
from .modes import Options

SCHEMA_VERSION = 3
# The default store is the checkout's results/ folder wherever the command runs from (a store that
# silently changed with the current directory would look empty); $RINGBENCH_DB names another.
DEFAULT_DB = Path(os.environ.get("RINGBENCH_DB") or CHECKOUT_DB)

_RUNS = """
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  status TEXT NOT NULL CHECK (status IN ('running', 'complete', 'failed', 'interrupted', 'budget', 'imported')),
  command TEXT NOT NULL,
  settings TEXT NOT NULL,      -- JSON: every option as used, defaults filled in
  environment TEXT NOT NULL,   -- JSON: machine facts (ringbench.harness.environment)
  warnings TEXT NOT NULL DEFAULT '[]',  -- unused since schema 3: warnings are derived when shown
  planned INTEGER,             -- cells planned, for done/planned (NULL if unknown)
  baseline TEXT,               -- the Rel % reference runtime asked for (NULL: the default), so show = run
  owner_pid INTEGER,           -- the process measuring the run (or that measured it last)
  owner_start INTEGER,         -- its start time, /proc/<pid>/stat field 22: tells a reused pid apart
  owner_boot TEXT,             -- /proc/sys/kernel/random/boot_id then: a pid from before a reboot is gone
  owner_host TEXT              -- host name: a pid on another machine cannot be checked from here
)"""

_SCHEMA = (
    _RUNS
    + """;
CREATE TABLE cells (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  runtime TEXT NOT NULL,
  workload TEXT NOT NULL,
  params TEXT NOT NULL,        -- JSON, sorted keys
  cores TEXT NOT NULL,         -- '1' or 'all'
  mode TEXT NOT NULL,          -- 'timed', 'continuous' or 'squeeze'
  isolation TEXT NOT NULL,     -- 'process' (fresh driver per repeat) or 'in-process'
  warmup INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'refused', 'timeout', 'interrupted')),
  reason TEXT,
  runtime_version TEXT,
  runtime_settings TEXT,       -- JSON: argv, environment overrides, pinned CPU
  extra TEXT NOT NULL DEFAULT '{}',  -- JSON: mode details (convergence, squeeze history)
  finished_at TEXT NOT NULL
);
CREATE TABLE results (
  id INTEGER PRIMARY KEY,
  cell_id INTEGER NOT NULL REFERENCES cells(id),
  process INTEGER NOT NULL,    -- which driver process (1..) produced it
  iteration INTEGER NOT NULL,  -- iteration inside that process
  count INTEGER NOT NULL,
  setup_ns INTEGER NOT NULL,
  run_ns INTEGER NOT NULL,
  setup_cpu_ns INTEGER NOT NULL,
  run_cpu_ns INTEGER NOT NULL,
  rss_before INTEGER NOT NULL,
  rss_after INTEGER NOT NULL,
  record TEXT NOT NULL         -- the driver's record as printed, JSON
);
CREATE TABLE samples (
  id INTEGER PRIMARY KEY,
  cell_id INTEGER NOT NULL REFERENCES cells(id),
  process INTEGER NOT NULL,    -- which driver process (squeeze: which step)
  tokens INTEGER NOT NULL,     -- concurrency of that process
  seq INTEGER NOT NULL,
  elapsed_ns INTEGER NOT NULL,
  count INTEGER NOT NULL       -- running hop count at that instant
);
CREATE UNIQUE INDEX cells_key ON cells(run_id, runtime, workload, params, cores);
CREATE INDEX samples_cell ON samples(cell_id);
CREATE INDEX results_cell ON results(cell_id);
"""
)

_CELL_KEY = "run_id=? AND runtime=? AND workload=? AND params=? AND cores=?"


def _planned_from_settings(settings: str) -> int | None:
    """Cells planned by a version-1 run: runner.plan is the product runtimes × grid × cores."""
    try:
        s = json.loads(settings)
        return len(s["runtimes"]) * len(s["grid"]) * len(s["cores"])
    except (ValueError, KeyError, TypeError):
        return None


def _upgrade_1_to_2(db: sqlite3.Connection) -> None:
    """Runs gain planned, baseline and owner columns and the 'budget' status; cells get a unique key.

    SQLite cannot change a CHECK constraint in place, so runs is rebuilt (the documented
    create-copy-drop-rename procedure, foreign keys off). Version 1 could store the same cell
    twice (two processes resuming one run); the newest copy of each key is kept, as add_cell
    now does, with its results and samples; the older copies are deleted.
    """
    db.execute(_RUNS.replace("CREATE TABLE runs", "CREATE TABLE runs_v2", 1))
    db.execute(
        "INSERT INTO runs_v2(id, started_at, finished_at, status, command, settings, environment, warnings)"
        " SELECT id, started_at, finished_at, status, command, settings, environment, warnings FROM runs"
    )
    db.executemany(
        "UPDATE runs_v2 SET planned=? WHERE id=?",
        [(_planned_from_settings(s), i) for i, s in db.execute("SELECT id, settings FROM runs_v2")],
    )
    db.execute("DROP TABLE runs")
    db.execute("ALTER TABLE runs_v2 RENAME TO runs")
    older = (
        "SELECT c.id FROM cells c WHERE EXISTS (SELECT 1 FROM cells d WHERE d.run_id=c.run_id AND"
        " d.runtime=c.runtime AND d.workload=c.workload AND d.params=c.params AND d.cores=c.cores"
        " AND d.id > c.id)"
    )
    db.execute(f"DELETE FROM results WHERE cell_id IN ({older})")
    db.execute(f"DELETE FROM samples WHERE cell_id IN ({older})")
    db.execute(f"DELETE FROM cells WHERE id IN ({older})")
    db.execute("DROP INDEX IF EXISTS cells_run")  # the unique key starts with run_id and serves the same lookups
    db.execute("CREATE UNIQUE INDEX cells_key ON cells(run_id, runtime, workload, params, cores)")


def _upgrade_2_to_3(db: sqlite3.Connection) -> None:
    """Runs may be 'imported' (an import is never resumable here): runs is rebuilt for its CHECK, as in 1 → 2."""
    columns = ", ".join(r[1] for r in db.execute("PRAGMA table_info(runs)"))
    db.execute(_RUNS.replace("CREATE TABLE runs", "CREATE TABLE runs_v3", 1))
    db.execute(f"INSERT INTO runs_v3({columns}) SELECT {columns} FROM runs")
    db.execute("DROP TABLE runs")
    db.execute("ALTER TABLE runs_v3 RENAME TO runs")


# version → the function that upgrades a file of that version to the next one (like asv's).
MIGRATIONS = {1: _upgrade_1_to_2, 2: _upgrade_2_to_3}


class StoreError(Exception):
    """A store problem, as one line for the user: names the file and says what to do.

    exit_code: 2 for bad input (not a store, newer schema, no such store or run),
               1 for a failure (locked, disk full, read-only when writing, run owned by another process).
    kind: a short word for tests and callers: 'not-a-store', 'newer', 'missing', 'read-only', 'locked',
          'disk-full', 'folder', 'owned', 'closed' or 'error'.
    """

    def __init__(self, message: str, exit_code: int = 1, kind: str = "error"):
        super().__init__(" ".join(str(message).split("\n")))
        self.exit_code = exit_code
        self.kind = kind


def _make_writable(path: Path) -> str:
    """What to do about a store that cannot be written: a read-only mount is not fixed by chmod."""
    folder = path.parent if path.parent.exists() else Path("/")
    try:
        mounted_ro = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        mounted_ro = False
    if mounted_ro:
        return f"the file system holding {folder} is mounted read-only; use --db with a file on a writable disk"
    return (
        "make the file and its folder writable (chmod u+w; chattr -i if it is immutable) or use --db with another file"
    )


def now() -> str:
    """The current UTC time as stored (ISO 8601, seconds)."""
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


# -- process identity ---------------------------------------------------------


def _read(path: str) -> str | None:
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def _proc_stat(pid: int) -> tuple[str, int] | None:
    """(state, start time in clock ticks since boot) of pid from /proc, or None if there is no such process."""
    text = _read(f"/proc/{pid}/stat")
    if text is None:
        return None
    # comm (field 2) may hold spaces and parentheses: the fields after the last ')' start at field 3
    fields = text[text.rindex(")") + 2 :].split()
    return fields[0], int(fields[19])


_BOOT_ID = (_read("/proc/sys/kernel/random/boot_id") or "").strip() or None
_HOST = socket.gethostname()


def this_process() -> tuple[int, int | None, str | None, str]:
    """(pid, start time, boot id, host name) of the calling process, as stored in a run's owner columns."""
    pid = os.getpid()
    stat = _proc_stat(pid)
    return pid, stat[1] if stat else None, _BOOT_ID, _HOST


def owner_alive(pid: int | None, start: int | None, boot: str | None, host: str | None) -> bool | None:
    """Whether the recorded owner process still exists: True, False, or None when this machine cannot tell.

    No pid (a run from schema version 1) counts as gone. Another host cannot be checked (None).
    A different boot id means a reboot since; a missing /proc entry, a zombie or a different
    start time (the pid was reused) means the owner is gone.
    """
    if pid is None:
        return False
    if host is not None and host != _HOST:
        return None
    if boot is not None and _BOOT_ID is not None and boot != _BOOT_ID:
        return False
    if os.path.isdir("/proc/self"):
        stat = _proc_stat(pid)
        if stat is None or stat[0] in ("Z", "X", "x"):
            return False
        return start is None or stat[1] == start
    try:  # no /proc: the pid alone, without reuse detection
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


# -- errors -------------------------------------------------------------------


def _busy(e: BaseException) -> bool:
    """Another connection holds the lock (SQLITE_BUSY, SQLITE_LOCKED)."""
    code = getattr(e, "sqlite_errorcode", None)
    msg = str(e).lower()
    return (isinstance(code, int) and code & 0xFF in (5, 6)) or "locked" in msg or "busy" in msg


def _classify(e: BaseException, path: Path, doing: str, timeout: float) -> StoreError:
    """Turn a sqlite3 or OS error into a StoreError that names the file and says what to do."""
    if isinstance(e, StoreError):
        return e
    if isinstance(e, sqlite3.ProgrammingError):
        return StoreError(
            f"{path}: store already closed while {doing} (a bug in the caller; please report it)", 1, "closed"
        )
    code = getattr(e, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    msg = str(e).lower()
    if _busy(e):
        return StoreError(
            f"{path} is locked by another ringbench process (waited {timeout:g} s while {doing}); "
            "wait for it to finish and retry, or use --db with another file",
            1,
            "locked",
        )
    if primary == 13 or "disk is full" in msg or "no space" in msg:  # SQLITE_FULL
        return StoreError(
            f"{path}: disk full while {doing}; free space on the disk holding {path.parent} and "
            "retry (what was being written is not stored, earlier data is intact)",
            1,
            "disk-full",
        )
    if primary == 8 or "readonly" in msg or "read-only" in msg:  # SQLITE_READONLY
        return StoreError(
            f"{path} is read-only (while {doing}); {_make_writable(path)}",
            1,
            "read-only",
        )
    if primary in (26, 11) or "not a database" in msg or "malformed" in msg:  # SQLITE_NOTADB, SQLITE_CORRUPT
        return StoreError(
            f"{path} is not a ringbench store (not an SQLite database, or damaged); "
            "check the --db path, or move the file away to start a new store",
            2,
            "not-a-store",
        )
    if primary == 14 or "unable to open" in msg:  # SQLITE_CANTOPEN
        return StoreError(
            f"cannot open {path} (while {doing}); check that its folder exists and is writable", 1, "error"
        )
    if isinstance(e, OSError):
        return StoreError(
            f"cannot use {path} ({e.strerror or e}) while {doing}; check the --db path and its folder's permissions",
            1,
            "error",
        )
    return StoreError(f"{path}: {e} (while {doing}); check the file, or use --db with another file", 1, "error")


_P = ParamSpec("_P")
_R = TypeVar("_R")
_Method = Callable[Concatenate["Store", _P], _R]


def _guarded(doing: str, writes: bool = False) -> Callable[[_Method[_P, _R]], _Method[_P, _R]]:
    """Decorate a public method so that no sqlite3 or OS error escapes it, only StoreError."""

    def wrap(method: _Method[_P, _R]) -> _Method[_P, _R]:
        @wraps(method)
        def guarded(self: Store, *args: _P.args, **kw: _P.kwargs) -> _R:
            if writes and self.read_only:
                raise StoreError(
                    f"{self.path} is read-only, cannot {doing}; {_make_writable(self.path)}",
                    1,
                    "read-only",
                )
            if self._db is None:
                raise self._closed(doing)
            try:
                return method(self, *args, **kw)
            except (sqlite3.Error, OSError) as e:
                raise _classify(e, self.path, doing, self.timeout) from None

        return guarded

    return wrap


_SIDECARS = ("-wal", "-shm", "-journal")


class Store:
    """An open result store; see the module docstring for the layout. Usable as a context manager."""

    def __init__(self, path: Path | str, create: bool = True, timeout: float = 60.0):
        """Open the store at path, upgrading an older schema; raise StoreError on any problem.

        create=True (commands that write): a missing file is created, and a missing folder too;
        `created_folder` is then the top-most folder created (else None), for the caller to say so.
        A read-only file or folder is refused before SQLite touches it (exit 1).
        create=False (read-only commands): a missing file is refused ("no store at PATH", exit 2) and
        nothing is created; a read-only store is opened read-only (`read_only` is True, writes refused).
        timeout: seconds to wait for another writer's lock before StoreError(kind='locked').
        A failed open closes what it opened and removes the files and folders it created.
        """
        self.path = Path(path)
        self.timeout = timeout
        self.created_folder: Path | None = None
        self.read_only = False
        self._db: sqlite3.Connection | None = None  # None once closed (or while a failed open is undone)
        self._sidecars_at_open: dict[Path, bool] = {}
        existed = {p: p.exists() for p in self._files()}
        try:
            self._open(create)
        except BaseException as e:
            self._undo_open(existed, e)
            if isinstance(e, (sqlite3.Error, OSError)):
                raise _classify(e, self.path, "opening it", timeout) from None
            raise
        self._sidecars_at_open = {p: p.exists() for p in self._files()[1:]}

    @property
    def db(self) -> sqlite3.Connection:
        """The open connection; StoreError(kind='closed') once the store is closed."""
        if self._db is None:
            raise self._closed("using it")
        return self._db

    def _closed(self, doing: str) -> StoreError:
        return StoreError(
            f"{self.path}: store already closed while {doing} (a bug in the caller; please report it)", 1, "closed"
        )

    def _files(self) -> list[Path]:
        return [self.path] + [self.path.with_name(self.path.name + s) for s in _SIDECARS]

    def _open(self, create: bool) -> None:
        p = self.path
        if p.is_dir():
            raise StoreError(f"{p} is a folder, not a store file; give a file path with --db", 2, "folder")
        if not p.exists():
            if not create:
                raise StoreError(f"no store at {p}; check the --db path (a `ringbench run` creates one)", 2, "missing")
            self._make_folder()
            folder = p.parent
            if not os.access(folder, os.W_OK):
                raise StoreError(
                    f"cannot create {p}: folder {folder} is read-only; {_make_writable(p)}",
                    1,
                    "read-only",
                )
            self._connect(read_only=False)
            self._migrate(create)
            return
        # os.access sees chmod (except for root), a read-only mount and chattr +i alike; SQLite needs
        # to write the file and to create -wal/-shm beside it, and would leave those behind on failure.
        folder_ok = os.access(p.parent, os.W_OK)
        file_ok = os.access(p, os.W_OK)
        if not (file_ok and folder_ok):
            what = f"file {p}" if not file_ok else f"folder {p.parent}"
            if create:
                raise StoreError(
                    f"{p} cannot be written: the {what} is read-only; {_make_writable(p)}",
                    1,
                    "read-only",
                )
            self.read_only = True
        self._connect(read_only=self.read_only)
        self._migrate(create)

    def _make_folder(self) -> None:
        missing = []
        d = self.path.parent
        while not d.exists():
            missing.append(d)
            d = d.parent
        if not missing:
            return
        if not d.is_dir():
            raise StoreError(
                f"cannot create {self.path}: {d} is a file, not a folder; check the --db path", 2, "folder"
            )
        try:
            self.path.parent.mkdir(parents=True)
        except OSError as e:
            self.created_folder = missing[-1]  # so that _undo_open removes what mkdir managed to make
            raise StoreError(
                f"cannot create folder {self.path.parent} for the store ({e.strerror}); "
                "create it yourself or use --db with another path",
                1,
                "folder",
            ) from None
        self.created_folder = missing[-1]

    def _connect(self, read_only: bool) -> None:
        if read_only:
            wal = self.path.with_name(self.path.name + "-wal")
            # immutable=1 makes SQLite create no -wal/-shm (a plain mode=ro connection leaves both behind);
            # it is exact as long as no WAL holds changes, and nobody can write a file we may not write.
            # With changes in a WAL, read through it (its -shm normally exists beside it).
            immutable = "" if wal.exists() and wal.stat().st_size > 0 else "&immutable=1"
            db = sqlite3.connect(
                self.path.resolve().as_uri() + "?mode=ro" + immutable,
                uri=True,
                isolation_level=None,
                timeout=self.timeout,
            )
        else:
            db = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None)
        db.row_factory = sqlite3.Row
        self._db = db

    def _migrate(self, create: bool) -> None:
        # Read, and refuse, before the first write (journal mode), so a foreign or newer file is left as it was.
        version, tables = self._version_and_tables()
        self._check_version(version, tables, create)
        if not self.read_only:
            self._use_wal()
        if version == SCHEMA_VERSION:
            self.db.execute("PRAGMA foreign_keys=ON")
            return
        if self.read_only:
            # Read an older read-only file through an upgraded copy in memory; the file stays as it is.
            mem = sqlite3.connect(":memory:", isolation_level=None)
            self.db.backup(mem)
            self.db.close()
            mem.row_factory = sqlite3.Row
            self._db = mem
        # PRAGMA foreign_keys is a no-op inside a transaction, and the runs rebuild needs it off.
        self.db.execute("PRAGMA foreign_keys=OFF")
        with self.tx():  # re-read under the write lock: another process may have upgraded it meanwhile
            version, tables = self._version_and_tables()
            self._check_version(version, tables, create)
            if version == 0:
                for statement in filter(str.strip, _SCHEMA.split(";")):
                    self.db.execute(statement)
            else:
                while version < SCHEMA_VERSION:
                    MIGRATIONS[version](self.db)
                    version += 1
            problems = self.db.execute("PRAGMA foreign_key_check").fetchall()
            if problems:
                raise StoreError(
                    f"{self.path} has {len(problems)} rows pointing at missing rows; it was left "
                    "unchanged: restore it from a copy or use --db with another file",
                    2,
                    "not-a-store",
                )
            self.db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        self.db.execute("PRAGMA foreign_keys=ON")

    def _version_and_tables(self) -> tuple[int, int]:
        # One statement, so one snapshot: read apart, another process creating the schema between
        # the two reads would make a new store look like a foreign one (tables, no version).
        row = self.db.execute(
            "SELECT (SELECT user_version FROM pragma_user_version),"
            " (SELECT count(*) FROM sqlite_master WHERE type='table')"
        ).fetchone()
        return row[0], row[1]

    def _use_wal(self) -> None:
        """Switch the file to WAL, waiting up to `timeout` for other openers.

        SQLite answers a journal-mode change that meets another connection's lock with SQLITE_BUSY
        at once, without calling the busy handler, so two processes opening one new store together
        would fail; this retries until the deadline instead.
        """
        deadline = time.monotonic() + self.timeout
        pause = 0.005
        while True:
            try:
                self.db.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as e:
                if not _busy(e) or time.monotonic() + pause > deadline:
                    raise
            time.sleep(pause)
            pause = min(pause * 2, 0.2)

    def _check_version(self, version: int, tables: int, create: bool) -> None:
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} was written by a newer ringbench (schema {version}, this one reads "
                f"{SCHEMA_VERSION}); upgrade ringbench or use --db with another file",
                2,
                "newer",
            )
        if version == 0 and tables:
            raise StoreError(
                f"{self.path} is not a ringbench store (it has tables but no schema version); check the --db path",
                2,
                "not-a-store",
            )
        if version == 0 and not create:
            raise StoreError(
                f"no store at {self.path} (the file is empty); check the --db path (a `ringbench run` creates one)",
                2,
                "missing",
            )
        if version and version not in MIGRATIONS and version != SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} has schema {version}, which this ringbench cannot upgrade; "
                "use the ringbench that wrote it to export the runs",
                2,
                "not-a-store",
            )

    def _undo_open(self, existed: dict[Path, bool], error: BaseException) -> None:
        """Close, and remove what this failed open created: SQLite's side files, a new file, new folders."""
        if self._db is not None:
            try:
                self._db.close()  # the last connection to close removes -wal and -shm itself
            except sqlite3.Error:
                pass
            self._db = None
        locked = (isinstance(error, sqlite3.OperationalError) and "locked" in str(error).lower()) or (
            isinstance(error, StoreError) and error.kind == "locked"
        )
        if not locked:  # a lock means another process uses the file: its side files are not ours to touch
            ours = not existed[self.path]
            for f in self._files()[1:]:
                try:
                    if not existed[f] and f.exists() and (ours or f.stat().st_size == 0):
                        f.unlink()
                except OSError:
                    pass
            if ours:
                try:
                    self.path.unlink()
                except OSError:
                    pass
        if self.created_folder is not None:
            d = self.path.parent
            while True:
                try:
                    d.rmdir()  # only empty folders go
                except OSError:
                    break
                if d == self.created_folder:
                    break
                d = d.parent
            self.created_folder = None

    def tx(self) -> _Tx:
        """A write transaction (BEGIN IMMEDIATE … COMMIT, rolled back on an exception), as a context manager.

        sqlite3 errors inside it are the caller's to translate; the public methods do that already.
        """
        return _Tx(self.db)

    def close(self) -> None:
        """Close the store (idempotent). A read-only store removes side files its connection created."""
        if self._db is None:
            return
        try:
            self._db.close()
        except sqlite3.Error as e:
            raise _classify(e, self.path, "closing it", self.timeout) from None
        finally:
            self._db = None
        if self.read_only:  # a read-only connection cannot clean up after itself (SQLite leaves them)
            for f, was in self._sidecars_at_open.items():
                if not was and f.exists():
                    try:
                        f.unlink()
                    except OSError:
                        pass

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- ownership -----------------------------------------------------------
    def _owner_check(self, run_id: int, force: bool = False) -> sqlite3.Row:
        """The run's row, or StoreError if it does not exist or another live process measures it."""
        row = self.db.execute("SELECT * FROM runs WHERE id=?", (run_id,)).fetchone()
        if row is None:
            raise StoreError(f"no run {run_id} in {self.path}; see `ringbench history`", 2, "missing")
        if row["status"] != "running" or force:
            return row
        me = this_process()
        if (row["owner_pid"], row["owner_start"]) == me[:2] and row["owner_host"] in (None, me[3]):
            return row
        alive = owner_alive(row["owner_pid"], row["owner_start"], row["owner_boot"], row["owner_host"])
        if alive is False:
            return row
        where = f" on host {row['owner_host']}" if alive is None else ""
        todo = (
            "that machine's process cannot be checked from here; if it has stopped, take the run over with force"
            if alive is None
            else f"wait for it to finish, or stop it (kill {row['owner_pid']}) and resume again"
        )
        raise StoreError(
            f"run {run_id} in {self.path} is being measured by process {row['owner_pid']}{where} "
            f"(since {row['started_at']}); {todo}",
            1,
            "owned",
        )

    @_guarded("taking the run over", writes=True)
    def claim(self, run_id: int, force: bool = False) -> None:
        """Make this process the owner of run_id and set it 'running' (finished_at cleared), to resume it.

        One BEGIN IMMEDIATE transaction, so two processes cannot both succeed. Refused with
        StoreError(kind='owned', exit 1, naming the owner pid) while the run is stored as 'running'
        and its owner is alive and is not this process; an owner on another host, whose liveness
        cannot be checked, is refused too unless force=True. No such run: StoreError exit 2.
        """
        pid, start, boot, host = this_process()
        with self.tx():
            self._owner_check(run_id, force)
            self.db.execute(
                "UPDATE runs SET status='running', finished_at=NULL, owner_pid=?, owner_start=?,"
                " owner_boot=?, owner_host=? WHERE id=?",
                (pid, start, boot, host, run_id),
            )

    # -- writing -------------------------------------------------------------
    @_guarded("starting a run", writes=True)
    def begin_run(
        self, command: str, settings: dict, environment: dict, planned: int | None = None, baseline: str | None = None
    ) -> int:
        """Store a new run, status 'running', owned by this process; return its id.

        planned: how many cells the run will measure (for done/planned); baseline: the Rel % reference
        runtime the user asked for, or None for the default choice.
        """
        pid, start, boot, host = this_process()
        with self.tx():
            cur = self.db.execute(
                "INSERT INTO runs(started_at, status, command, settings, environment, planned, baseline,"
                " owner_pid, owner_start, owner_boot, owner_host) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (
                    now(),
                    "running",
                    command,
                    json.dumps(settings, sort_keys=True),
                    json.dumps(environment),
                    planned,
                    baseline,
                    pid,
                    start,
                    boot,
                    host,
                ),
            )
        return _row_id(cur)

    @_guarded("storing a cell", writes=True)
    def save_cell(self, run_id: int, cell: Cell) -> int:
        """Store a finished cell with its results and samples atomically; return its id.

        A cell with the same key (run, runtime, workload, params, cores) replaces the stored one,
        results and samples included, in the same transaction and under the same id (a resumed run
        re-measures its failed cells), so a run never lists a key twice. Refused (StoreError
        kind='owned') while another live process owns the run.
        """
        with self.tx():
            self._owner_check(run_id)
            return self._insert_cell(run_id, cell)

    def _insert_cell(self, run_id: int, cell: Cell) -> int:
        params = json.dumps(cell.params, sort_keys=True)
        key = (run_id, cell.runtime, cell.workload.name, params, cell.cores)
        old = self.db.execute(f"SELECT id FROM cells WHERE {_CELL_KEY}", key).fetchone()
        if old is not None:
            self.db.execute("DELETE FROM results WHERE cell_id=?", (old["id"],))
            self.db.execute("DELETE FROM samples WHERE cell_id=?", (old["id"],))
            self.db.execute("DELETE FROM cells WHERE id=?", (old["id"],))
        warm = [r.get("warmups", 0) for r in cell.first_of_each_process()]
        cur = self.db.execute(
            "INSERT INTO cells(id, run_id, runtime, workload, params, cores, mode, isolation, warmup, status,"
            " reason, runtime_version, runtime_settings, extra, finished_at)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                old["id"] if old is not None else None,
                run_id,
                cell.runtime,
                cell.workload.name,
                params,
                cell.cores,
                cell.mode,
                "in-process" if cell.processes <= 1 and len(cell.records) > 1 else "process",
                max(warm, default=0),
                cell.status,
                cell.reason,
                cell.version,
                json.dumps(cell.settings or {}, sort_keys=True),
                json.dumps(cell.extra or {}),
                now(),
            ),
        )
        cell_id = _row_id(cur)
        self.db.executemany(
            "INSERT INTO samples(cell_id, process, tokens, seq, elapsed_ns, count) VALUES (?,?,?,?,?,?)",
            [
                (cell_id, x.get("process", 1), x.get("tokens", 1), x["seq"], x["elapsed_ns"], x["count"])
                for x in cell.samples
            ],
        )
        self.db.executemany(
            "INSERT INTO results(cell_id, process, iteration, count, setup_ns, run_ns, setup_cpu_ns,"
            " run_cpu_ns, rss_before, rss_after, record) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            [
                (
                    cell_id,
                    r.get("process", 1),
                    r.get("iteration", i),
                    r["count"],
                    r["setup_ns"],
                    r["run_ns"],
                    r["setup_cpu_ns"],
                    r["run_cpu_ns"],
                    r["rss_before"],
                    r["rss_after"],
                    json.dumps(r, sort_keys=True),
                )
                for i, r in enumerate(cell.records, 1)
            ],
        )
        return cell_id

    @_guarded("finishing the run", writes=True)
    def finish_run(self, run_id: int, status: str) -> None:
        """Record the run's final status ('complete', 'failed', 'interrupted' or 'budget') and time.

        The owner columns are kept (who measured it last). Refused (kind='owned') while another live
        process owns the run; an unknown status raises StoreError exit 2.
        """
        if status not in WRITTEN_STATUSES or status in ("running", "imported"):
            raise StoreError(
                f"{self.path}: unknown final run status {status!r} (one of complete, failed, interrupted, budget)",
                2,
                "error",
            )
        with self.tx():
            self._owner_check(run_id)
            self.db.execute("UPDATE runs SET status=?, finished_at=? WHERE id=?", (status, now(), run_id))

    @_guarded("importing a run", writes=True)
    def import_run(self, run: Run) -> int:
        """Store a run read from an export as a new run, all or nothing (one transaction), with status
        'imported' and no owner: an imported run is read, compared and reported, never resumed here."""
        with self.tx():
            cur = self.db.execute(
                "INSERT INTO runs(started_at, finished_at, status, command, settings, environment, planned,"
                " baseline) VALUES (?,?,?,?,?,?,?,?)",
                (
                    run.started_at or now(),
                    run.finished_at,
                    "imported",
                    run.command,
                    json.dumps({**run.settings, "imported_status": run.status}, sort_keys=True),
                    json.dumps(run.environment),
                    run.planned,
                    run.baseline,
                ),
            )
            run_id = _row_id(cur)
            for cell in run.cells:
                self._insert_cell(run_id, cell)
        return run_id

    # -- reading -------------------------------------------------------------
    _RUNS_QUERY = (
        "SELECT runs.*, (SELECT count(*) FROM cells WHERE run_id=runs.id) AS done,"
        " (SELECT count(*) FROM cells WHERE run_id=runs.id AND status='ok') AS ok FROM runs"
    )

    @staticmethod
    def _run_view(row: sqlite3.Row) -> dict:
        d = dict(row)
        d["stored_status"] = d["status"]
        d["owner_alive"] = owner_alive(d["owner_pid"], d["owner_start"], d["owner_boot"], d["owner_host"])
        if d["status"] == "running" and d["owner_alive"] is False:
            d["status"] = "abandoned"
        return d

    @_guarded("reading a run")
    def run(self, run_id: int) -> dict | None:
        """One run as a dict of its columns, or None if there is no such run.

        Beyond the stored columns: 'status' is the effective status (a run stored as 'running' whose
        owner process is gone reads 'abandoned'; derived here, never written), 'stored_status' what is
        stored, 'done' the cells stored (any status), 'ok' the ok cells, 'planned' the cells planned
        (None if unknown), 'owner_alive' True/False/None (None: owner on another host).
        """
        row = self.db.execute(self._RUNS_QUERY + " WHERE id=?", (run_id,)).fetchone()
        return None if row is None else self._run_view(row)

    @_guarded("listing the runs")
    def runs(self) -> list[dict]:
        """Every run in id order, as run() gives them (effective status, done, ok, planned)."""
        return [self._run_view(r) for r in self.db.execute(self._RUNS_QUERY + " ORDER BY runs.id").fetchall()]

    @_guarded("reading the run's cells")
    def cell_keys(self, run_id: int, statuses: Sequence[str] = ("ok", "refused")) -> set[str]:
        """The keys (model.Cell.key) of the run's cells stored with one of these statuses."""
        rows = self.db.execute(
            "SELECT runtime, workload, params, cores, mode, status FROM cells WHERE run_id=?", (run_id,)
        ).fetchall()
        return {
            cell_key(r["runtime"], r["workload"], json.loads(r["params"]), r["cores"], r["mode"])
            for r in rows
            if r["status"] in statuses
        }

    @_guarded("listing the runs being measured")
    def live_runs(self) -> list[int]:
        """Runs another live process is measuring into this store now."""
        me = this_process()
        return [
            r["id"]
            for r in self.runs()
            if r["stored_status"] == "running" and r["owner_alive"] is not False and r["owner_pid"] != me[0]
        ]

    @_guarded("reading a run")
    def load_run(self, run_id: int) -> Run | None:
        """The stored run as result objects (every figure recomputed from the raw records), or None."""
        row = self.run(run_id)
        if row is None:
            return None
        s = json.loads(row["settings"])
        cells = []
        for c in self.db.execute("SELECT * FROM cells WHERE run_id=? ORDER BY id", (run_id,)).fetchall():
            records = [
                json.loads(r["record"])
                for r in self.db.execute(
                    "SELECT record FROM results WHERE cell_id=? ORDER BY process, iteration", (c["id"],)
                )
            ]
            samples = [
                dict(r)
                for r in self.db.execute(
                    "SELECT process, tokens, seq, elapsed_ns, count FROM samples WHERE cell_id=? ORDER BY process, seq",
                    (c["id"],),
                )
            ]
            cells.append(
                Cell(
                    c["runtime"],
                    workloads.get(c["workload"]),
                    json.loads(c["params"]),
                    c["cores"],
                    c["mode"],
                    c["status"],
                    c["reason"],
                    records,
                    samples,
                    json.loads(c["extra"]),
                    c["runtime_version"],
                    json.loads(c["runtime_settings"] or "{}"),
                )
            )
        return Run(
            run_id,
            row["status"],
            workloads.get(s["workload"]),
            Options.from_settings(s),
            s,
            json.loads(row["environment"]),
            cells,
            self.path,
            row["command"],
            row.get("baseline") or s.get("baseline"),
            row["started_at"],
            row["finished_at"],
            row["planned"],
        )


def _row_id(cur: sqlite3.Cursor) -> int:
    """The id of the row an INSERT on cur just made."""
    if cur.lastrowid is None:  # only before any INSERT
        raise sqlite3.InterfaceError("the INSERT made no row")
    return cur.lastrowid


class _Tx:
    """BEGIN IMMEDIATE … COMMIT, rolled back on any exception (writers serialise on the lock)."""

    def __init__(self, db: sqlite3.Connection):
        self.db = db

    def __enter__(self) -> sqlite3.Connection:
        self.db.execute("BEGIN IMMEDIATE")
        return self.db

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc_type is None:
            try:
                self.db.execute("COMMIT")
                return
            except BaseException:
                if self.db.in_transaction:  # a failed COMMIT (busy, disk full) can leave it open
                    self.db.execute("ROLLBACK")
                raise
        # SQLite rolls some errors back by itself (disk full); a second ROLLBACK would hide the first error.
        if self.db.in_transaction:
            try:
                self.db.execute("ROLLBACK")
            except sqlite3.Error:
                pass
