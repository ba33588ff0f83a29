"""The result store: one SQLite file, raw records plus the settings and environment they came from.

Layout (schema version in PRAGMA user_version):
  runs     one row per `ringbench run/bench/sweep` invocation: command, settings, environment, status
  cells    one row per (runtime, workload, parameters, cores) measured in a run: status, reason,
           runtime version and the exact argv/env used
  results  one row per measured iteration of an ok timed cell: the driver's raw record and its numbers
  samples  one row per sample of an ok continuous or squeeze cell

A cell and all its results are written in one transaction, so a failed or
interrupted cell never leaves partial results. Summaries are computed when shown.
"""
from __future__ import annotations

import datetime as dt
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

SCHEMA_VERSION = 1
DEFAULT_DB = Path("results/ringbench.db")

_SCHEMA = """
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  status TEXT NOT NULL CHECK (status IN ('running', 'complete', 'failed', 'interrupted')),
  command TEXT NOT NULL,
  settings TEXT NOT NULL,      -- JSON: every option as used, defaults filled in
  environment TEXT NOT NULL,   -- JSON: machine facts (ringbench.environment)
  warnings TEXT NOT NULL DEFAULT '[]'  -- JSON list of strings: noise, load, too few repeats
);
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
CREATE INDEX cells_run ON cells(run_id);
CREATE INDEX samples_cell ON samples(cell_id);
CREATE INDEX results_cell ON results(cell_id);
"""


class StoreError(Exception):
    pass


def now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


@dataclass
class Cell:
    runtime: str
    workload: str
    params: dict
    cores: str
    mode: str = "timed"
    isolation: str = "process"
    warmup: int = 0
    status: str = "ok"
    reason: str | None = None
    runtime_version: str | None = None
    runtime_settings: dict | None = None
    extra: dict | None = None


class Store:
    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA foreign_keys=ON")
        self._migrate()

    def _migrate(self) -> None:
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version == SCHEMA_VERSION:
            return
        if version > SCHEMA_VERSION:
            raise StoreError(f"{self.path} was written by a newer ringbench (schema {version}, this one reads "
                             f"{SCHEMA_VERSION}); upgrade ringbench or use --db with another file")
        with self.tx():  # re-read under the write lock: another process may have created it meanwhile
            if self.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
                return
            tables = self.db.execute("SELECT count(*) FROM sqlite_master WHERE type='table'").fetchone()[0]
            if tables:
                raise StoreError(f"{self.path} is not a ringbench store (it has tables but no schema version)")
            for statement in filter(str.strip, _SCHEMA.split(";")):
                self.db.execute(statement)
            self.db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def tx(self):
        return _Tx(self.db)

    def close(self) -> None:
        self.db.close()

    # -- writing -------------------------------------------------------------
    def begin_run(self, command: str, settings: dict, environment: dict) -> int:
        with self.tx():
            cur = self.db.execute(
                "INSERT INTO runs(started_at, status, command, settings, environment) VALUES (?,?,?,?,?)",
                (now(), "running", command, json.dumps(settings, sort_keys=True), json.dumps(environment)))
        return cur.lastrowid

    def add_cell(self, run_id: int, cell: Cell, results: list[tuple[int, int, dict]] = (),
                 samples: list[dict] = ()) -> int:
        """Store a finished cell, its results [(process, iteration, record)] and samples atomically."""
        with self.tx():
            cur = self.db.execute(
                "INSERT INTO cells(run_id, runtime, workload, params, cores, mode, isolation, warmup, status,"
                " reason, runtime_version, runtime_settings, extra, finished_at)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (run_id, cell.runtime, cell.workload, json.dumps(cell.params, sort_keys=True), cell.cores,
                 cell.mode, cell.isolation, cell.warmup, cell.status, cell.reason, cell.runtime_version,
                 json.dumps(cell.runtime_settings or {}, sort_keys=True), json.dumps(cell.extra or {}), now()))
            cell_id = cur.lastrowid
            self.db.executemany(
                "INSERT INTO samples(cell_id, process, tokens, seq, elapsed_ns, count) VALUES (?,?,?,?,?,?)",
                [(cell_id, x["process"], x["tokens"], x["seq"], x["elapsed_ns"], x["count"]) for x in samples])
            self.db.executemany(
                "INSERT INTO results(cell_id, process, iteration, count, setup_ns, run_ns, setup_cpu_ns,"
                " run_cpu_ns, rss_before, rss_after, record) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                [(cell_id, p, i, r["count"], r["setup_ns"], r["run_ns"], r["setup_cpu_ns"], r["run_cpu_ns"],
                  r["rss_before"], r["rss_after"], json.dumps(r, sort_keys=True)) for p, i, r in results])
        return cell_id

    def reopen_run(self, run_id: int) -> None:
        with self.tx():
            self.db.execute("UPDATE runs SET status='running', finished_at=NULL WHERE id=?", (run_id,))

    def finish_run(self, run_id: int, status: str, warnings: list[str] = ()) -> None:
        with self.tx():
            self.db.execute("UPDATE runs SET status=?, finished_at=?, warnings=? WHERE id=?",
                            (status, now(), json.dumps(list(warnings)), run_id))

    # -- reading -------------------------------------------------------------
    def run(self, run_id: int) -> sqlite3.Row | None:
        return self.db.execute("SELECT * FROM runs WHERE id=?", (run_id,)).fetchone()

    def runs(self) -> list[sqlite3.Row]:
        return self.db.execute("SELECT * FROM runs ORDER BY id").fetchall()

    def cells(self, run_id: int) -> list[sqlite3.Row]:
        return self.db.execute("SELECT * FROM cells WHERE run_id=? ORDER BY id", (run_id,)).fetchall()

    def samples(self, cell_id: int) -> list[dict]:
        rows = self.db.execute("SELECT process, tokens, seq, elapsed_ns, count FROM samples WHERE cell_id=?"
                               " ORDER BY process, seq", (cell_id,)).fetchall()
        return [dict(r) for r in rows]

    def results(self, cell_id: int) -> list[dict]:
        rows = self.db.execute("SELECT record FROM results WHERE cell_id=? ORDER BY process, iteration",
                               (cell_id,)).fetchall()
        return [json.loads(r["record"]) for r in rows]


class _Tx:
    """BEGIN IMMEDIATE … COMMIT, rolled back on any exception (writers serialise on the lock)."""

    def __init__(self, db: sqlite3.Connection):
        self.db = db

    def __enter__(self):
        self.db.execute("BEGIN IMMEDIATE")
        return self.db

    def __exit__(self, exc_type, exc, tb):
        self.db.execute("ROLLBACK" if exc_type else "COMMIT")
        return False
