"""Each driver's own checks (contract section 7): its language's linter with warnings as errors and the
stress or model tests of its hand-written concurrency primitives, as its manifest's `check` names them."""

import subprocess
import sys

import pytest
from conftest import real_drivers

# One entry per driver folder: the variants of a driver share its sources and its check.
FOLDERS = list({d.base: d for d in real_drivers()}.values())


@pytest.mark.timeout(900)  # a JVM driver's checks compile and run its stress tests: minutes on a loaded machine
@pytest.mark.parametrize("d", FOLDERS, ids=[d.base for d in FOLDERS])
def test_the_drivers_own_checks_pass(d):
    assert d.check, f"{d.base}: driver.toml names no `check` (its linter and primitive tests, contract 7)"
    command = d.check.replace("{python}", sys.executable).replace("{dir}", str(d.folder))
    p = subprocess.run(command, shell=True, cwd=d.folder, capture_output=True, text=True, timeout=900)
    tail = "\n".join((p.stdout + p.stderr).strip().splitlines()[-30:])
    assert p.returncode == 0, f"{d.base}: `{d.check}` failed (exit {p.returncode}):\n{tail}"
