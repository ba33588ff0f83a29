"""ringbench driver: greenlet processes (Stackless-style tasklets) on CPython.

Variants (README.md):
  stock   each process is a greenlet with a deque mailbox; a send appends and makes the receiver
          runnable; a blocked receive switches to the next runnable process (ringbench_greenlet's
          stock.py, scheduler.py).
  switch  a send is greenlet.switch(value) straight into the receiver, a rendezvous
          (ringbench_greenlet's switch.py).
  tuned   stock with the collector settings of ringbench_driver_common.tune_collector.
The workloads are the family's (../common/python/ringbench_greenlet), the same code the pypy driver
runs on PyPy; they and ringbench_driver_common are found through PYTHONPATH (driver.toml).
"""
import platform
import sys

import ringbench_driver_common as common
from ringbench_driver_common import DriverError

NAME = "python-greenlet"
VARIANTS = ("stock", "switch", "tuned")
WORKLOADS = ["ring", "spawn", "pingpong", "fanin", "tree", "trace"]


def greenlet_version():
    try:
        import greenlet
    except ImportError:
        raise DriverError("failure", f"greenlet is not installed for {sys.executable}: install Debian's "
                          "python3-greenlet (apt-get install python3-greenlet; `make setup` does it)") from None
    return greenlet.__version__


def describe(variant):
    # the switch variant is a synchronous rendezvous: K tokens cannot circulate at once
    features = ["continuous", "stats"] if variant == "switch" else ["tokens", "continuous", "stats"]
    return {"name": NAME, "runtime": f"{platform.python_implementation()} + greenlet",
            "version": f"{common.python_version()}, greenlet {greenlet_version()}",
            "workloads": WORKLOADS, "features": features}


def prepare(variant, workload, p):
    greenlet_version()
    if variant == "switch":
        if workload == "ring" and p["tokens"] > 1:
            raise DriverError("unsupported", "the switch variant is a synchronous rendezvous ring: main gets "
                              "control back only when a token finishes, so K tokens cannot circulate at once "
                              "(running them one after another would not be the same work); use the stock variant")
        from ringbench_greenlet.switch import Switch
        return Switch()
    from ringbench_greenlet.stock import Stock
    return Stock()


if __name__ == "__main__":
    common.serve(describe, prepare, VARIANTS,
                 selective_reason="greenlet processes have no selective receive: a mailbox is a plain FIFO "
                                  "and there is no receive that skips non-matching messages")
