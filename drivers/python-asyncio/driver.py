"""ringbench driver: CPython asyncio, one Task per process.

Hand-off: each process owns a tiny mailbox (a lazily created deque plus the
Future its task is awaiting, if any). Sending to a waiting process resolves that
Future (one loop iteration wakes the receiver); otherwise the value is queued.
This is exactly what asyncio.Queue does inside, minus its generality; it
measured fastest (see README.md). Standard asyncio event loop only (no uvloop).
"""
import sys
import os
import json

NAME = "python-asyncio"
EXIT = {"bad_param": 2, "unknown_workload": 2, "unsupported": 2, "limit": 3, "failure": 1}
# Rough bytes per idle process (Task + coroutine frame + mailbox + pending Future),
# measured with `run spawn n=100000`; used with a 1.5x margin for the limit check.
BYTES_PER_PROCESS = 1500

_out = []


def emit(rec):
    _out.append(json.dumps(rec, separators=(",", ":")))
    if len(_out) >= 256:
        flush()


def flush():
    if _out:
        sys.stdout.write("\n".join(_out) + "\n")
        _out.clear()
    sys.stdout.flush()


class DriverError(Exception):
    def __init__(self, kind, message):
        Exception.__init__(self, message)
        self.kind = kind
        self.message = message


def die(kind, message):
    emit({"type": "error", "kind": kind, "message": message})
    flush()
    os._exit(EXIT[kind])


# ---------------------------------------------------------------- parameters

WORKLOAD_KEYS = {
    "ring": ("n", "m", "tokens"),
    "spawn": ("n",),
    "pingpong": ("m",),
    "fanin": ("n", "m"),
    "selective": ("n", "m", "reverse"),
    "trace": ("n", "m"),
}
REQUIRED = {
    "ring": ("n", "m"),
    "spawn": ("n",),
    "pingpong": ("m",),
    "fanin": ("n", "m"),
    "selective": ("n", "m", "reverse"),
    "trace": ("n", "m"),
}
COMMON_DEFAULTS = {"repeats": 1, "warmup": 0, "cores": None, "sample_ms": 0, "samples": 3, "stats": 0}
# (lo, hi) inclusive; hi None = unbounded
BOUNDS = {
    "n": (1, 10_000_000),
    "m": (1, 1_000_000_000),
    "tokens": (1, None),   # <= n, checked below
    "reverse": (0, 1),
    "repeats": (1, 1_000_000),
    "warmup": (0, 1_000_000),
    "cores": (1, 1_000_000),
    "sample_ms": (0, 86_400_000),
    "samples": (1, 1_000_000),
    "stats": (0, 1),
}


def bound_text(key, lo, hi):
    if hi is None:
        return "%s must be an integer >= %d" % (key, lo)
    if lo == 0 and hi == 1:
        return "%s must be 0 or 1" % key
    return "%s must be an integer in %d..%d" % (key, lo, hi)


def parse_params(workload, args):
    allowed = WORKLOAD_KEYS[workload]
    p = {}
    for a in args:
        key, eq, val = a.partition("=")
        if not eq or not key:
            raise DriverError("bad_param", "expected key=value, got '%s'" % a)
        if key not in allowed and key not in COMMON_DEFAULTS:
            raise DriverError("bad_param", "unknown key '%s' for workload %s (allowed: %s)"
                              % (key, workload, ", ".join(allowed + tuple(COMMON_DEFAULTS))))
        if key in p:
            raise DriverError("bad_param", "key '%s' given twice" % key)
        lo, hi = BOUNDS[key]
        if workload == "trace" and key in ("n", "m"):
            hi = 100
        body = val[1:] if val.startswith("-") else val
        if not (body.isascii() and body.isdigit()):
            raise DriverError("bad_param", "%s, got '%s'" % (bound_text(key, lo, hi), val))
        v = int(val)
        if v < lo or (hi is not None and v > hi):
            raise DriverError("bad_param", "%s, got '%s'" % (bound_text(key, lo, hi), val))
        p[key] = v
    for key in REQUIRED[workload]:
        if key not in p:
            raise DriverError("bad_param", "missing required key '%s' for workload %s" % (key, workload))
    for key, dflt in COMMON_DEFAULTS.items():
        p.setdefault(key, dflt)
    if workload == "ring":
        p.setdefault("tokens", 1)
        if p["tokens"] > p["n"]:
            raise DriverError("bad_param", "tokens must be <= n (%d), got '%d'" % (p["n"], p["tokens"]))
        if p["n"] * p["m"] * p["tokens"] >= 1 << 62:
            raise DriverError("bad_param", "n*m*tokens must be < 2^62")
    if p["sample_ms"] > 0 and workload != "ring":
        raise DriverError("unsupported", "continuous mode (sample_ms>0) is defined only for ring")
    return p


