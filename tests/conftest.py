import os
import shutil
import sqlite3
import sys
import tempfile
import time
import tomllib
from pathlib import Path

import pytest

# A test that names no store writes into one of this test process's own, never into the checkout's
# (results/) nor into one another worker of `pytest -n 2` writes too (before ringbench reads the variable).
# A pytest-xdist worker starts with COLUMNS=80; the tests expect the width a piped ringbench has in the
# serial run (100, or what a test sets itself), which ringbench reads when present/terminal.py is imported.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.pop("COLUMNS", None)
_DEFAULT_STORE_DIR = tempfile.mkdtemp(prefix="ringbench-tests-")
os.environ["RINGBENCH_DB"] = str(Path(_DEFAULT_STORE_DIR) / "default.db")

from ringbench.catalogue import drivers  # noqa: E402
from ringbench.harness import environment, measure, runner  # noqa: E402


def pytest_unconfigure(config):
    shutil.rmtree(_DEFAULT_STORE_DIR, ignore_errors=True)


FAKE_DIR = Path(__file__).parent / "fake_drivers"
FAKE_PY = FAKE_DIR / "fake" / "fake.py"
RINGBENCH = [sys.executable, "-m", "ringbench.cli"]  # the real command line, in a process of its own


def q(db, sql, *args):
    """Rows of an SQL query on a store file, read behind the store's back."""
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


def cells_stored(db) -> int:
    """Cells in the store so far (0 while the store is still being created)."""
    try:
        return q(db, "SELECT count(*) AS k FROM cells")[0]["k"] if db.exists() else 0
    except sqlite3.OperationalError:
        return 0


@pytest.fixture
def fake(monkeypatch, tmp_path):
    """Make the fake driver discoverable; return a helper to set its behaviour."""
    monkeypatch.setenv("RINGBENCH_DRIVER_PATH", str(FAKE_DIR))
    monkeypatch.setenv("FAKE_COUNTER_FILE", str(tmp_path / "launches"))
    for var in ("FAKE_FAULT", "FAKE_FAULT_ON", "FAKE_JITTER", "FAKE_NS_PER_HOP", "FAKE_RSS_PER_PROC"):
        monkeypatch.delenv(var, raising=False)
    runner._describe_cache.clear()
    measure._calibrated.clear()

    def set_env(**kw):
        for k, v in kw.items():
            monkeypatch.setenv(k, str(v))

    yield set_env
    runner._describe_cache.clear()


def run_cli(*args):
    """The command line in this process (click's runner): exit code, stdout and stderr of one command."""
    from click.testing import CliRunner

    from ringbench.cli import cli

    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture
def db(tmp_path):
    return tmp_path / "store.db"


# -- the real drivers, and what each must be -------------------------------------------------------
# On CI (`CI` set), a driver that is not built or lacks a tool is a failure with its reason; here, a skip.
ON_CI = os.environ.get("CI", "").lower() not in ("", "0", "false", "no")
# Per variant, the features its describe must list and, as "selective", its optional workload: the one
# source for which token, continuous, stats, node, perf and selective cases run (tests/expected_features.toml).
EXPECTED_FEATURES = {
    k: frozenset(v) for k, v in tomllib.loads((Path(__file__).parent / "expected_features.toml").read_text()).items()
}


def real_drivers():
    """Every driver under drivers/, built or not (the fake is never here). A test given one that cannot run
    fails on CI and skips here, saying why (the autouse fixture `_the_driver_can_run`)."""
    saved = os.environ.pop("RINGBENCH_DRIVER_PATH", None)
    try:
        return list(drivers.discover().values())
    finally:
        if saved is not None:
            os.environ["RINGBENCH_DRIVER_PATH"] = saved


# Drivers found able to run, by name and build folder: the check (a PATH search a tool, ~6 ms) is asked
# before each of ~3,600 tests. Only a yes is kept: a driver built meanwhile is found built next time.
_RUNNABLE: set[tuple[str, str]] = set()


def why_it_cannot_run(d) -> str | None:
    key = (d.name, str(d.output))
    if key in _RUNNABLE:
        return None
    missing = d.missing_tools()
    if missing:
        return f"{d.name}: {', '.join(missing)} not on PATH (make setup installs it)"
    if not d.is_built():
        return f"{d.name} is not built: {d.build_hint()}"
    _RUNNABLE.add(key)
    return None


