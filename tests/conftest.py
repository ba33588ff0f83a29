import os
from pathlib import Path

import pytest

from ringbench.catalogue import drivers
from ringbench.harness import modes, runner

FAKE_DIR = Path(__file__).parent / "fake_drivers"


@pytest.fixture
def fake(monkeypatch, tmp_path):
    """Make the fake driver discoverable; return a helper to set its behaviour."""
    monkeypatch.setenv("RINGBENCH_DRIVER_PATH", str(FAKE_DIR))
    monkeypatch.setenv("FAKE_COUNTER_FILE", str(tmp_path / "launches"))
    for var in ("FAKE_FAULT", "FAKE_FAULT_ON", "FAKE_JITTER", "FAKE_NS_PER_HOP", "FAKE_RSS_PER_PROC"):
        monkeypatch.delenv(var, raising=False)
    runner._describe_cache.clear()
    modes._calibrated.clear()

    def set_env(**kw):
        for k, v in kw.items():
            monkeypatch.setenv(k, str(v))
    yield set_env
    runner._describe_cache.clear()


@pytest.fixture
def db(tmp_path):
    return tmp_path / "store.db"


def real_drivers():
    """Every driver under drivers/ that is built and has its tools (the fake is never here)."""
    saved = os.environ.pop("RINGBENCH_DRIVER_PATH", None)
    try:
        return [d for d in drivers.discover().values() if d.is_built() and not d.missing_tools()]
    finally:
        if saved is not None:
            os.environ["RINGBENCH_DRIVER_PATH"] = saved


def live_processes_with(marker: str) -> list[int]:
    """Processes (not zombies awaiting their reaper) whose environment holds `marker`, such as the
    fake fixture's FAKE_COUNTER_FILE: this test's drivers, never another test's."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            if marker.encode() in (proc / "environ").read_bytes() and \
                    (proc / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                found.append(int(proc.name))
        except OSError:
            continue
    return found
