"""The spawn boundary of the stackless variant (contract section 3, issue 39), run by the manifest's
`check` on pypy3. (pypy/greenlet and pypy/switch run the family's check_gate_greenlet.py.)

The set-up of spawn and ring ends when every tasklet is blocked in its first receive: main creates
them and runs the scheduler (`stackless.run()`), which returns once none is runnable; each arrives
at the gate just before its first receive. Here tasklets.ring_process is replaced, from this script
only, by a wrapper that records each tasklet and the channel it receives on; one of them, the first
or the last to run, yields to the scheduler n + 1 times (`stackless.schedule()`: so that a main
woken before the count is complete would run before it) and then spends 200 ms before it arrives.
The reported setup_ns must be at least that long, and as main wakes the gate must count n, each
tasklet must be blocked as the one receiver waiting on its channel (balance -1), and only main may
be runnable.

    PYTHONPATH=.:../common/python pypy3 tests/check_gate_tasklets.py
"""

import gc
import sys
import time

import ringbench_driver_common as common
import stackless
import tasklets

DELAY_S = 0.2


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

    def __init__(self, procs):
        super().__init__()
        self.procs = procs

    def spawn_ends(self, ready):
        common.gc = WithoutCollection()
        try:
            super().spawn_ends(ready)  # the clocks stop first
        finally:
            common.gc = gc
        self.started = len(self.procs)
        self.arrived = self.procs[0][2].arrived if self.procs else 0
        self.in_receive = sum(
            t.alive and t.blocked and ch.balance == -1 and len(ch.queue) == 1 and ch.queue[0] is t
            for t, ch, _ in self.procs
        )
        self.runnable = stackless.getruncount() - 1  # main's own entry aside


def one_run(workload, n, slow=None):
    """One run of workload on n tasklets; with slow = "first" or "last", that tasklet (in the order
    they first run) is late to the gate. Returns (meter, count)."""
    rt = tasklets.Tasklets()
    original = tasklets.ring_process
    procs = []
    late = {"first": 0, "last": n - 1}.get(slow)

    def process(inbox, outbox, done, first, gate):
        k = len(procs)
        procs.append((stackless.getcurrent(), inbox, gate))
        if k == late:
            for _ in range(n + 1):
                stackless.schedule()
            time.sleep(DELAY_S)
        original(inbox, outbox, done, first, gate)

    tasklets.ring_process = process
    meter = GateMeter(procs)
    p = common.parse_params(workload, [f"n={n}", "m=2"] if workload == "ring" else [f"n={n}"])
    try:
        count = rt.run(workload, p, meter, False)
    finally:
        tasklets.ring_process = original
        rt.close()
    return meter, count


def main():
    failures = []
    for workload in ("spawn", "ring"):
        cases = [(n, None) for n in (1, 2, 100, 2000)]
        cases += [(n, slow) for n in (1, 2, 100) for slow in ("first", "last")]
        for n, slow in cases:
            m, count = one_run(workload, n, slow)
            want = n if workload == "spawn" else 2 * n
            what = f"stackless {workload} n={n}" + (f", the {slow} process late" if slow else "")
            if m.ready != n or m.arrived != n or m.started != n or m.in_receive != n or m.runnable or count != want:
                failures.append(
                    f"{what}: ready {m.ready}, gate {m.arrived}, {m.started} started, {m.in_receive} "
                    f"blocked in their first receive as main woke, {m.runnable} runnable, count {count}"
                )
            if slow and m.setup_ns < DELAY_S * 1e9:
                failures.append(f"{what}: setup_ns {m.setup_ns / 1e9:.3f} s < {DELAY_S} s")
    for f in failures:
        print(f"check_gate_tasklets: {f}", file=sys.stderr)
    if failures:
        sys.exit(1)
    print(
        "check_gate_tasklets: every set-up ended with its tasklets in their first receive, "
        "a late tasklet's delay included"
    )


if __name__ == "__main__":
    main()
