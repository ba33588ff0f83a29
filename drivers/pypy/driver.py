"""ringbench driver: PyPy (pypy3), the JIT under the Python drivers' own code, and Stackless's API.

Variants (README.md):
  greenlet   the family's greenlet processes (../common/python/ringbench_greenlet: stock.py,
             scheduler.py), the code python-greenlet/stock runs on CPython, on PyPy's built-in
             greenlet: a hand-written deque mailbox per process and a run queue.
  switch     the family's switch workloads (ringbench_greenlet/switch.py), python-greenlet/switch's
             code: greenlet.switch(value) straight into the receiver, a rendezvous.
  stackless  tasklets and stackless.channel, PyPy's own stackless module (tasklets.py here).

The family's modules are found through PYTHONPATH (driver.toml); nothing of them is copied here.
"""
import sys

import ringbench_driver_common as common
from ringbench_driver_common import DriverError

NAME = "pypy"
VARIANTS = ("greenlet", "switch", "stackless")
WORKLOADS = ["ring", "spawn", "pingpong", "fanin", "tree", "trace"]


def pypy_version():
    if sys.implementation.name != "pypy":
        raise DriverError("failure", f"this driver runs on PyPy, not {sys.implementation.name} "
                          f"({sys.executable}): install Debian's pypy3 (apt-get install pypy3)")
    return common.python_version()


def describe(variant):
    version = pypy_version()
    if variant == "stackless":
        import stackless
        return {"name": NAME, "runtime": "PyPy + stackless",
                "version": f"{version}, stackless ({stackless.__file__}, on _continuation)",
                "workloads": WORKLOADS, "features": ["tokens", "continuous", "stats", "perf"]}
    import greenlet
    # the switch variant is a synchronous rendezvous: K tokens cannot circulate at once
    features = ["continuous", "stats"] if variant == "switch" else ["tokens", "continuous", "stats"]
    features.append("perf")  # every variant runs `perf` (the common runner, ringbench_perf.py)
    return {"name": NAME, "runtime": "PyPy + greenlet",
            "version": f"{version}, greenlet {greenlet.__version__} (PyPy's, on _continuation)",
            "workloads": WORKLOADS, "features": features}


class PyPyStats:
    """The stats record's PyPy figures (common.PyPyCollector: gc.hooks, installed only when stats=1,
    once start-up is over, and the documented gc.get_stats figure)."""

    def __init__(self):
        self.collector = common.PyPyCollector()
        self._last = self.collector.counts()

    def stats(self):
        now = self.collector.counts()
        rec = {name: now[i] - self._last[i] for i, name in enumerate(common.PyPyCollector.COUNTS)}
        self._last = now
        rec.update(self.collector.memory())
        return rec


def prepare(variant, workload, p):
    pypy_version()
    if variant == "stackless":
        from tasklets import Tasklets
        base = Tasklets
    elif variant == "switch":
        if workload == "ring" and p["tokens"] > 1:
            raise DriverError("unsupported", "the switch variant is a synchronous rendezvous ring: main gets "
                              "control back only when a token finishes, so K tokens cannot circulate at once "
                              "(running them one after another would not be the same work); use pypy/greenlet "
                              "or pypy/stackless")
        from ringbench_greenlet.switch import Switch  # python-greenlet/switch's code
        base = Switch
    else:
        from ringbench_greenlet.stock import Stock  # python-greenlet/stock's code
        base = Stock
    if p["stats"] != 1:
        return base()
    hooks = PyPyStats()

    class Runtime(base):
        def stats(self):
            return hooks.stats()

    return Runtime()


if __name__ == "__main__":
    common.serve(describe, prepare, VARIANTS, tuned=(), perf=True,
                 selective_reason="neither greenlets nor stackless channels have selective receive: a "
                                  "mailbox (deque) or a channel delivers in FIFO order, and there is no receive "
                                  "that skips a non-matching message")
