"""The mailbox variant's workloads (python-greenlet/stock, pypy/greenlet): greenlet processes with
mailboxes and a run queue (scheduler.py).

A process is a greenlet with a `deque` mailbox; a send appends and makes the receiver runnable; a
blocked receive switches straight to the next runnable process. Main starts every process and is the
scheduler of last resort.
"""
from collections import deque
from time import perf_counter_ns

import ringbench_driver_common as common
from greenlet import getcurrent

from .scheduler import Scheduler

NEVER = 1 << 62


def ring_process(sched, box, succ, sbox, first):
    """One process of the ring (and, with main as its successor, of spawn).

    A hop: the blocked receive resumes (one greenlet switch, which copies the two greenlets' stack
    slices), popleft, one compare, one receipt count, append to the successor's mailbox and put its
    switch on the run queue, then the next receive finds the mailbox empty, pops that switch and calls
    it. Everything the hop touches is a local of the process, bound here: no attribute lookup, no
    closure-cell read, no call of a Python function per hop.
    """
    popleft = box.popleft
    sappend = sbox.append
    succ_switch = succ.switch
    runq = sched.runq
    runq_append = runq.append
    runq_popleft = runq.popleft
    main_switch = sched.main_switch
    wake = succ is not getcurrent()  # n = 1: p0 is its own successor and is running
    cnt = 0
    stopping = False
    sched.arrived += 1
    while True:
        while not box:  # Scheduler.receive, written inline (see there)
            if runq:
                runq_popleft()()
            else:
                main_switch()
        v = popleft()
        if v > 1:
            cnt += 1
            if wake and not sbox:
                runq_append(succ_switch)
            sappend(v - 1)
        elif v == 1:
            cnt += 1
            sched.send(main_switch, sched.inbox, 0)  # a token finished
        else:  # the proof: v = -(1 + receipts so far); p0 sees it twice
            if first and stopping:
                sched.send(main_switch, sched.inbox, -v - 1)
                return
            sched.send(succ_switch, sbox, v - cnt)
            if not first:
                return
            stopping = True


def ring_head_continuous(sched, box, succ, sbox, laps):
    """p0 in continuous mode: counts a lap each time a token passes it and reads the clock; when a
    sample is due it wakes main (a message, then one yield, so that main runs even when p0 never
    blocks, as at n = 1)."""
    succ_switch = succ.switch
    wake = succ is not getcurrent()
    sched.arrived += 1
    while True:
        v = sched.receive(box)
        laps.count += 1
        if perf_counter_ns() >= laps.due:
            laps.due = NEVER
            sched.send(sched.main_switch, sched.inbox, 0)
            sched.yield_now()
        if wake:
            sched.send(succ_switch, sbox, v)
        else:
            sbox.append(v)


def pinger(sched, box, pong_switch, pong_box, m):
    sched.arrived += 1
    sched.receive(box)  # the start signal
    for _ in range(m):
        sched.send(pong_switch, pong_box, 1)
        sched.receive(box)
    sched.send(pong_switch, pong_box, 0)
    sched.send(sched.main_switch, sched.inbox, 0)  # done


def ponger(sched, box, ping_switch, ping_box):
    cnt = 0
    sched.arrived += 1
    while sched.receive(box):
        cnt += 1
        sched.send(ping_switch, ping_box, 1)
    sched.send(sched.main_switch, sched.inbox, cnt)  # the round trips it counted


def fanin_receiver(sched, box, total):
    popleft = box.popleft
    cnt = 0
    sched.arrived += 1
    while cnt < total:
        if box:
            popleft()
        else:
            sched.receive(box)
        cnt += 1
    sched.send(sched.main_switch, sched.inbox, cnt)


def fanin_sender(sched, box, to_switch, to_box, m):
    runq_append = sched.runq.append
    append = to_box.append
    sched.arrived += 1
    sched.receive(box)  # the start signal
    for _ in range(m):  # a send never blocks: no switch until the sender is done
        if not to_box:
            runq_append(to_switch)
        append(1)


def tree_node(sched, lo, n, fanout, to_switch, to_box):
    """Covers leaves lo .. lo+n-1: spawns fanout children (main starts them), sums their messages,
    sends the sum to its parent and exits. A leaf sends its ordinal."""
    if n > 1:
        box = deque()
        me = getcurrent().switch
        k = n // fanout
        for i in range(fanout):
            sched.spawn(tree_node, sched, lo + i * k, k, fanout, me, box)
        lo = 0
        for _ in range(fanout):
            lo += sched.receive(box)
    sched.send(to_switch, to_box, lo)


def trace_process(sched, i, box, succ_switch, sbox, log):
    """A ring process of the trace: the token carries its sender's index; each hop is printed here."""
    sched.arrived += 1
    while True:
        v, sender = sched.receive(box)
        if v == 0:  # released after the run
            return
        log.hop(sender, i)
        if v == 1:
            sched.send(sched.main_switch, sched.inbox, 0)
            return
        sched.send(succ_switch, sbox, (v - 1, i))


