"""Each driver's own checks (contract section 7): its language's linter with warnings as errors and the
stress or model tests of its hand-written concurrency primitives, as its manifest's `check` names them."""

import contextlib
import fcntl
import hashlib
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from conftest import real_drivers

# One entry per driver folder: the variants of a driver share its sources and its check.
FOLDERS = list({d.base: d for d in real_drivers()}.values())


def shared_folders(folder: Path) -> list[Path]:
    """The drivers/common/<language> folders a driver's build files name. Two drivers' checks that
    build in the same shared folder (c-coro's and c-pthreads' gate tests include common/c; caf's build
    names it too) must not run at once: one would execute a test binary while the other is still
    writing it."""
    names = set()
    for f in folder.iterdir():
        if f.is_file() and f.stat().st_size < 200_000:
            with contextlib.suppress(UnicodeDecodeError):
                names |= set(re.findall(r"common/(\w+)", f.read_text()))
    common = folder.parent / "common"
    return sorted(common / n for n in names if (common / n).is_dir())


@contextlib.contextmanager
def held(folders: list[Path]):
    """An exclusive lock per shared folder, taken in one order so that two checks cannot deadlock."""
    with contextlib.ExitStack() as stack:
        for f in folders:
            key = hashlib.sha1(str(f.resolve()).encode()).hexdigest()[:16]
            lock = stack.enter_context(open(Path(tempfile.gettempdir()) / f"ringbench-check-{key}.lock", "w"))
            fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def test_the_c_drivers_share_the_common_c_lock():
    root = Path(__file__).resolve().parent.parent / "drivers"
    assert shared_folders(root / "c-coro") == shared_folders(root / "c-pthreads") == [root / "common" / "c"]


def run_check(d, *, soak: bool) -> None:
    """Run a driver's `check`. RINGBENCH_SLOW=1 asks its stress tests for their long soak (contract 7):
    the default run keeps them short, and `make test-slow` runs them at the length that was seen to
    catch a seeded bug."""
    assert d.check, f"{d.base}: driver.toml names no `check` (its linter and primitive tests, contract 7)"
    command = d.check.replace("{python}", sys.executable).replace("{dir}", str(d.folder))
    env = {k: v for k, v in os.environ.items() if k != "RINGBENCH_SLOW"}
    if soak:
        env["RINGBENCH_SLOW"] = "1"
    with held(shared_folders(d.folder)):
        p = subprocess.run(command, shell=True, cwd=d.folder, env=env, capture_output=True, text=True, timeout=1800)
    tail = "\n".join((p.stdout + p.stderr).strip().splitlines()[-30:])
    assert p.returncode == 0, f"{d.base}: `{d.check}` failed (exit {p.returncode}):\n{tail}"


@pytest.mark.timeout(900)  # a JVM driver's checks compile and run its stress tests: minutes on a loaded machine
@pytest.mark.parametrize("d", FOLDERS, ids=[d.base for d in FOLDERS])
def test_the_drivers_own_checks_pass(d):
    run_check(d, soak=False)


@pytest.mark.slow
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("d", FOLDERS, ids=[d.base for d in FOLDERS])
def test_the_drivers_own_checks_pass_with_their_long_stress_soak(d):
    run_check(d, soak=True)
