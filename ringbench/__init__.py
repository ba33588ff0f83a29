"""ringbench: benchmarks for lightweight-process concurrency (Armstrong's ring and friends).

    import ringbench
    result = ringbench.measure("ring", runtimes="go", params={"n": 1000, "m": 100})
    run = ringbench.perf("rand:uniform().")                # your own code, erlperf's way

See ringbench.api for the full interface and ringbench.results for the objects it returns.
"""

from typing import TYPE_CHECKING, Any

from .api import InputError, StoreError, load, measure, resume
from .results.model import Cell, Run

if TYPE_CHECKING:
    from .api import perf, versus


def __getattr__(name: str) -> Any:
    """perf and versus (the names of __all__ not imported above) on first use, as ringbench.api imports them:
    their runners are no other command's."""
    if name in __all__:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["measure", "resume", "load", "versus", "perf", "Run", "Cell", "InputError", "StoreError"]
