"""ringbench: benchmarks for lightweight-process concurrency (Armstrong's ring and friends).

    import ringbench
    result = ringbench.measure("ring", runtimes="go", params={"n": 1000, "m": 100})
    run = ringbench.perf("rand:uniform().")                # your own code, erlperf's way

See ringbench.api for the full interface and ringbench.results for the objects it returns.
"""

from .api import InputError, StoreError, load, measure, perf, resume, versus
from .results.model import Cell, Run

__all__ = ["measure", "resume", "load", "versus", "perf", "Run", "Cell", "InputError", "StoreError"]
