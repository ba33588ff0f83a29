"""Stress test of the hand-written mailbox and run queue (ringbench_greenlet/scheduler.py) and of the
ring's inline copy of its receive (ringbench_greenlet/stock.py, ring_process). Plain Python, run by
the `check` of python-greenlet (CPython) and of pypy (PyPy), the same code on both:

    PYTHONPATH=../common/python /usr/bin/python3 ../common/python/tests/stress_greenlet_scheduler.py [runs]
    PYTHONPATH=../common/python pypy3 ../common/python/tests/stress_greenlet_scheduler.py [runs]

RUNS runs by default, SLOW_RUNS with RINGBENCH_SLOW=1 (`make test-slow`); `runs` overrides both.

1. Random message traffic (RUNS seeds): tokens hop between processes (and to themselves) at
   random; every message carries a per-sender sequence number, and each receiver checks that it sees every sender's
   messages in order, none lost, none twice; processes yield at random; main counts every hop.
2. Processes that spawn processes: a chain much deeper than the recursion limit (each process spawns
   the next, main starts them) and a tree; both must end with exact sums.
3. Main waiting while every process is blocked raises Deadlock instead of hanging.
4. Rings of random size with several tokens, spread or in a burst (stock.Stock.ring).
"""
import os
import random
import sys
import time
from collections import deque

import ringbench_driver_common as common
from greenlet import getcurrent
from ringbench_greenlet.scheduler import Deadlock, Scheduler
from ringbench_greenlet.stock import Stock, tree_node

STOP = None
# Random runs (seeds 0 .. RUNS-1, so a failure names its seed and repeats). A fixed count, not a
# time budget: a budget ran fewer runs the busier the machine and used all of it when idle. The
# runs reach their states early: a send that puts its message ahead of 15 waiting ones fails at
# seed 9; a receive that takes the newest of 6 waiting messages, or a yield that loses its process
# when 6 are runnable, at seed 0 or 1; no seed below 1,000 has a receive find 30 waiting. The
# interleavings depend on the seed only, the same on CPython and PyPy (the same hop count on both),
# so pypy's check runs fewer of them (20) in its long soak. By default seeds 0 to 9.
RUNS = 10
SLOW_RUNS = 100


def traffic(seed):
    rng = random.Random(seed)
    sched = Scheduler()
    nproc = rng.randint(1, 60)
    ntok = rng.randint(1, 3 * nproc)
    boxes = [deque() for _ in range(nproc)]
    receipts = [0] * nproc
    expected = 0

    def process(me):
        prng = random.Random(seed * 1000 + me)
        sent = [0] * nproc  # sequence numbers per target
        seen = {}  # last sequence number per sender
        while True:
            msg = sched.receive(boxes[me])
            if msg is STOP:
                return
            sender, seq, tid, left = msg
            assert seen.get(sender, 0) + 1 == seq, (me, sender, seq, seen.get(sender))
            seen[sender] = seq
            receipts[me] += 1
            if left == 0:
                sched.send(sched.main_switch, sched.inbox, tid)
            else:
                to = prng.randrange(nproc)
                sent[to] += 1
                sched.send(gs[to].switch, boxes[to], (me, sent[to], tid, left - 1))
            if prng.random() < 0.1:
                sched.yield_now()

    gs = [sched.process(process) for _ in range(nproc)]
    for i in range(nproc):
        sched.start(gs[i], i)
    sched.settle()
    main_sent = [0] * nproc
    for tid in range(ntok):
        to = rng.randrange(nproc)
        hops = rng.randint(0, 200)
        expected += hops + 1
        main_sent[to] += 1
        sched.send(gs[to].switch, boxes[to], (-1, main_sent[to], tid, hops))
    done = sorted(sched.main_receive() for _ in range(ntok))
    assert done == list(range(ntok)), done
    for i in range(nproc):
        sched.send(gs[i].switch, boxes[i], STOP)
    sched.settle()
    assert all(g.dead for g in gs)
    assert sum(receipts) == expected, (sum(receipts), expected)
    return expected


def chain(length):
    """Each process spawns the next and waits for its answer: main starts every one of them."""
    sched = Scheduler()

    def link(k, to_switch, to_box):
        if k < length:
            box = deque()
            sched.spawn(link, k + 1, getcurrent().switch, box)
            v = sched.receive(box) + 1
        else:
            v = 0
        sched.send(to_switch, to_box, v)

    sched.spawn(link, 0, sched.main_switch, sched.inbox)
    assert sched.main_receive() == length
    sched.settle()


def tree(n, fanout):
    sched = Scheduler()
    sched.spawn(tree_node, sched, 0, n, fanout, sched.main_switch, sched.inbox)
    assert sched.main_receive() == n * (n - 1) // 2
    sched.settle()
    assert not sched.newq and not sched.runq


def deadlock():
    sched = Scheduler()
    box = deque()
    sched.spawn(sched.receive, box)  # blocks for ever
    try:
        sched.main_receive()
    except Deadlock:
        return
    raise AssertionError("no Deadlock")


def rings(seed):
    rng = random.Random(seed)
    rt = Stock()
    for _ in range(5):
        n = rng.randint(1, 300)
        p = {"n": n, "m": rng.randint(1, 5), "tokens": rng.randint(1, n), "burst": rng.randint(0, 1),
             "sample_ms": 0}
        count = rt.ring(p, common.Meter(), False)
        rt.reset()
        assert count == p["n"] * p["m"] * p["tokens"], (p, count)


def main():
    default = SLOW_RUNS if os.environ.get("RINGBENCH_SLOW") == "1" else RUNS
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else default
    t0 = time.monotonic()
    deadlock()
    chain(3 * sys.getrecursionlimit())
    for n, fanout in ((1, 2), (2, 2), (1024, 2), (27, 3), (10000, 10)):
        tree(n, fanout)
    hops = 0
    for seed in range(runs):
        try:
            hops += traffic(seed)
            if seed % 10 == 0:
                rings(seed)
        except BaseException:
            print(f"stress_greenlet_scheduler: random run {seed} failed", file=sys.stderr)
            raise
    print(f"stress_greenlet_scheduler: {runs} random runs, {hops} hops, chain, trees, deadlock, rings: ok "
          f"({time.monotonic() - t0:.1f} s)")


if __name__ == "__main__":
    main()