# ---------------------------------------------------------------- measurements

def rss():
    with open("/proc/self/status", "rb") as f:
        for line in f:
            if line.startswith(b"VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def mem_available():
    """Bytes the kernel says are available (min of MemAvailable and a cgroup limit)."""
    avail = None
    try:
        with open("/proc/meminfo", "rb") as f:
            for line in f:
                if line.startswith(b"MemAvailable:"):
                    avail = int(line.split()[1]) * 1024
                    break
    except OSError:
        pass
    try:
        with open("/sys/fs/cgroup/memory.max") as f:
            lim = f.read().strip()
        if lim != "max":
            with open("/sys/fs/cgroup/memory.current") as f:
                cur = int(f.read())
            room = int(lim) - cur
            avail = room if avail is None else min(avail, room)
    except (OSError, ValueError):
        pass
    return avail


def check_memory(n, per_proc):
    need = int(n * per_proc * 1.5)
    avail = mem_available()
    if avail is not None and need > avail:
        raise DriverError("limit", "memory: %d processes need about %d MiB (%d B each, x1.5 margin) "
                          "but only %d MiB is available (MemAvailable/cgroup memory.max); "
                          "free memory or lower n" % (n, need >> 20, per_proc, avail >> 20))
    import resource
    for lim_name in ("RLIMIT_AS", "RLIMIT_DATA"):
        soft, _ = resource.getrlimit(getattr(resource, lim_name))
        if soft != resource.RLIM_INFINITY and need > soft:
            raise DriverError("limit", "%s (ulimit %s) is %d MiB, %d processes need about %d MiB; "
                              "raise it with ulimit or lower n"
                              % (lim_name, "-v" if lim_name == "RLIMIT_AS" else "-d",
                                 soft >> 20, n, need >> 20))


# ---------------------------------------------------------------- workloads

WORKLOADS = ["ring", "spawn", "pingpong", "fanin", "trace"]
FEATURES = ["tokens", "continuous", "stats"]


def make_runtime():
    import asyncio
    from collections import deque
    from time import perf_counter_ns, process_time_ns

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

    # receive, written inline in the hot loops as:
    #   q = box.q
    #   if q: v = q.popleft()
    #   else: box.w = f = new_future(); v = await f
    async def receive(box):
        q = box.q
        if q:
            return q.popleft()
        box.w = f = asyncio.get_running_loop().create_future()
        return await f

    cont = [0, 0]   # laps counted by p0 in continuous mode

    async def ring_proc(box, sbox, first, mbox, new_future):
        cnt = 0
        stopping = False
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
            else:   # stop: v = -(sum+1)
                if first and stopping:
                    send(mbox, -v - 1)
                    return
                send(sbox, v - cnt)
                if first:
                    stopping = True
                else:
                    return

    async def ring_proc_cont(box, sbox, first, mbox, new_future):
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

    async def ring(n, m, tokens, cont_cfg=None):
        loop = asyncio.get_running_loop()
        new_future = loop.create_future
        create_task = loop.create_task
        mbox = Box()
        procfn = ring_proc if cont_cfg is None else ring_proc_cont
        rss_before = rss()
        c0 = process_time_ns()
        t0 = perf_counter_ns()
        boxes = [Box() for _ in range(n)]
        tasks = [create_task(procfn(boxes[i], boxes[(i + 1) % n], i == 0, mbox, new_future))
                 for i in range(n)]
        await asyncio.sleep(0)    # every task runs to its first receive and blocks
        t1 = perf_counter_ns()
        c1 = process_time_ns()
        rss_after = rss()
        if cont_cfg is not None:
            sample_ms, samples = cont_cfg
            t_start = perf_counter_ns()
            for j in range(tokens):
                send(boxes[j * n // tokens], 2)
            for seq in range(1, samples + 1):
                # main sleeps; the timer fires between two hops of the ring
                await asyncio.sleep((t_start + seq * sample_ms * 1_000_000 - perf_counter_ns()) / 1e9)
                now = perf_counter_ns()
                emit({"type": "sample", "seq": seq, "elapsed_ns": now - t_start, "count": cont[0] * n})
                flush()
            return None
        v = n * m
        c2 = process_time_ns()
        t2 = perf_counter_ns()
        for j in range(tokens):
            send(boxes[j * n // tokens], v)
        for _ in range(tokens):
            await receive(mbox)
        t3 = perf_counter_ns()
        c3 = process_time_ns()
        send(boxes[0], -1)
        count = await receive(mbox)
        await asyncio.gather(*tasks)
        return count, t1 - t0, t3 - t2, c1 - c0, c3 - c2, rss_before, rss_after

    async def spawn(n):
        loop = asyncio.get_running_loop()
        create_task = loop.create_task
        mbox = Box()

        async def proc(box):
            send(mbox, 1)
            await receive(box)

        rss_before = rss()
        c0 = process_time_ns()
        t0 = perf_counter_ns()
        boxes = [Box() for _ in range(n)]
        tasks = [create_task(proc(b)) for b in boxes]
        count = 0
        for _ in range(n):
            count += await receive(mbox)
        t1 = perf_counter_ns()
        c1 = process_time_ns()
        rss_after = rss()
        for b in boxes:
            send(b, 0)
        await asyncio.gather(*tasks)
        return count, t1 - t0, 0, c1 - c0, 0, rss_before, rss_after

    async def pingpong(m):
        loop = asyncio.get_running_loop()
        mbox, abox, bbox = Box(), Box(), Box()
        res = [0]

        async def proc_a():
            await receive(abox)
            for _ in range(m):
                send(bbox, 1)
                await receive(abox)
            send(bbox, 0)
            send(mbox, 0)

        async def proc_b():
            cnt = 0
            while await receive(bbox):
                cnt += 1
                send(abox, 1)
            res[0] = cnt

        rss_before = rss()
        c0 = process_time_ns()
        t0 = perf_counter_ns()
        ta = loop.create_task(proc_a())
        tb = loop.create_task(proc_b())
        await asyncio.sleep(0)
        t1 = perf_counter_ns()
        c1 = process_time_ns()
        rss_after = rss()
        c2 = process_time_ns()
        t2 = perf_counter_ns()
        send(abox, 1)
        await receive(mbox)
        t3 = perf_counter_ns()
        c3 = process_time_ns()
        await asyncio.gather(ta, tb)
        return res[0], t1 - t0, t3 - t2, c1 - c0, c3 - c2, rss_before, rss_after

    async def fanin(n, m):
        loop = asyncio.get_running_loop()
        mbox, rbox = Box(), Box()
        res = [0]

        async def receiver():
            total = n * m
            cnt = 0
            while cnt < total:
                await receive(rbox)
                cnt += 1
            res[0] = cnt
            send(mbox, 0)

        async def sender(box):
            await receive(box)
            for _ in range(m):
                send(rbox, 1)    # a send never blocks

        rss_before = rss()
        c0 = process_time_ns()
        t0 = perf_counter_ns()
        tasks = [loop.create_task(receiver())]
        boxes = [Box() for _ in range(n)]
        tasks += [loop.create_task(sender(b)) for b in boxes]
        await asyncio.sleep(0)
        t1 = perf_counter_ns()
        c1 = process_time_ns()
        rss_after = rss()
        c2 = process_time_ns()
        t2 = perf_counter_ns()
        for b in boxes:
            send(b, 1)
        await receive(mbox)
        t3 = perf_counter_ns()
        c3 = process_time_ns()
        await asyncio.gather(*tasks)
        return res[0], t1 - t0, t3 - t2, c1 - c0, c3 - c2, rss_before, rss_after

    async def trace(n, m):
        loop = asyncio.get_running_loop()
        mbox = Box()
        hops = [0]

        async def proc(i, box, sbox):
            while True:
                v, frm = await receive(box)
                hops[0] += 1
                h = hops[0]
                emit({"type": "hop", "hop": h, "lap": (h - 1) // n + 1, "from": frm, "to": i})
                flush()   # printed as the hop happens
                if v == 1:
                    send(mbox, 0)
                    return
                send(sbox, (v - 1, i))

        boxes = [Box() for _ in range(n)]
        tasks = [loop.create_task(proc(i, boxes[i], boxes[(i + 1) % n])) for i in range(n)]
        await asyncio.sleep(0)
        t0 = perf_counter_ns()
        send(boxes[0], (n * m, -1))
        await receive(mbox)
        t1 = perf_counter_ns()
        for t in tasks:
            t.cancel()
        return hops[0], 0, t1 - t0, 0, 0, 0, 0

    return {"ring": ring, "spawn": spawn, "pingpong": pingpong, "fanin": fanin, "trace": trace,
            "reset": lambda: cont.__setitem__(0, 0)}


def stats_record(gc, before):
    st = gc.get_stats()
    rec = {"type": "stats"}
    for gen, s in enumerate(st):
        b = before[gen]
        rec["gc_gen%d_collections" % gen] = s["collections"] - b["collections"]
        rec["gc_gen%d_collected" % gen] = s["collected"] - b["collected"]
    rec["gc_enabled"] = 1 if gc.isenabled() else 0
    rec["rss_now"] = rss()
    return rec


def main(argv):
    if argv and argv[0].startswith("--"):
        raise DriverError("bad_param", "unknown option '%s'" % argv[0])
    if not argv:
        raise DriverError("bad_param", "usage: driver.py describe | run <workload> key=value...")
    verb = argv[0]
    if verb == "describe":
        if len(argv) > 1:
            raise DriverError("bad_param", "describe takes no arguments")
        emit({"type": "describe", "contract": 1, "name": NAME, "runtime": "CPython asyncio",
              "version": "CPython %s" % sys.version.split()[0],
              "workloads": WORKLOADS, "features": FEATURES, "variant": ""})
        return 0
    if verb != "run":
        raise DriverError("bad_param", "unknown verb '%s' (expected describe or run)" % verb)
    if len(argv) < 2:
        raise DriverError("bad_param", "run needs a workload: " + ", ".join(WORKLOADS))
    workload = argv[1]
    if workload not in WORKLOAD_KEYS:
        raise DriverError("unknown_workload", "unknown workload '%s' (this driver knows: %s)"
                          % (workload, ", ".join(WORKLOADS)))
    p = parse_params(workload, argv[2:])
    if workload == "selective":
        raise DriverError("unsupported", "asyncio tasks have no selective receive: asyncio.Queue and "
                          "Futures deliver in FIFO order and there is no receive that skips "
                          "non-matching messages")
    if workload in ("ring", "spawn", "fanin"):
        check_memory(p["n"] + 1, BYTES_PER_PROCESS)

    import gc
    import asyncio
    rt = make_runtime()
    fn = rt[workload]
    gc.freeze()   # start-up objects are never scanned again

    async def amain():
        if workload == "trace":
            count, s_ns, r_ns, s_cpu, r_cpu, rb, ra = await fn(p["n"], p["m"])
            if count != p["n"] * p["m"]:
                raise DriverError("failure", "trace: %d hops, expected %d" % (count, p["n"] * p["m"]))
            emit({"type": "result", "workload": "trace", "iteration": 1, "n": p["n"], "m": p["m"],
                  "count": count, "setup_ns": s_ns, "run_ns": r_ns, "setup_cpu_ns": s_cpu,
                  "run_cpu_ns": r_cpu, "rss_before": rss(), "rss_after": rss()})
            return
        if workload == "ring" and p["sample_ms"] > 0:
            gc.disable()
            await fn(p["n"], p["m"], p["tokens"], (p["sample_ms"], p["samples"]))
            flush()
            os._exit(0)   # no teardown
        for it in range(-p["warmup"] + 1, p["repeats"] + 1):
            gc.collect()
            before = gc.get_stats()
            gc.disable()
            if workload == "ring":
                res = await fn(p["n"], p["m"], p["tokens"])
                expect = p["n"] * p["m"] * p["tokens"]
            elif workload == "spawn":
                res = await fn(p["n"])
                expect = p["n"]
            elif workload == "pingpong":
                res = await fn(p["m"])
                expect = p["m"]
            else:
                res = await fn(p["n"], p["m"])
                expect = p["n"] * p["m"]
            gc.enable()
            count, s_ns, r_ns, s_cpu, r_cpu, rb, ra = res
            if count != expect:
                raise DriverError("failure", "%s: count %d != expected %d" % (workload, count, expect))
            rt["reset"]()
            if it < 1:
                continue
            rec = {"type": "result", "workload": workload, "iteration": it}
            for k in WORKLOAD_KEYS[workload]:
                if k in p:
                    rec[k] = p[k]
            rec.update({"count": count, "setup_ns": s_ns, "run_ns": r_ns, "setup_cpu_ns": s_cpu,
                        "run_cpu_ns": r_cpu, "rss_before": rb, "rss_after": ra})
            emit(rec)
            if p["stats"]:
                emit(stats_record(gc, before))
            flush()

    asyncio.run(amain())
    return 0


if __name__ == "__main__":
    try:
        rc = main(sys.argv[1:])
    except DriverError as e:
        die(e.kind, e.message)
    except MemoryError:
        die("limit", "memory: the Python heap could not grow (MemoryError); free memory or lower n")
    except Exception as e:  # noqa: BLE001
        import traceback
        traceback.print_exc(file=sys.stderr)
        die("failure", "%s: %s" % (type(e).__name__, e))
    flush()
    os._exit(rc)
