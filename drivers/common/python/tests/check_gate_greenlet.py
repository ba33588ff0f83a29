"""The spawn boundary of the family's greenlet processes (contract section 3, issue 39), run by the
`check` of python-greenlet (CPython) and pypy (PyPy).

The set-up of spawn and ring ends when every process is blocked in its first receive. Stock
(python-greenlet/stock and /tuned, pypy/greenlet): main runs the new processes until none is
runnable (Scheduler.settle), each arriving at the gate just before its first receive. Switch
(python-greenlet/switch, pypy/switch): main switches to each new process and gets control back only
when it arrives, parked in its first receive (`main_switch(1)`).

Here the module's ring_process is replaced, from this script only, by a wrapper that records each
process's greenlet and mailbox; one of them, the first or the last to run, is late: under stock it
first yields to the scheduler n + 1 times (its switch on the run queue, then to main; so that a main
woken before the count is complete would run before it), then spends 200 ms before it arrives; under
switch, which has no scheduler to yield to (a switch to main is an arrival), it only spends the
200 ms. The reported setup_ns must be at least that long, and as main wakes every process must be
started and suspended in the receive loop of ring_process with nothing received (cnt 0), every
mailbox empty, nothing runnable, and the gate at n.

    PYTHONPATH=../common/python /usr/bin/python3 ../common/python/tests/check_gate_greenlet.py   (or pypy3)
"""

import gc
import inspect
import sys
import time

import ringbench_driver_common as common
from greenlet import getcurrent
from ringbench_greenlet import stock, switch

DELAY_S = 0.2


def lines_of(fn, first, last):
    """The line numbers of fn's source from the line that reads `first` to the one that reads `last`."""
    lines, start = inspect.getsourcelines(fn)
    text = [line.strip() for line in lines]
    i, j = text.index(first), text.index(last)
    return range(start + i, start + j + 1)


RECEIVE = {
    stock: lines_of(
        stock.ring_process, "while not box:  # Scheduler.receive, written inline (see there)", "main_switch()"
    ),
    switch: lines_of(
        switch.ring_process,
        "v = main_switch(1)  # arrive; blocked in the first receive",
        "v = main_switch(1)  # arrive; blocked in the first receive",
    ),
}
CODE = {stock: stock.ring_process.__code__, switch: switch.ring_process.__code__}  # before any wrapping


def in_first_receive(module, g):
    """Whether greenlet g is suspended in the receive of module's ring_process, nothing received."""
    f = g.gr_frame
    return (
        not g.dead
        and f is not None
        and f.f_code is CODE[module]
        and f.f_lineno in RECEIVE[module]
        and f.f_locals.get("cnt") == 0
    )


class WithoutCollection:
    """The gc module less its collect, for the real meter's spawn_ends here: the full collection it
    makes after its clocks stop (untimed) says nothing of the gate, and on PyPy, where one costs
    tens of ms once the heap has grown, those of the runs below were half this check's CPU time."""

    def collect(self, generation=2):
        return 0

    def __getattr__(self, name):
        return getattr(gc, name)


class GateMeter(common.Meter):
    """The real meter (its setup_ns is what a run reports); at spawn_ends, what main finds."""

    def __init__(self, module, rt, procs):
        super().__init__()
        self.module, self.rt, self.procs = module, rt, procs

    def spawn_ends(self, ready):
        common.gc = WithoutCollection()
        try:
            super().spawn_ends(ready)  # the clocks stop first
        finally:
            common.gc = gc
        self.started = len(self.procs)
        self.in_receive = sum(in_first_receive(self.module, g) for g, _ in self.procs)
        if self.module is stock:
            sched = self.rt.sched
            self.arrived = sched.arrived
            self.idle = not sched.runq and not sched.newq and not any(box for _, box in self.procs)
        else:
            self.arrived = ready  # the sum of the processes' arrivals (each switches 1 to main)
            self.idle = True


def one_run(module, workload, n, slow=None):
    """One run of workload on n processes; with slow = "first" or "last", that process (in the order
    they first run) is late to the gate. Returns (meter, count)."""
    rt = module.Stock() if module is stock else module.Switch()
    original = module.ring_process
    procs = []
    late = {"first": 0, "last": n - 1}.get(slow)

    def stock_process(sched, box, *rest):
        k = len(procs)
        procs.append((getcurrent(), box))
        if k == late:
            for _ in range(n + 1):  # yield: back on the run queue, main runs the others meanwhile
                sched.runq.append(getcurrent().switch)
                sched.main_switch()
            time.sleep(DELAY_S)
        return original(sched, box, *rest)

    def switch_process(*args):
        if len(procs) == late:
            time.sleep(DELAY_S)
        procs.append((getcurrent(), None))
        return original(*args)

    module.ring_process = stock_process if module is stock else switch_process
    meter = GateMeter(module, rt, procs)
    p = common.parse_params(workload, [f"n={n}", "m=2"] if workload == "ring" else [f"n={n}"])
    try:
        count = rt.run(workload, p, meter, False)
    finally:
        module.ring_process = original
        rt.close()
    return meter, count


def main():
    failures = []
    for module in (stock, switch):
        for workload in ("spawn", "ring"):
            cases = [(n, None) for n in (1, 2, 100, 2000)]
            cases += [(n, slow) for n in (1, 2, 100) for slow in ("first", "last")]
            for n, slow in cases:
                m, count = one_run(module, workload, n, slow)
                want = n if workload == "spawn" else 2 * n
                name = module.__name__.rsplit(".", 1)[1]
                what = f"{name} {workload} n={n}" + (f", the {slow} process late" if slow else "")
                if m.ready != n or m.arrived != n or m.started != n or m.in_receive != n or not m.idle or count != want:
                    failures.append(
                        f"{what}: ready {m.ready}, gate {m.arrived}, {m.started} started, "
                        f"{m.in_receive} in their first receive as main woke, "
                        f"{'idle' if m.idle else 'something runnable'}, count {count}"
                    )
                if slow and m.setup_ns < DELAY_S * 1e9:
                    failures.append(f"{what}: setup_ns {m.setup_ns / 1e9:.3f} s < {DELAY_S} s")
    for f in failures:
        print(f"check_gate_greenlet: {f}", file=sys.stderr)
    if failures:
        sys.exit(1)
    print(
        f"check_gate_greenlet: every set-up ended with its processes in their first receive, a late "
        f"process's delay included ({sys.implementation.name})"
    )


if __name__ == "__main__":
    main()
