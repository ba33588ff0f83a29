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
