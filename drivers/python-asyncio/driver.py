"""ringbench driver: CPython asyncio, one Task per process, a mailbox each.

Standard asyncio event loop only (no uvloop). Variants (README.md):
  stock        an asyncio.Queue per process (`await q.get()`, `q.put_nowait(v)`): the everyday idiom.
  handwritten  the hand-written Mailbox of mailboxes.py (a deque and one Future), ranked apart.
  tuned        stock with the collector settings of ringbench_driver_common.tune_collector.
The shared module ringbench_driver_common is found through PYTHONPATH (driver.toml).
"""
import asyncio
from time import perf_counter_ns

import ringbench_driver_common as common
from mailboxes import Mailbox

NAME = "python-asyncio"
VARIANTS = ("stock", "handwritten", "tuned")
WORKLOADS = ["ring", "spawn", "pingpong", "fanin", "tree", "trace"]
FEATURES = ["tokens", "continuous", "stats"]


async def ring_process(rt, box, sbox, first, main_box):
    """One process of the ring (and, with main as its successor, of spawn), on asyncio.Queue.

    A hop: the sender's put_nowait appends the value to the successor's queue and resolves the Future
    its get() awaits, which schedules its Task's wake-up (call_soon); the sender then calls get() on
    its own empty queue, which makes a Future and suspends; the event loop runs the wake-up, the
    successor's get() pops the value; one compare, one receipt count.
    """
    cnt = 0
    stopping = False
    rt.arrived += 1
    while True:
        v = await box.get()
        if v > 1:
            cnt += 1
            sbox.put_nowait(v - 1)
        elif v == 1:
            cnt += 1
            main_box.put_nowait(0)  # a token finished
        else:  # the proof: v = -(1 + receipts so far); p0 sees it twice
            if first and stopping:
                main_box.put_nowait(-v - 1)
                return
            sbox.put_nowait(v - cnt)
            if not first:
                return
            stopping = True


async def ring_process_handwritten(rt, box, sbox, first, main_box):
    """ring_process on the hand-written Mailbox, its receive and send written inline.

    A hop: the sender's set_result on this process's Future schedules its Task's wake-up (call_soon);
    the sender then makes its own Future and suspends; the event loop runs the wake-up, and the await
    returns the value; one compare, one receipt count.
    """
    new_future = rt.loop.create_future
    cnt = 0
    stopping = False
    rt.arrived += 1
    while True:
        q = box.q
        if q:
            v = q.popleft()
        else:
            box.w = f = new_future()
            v = await f
        if v > 1:
            cnt += 1
            w = sbox.w
            if w is not None:
                sbox.w = None
                w.set_result(v - 1)
            else:
                sbox.put_nowait(v - 1)
        elif v == 1:
            cnt += 1
            main_box.put_nowait(0)  # a token finished
        else:  # the proof: v = -(1 + receipts so far); p0 sees it twice
            if first and stopping:
                main_box.put_nowait(-v - 1)
                return
            sbox.put_nowait(v - cnt)
            if not first:
                return
            stopping = True


async def ring_head_continuous(rt, box, sbox, laps):
    """p0 in continuous mode: counts the laps; main sleeps and reads the count."""
    rt.arrived += 1
    while True:
        v = await box.get()
        laps.count += 1
        sbox.put_nowait(v)
        if not box.empty():  # p0 would not block this lap (n = 1: it mails itself): yield once, so main's timer fires
            await asyncio.sleep(0)


async def pinger(rt, box, pong_box, main_box, m):
    rt.arrived += 1
    await box.get()  # the start signal
    for _ in range(m):
        pong_box.put_nowait(1)
        await box.get()
    pong_box.put_nowait(0)
    main_box.put_nowait(0)  # done


async def ponger(rt, box, ping_box, main_box):
    cnt = 0
    rt.arrived += 1
    while await box.get():
        cnt += 1
        ping_box.put_nowait(1)
    main_box.put_nowait(cnt)  # the round trips it counted