def cannot_run(reason: str):
    """A driver, tool or file the test needs is missing: a failure on CI, a skip with its reason elsewhere."""
    if ON_CI:
        pytest.fail(f"{reason} (on CI what a test needs must be there: a failure, never a skip)", pytrace=False)
    pytest.skip(reason)


def usable(name: str):
    """The real driver `name`, if it can run; else the test fails on CI and skips here."""
    d = {x.name: x for x in real_drivers()}.get(name)
    if d is None:
        pytest.fail(f"no driver {name!r} under drivers/")
    why = why_it_cannot_run(d)
    if why:
        cannot_run(why)
    return d


@pytest.fixture(autouse=True)
def _the_driver_can_run(request):
    """A test parametrized with a real driver that is not built or lacks a tool: failed on CI, skipped here."""
    callspec = getattr(request.node, "callspec", None)
    for v in callspec.params.values() if callspec else ():
        if isinstance(v, drivers.Driver):
            why = why_it_cannot_run(v)
            if why:
                cannot_run(why)


# Every run records how busy the CPUs are over a window of 0.5 s (harness/environment.py, cpu_busy): a fixed
# sleep of half a second in each of the hundreds of runs the tests make in this process. No test checks that
# figure; a window of 0.05 s still measures it (a subprocess of the real command line keeps the 0.5 s).
_CPU_BUSY = environment.cpu_busy


@pytest.fixture(autouse=True)
def _a_short_cpu_busy_window(monkeypatch):
    monkeypatch.setattr(environment, "cpu_busy", lambda window_s=0.05: _CPU_BUSY(window_s))


def live_processes_with(marker: str) -> list[int]:
    """Processes (not zombies awaiting their reaper) whose environment holds `marker`, such as the
    fake fixture's FAKE_COUNTER_FILE: this test's drivers, never another test's."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            if (
                marker.encode() in (proc / "environ").read_bytes()
                and (proc / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
            ):
                found.append(int(proc.name))
        except OSError:
            continue
    return found


@pytest.fixture
def zoo(fake, tmp_path, monkeypatch):
    """Fake runtimes of known speed: erlang (200 ns/hop), fastgo (100), a floor (5), a hand-off (50),
    a single-threaded one with a long variant name (150), and beam/stock (200) with beam/tuned (80);
    only these are discoverable."""
    root = tmp_path / "drivers"

    def driver(name, ns, hop="mailbox", variants=""):
        folder = root / name
        folder.mkdir(parents=True)
        (folder / "driver.toml").write_text(
            f'name = "{name}"\ncommand = ["{{python}}", "-S", "{FAKE_PY}"]\nhop = "{hop}"\n'
            f'[env]\nFAKE_NS_PER_HOP = "{ns}"\n{variants}'
        )

    driver("erlang", 200)
    driver("fastgo", 100, "channel")
    driver("floor", 5, "floor")
    driver("baton", 50, "handoff")
    driver("rust-tokio", 150, "channel", "[variants.current-thread]\nargs = []\nsingle_threaded = true\n")
    driver(
        "beam",
        200,
        "mailbox",
        '[variants.stock]\nargs = []\n[variants.tuned]\nargs = []\ntuned = true\nenv = { FAKE_NS_PER_HOP = "80" }\n',
    )
    monkeypatch.setenv("RINGBENCH_DRIVERS_DIR", str(root))
    monkeypatch.delenv("RINGBENCH_DRIVER_PATH")
    return root


class _ChecksFirstOnEachWorker:
    """The drivers' own checks take minutes each (a JVM build, clippy, stress tests). pytest -n W --dist
    worksteal gives each of the W workers one W-th of the list, in order, and a worker that runs dry steals
    from the tail of another's: so each worker's share starts with one W-th of the checks, and no worker is
    left with all of them."""

    @pytest.hookimpl(trylast=True)  # after -m has deselected: the shares are of what runs
    def pytest_collection_modifyitems(self, config, items):
        workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))  # set in each worker by xdist
        checks = [i for i in items if i.module.__name__ == "test_driver_checks"]
        rest = [i for i in items if i.module.__name__ != "test_driver_checks"]
        share = len(items) / workers  # worksteal's initial split: W contiguous ranges of about this size
        ordered: list = []
        for w in range(workers):
            mine = checks[w::workers]
            take = max(round(share * (w + 1)) - len(ordered) - len(mine), 0)  # the rest fills the share
            ordered += mine + rest[:take]
            rest = rest[take:]
        items[:] = ordered + rest


def pytest_configure(config):
    config.pluginmanager.register(_ChecksFirstOnEachWorker())


# -- the processes of a ring across nodes, whatever the runtime (tests/test_nodes.py, test_node_death.py) ---
def nodes_drivers() -> list:
    """One variant of each runtime whose line in tests/expected_features.toml lists `nodes` (its stock one when
    it has one): the real drivers the orchestrator's ring across nodes is tested with, built or not."""
    by_name = {d.name: d for d in real_drivers()}
    chosen: dict = {}
    for name in sorted(EXPECTED_FEATURES):
        if "nodes" in EXPECTED_FEATURES[name] and name in by_name:
            runtime, _, variant = name.partition("/")
            if runtime not in chosen or variant == "stock":
                chosen[runtime] = by_name[name]
    return list(chosen.values())


