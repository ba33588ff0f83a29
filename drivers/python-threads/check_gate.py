"""The spawn boundary's check (contract section 3), run by the manifest's `check`.

The spawn phase ends when every process is blocked in its first receive, signalled by the gate. At
the instant main wakes from the gate (spawn_ends), every process thread's innermost frame must be
ring_process blocked in its first `get()`: all but the one whose arrival completed the count, which
may be between its arrival and its receive. A process that is slow to reach its receive must hold
the boundary back: one process that sleeps before arriving delays spawn_ends by as long.

    PYTHONPATH=../common/python /usr/bin/python3 check_gate.py
"""

import contextlib
import inspect
import sys
import threading
import time

import driver

RECEIVE_LINE = next(
    start + i
    for lines, start in [inspect.getsourcelines(driver.ring_process)]
    for i, line in enumerate(lines)
    if line.strip() == "v = get()"
)
RING_PROCESS = driver.ring_process.__code__
DELAY_S = 0.2


class BoundaryMeter:
    """The two calls spawn makes on a meter; at spawn_ends, where each process thread stands."""

    def __init__(self):
        self.ready = None

    def spawn_begins(self):
        self.t0 = time.perf_counter_ns()

    def spawn_ends(self, ready):
        self.elapsed_s = (time.perf_counter_ns() - self.t0) / 1e9
        here = threading.get_ident()
        frames = [f for ident, f in sys._current_frames().items() if ident != here]
        procs = [f for f in frames if f.f_code is RING_PROCESS]
        self.procs = len(procs)
        self.in_receive = sum(f.f_lineno == RECEIVE_LINE for f in procs)
        self.ready = ready


def spawn(n, slow=False):
    """One spawn phase of n processes; with slow, the first process thread to run sleeps before it
    arrives at the gate."""
    original = driver.ring_process
    token = [DELAY_S] if slow else []

    def delayed(*args):
        if token:
            with contextlib.suppress(IndexError):  # one thread takes the token (list.pop is atomic)
                time.sleep(token.pop())
        original(*args)

    meter = BoundaryMeter()
    driver.ring_process = delayed
    try:
        driver.Threads(0, n).spawn({"n": n}, meter, False)
    finally:
        driver.ring_process = original
    return meter


def main():
    failures = []
    for n in (1, 2, 100, 2000):
        for _ in range(3):
            m = spawn(n)
            if m.ready != n or m.procs != n or m.in_receive < n - 1:
                failures.append(
                    f"n={n}: ready {m.ready}, {m.procs} threads in ring_process, "
                    f"{m.in_receive} blocked in their first receive at spawn_ends"
                )
    for n in (1, 100):
        m = spawn(n, slow=True)
        if m.ready != n or m.elapsed_s < DELAY_S:
            failures.append(
                f"n={n}, one process {DELAY_S} s slow to its receive: ready {m.ready}, "
                f"spawn ended after {m.elapsed_s:.3f} s"
            )
    for f in failures:
        print(f"check_gate: {f}", file=sys.stderr)
    if failures:
        sys.exit(1)
    print("check_gate: every spawn ended with its processes in their first receive")


if __name__ == "__main__":
    main()