async def fanin_receiver(rt, box, main_box, total):
    cnt = 0
    rt.arrived += 1
    while cnt < total:
        await box.get()
        cnt += 1
    main_box.put_nowait(cnt)


async def fanin_sender(rt, box, to_box, m):
    rt.arrived += 1
    await box.get()  # the start signal
    for _ in range(m):
        to_box.put_nowait(1)  # a send never blocks


async def tree_node(rt, lo, n, fanout, to_box):
    """Covers leaves lo .. lo+n-1: a Task per child, sums their messages, sends the sum to its parent
    and ends. No list of the child Tasks is kept: a pending Task is always reachable, from the loop's
    ready queue or through the Future it awaits, which its children's mailbox reference holds."""
    if n > 1:
        box = rt.Box()
        k = n // fanout
        for i in range(fanout):
            rt.create_task(tree_node(rt, lo + i * k, k, fanout, box))
        lo = 0
        for _ in range(fanout):
            lo += await box.get()
    to_box.put_nowait(lo)


async def trace_process(rt, i, box, sbox, main_box, log):
    """A ring process of the trace: the token carries its sender's index; each hop is printed here."""
    rt.arrived += 1
    while True:
        v, sender = await box.get()
        if v == 0:  # released after the run
            return
        log.hop(sender, i)
        if v == 1:
            main_box.put_nowait(0)
            return
        sbox.put_nowait((v - 1, i))


