"""ringbench driver: PyPy (pypy3), the JIT under the Python drivers' own code, and Stackless's API.

Variants (README.md):
  greenlet   the python-greenlet driver's stock variant, the same code (its stock.py, scheduler.py),
             on PyPy's built-in greenlet: a hand-written deque mailbox per process and a run queue.
  switch     the python-greenlet driver's switch variant (its switch.py): greenlet.switch(value)
             straight into the receiver, a rendezvous.
  stackless  tasklets and stackless.channel, PyPy's own stackless module (tasklets.py here).

The greenlet driver's modules and the family's shared module are found through PYTHONPATH
(driver.toml); nothing of them is copied here.
"""
import gc
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
    """The stats record's PyPy figures: collections counted by gc.hooks (installed only when stats=1,
    once start-up is over), and the collector's own memory accounting (gc.get_stats)."""

    def __init__(self, hooked):
        self.minor = self.major = self.steps = 0
        self._last = (0, 0, 0, 0)
        if hooked:
            gc.hooks.set(self)

    def on_gc_minor(self, stats):
        self.minor += stats.count

    def on_gc_collect_step(self, stats):
        self.steps += stats.count

    def on_gc_collect(self, stats):
        self.major += stats.count

    def stats(self):
        s = gc.get_stats(memory_pressure=False)._s  # the raw numbers (the outer object formats them)
        now = (self.minor, self.steps, self.major, s.total_gc_time)
        d = [now[i] - self._last[i] for i in range(4)]
        self._last = now
        return {"gc_minor_collections": d[0], "gc_major_steps": d[1], "gc_major_collections": d[2],
                "gc_time_ms": d[3], "gc_memory": s.total_gc_memory, "gc_allocated": s.total_allocated_memory,
                "gc_peak_memory": s.peak_memory, "gc_nursery_size": s.nursery_size,
                "jit_backend_used": s.jit_backend_used}


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
        from switch import Switch  # the python-greenlet driver's own module
        base = Switch
    else:
        from stock import Stock  # the python-greenlet driver's own module
        base = Stock
    hooks = PyPyStats(p["stats"] == 1)

    class Runtime(base):
        def stats(self):
            return hooks.stats()

    return Runtime()


if __name__ == "__main__":
    common.serve(describe, prepare, VARIANTS, tuned=(), perf=True,
                 selective_reason="neither greenlets nor stackless channels have selective receive: a "
                                  "mailbox (deque) or a channel delivers in FIFO order, and there is no receive "
                                  "that skips a non-matching message")