class RingProcesses:
    """The processes one orchestrator started, directly or not: its driver, the nodes the driver starts (a BEAM,
    a JVM, a C++ process), any name service. Found by a variable unique to this object in their environment
    (`env`, given to the orchestrator; every process started from it inherits it, contract section 10) and,
    for one started with an environment of its own, by the orchestrator's process tree (`root`, once set).
    Each process found is remembered with its start time, so one whose parent died (reparented to init, as
    when the orchestrator is killed) is still found, and a reused pid is not."""

    VAR = "RBTEST_RING_MARK"  # not RINGBENCH_*: that would be a tuning variable, recorded and warned about

    def __init__(self) -> None:
        import uuid

        self.mark = f"{self.VAR}={uuid.uuid4().hex}".encode()
        self.env = {**os.environ, self.VAR: self.mark.decode().split("=", 1)[1]}
        self.root: int | None = None
        self._seen: dict[int, str] = {}  # pid -> its start time (/proc/<pid>/stat field 22)

    @staticmethod
    def _table() -> dict[int, tuple[int, str, str]]:
        """pid -> (ppid, state, start time) of every process now."""
        out = {}
        for d in os.listdir("/proc"):
            if d.isdigit():
                try:
                    text = Path(f"/proc/{d}/stat").read_text()
                except OSError:
                    continue
                f = text[text.rindex(")") + 2 :].split()
                out[int(d)] = (int(f[1]), f[0], f[19])
        return out

    def now(self) -> set[int]:
        """The live processes (not zombies) of this orchestrator's runs, the orchestrator itself left out."""
        table = self._table()
        for pid in table:
            if pid in self._seen or pid == os.getpid():
                continue
            try:
                marked = self.mark in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            except OSError:
                marked = False
            q, under = pid, False
            while self.root is not None and q in table and q > 1 and not under:
                q = table[q][0]
                under = q == self.root
            if marked or under:
                self._seen[pid] = table[pid][2]
        return {
            p
            for p, start in self._seen.items()
            if p != self.root and p in table and table[p][2] == start and table[p][1] not in ("Z", "X")
        }

    @staticmethod
    def connected(pid: int) -> bool:
        """Whether `pid` holds an established TCP connection (a node of a ring once it has joined it)."""
        try:
            inodes = {os.readlink(f"/proc/{pid}/fd/{fd}")[8:-1] for fd in os.listdir(f"/proc/{pid}/fd")}
            rows = [
                line.split()
                for name in ("tcp", "tcp6")
                for line in Path(f"/proc/{pid}/net/{name}").read_text().splitlines()[1:]
            ]
        except OSError:
            return False
        return any(r[3] == "01" and r[9] in inodes for r in rows)  # st 01: ESTABLISHED

    def nodes(self) -> set[int]:
        """The nodes of a ring now: the processes of this orchestrator's runs that hold a TCP connection."""
        return {p for p in self.now() if self.connected(p)}

    def peers(self) -> list[int]:
        """The nodes the driver started (node 0, the driver's own process, left out): nodes below another node
        in the process tree, oldest first."""
        nodes, table = self.nodes(), self._table()

        def below_a_node(p: int) -> bool:
            q = table.get(p, (0,))[0]
            while q in table and q > 1:
                if q in nodes:
                    return True
                q = table[q][0]
            return False

        return sorted((p for p in nodes if below_a_node(p)), key=lambda p: int(table[p][2]))

    def left(self, within: float = 30) -> set[int]:
        """The processes of this orchestrator's runs still alive after waiting up to `within` seconds."""
        deadline = time.monotonic() + within
        while (alive := self.now()) and time.monotonic() < deadline:
            time.sleep(0.2)
        return alive
