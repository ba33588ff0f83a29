"""The switch variant's workloads (python-greenlet/switch, pypy/switch): a send is
greenlet.switch(value) straight into the receiver.

The receiver is always parked in its own pending switch, which returns the value: a synchronous
rendezvous, no queue and no scheduler (what a Stackless channel is by default). Main starts every
greenlet itself, from its own stack (see scheduler.Scheduler.start for why).

A process exits by returning; greenlet hands its return value to its parent greenlet, whose pending
switch returns it. The ring's stop message and the tree's sums travel that way.
"""
from collections import deque
from time import perf_counter_ns

import ringbench_driver_common as common
from greenlet import getcurrent, greenlet


def ring_process(main_switch, succ, first):
    """One process of the ring (and, with main as its successor, of spawn).

    A hop: succ_switch(v - 1) saves this greenlet's stack slice, restores the successor's and returns
    v - 1 from the successor's own pending switch; one compare and one receipt count on each side.
    On the stop message a process makes its successor its parent and returns its running sum to it
    (the parent is set then, not at spawn: greenlet walks the parent chain to refuse cycles).
    """
    succ_switch = succ.switch
    cnt = 0
    v = main_switch(1)  # arrive; blocked in the first receive
    while True:
        while v > 1:
            cnt += 1
            v = succ_switch(v - 1)
        if v == 1:
            cnt += 1
            v = main_switch(0)  # a token finished
            continue
        # the proof: v = -(1 + receipts so far); p0 sees it twice
        if first:
            v = succ_switch(v - cnt)
            return -v - 1  # to main (p0's parent)
        getcurrent().parent = succ
        return v - cnt  # exit: the return value goes to the parent


def ring_head_continuous(main_switch, succ, laps):
    """p0 in continuous mode: counts the laps and reads the clock once per lap; when a sample is due
    it switches to main, which prints it and switches back."""
    succ_switch = succ.switch
    v = main_switch(1)
    while True:
        laps.count += 1
        if perf_counter_ns() >= laps.due:
            main_switch(0)
        v = succ_switch(v)


