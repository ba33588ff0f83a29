"""ringbench driver: CPython asyncio, one Task per process.

Hop (hop = "mailbox", mailbox = "hand-written"): each process owns a tiny
mailbox (a lazily created deque plus the Future its task is awaiting, if any).
Sending to a waiting process resolves that Future (one loop iteration wakes the
receiver); otherwise the value is queued. This is what asyncio.Queue does
inside, minus its generality; it measured fastest (see README.md). Standard
asyncio event loop only (no uvloop).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "common", "python"))
import ringbench_driver_common as common  # noqa: E402
from ringbench_driver_common import emit, flush  # noqa: E402

NAME = "python-asyncio"
WORKLOADS = ["ring", "spawn", "pingpong", "fanin", "trace"]
FEATURES = ["tokens", "continuous", "stats"]


def make_runtime():
    import asyncio
    from collections import deque
    from time import perf_counter_ns

    class Box:
        """A process's mailbox: queued messages, and the Future its task awaits."""
        __slots__ = ("q", "w")

        def __init__(self):
            self.q = None   # deque, created on the first message that finds no waiter
            self.w = None   # Future the owner is blocked on, or None

    def send(box, v):
        w = box.w
        if w is not None:
            box.w = None
            w.set_result(v)
        else:
            q = box.q
            if q is None:
                q = box.q = deque()
            q.append(v)

    # receive, written inline in the ring's loop as:
    #   q = box.q
    #   if q: v = q.popleft()
    #   else: box.w = f = new_future(); v = await f
    async def receive(box):
        q = box.q
        if q:
            return q.popleft()
        box.w = f = asyncio.get_running_loop().create_future()
        return await f

    async def wait_ready(ready, k, tasks):
        """Main waits until k processes have signalled ready: one pass of the loop runs every
        new task to its first receive (tasks run in creation order). A task that ended before
        its ready signal (MemoryError in its first step) would leave main waiting for ever, so
        after a pass that leaves some not ready, its exception is raised here."""
        while ready[0] < k:
            await asyncio.sleep(0)
            if ready[0] < k:
                for t in tasks:
                    if t.done():
                        t.result()      # raises the task's exception
        return ready[0]

    cont = [0]   # laps counted by p0 in continuous mode
    ready = [0]  # ready signals: incremented by each process just before its first receive

    # A hop: set_result on the successor's Future schedules its Task step with
    # call_soon; this task then creates its own Future and suspends; the event loop
    # pops the successor's step from its ready queue and resumes the coroutine, whose
    # await returns the value; one compare and one receipt count.
    async def ring_proc(box, sbox, first, mbox, new_future):
        cnt = 0
        stopping = False
        ready[0] += 1
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
                    send(sbox, v - 1)
            elif v == 1:
                cnt += 1
                send(mbox, 0)
            else:   # the proof: v = -(1 + receipts so far); p0 sees it twice
                if first and stopping:
                    send(mbox, -v - 1)
                    return
                send(sbox, v - cnt)
                if first:
                    stopping = True
                else:
                    return

    async def ring_proc_cont(box, sbox, first, mbox, new_future):
        ready[0] += 1
        while True:
            q = box.q
            if q:
                v = q.popleft()
            else:
                box.w = f = new_future()
                v = await f
            if first:
                cont[0] += 1
            w = sbox.w
            if w is not None:
                sbox.w = None
                w.set_result(v)
            else:
                send(sbox, v)
            if first and box.q:
                # p0 would not block this lap (n=1: it mails itself): yield once
                # so that the sampler's timer can fire
                await asyncio.sleep(0)

    async def ring(p, meter, emit_hops):
        n = p["n"]
        continuous = p["sample_ms"] > 0
        starts = common.token_starts(p)
        loop = asyncio.get_running_loop()
        new_future = loop.create_future
        create_task = loop.create_task
        mbox = Box()
        procfn = ring_proc_cont if continuous else ring_proc
        ready[0] = 0
        meter.spawn_begins()
        boxes = [Box() for _ in range(n)]
        tasks = [create_task(procfn(boxes[i], boxes[i + 1 if i + 1 < n else 0], i == 0, mbox, new_future))
                 for i in range(n)]
        meter.spawn_ends(await wait_ready(ready, n, tasks))
        if continuous:
            sample_ms, samples = p["sample_ms"], p["samples"]
            t_start = perf_counter_ns()
            for k in starts:
                send(boxes[k], 2)
            for seq in range(1, samples + 1):
                # main sleeps; the timer fires between two hops of the ring
                await asyncio.sleep((t_start + seq * sample_ms * 1_000_000 - perf_counter_ns()) / 1e9)
                now = perf_counter_ns()
                emit({"type": "sample", "seq": seq, "elapsed_ns": now - t_start, "count": cont[0] * n})
                flush()
            return None
        v = n * p["m"]
        meter.run_begins()
        for k in starts:
            send(boxes[k], v)
        for _ in starts:
            await receive(mbox)
        meter.run_ends()
        send(boxes[0], -1)
        count = await receive(mbox)
        await asyncio.gather(*tasks)
        return count

    async def spawn(p, meter, emit_hops):
        n = p["n"]
        create_task = asyncio.get_running_loop().create_task
        mbox = Box()

        async def proc(box):
            send(mbox, 1)          # ready, then block in the first receive
            await receive(box)

        meter.spawn_begins()
        boxes = [Box() for _ in range(n)]
        tasks = [create_task(proc(b)) for b in boxes]
        count = 0
        for _ in range(n):
            count += await receive(mbox)
        meter.spawn_ends(count)
        for b in boxes:
            send(b, 0)
        await asyncio.gather(*tasks)
        return count

    async def pingpong(p, meter, emit_hops):
        m = p["m"]
        loop = asyncio.get_running_loop()
        mbox, abox, bbox = Box(), Box(), Box()
        res = [0]

        async def proc_a():
            ready[0] += 1
            await receive(abox)    # the start signal
            for _ in range(m):
                send(bbox, 1)
                await receive(abox)
            send(bbox, 0)
            send(mbox, 0)

        async def proc_b():
            cnt = 0
            ready[0] += 1
            while await receive(bbox):
                cnt += 1
                send(abox, 1)
            res[0] = cnt

        ready[0] = 0
        meter.spawn_begins()
        ta = loop.create_task(proc_a())
        tb = loop.create_task(proc_b())
        meter.spawn_ends(await wait_ready(ready, 2, (ta, tb)))
        meter.run_begins()
        send(abox, 1)
        await receive(mbox)
        meter.run_ends()
        await asyncio.gather(ta, tb)
        return res[0]

    async def fanin(p, meter, emit_hops):
        n, m = p["n"], p["m"]
        loop = asyncio.get_running_loop()
        mbox, rbox = Box(), Box()
        res = [0]

        async def receiver():
            total = n * m
            cnt = 0
            ready[0] += 1
            while cnt < total:
                await receive(rbox)
                cnt += 1
            res[0] = cnt
            send(mbox, 0)

        async def sender(box):
            ready[0] += 1
            await receive(box)     # the start signal
            for _ in range(m):
                send(rbox, 1)      # a send never blocks

        ready[0] = 0
        meter.spawn_begins()
        tasks = [loop.create_task(receiver())]
        boxes = [Box() for _ in range(n)]
        tasks += [loop.create_task(sender(b)) for b in boxes]
        meter.spawn_ends(await wait_ready(ready, n + 1, tasks))
        meter.run_begins()
        for b in boxes:
            send(b, 1)
        await receive(mbox)
        meter.run_ends()
        await asyncio.gather(*tasks)
        return res[0]

    async def trace(p, meter, emit_hops):
        n, m = p["n"], p["m"]
        loop = asyncio.get_running_loop()
        mbox = Box()
        hops = [0]

        async def proc(i, box, sbox):
            ready[0] += 1
            while True:
                v, frm = await receive(box)
                if v == 0:          # released after the run
                    return
                hops[0] += 1
                if emit_hops:
                    h = hops[0]
                    emit({"type": "hop", "hop": h, "lap": (h - 1) // n + 1, "from": frm, "to": i})
                    flush()   # printed as the hop happens
                if v == 1:
                    send(mbox, 0)
                    return
                send(sbox, (v - 1, i))

        ready[0] = 0
        meter.spawn_begins()
        boxes = [Box() for _ in range(n)]
        tasks = [loop.create_task(proc(i, boxes[i], boxes[(i + 1) % n])) for i in range(n)]
        meter.spawn_ends(await wait_ready(ready, n, tasks))
        meter.run_begins()
        send(boxes[0], (n * m, -1))
        await receive(mbox)
        meter.run_ends()
        for t, b in zip(tasks, boxes):
            if not t.done():
                send(b, (0, -2))
        await asyncio.gather(*tasks)
        return hops[0]

    class AsyncioRuntime(common.Runtime):
        def __init__(self, workloads):
            common.Runtime.__init__(self, workloads)
            # one event loop for every iteration of the process (asyncio.run would make one each)
            self.runner = asyncio.Runner()

        def call(self, fn, p, meter, emit_hops):
            return self.runner.run(fn(p, meter, emit_hops))

        def reset(self):
            cont[0] = 0
            ready[0] = 0

    return AsyncioRuntime({"ring": ring, "spawn": spawn, "pingpong": pingpong, "fanin": fanin, "trace": trace})


def describe(variant):
    return {"name": NAME, "runtime": "CPython asyncio", "version": common.python_version(),
            "workloads": WORKLOADS, "features": FEATURES}


def prepare(variant, workload, p):
    return make_runtime()


if __name__ == "__main__":
    common.serve(describe, prepare,
                 selective_reason="asyncio tasks have no selective receive: asyncio.Queue and Futures deliver "
                                  "in FIFO order and there is no receive that skips non-matching messages")
