"""A Ctrl-C or SIGTERM that Python drops (raised in a finalizer or a fork hook, where an exception cannot
propagate) still stops a measuring command: the next driver process refuses to start."""

import os
import signal
import subprocess

import pytest
from conftest import live_processes_with

from ringbench import api
from ringbench.harness import launch

# The exception a finalizer cannot raise is what these tests make: Python prints and drops it, and pytest
# would report each one as a warning of the whole run.
pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")


class _StopInFinalizer:
    def __init__(self, sig):
        self.sig = sig

    def __del__(self):
        signal.raise_signal(self.sig)  # the handler's KeyboardInterrupt is printed and dropped here


@pytest.fixture
def stop_handler():
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    api.interrupt_on_stop()
    yield
    for s, h in before.items():
        signal.signal(s, h)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_stop_dropped_in_a_finalizer_stops_the_next_driver_start(stop_handler, sig):
    mark = f"dropped-{os.getpid()}-{sig}"
    _StopInFinalizer(sig)  # collected at once: the signal lands in __del__, and nothing is raised here
    with pytest.raises(KeyboardInterrupt):
        launch.start(["sleep", "30"], env={**os.environ, "DROPPED": mark}, stdout=subprocess.DEVNULL)
    assert live_processes_with(mark) == []  # refused before it started


def test_a_fresh_handler_forgets_an_earlier_stop(stop_handler):
    _StopInFinalizer(signal.SIGTERM)
    api.interrupt_on_stop()  # the next command in this process begins clean
    proc = launch.start(["true"], env=dict(os.environ))
    assert proc.wait() == 0


def test_a_stop_that_reached_the_code_is_not_raised_again(stop_handler):
    with pytest.raises(KeyboardInterrupt):
        signal.raise_signal(signal.SIGTERM)  # taken, and it reached the code
    proc = launch.start(["true"], env=dict(os.environ))
    assert proc.wait() == 0


def test_a_dropped_stop_refuses_one_start_only(stop_handler):
    _StopInFinalizer(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):
        launch.start(["true"], env=dict(os.environ))
    proc = launch.start(["true"], env=dict(os.environ))
    assert proc.wait() == 0
