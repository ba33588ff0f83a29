"""The stackless variant: tasklets passing the token over `stackless.channel`s (PyPy's own `stackless`).

A process is a `stackless.tasklet`; what it owns is a `stackless.channel` it receives on; a send is
`channel.send(v)` on the receiver's channel. A channel is synchronous: `send` with a receiver
waiting hands the value over and (the default preference, -1: prefer the receiver) switches to the
receiver at once, the sender staying runnable; `send` with no receiver waiting blocks the sender in
the channel's queue until a receiver takes the value; `receive` with a sender waiting takes its value
and makes it runnable, without a switch. Who runs next is the scheduler's round robin (`_squeue`).
PyPy's stackless.py is pure Python on `_continuation` (one continulet switch per hop); the JIT
compiles the channel and scheduler code with the ring's.

Main creates every tasklet (tasklet(f)(args) starts it at once on main's stack and makes it
runnable) and runs the scheduler with `stackless.run()`, which returns when every tasklet is blocked
in its first receive or has ended.

Synchronous channels deadlock in two places where the contract needs progress: a ring in which every
process holds a token (tokens = n, and n = 1, where p0 sends to itself), and a process that tells
main a token finished while main is itself blocked sending to that process. There a `QueueChannel`
(below) is used: stock channel semantics plus a queue, so that a send never blocks, as stacklesslib's
`QueueChannel` does. Everywhere else the channels are stock.
"""
from collections import deque
from time import perf_counter_ns

import ringbench_driver_common as common
import stackless
from stackless import channel, tasklet

NEVER = 1 << 62


class QueueChannel(channel):
    """A channel whose send never blocks: with a receiver waiting it is the stock send (hand over,
    switch to the receiver); otherwise the value waits in a queue, which receive empties first."""

    def __init__(self):
        channel.__init__(self)
        self.data = deque()

    def send(self, msg):
        if self.balance < 0:  # a receiver is blocked on this channel (so the queue is empty)
            channel.send(self, msg)
        else:
            self.data.append(msg)

    def receive(self):
        if self.data:
            return self.data.popleft()
        return channel.receive(self)


class Gate:
    """The gate: each process arrives (adds one) just before it blocks in its first receive."""

    __slots__ = ("arrived",)

    def __init__(self):
        self.arrived = 0


def ring_process(inbox, outbox, done, first, gate):
    """One process of the ring (and, with main's channel as its outbox, of spawn).

    A hop: `receive` resumes (one continulet switch) or takes the value of a sender blocked on the
    channel; one compare, one receipt count; `send(v - 1)` on the successor's channel.
    """
    receive = inbox.receive
    send = outbox.send
    cnt = 0
    stopping = False
    gate.arrived += 1
    while True:
        v = receive()
        if v > 1:
            cnt += 1
            send(v - 1)
        elif v == 1:
            cnt += 1
            done.send(0)  # a token finished
        else:  # the proof: v = -(1 + receipts so far); p0 sees it twice
            if first and stopping:
                done.send(-v - 1)
                return
            send(v - cnt)
            if not first:
                return
            stopping = True


def ring_head_continuous(inbox, outbox, done, laps, gate):
    """p0 in continuous mode: counts a lap each time a token passes it and reads the clock; when a
    sample is due it tells main, then yields once so that main runs even if p0 never blocks (n = 1)."""
    receive = inbox.receive
    send = outbox.send
    gate.arrived += 1
    while True:
        v = receive()
        laps.count += 1
        if perf_counter_ns() >= laps.due:
            laps.due = NEVER
            done.send(0)
            stackless.schedule()
        send(v)


def pinger(inbox, pong, m, done, gate):
    gate.arrived += 1
    inbox.receive()  # the start signal
    for _ in range(m):
        pong.send(1)
        inbox.receive()
    done.send(0)  # A is done
    pong.send(0)


def ponger(inbox, ping, done, gate):
    cnt = 0
    gate.arrived += 1
    while inbox.receive():
        cnt += 1
        ping.send(1)
    done.send(cnt)  # the round trips it counted


def fanin_receiver(inbox, total, done, gate):
    receive = inbox.receive
    cnt = 0
    gate.arrived += 1
    while cnt < total:
        receive()
        cnt += 1
    done.send(cnt)


def fanin_sender(start, to, m, gate):
    send = to.send
    gate.arrived += 1
    start.receive()
    for _ in range(m):
        send(1)


def tree_node(lo, n, fanout, parent):
    """Covers leaves lo .. lo+n-1: creates fanout children, sums the value each sends on this node's
    channel, sends the sum on its parent's and ends. A leaf sends its ordinal."""
    if n > 1:
        ch = channel()
        k = n // fanout
        for i in range(fanout):
            tasklet(tree_node)(lo + i * k, k, fanout, ch)
        total = 0
        receive = ch.receive
        for _ in range(fanout):
            total += receive()
        lo = total
    parent.send(lo)


def trace_process(i, inbox, outbox, done, log, gate):
    """A ring process of the trace: the token carries its sender's index; each hop is printed here."""
    gate.arrived += 1
    while True:
        v, sender = inbox.receive()
        if v == 0:  # released after the run
            return
        log.hop(sender, i)
        if v == 1:
            done.send(0)
            return
        outbox.send((v - 1, i))


