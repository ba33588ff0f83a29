"""ringbench: benchmarks for lightweight-process concurrency (Armstrong's ring and friends).

    import ringbench
    result = ringbench.measure("ring", runtimes="go", params={"n": 1000, "m": 100})

See ringbench.api for the full interface and ringbench.results for the objects it returns.
"""

from .api import InputError, StoreError, load, measure, resume, versus
from .results.model import Cell, Run

__all__ = ["measure", "resume", "load", "versus", "Run", "Cell", "InputError", "StoreError"]
