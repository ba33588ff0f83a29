"""The spawn boundary of both mailboxes (contract section 3, issue 39), run by the manifest's `check`.

The set-up of spawn and ring ends when every process is blocked in its first receive: main waits at
the gate (Asyncio.wait_gate) until each Task has arrived. Here the process body is wrapped (the
module's ring_process, or the runtime's, replaced from this script only): every wrapped process
records its mailbox, and one of them, the first or the last to run, first yields to the event loop
twice (so that a main woken before the count is complete would run before it) and then spends
200 ms before it arrives. The reported setup_ns must be at least that long, and as main wakes the
gate must have counted n with every Task waiting on its mailbox's Future (asyncio.Queue: one
getter; the hand-written Mailbox: its Future, unresolved).

    PYTHONPATH=.:../common/python /usr/bin/python3 tests/check_gate.py
"""

import asyncio
import sys
import time

import driver
import ringbench_driver_common as common

DELAY_S = 0.2


def waiting(box):
    """Whether box's owner is blocked in a receive on it: a pending Future it awaits, no message."""
    if isinstance(box, asyncio.Queue):
        getters = [f for f in box._getters if not f.done()]  # asyncio.Queue's waiting get() calls
        return box.empty() and len(getters) == 1
    return not box.q and box.w is not None and not box.w.done()


class GateMeter(common.Meter):
    """The real meter (its setup_ns is what a run reports); at spawn_ends, what main finds."""

    def __init__(self, rt, boxes):
        super().__init__()
        self.rt, self.boxes = rt, boxes

    def spawn_ends(self, ready):
        super().spawn_ends(ready)  # the clocks stop first
        self.arrived = self.rt.arrived
        self.in_receive = sum(waiting(b) for b in self.boxes)


def one_run(variant, workload, n, slow=None):
    """One run of workload on n processes; with slow = "first" or "last", that process (in the order
    they first run) yields twice and sleeps DELAY_S before it arrives. Returns (meter, count)."""
    rt = driver.Asyncio(variant)
    original = rt.ring_process
    boxes = []
    late = {"first": 0, "last": n - 1}.get(slow)

    async def process(rt_, box, *rest):
        k = len(boxes)
        boxes.append(box)
        if k == late:
            await asyncio.sleep(0)
            await asyncio.sleep(0)
            time.sleep(DELAY_S)
        await original(rt_, box, *rest)

    rt.ring_process = process
    meter = GateMeter(rt, boxes)
    p = common.parse_params(workload, [f"n={n}", "m=2"] if workload == "ring" else [f"n={n}"])
    try:
        count = rt.run(workload, p, meter, False)
    finally:
        rt.close()
    return meter, count


def main():
    failures = []
    for variant in ("stock", "handwritten"):
        for workload in ("spawn", "ring"):
            cases = [(n, None) for n in (1, 2, 100, 2000)]
            cases += [(n, slow) for n in (1, 2, 100) for slow in ("first", "last")]
            for n, slow in cases:
                m, count = one_run(variant, workload, n, slow)
                want = n if workload == "spawn" else 2 * n
                what = f"{variant} {workload} n={n}" + (f", the {slow} process late" if slow else "")
                if m.ready != n or m.arrived != n or m.in_receive != n or count != want:
                    failures.append(
                        f"{what}: ready {m.ready}, gate {m.arrived}, {m.in_receive} "
                        f"waiting in their first receive as main woke, count {count}"
                    )
                if slow and m.setup_ns < DELAY_S * 1e9:
                    failures.append(f"{what}: setup_ns {m.setup_ns / 1e9:.3f} s < {DELAY_S} s")
    for f in failures:
        print(f"check_gate: {f}", file=sys.stderr)
    if failures:
        sys.exit(1)
    print("check_gate: every set-up ended with its processes in their first receive, a late process's delay included")


if __name__ == "__main__":
    main()