def settle():
    """Run every runnable tasklet until each is blocked in a receive or has ended."""
    stackless.run()


class Tasklets(common.Runtime):
    endless: list = []  # a continuous ring's tasklets, which never end by themselves

    def close(self):
        """batch (contract section 2): kill a continuous ring's tasklets (TaskletExit where each is
        blocked or runnable; a channel drops a killed waiter), so none is left to the scheduler."""
        for t in self.endless:
            if t.alive:
                t.kill()
        self.endless = []
        if stackless.getruncount() != 1:
            raise common.DriverError("failure", "batch: tasklets still runnable after the run")

    def ring(self, p, meter, emit_hops):
        n, tokens = p["n"], p["tokens"]
        continuous = p["sample_ms"] > 0
        # tokens = n (n = 1 included): every process would hold a token and block sending to a
        # successor blocked in its own send; a channel with a queue breaks that cycle.
        make = QueueChannel if tokens == n else channel
        done = QueueChannel()
        gate = Gate()
        laps = common.Laps()
        meter.spawn_begins()
        chans = [make() for _ in range(n)]
        for i in range(n):  # created and started in ring order
            succ = chans[i + 1] if i + 1 < n else chans[0]
            if i == 0 and continuous:
                tasklet(ring_head_continuous)(chans[0], succ, done, laps, gate)
            else:
                tasklet(ring_process)(chans[i], succ, done, i == 0, gate)
        settle()
        meter.spawn_ends(gate.arrived)
        starts = common.token_starts(p)
        if continuous:
            self.endless = [ch.queue[0] for ch in chans]  # each blocked in its first receive (see close)
            return self._samples(p, chans, done, starts, laps)
        v = n * p["m"]
        meter.run_begins()
        for k in starts:
            chans[k].send(v)
        for _ in starts:
            done.receive()
        meter.run_ends()
        chans[0].send(-1)
        count = done.receive()
        settle()
        return count

    def _samples(self, p, chans, done, starts, laps):
        period = p["sample_ms"] * 1_000_000
        t_start = perf_counter_ns()
        laps.due = t_start + period
        for k in starts:
            chans[k].send(common.ENDLESS_TOKEN)
        for seq in range(1, p["samples"] + 1):
            done.receive()  # p0 says a sample is due
            common.print_sample(seq, perf_counter_ns() - t_start, laps.count * p["n"])
            laps.due = t_start + (seq + 1) * period
        return None

    def spawn(self, p, meter, emit_hops):
        """n ring processes whose successor is main: each holds what a ring process holds."""
        n = p["n"]
        done = QueueChannel()
        gate = Gate()
        meter.spawn_begins()
        chans = [channel() for _ in range(n)]
        ts = [tasklet(ring_process)(ch, done, done, False, gate) for ch in chans]
        settle()
        meter.spawn_ends(gate.arrived)
        for ch in chans:
            ch.send(-1)  # the stop message: each answers main and ends
        for _ in range(n):
            done.receive()
        settle()
        if any(t.alive for t in ts):
            raise common.DriverError("failure", "spawn: some processes did not end")
        return gate.arrived

    def pingpong(self, p, meter, emit_hops):
        done = QueueChannel()
        gate = Gate()
        meter.spawn_begins()
        a, b = channel(), channel()
        tasklet(pinger)(a, b, p["m"], done, gate)
        tasklet(ponger)(b, a, done, gate)
        settle()
        meter.spawn_ends(gate.arrived)
        meter.run_begins()
        a.send(1)  # the start signal
        done.receive()  # A is done
        meter.run_ends()
        count = done.receive()  # B's count
        settle()
        return count

    def fanin(self, p, meter, emit_hops):
        n, m = p["n"], p["m"]
        done = QueueChannel()
        gate = Gate()
        meter.spawn_begins()
        inbox = channel()
        tasklet(fanin_receiver)(inbox, n * m, done, gate)
        starts = [channel() for _ in range(n)]
        for ch in starts:
            tasklet(fanin_sender)(ch, inbox, m, gate)
        settle()
        meter.spawn_ends(gate.arrived)
        meter.run_begins()
        for ch in starts:
            ch.send(1)  # the start signal
        count = done.receive()
        meter.run_ends()
        settle()
        return count

    def tree(self, p, meter, emit_hops):
        root = channel()
        meter.tree_begins()
        tasklet(tree_node)(0, p["n"], p["fanout"], root)
        total = root.receive()
        meter.tree_ends()
        settle()
        return total

    def trace(self, p, meter, emit_hops):
        n, m = p["n"], p["m"]
        log = common.HopLog(n, emit_hops)
        done = QueueChannel()
        gate = Gate()
        meter.spawn_begins()
        make = QueueChannel if n == 1 else channel
        chans = [make() for _ in range(n)]
        ts = [tasklet(trace_process)(i, chans[i], chans[(i + 1) % n], done, log, gate) for i in range(n)]
        settle()
        meter.spawn_ends(gate.arrived)
        meter.run_begins()
        chans[0].send((n * m, -1))
        done.receive()
        meter.run_ends()
        for i in range(n):
            if ts[i].alive:
                chans[i].send((0, -2))
        settle()
        return log.hops