class Switch(common.Runtime):
    def __init__(self):
        self.main = getcurrent()
        self.main_switch = self.main.switch
        self.endless = []  # a continuous ring's processes, which never end by themselves

    def close(self):
        """batch: end a continuous ring's processes (each suspended in a switch: a GreenletExit raised
        there ends it, back to main, its parent)."""
        for g in self.endless:
            if g:  # started and not dead
                g.throw()
        self.endless = []

    def ring(self, p, meter, emit_hops):
        n = p["n"]
        continuous = p["sample_ms"] > 0
        laps = common.Laps()
        head, head_arg = (ring_head_continuous, laps) if continuous else (ring_process, True)
        meter.spawn_begins()
        gs = [greenlet(head)] + [greenlet(ring_process) for _ in range(n - 1)]  # parent: main
        arrived = 0
        for i in range(n):  # started in ring order, each switching back to main as it arrives
            arrived += gs[i].switch(self.main_switch, gs[i + 1] if i + 1 < n else gs[0], head_arg if i == 0 else False)
        meter.spawn_ends(arrived)
        p0 = gs[0]
        if continuous:
            self.endless = gs
            return self._samples(p, p0, laps)
        meter.run_begins()
        p0.switch(n * p["m"])  # tokens = 1 (more is unsupported); returns when the token finishes
        meter.run_ends()
        count = p0.switch(-1)
        # each dead p(i) still holds its parent p(i+1); free them front to back so that no
        # deallocation cascades down the whole chain (a C stack overflow at n = 100,000)
        for i in range(n):
            gs[i] = None
        return count

    def _samples(self, p, p0, laps):
        period = p["sample_ms"] * 1_000_000
        t_start = perf_counter_ns()
        laps.due = t_start + period
        p0.switch(common.ENDLESS_TOKEN)
        samples = p["samples"]
        for seq in range(1, samples + 1):
            common.print_sample(seq, perf_counter_ns() - t_start, laps.count * p["n"])
            laps.due = t_start + (seq + 1) * period
            if seq < samples:
                p0.switch()
        return None

    def spawn(self, p, meter, emit_hops):
        """n ring processes whose successor is main: each holds what a ring process holds."""
        n = p["n"]
        meter.spawn_begins()
        gs = [greenlet(ring_process) for _ in range(n)]
        arrived = 0
        for g in gs:
            arrived += g.switch(self.main_switch, self.main, False)
        meter.spawn_ends(arrived)
        for g in gs:
            g.switch(-1)  # the stop message: it returns to main, its parent, and exits
        if not all(g.dead for g in gs):
            raise common.DriverError("failure", "spawn: some processes did not exit")
        return arrived

    def pingpong(self, p, meter, emit_hops):
        m = p["m"]
        main_switch = self.main_switch

        def ping(pong):
            pong_switch = pong.switch
            main_switch(1)  # arrive; wait for the start signal
            for _ in range(m):
                pong_switch(1)  # ping; returns with the pong
            pong_switch(0)  # stop B, which tells main

        def pong(ping):
            ping_switch = ping.switch
            cnt = 0
            v = main_switch(1)  # arrive; wait for the first ping
            while v:
                cnt += 1
                v = ping_switch(1)  # pong; returns with the next ping
            main_switch(cnt)  # tell main

        meter.spawn_begins()
        a = greenlet(ping)
        b = greenlet(pong)
        arrived = a.switch(b) + b.switch(a)
        meter.spawn_ends(arrived)
        meter.run_begins()
        count = a.switch()  # returns when B tells main
        meter.run_ends()
        return count

    def fanin(self, p, meter, emit_hops):
        """Each message is a rendezvous: the sender switches to the receiver, carrying itself; the
        receiver counts it and switches back to that sender. The start signal is main switching to a
        sender, so the senders take turns (main regains control when a sender exits)."""
        n, m = p["n"], p["m"]
        main_switch = self.main_switch
        total = n * m

        def receiver():
            cnt = 0
            sender = main_switch(1)  # arrive; blocked until the first message
            while True:
                cnt += 1
                if cnt == total:
                    main_switch(cnt)  # tell main (the last sender stays parked)
                    return
                sender = sender.switch()  # hand back to the sender; returns the next one

        def sender(to_switch):
            me = getcurrent()
            main_switch(1)  # arrive; blocked until the start signal
            for _ in range(m):
                to_switch(me)

        meter.spawn_begins()
        r = greenlet(receiver)
        arrived = r.switch()
        senders = [greenlet(sender) for _ in range(n)]
        for g in senders:
            arrived += g.switch(r.switch)
        meter.spawn_ends(arrived)
        meter.run_begins()
        for g in senders:
            count = g.switch()  # None as a sender exits; the last sender's turn ends with the count
        meter.run_ends()
        return count

    def tree(self, p, meter, emit_hops):
        """A node's message to its parent is its return value: the node is created with its tree
        parent as its greenlet parent, so its exit switches straight into the parent's pending switch.
        Main starts every node (a list of new children comes back to it from each inner node)."""
        fanout = p["fanout"]
        main_switch = self.main_switch

        def node(lo, n):
            if n == 1:
                return lo  # to the parent, whose pending switch returns it
            me = getcurrent()
            k = n // fanout
            total = main_switch([(greenlet(node, parent=me), lo + i * k, k) for i in range(fanout)])
            for _ in range(fanout - 1):
                total += main_switch()  # back to main until the next child's sum arrives
            return total

        meter.tree_begins()
        root = greenlet(node)
        pending = deque([(root, 0, p["n"])])
        total = None
        while pending:
            g, lo, n = pending.popleft()
            r = g.switch(lo, n)  # a node's new children, or () once a child's sum was taken, or the total
            if type(r) is list:
                pending.extend(r)
            elif root.dead:
                total = r
        meter.tree_ends()
        return total

    def trace(self, p, meter, emit_hops):
        n, m = p["n"], p["m"]
        main_switch = self.main_switch
        log = common.HopLog(n, emit_hops)

        def process(i, succ):
            succ_switch = succ.switch
            v, sender = main_switch(1)
            while True:
                log.hop(sender, i)
                if v == 1:
                    main_switch(None)
                    return
                v, sender = succ_switch((v - 1, i))

        meter.spawn_begins()
        gs = [greenlet(process) for _ in range(n)]
        arrived = 0
        for i in range(n):
            arrived += gs[i].switch(i, gs[(i + 1) % n])
        meter.spawn_ends(arrived)
        meter.run_begins()
        gs[0].switch((n * m, -1))
        meter.run_ends()
        return log.hops