class Asyncio(common.Runtime):
    def __init__(self, variant="stock"):
        # one event loop for every iteration of the driver process, so a warm-up warms the loop
        # the measured iterations use
        self.loop = asyncio.new_event_loop()
        handwritten = variant == "handwritten"
        self.Box = Mailbox if handwritten else asyncio.Queue  # a process's mailbox
        self.ring_process = ring_process_handwritten if handwritten else ring_process
        self.create_task = self.loop.create_task
        self.arrived = 0  # the gate: each process arrives (adds one) just before its first receive

    def run(self, workload, p, meter, emit_hops):
        return self.loop.run_until_complete(getattr(self, workload)(p, meter, emit_hops))

    def reset(self):
        self.arrived = 0

    def close(self):
        """batch (contract section 2): the run's Tasks cancelled (a continuous ring's never end by
        themselves) and its event loop closed; the next run makes its own, as a fresh process does."""
        tasks = asyncio.all_tasks(self.loop)
        for t in tasks:
            t.cancel()
        if tasks:
            self.loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
        self.loop.close()

    async def wait_gate(self, k, tasks):
        """Main waits until k processes have arrived at the gate: one pass of the loop runs every new
        task to its first receive (tasks run in creation order). A task that ended before it arrived
        (MemoryError in its first step) would leave main waiting for ever: its exception is raised."""
        while self.arrived < k:
            await asyncio.sleep(0)
            if self.arrived < k:
                for t in tasks:
                    if t.done():
                        t.result()
        return self.arrived

    async def ring(self, p, meter, emit_hops):
        n = p["n"]
        continuous = p["sample_ms"] > 0
        Box = self.Box
        main_box = Box()
        process = self.ring_process
        laps = common.Laps()
        meter.spawn_begins()
        boxes = [Box() for _ in range(n)]
        tasks = []
        for i in range(n):  # created in ring order, so they first run in ring order
            sbox = boxes[i + 1 if i + 1 < n else 0]
            if continuous and i == 0:
                coro = ring_head_continuous(self, boxes[0], sbox, laps)
            else:
                coro = process(self, boxes[i], sbox, i == 0, main_box)
            tasks.append(self.create_task(coro))
        meter.spawn_ends(await self.wait_gate(n, tasks))
        starts = common.token_starts(p)
        if continuous:
            return await self._samples(p, boxes, starts, laps)
        v = n * p["m"]
        meter.run_begins()
        for k in starts:
            boxes[k].put_nowait(v)
        for _ in starts:
            await main_box.get()
        meter.run_ends()
        boxes[0].put_nowait(-1)
        count = await main_box.get()
        await asyncio.gather(*tasks)
        return count

    async def _samples(self, p, boxes, starts, laps):
        period = p["sample_ms"] * 1_000_000
        t_start = perf_counter_ns()
        for k in starts:
            boxes[k].put_nowait(common.ENDLESS_TOKEN)
        for seq in range(1, p["samples"] + 1):
            # main sleeps; the ring always has a ready callback, so the loop checks its timers
            # between two hops
            await asyncio.sleep((t_start + seq * period - perf_counter_ns()) / 1e9)
            common.print_sample(seq, perf_counter_ns() - t_start, laps.count * p["n"])
        return None

    async def spawn(self, p, meter, emit_hops):
        """n ring processes whose successor is main: each holds what a ring process holds."""
        n = p["n"]
        Box = self.Box
        main_box = Box()
        process = self.ring_process
        meter.spawn_begins()
        boxes = [Box() for _ in range(n)]
        tasks = [self.create_task(process(self, box, main_box, False, main_box)) for box in boxes]
        meter.spawn_ends(await self.wait_gate(n, tasks))
        for box in boxes:
            box.put_nowait(-1)  # the stop message: each answers main and ends
        for _ in range(n):
            await main_box.get()
        await asyncio.gather(*tasks)
        return meter.ready

    async def pingpong(self, p, meter, emit_hops):
        main_box, abox, bbox = self.Box(), self.Box(), self.Box()
        meter.spawn_begins()
        tasks = (self.create_task(pinger(self, abox, bbox, main_box, p["m"])),
                 self.create_task(ponger(self, bbox, abox, main_box)))
        meter.spawn_ends(await self.wait_gate(2, tasks))
        meter.run_begins()
        abox.put_nowait(1)
        await main_box.get()  # A is done
        meter.run_ends()
        count = await main_box.get()  # B's count
        await asyncio.gather(*tasks)
        return count

    async def fanin(self, p, meter, emit_hops):
        n, m = p["n"], p["m"]
        main_box, rbox = self.Box(), self.Box()
        meter.spawn_begins()
        tasks = [self.create_task(fanin_receiver(self, rbox, main_box, n * m))]
        boxes = [self.Box() for _ in range(n)]
        tasks += [self.create_task(fanin_sender(self, box, rbox, m)) for box in boxes]
        meter.spawn_ends(await self.wait_gate(n + 1, tasks))
        meter.run_begins()
        for box in boxes:
            box.put_nowait(1)  # the start signal
        count = await main_box.get()
        meter.run_ends()
        await asyncio.gather(*tasks)
        return count

    async def tree(self, p, meter, emit_hops):
        main_box = self.Box()
        meter.tree_begins()
        root = self.create_task(tree_node(self, 0, p["n"], p["fanout"], main_box))
        total = await main_box.get()
        meter.tree_ends()
        await root
        return total

    async def trace(self, p, meter, emit_hops):
        n, m = p["n"], p["m"]
        main_box = self.Box()
        log = common.HopLog(n, emit_hops)
        meter.spawn_begins()
        boxes = [self.Box() for _ in range(n)]
        tasks = [self.create_task(trace_process(self, i, boxes[i], boxes[(i + 1) % n], main_box, log))
                 for i in range(n)]
        meter.spawn_ends(await self.wait_gate(n, tasks))
        meter.run_begins()
        boxes[0].put_nowait((n * m, -1))
        await main_box.get()
        meter.run_ends()
        for i in range(n):
            if not tasks[i].done():
                boxes[i].put_nowait((0, -2))
        await asyncio.gather(*tasks)
        return log.hops


def describe(variant):
    return {"name": NAME, "runtime": "CPython asyncio", "version": common.python_version(),
            "workloads": WORKLOADS, "features": FEATURES}


def prepare(variant, workload, p):
    return Asyncio(variant)


if __name__ == "__main__":
    common.serve(describe, prepare, VARIANTS,
                 selective_reason="asyncio tasks have no selective receive: asyncio.Queue and Futures deliver "
                                  "in FIFO order and there is no receive that skips non-matching messages")