class Stock(common.Runtime):
    def __init__(self):
        self.sched = Scheduler()
        self.endless = []  # a continuous ring's processes, which never end by themselves

    def reset(self):
        self.sched.reset()

    def close(self):
        """batch: end a continuous ring's processes (each suspended in a receive or a yield: a
        GreenletExit raised there ends it, back to main), then forget the run queue and mailboxes."""
        for g in self.endless:
            if g:  # started and not dead
                g.throw()
        self.endless = []
        self.sched.reset()

    def ring(self, p, meter, emit_hops):
        sched = self.sched
        n = p["n"]
        continuous = p["sample_ms"] > 0
        meter.spawn_begins()
        laps = common.Laps()
        head, head_arg = (ring_head_continuous, laps) if continuous else (ring_process, True)
        boxes = [deque() for _ in range(n)]
        gs = [sched.process(head)] + [sched.process(ring_process) for _ in range(n - 1)]
        for i in range(n):  # started in ring order: consecutive hops touch memory allocated in turn
            j = i + 1 if i + 1 < n else 0
            sched.start(gs[i], sched, boxes[i], gs[j], boxes[j], head_arg if i == 0 else False)
        sched.settle()  # each blocks in its first receive
        meter.spawn_ends(sched.arrived)
        starts = common.token_starts(p)
        if continuous:
            self.endless = gs
            return self._samples(p, gs, boxes, starts, laps)
        v = n * p["m"]
        meter.run_begins()
        for k in starts:
            sched.send(gs[k].switch, boxes[k], v)
        for _ in starts:
            sched.main_receive()
        meter.run_ends()
        sched.send(gs[0].switch, boxes[0], -1)
        count = sched.main_receive()
        sched.settle()
        return count

    def _samples(self, p, gs, boxes, starts, laps):
        sched = self.sched
        period = p["sample_ms"] * 1_000_000
        t_start = perf_counter_ns()
        laps.due = t_start + period
        for k in starts:
            sched.send(gs[k].switch, boxes[k], common.ENDLESS_TOKEN)
        for seq in range(1, p["samples"] + 1):
            sched.main_receive()  # p0 says a sample is due
            common.print_sample(seq, perf_counter_ns() - t_start, laps.count * p["n"])
            laps.due = t_start + (seq + 1) * period
        return None

    def spawn(self, p, meter, emit_hops):
        """n ring processes whose successor is main: each holds what a ring process holds."""
        sched = self.sched
        n = p["n"]
        meter.spawn_begins()
        boxes = [deque() for _ in range(n)]
        gs = [sched.spawn(ring_process, sched, box, sched.main, sched.inbox, False) for box in boxes]
        sched.settle()
        meter.spawn_ends(sched.arrived)
        for i in range(n):
            sched.send(gs[i].switch, boxes[i], -1)  # the stop message: each answers main and exits
        for _ in range(n):
            sched.main_receive()
        sched.settle()
        if not all(g.dead for g in gs):
            raise common.DriverError("failure", "spawn: some processes did not exit")
        return meter.ready

    def pingpong(self, p, meter, emit_hops):
        sched = self.sched
        abox, bbox = deque(), deque()
        meter.spawn_begins()
        a = sched.process(pinger)
        b = sched.process(ponger)
        sched.start(a, sched, abox, b.switch, bbox, p["m"])
        sched.start(b, sched, bbox, a.switch, abox)
        sched.settle()
        meter.spawn_ends(sched.arrived)
        meter.run_begins()
        sched.send(a.switch, abox, 1)
        sched.main_receive()  # A is done
        meter.run_ends()
        count = sched.main_receive()  # B's count
        sched.settle()
        return count

    def fanin(self, p, meter, emit_hops):
        sched = self.sched
        n, m = p["n"], p["m"]
        rbox = deque()
        meter.spawn_begins()
        r = sched.spawn(fanin_receiver, sched, rbox, n * m)
        boxes = [deque() for _ in range(n)]
        gs = [sched.spawn(fanin_sender, sched, box, r.switch, rbox, m) for box in boxes]
        sched.settle()
        meter.spawn_ends(sched.arrived)
        meter.run_begins()
        for i in range(n):
            sched.send(gs[i].switch, boxes[i], 1)  # the start signal
        count = sched.main_receive()
        meter.run_ends()
        sched.settle()
        return count

    def tree(self, p, meter, emit_hops):
        sched = self.sched
        meter.tree_begins()
        sched.spawn(tree_node, sched, 0, p["n"], p["fanout"], sched.main_switch, sched.inbox)
        total = sched.main_receive()
        meter.tree_ends()
        sched.settle()
        return total

    def trace(self, p, meter, emit_hops):
        sched = self.sched
        n, m = p["n"], p["m"]
        log = common.HopLog(n, emit_hops)
        meter.spawn_begins()
        boxes = [deque() for _ in range(n)]
        gs = [sched.process(trace_process) for _ in range(n)]
        for i in range(n):
            j = (i + 1) % n
            sched.start(gs[i], sched, i, boxes[i], gs[j].switch, boxes[j], log)
        sched.settle()
        meter.spawn_ends(sched.arrived)
        meter.run_begins()
        sched.send(gs[0].switch, boxes[0], (n * m, -1))
        sched.main_receive()
        meter.run_ends()
        for i in range(n):
            if not gs[i].dead:
                sched.send(gs[i].switch, boxes[i], (0, -2))
        sched.settle()
        return log.hops
