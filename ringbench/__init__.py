"""ringbench: benchmarks for lightweight-process concurrency (Armstrong's ring and friends).

    import ringbench
    result = ringbench.measure("ring", runtimes="go", params={"n": 1000, "m": 100})

See ringbench.api for the full interface.
"""
from .api import CellResult, InputError, RunResult, measure, resume

__all__ = ["measure", "resume", "RunResult", "CellResult", "InputError"]
