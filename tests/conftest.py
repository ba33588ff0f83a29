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
from ringbench.harness import measure, runner  # noqa: E402


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


def why_it_cannot_run(d) -> str | None:
    missing = d.missing_tools()
    if missing:
        return f"{d.name}: {', '.join(missing)} not on PATH (make setup installs it)"
    if not d.is_built():
        return f"{d.name} is not built: {d.build_hint()}"
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
            f'name = "{name}"\ncommand = ["{{python}}", "{FAKE_PY}"]\nhop = "{hop}"\n'
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


# -- BEAM nodes a test started (tests/test_nodes.py, tests/test_perf_nodes.py) ---------------------
@pytest.hookimpl(tryfirst=True)  # before -m reads the markers
def pytest_collection_modifyitems(config, items):
    """A test module that counts the machine's BEAM processes (beam_left) would count another test's nodes:
    its tests are marked `alone`, which make test runs after the others, one at a time."""
    for item in items:
        if getattr(item.module, "beam_left", None) is beam_left:
            item.add_marker(pytest.mark.alone)


class _ChecksFirstOnEachWorker:
    """The drivers' own checks take minutes each (a JVM build, clippy, stress tests). pytest -n 2 --dist
    worksteal gives each worker half the list, in order, and a worker that runs dry steals from the tail of
    the other's: so half the checks go first in each half, and neither worker is left with all of them."""

    @pytest.hookimpl(trylast=True)  # after -m has deselected: the halves are of what runs
    def pytest_collection_modifyitems(self, config, items):
        checks = [i for i in items if i.module.__name__ == "test_driver_checks"]
        rest = [i for i in items if i.module.__name__ != "test_driver_checks"]
        first, second = checks[0::2], checks[1::2]
        cut = max(len(items) // 2 - len(first), 0)
        items[:] = first + rest[:cut] + second + rest[cut:]


def pytest_configure(config):
    config.pluginmanager.register(_ChecksFirstOnEachWorker())


def beam_processes() -> set[int]:
    """Live beam.smp processes of this checkout's drivers (a driver and the nodes it starts), and any epmd."""
    drivers_dir = str(Path(__file__).resolve().parent.parent / "drivers")
    out = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state == "Z":
            continue
        exe = cmd.split(" ", 1)[0]
        if exe.endswith("epmd") or (exe.endswith("beam.smp") and drivers_dir in cmd):
            out.add(int(pid))
    return out


def beam_left(before: set[int], within: float = 30) -> set[int]:
    """The BEAM processes (beam_processes) not in `before` still alive after waiting up to `within` seconds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not beam_processes() - before:
            return set()
        time.sleep(0.2)
    return beam_processes() - before
