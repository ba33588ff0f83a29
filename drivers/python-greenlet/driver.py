"""ringbench driver: CPython + greenlet (Stackless-style tasklets).

Two variants (see README.md):
  mailbox  --mode=mailbox (also no option): each process is a greenlet with a
           mailbox (deque); send = append + make the receiver runnable; a blocked
           receive switches to the next runnable greenlet (Stackless-style
           channel/scheduler model, asynchronous sends).
  switch   --mode=switch: send = direct greenlet.switch(value) to the receiver,
           which is always parked in its own switch (synchronous rendezvous).

Only the standard library and greenlet are used; greenlet is imported after the
arguments are validated so that error paths stay cheap.
"""
import sys
import os
import json

NAME = "python-greenlet"
EXIT = {"bad_param": 2, "unknown_workload": 2, "unsupported": 2, "limit": 3, "failure": 1}
# Rough bytes per idle process (greenlet + saved stack slice + frame + mailbox),
# measured with `run spawn n=100000`; used with a 1.5x margin for the limit check.
BYTES_PER_PROCESS = 8500

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

def workload_list(mode):
    return ["ring", "spawn", "pingpong", "fanin", "trace"]


def features(mode):
    # The switch variant is a synchronous rendezvous: K tokens cannot circulate at once.
    return ["continuous", "stats"] if mode == "switch" else ["tokens", "continuous", "stats"]


def make_runtime(mode):
    """Build the process primitives. Returns a dict of workload functions."""
    import greenlet as _gl
    from collections import deque
    from time import perf_counter_ns, process_time_ns

    greenlet = _gl.greenlet
    getcurrent = _gl.getcurrent
    main_g = getcurrent()

    # ------------------------------------------------ mailbox scheduler (default)
    # One run queue of greenlets. A process that blocks in receive switches
    # straight to the next runnable greenlet (or, if none, to the hub greenlet,
    # which also starts new processes and is the parent every process returns
    # to when it exits). A send appends to the receiver's mailbox and, if that
    # mailbox was empty (the receiver is blocked, or is the sender itself), puts
    # the receiver on the run queue. Receive loops on "while not mailbox", so a
    # spurious wake-up is harmless.
    runq = deque()
    runq_append = runq.append
    runq_popleft = runq.popleft

    class Deadlock(Exception):
        pass

    newq = deque()        # spawned, not yet started: only the hub starts them, from
    newq_append = newq.append   # its own shallow stack (a greenlet's stack begins
    idle_main = [False]         # where it is first switched to)

    def hub_run():
        while True:
            if newq:
                newq.popleft().switch()
            elif runq:
                runq_popleft().switch()
            elif idle_main[0]:
                idle_main[0] = False
                main_g.switch()
            else:
                main_g.throw(Deadlock("all processes blocked"))

    hub = greenlet(hub_run)
    hub_switch = hub.switch

    # greenlets started from the hub get their args through a trampoline
    def start(fn):
        def run():
            g = getcurrent()
            args = g._args
            del g._args
            return fn(*args)
        return run

    main_box = deque()

    def main_receive():
        while not main_box:
            hub_switch()
        return main_box.popleft()

    def main_yield():
        """Let every process run until all are blocked (spawn phase, teardown)."""
        while newq or runq:
            idle_main[0] = True
            hub_switch()
            idle_main[0] = False

    def send(g, box, v):
        if not box:
            runq_append(g)
        box.append(v)

    # ---- ring, mailbox
    def ring_proc(box, succ, sbox, first):
        popleft = box.popleft
        sappend = sbox.append
        me = getcurrent()
        cnt = 0
        stopping = False
        while True:
            while not box:
                if runq:
                    runq_popleft().switch()
                else:
                    hub_switch()
            v = popleft()
            if v > 1:
                cnt += 1
                if not sbox and succ is not me:
                    runq_append(succ)
                sappend(v - 1)
            elif v == 1:
                cnt += 1
                send(main_g, main_box, 0)
            else:  # stop: v = -(sum+1)
                if first and stopping:
                    send(main_g, main_box, -v - 1)
                    return
                v -= cnt
                if not sbox:
                    runq_append(succ)
                sappend(v)
                if first:
                    stopping = True
                else:
                    return

    # continuous mode: the tokens never finish; p0 counts laps and checks the clock
    # once per lap, waking main (which "sleeps" in receive) when a sample is due.
    cont = [0, 0]  # laps, deadline_ns

    def ring_proc_cont(box, succ, sbox, first):
        popleft = box.popleft
        sappend = sbox.append
        me = getcurrent()
        while True:
            while not box:
                if runq:
                    runq_popleft().switch()
                else:
                    hub_switch()
            v = popleft()
            if first:
                cont[0] += 1
                if perf_counter_ns() >= cont[1]:
                    cont[1] = 1 << 62
                    send(main_g, main_box, 0)
                    runq_append(me)     # yield, so main runs even if p0 never blocks
                    hub_switch()
            if not sbox and succ is not me:
                runq_append(succ)
            sappend(v)

    def ring_build_mailbox(n, procfn):
        boxes = [deque() for _ in range(n)]
        gs = [None] * n
        p0 = greenlet(start(procfn), parent=hub)
        gs[0] = p0
        succ = p0
        for i in range(n - 1, 0, -1):
            g = greenlet(start(procfn), parent=hub)
            g._args = (boxes[i], succ, boxes[(i + 1) % n], False)
            newq_append(g)
            gs[i] = g
            succ = g
        p0._args = (boxes[0], succ, boxes[1 % n], True)
        newq_append(p0)
        main_yield()   # every process runs to its first receive and blocks
        return gs, boxes

    def ring_mailbox(n, m, tokens, cont_cfg=None):
        rss_before = rss()
        c0 = process_time_ns()
        t0 = perf_counter_ns()
        gs, boxes = ring_build_mailbox(n, ring_proc if cont_cfg is None else ring_proc_cont)
        t1 = perf_counter_ns()
        c1 = process_time_ns()
        rss_after = rss()
        if cont_cfg is not None:
            return continuous_mailbox(n, tokens, gs, boxes, cont_cfg)
        v = n * m
        c2 = process_time_ns()
        t2 = perf_counter_ns()
        for j in range(tokens):
            k = j * n // tokens
            send(gs[k], boxes[k], v)
        for _ in range(tokens):
            main_receive()
        t3 = perf_counter_ns()
        c3 = process_time_ns()
        # proof: stop travels once round the ring from p0
        send(gs[0], boxes[0], -1)
        count = main_receive()
        del gs, boxes
        return count, t1 - t0, t3 - t2, c1 - c0, c3 - c2, rss_before, rss_after

    def continuous_mailbox(n, tokens, gs, boxes, cfg):
        sample_ms, samples = cfg
        period = sample_ms * 1_000_000
        t_start = perf_counter_ns()
        cont[1] = t_start + period
        for j in range(tokens):
            k = j * n // tokens
            send(gs[k], boxes[k], 2)
        for seq in range(1, samples + 1):
            main_receive()
            now = perf_counter_ns()
            emit({"type": "sample", "seq": seq, "elapsed_ns": now - t_start, "count": cont[0] * n})
            flush()
            cont[1] = t_start + (seq + 1) * period
        return None

    # ------------------------------------------------ direct switch (variant)
    # A process exits by returning; its return value goes to its parent, so on
    # the stop message each process first makes its successor its parent
    # (set then, not at spawn: greenlet walks the parent chain to refuse cycles).
    def sw_proc(succ, first):
        succ_switch = succ.switch
        main_switch = main_g.switch
        cnt = 0
        stopping = False
        v = main_switch()         # blocked in receive; spawn phase returns to main
        while True:
            if v > 1:
                cnt += 1
                v = succ_switch(v - 1)
            elif v == 1:
                cnt += 1
                v = main_switch(0)
            else:
                if first and stopping:
                    return -v - 1          # to main (p0.parent)
                v -= cnt
                if first:
                    stopping = True
                    v = succ_switch(v)
                else:
                    getcurrent().parent = succ
                    return v               # exit: the return value goes to the parent

    def sw_proc_cont(succ, first):
        succ_switch = succ.switch
        main_switch = main_g.switch
        v = main_switch()
        while True:
            if first:
                cont[0] += 1
                if perf_counter_ns() >= cont[1]:
                    main_switch(0)       # main prints a sample and switches back
            v = succ_switch(v)

    def ring_build_switch(n, procfn):
        p0 = greenlet(procfn)  # parent = main
        gs = [None] * n
        gs[0] = p0
        succ = p0
        for i in range(n - 1, 0, -1):
            g = greenlet(procfn)
            g.switch(succ, False)      # runs until its first receive (switch to main)
            gs[i] = g
            succ = g
        p0.switch(succ, True)
        return gs

    def ring_switch(n, m, tokens, cont_cfg=None):
        rss_before = rss()
        c0 = process_time_ns()
        t0 = perf_counter_ns()
        gs = ring_build_switch(n, sw_proc if cont_cfg is None else sw_proc_cont)
        t1 = perf_counter_ns()
        c1 = process_time_ns()
        rss_after = rss()
        p0 = gs[0]
        if cont_cfg is not None:
            sample_ms, samples = cont_cfg
            period = sample_ms * 1_000_000
            t_start = perf_counter_ns()
            cont[1] = t_start + period
            p0.switch(2)
            for seq in range(1, samples + 1):
                now = perf_counter_ns()
                emit({"type": "sample", "seq": seq, "elapsed_ns": now - t_start, "count": cont[0] * n})
                flush()
                cont[1] = t_start + (seq + 1) * period
                if seq < samples:
                    p0.switch()
            return None
        v = n * m
        c2 = process_time_ns()
        t2 = perf_counter_ns()
        # A send hands control to the receiver, so main regains control (and can
        # inject the next token) only when a process tells it a token finished:
        # with tokens>1 the tokens run one after another.
        for j in range(tokens):
            gs[j * n // tokens].switch(v)
        t3 = perf_counter_ns()
        c3 = process_time_ns()
        count = p0.switch(-1)
        # each dead p(i) still holds its parent p(i+1); free them front to back so
        # that no dealloc cascades down the whole chain (C stack overflow at n=1e5)
        for i in range(n):
            gs[i] = None
        return count, t1 - t0, t3 - t2, c1 - c0, c3 - c2, rss_before, rss_after

    # ------------------------------------------------ spawn
    def spawn_mailbox(n):
        def proc(box):
            send(main_g, main_box, 1)
            while not box:
                hub_switch()    # via the hub, which starts all new processes before main
            box.popleft()
        rss_before = rss()
        c0 = process_time_ns()
        t0 = perf_counter_ns()
        gs = []
        boxes = []
        for _ in range(n):
            b = deque()
            g = greenlet(start(proc), parent=hub)
            g._args = (b,)
            newq_append(g)
            gs.append(g)
            boxes.append(b)
        count = 0
        for _ in range(n):
            count += main_receive()
        t1 = perf_counter_ns()
        c1 = process_time_ns()
        rss_after = rss()
        for g, b in zip(gs, boxes):
            send(g, b, 0)
        main_yield()
        dead = sum(1 for g in gs if g.dead)
        if dead != n:
            raise DriverError("failure", "spawn: %d of %d processes did not exit" % (n - dead, n))
        return count, t1 - t0, 0, c1 - c0, 0, rss_before, rss_after

    def spawn_switch(n):
        def proc():
            main_g.switch(1)      # "ready"; then blocked until someone sends
        rss_before = rss()
        c0 = process_time_ns()
        t0 = perf_counter_ns()
        gs = []
        count = 0
        for _ in range(n):
            g = greenlet(proc)
            count += g.switch()
            gs.append(g)
        t1 = perf_counter_ns()
        c1 = process_time_ns()
        rss_after = rss()
        for g in gs:
            g.switch(None)        # release: returns to main when it exits
        if not all(g.dead for g in gs):
            raise DriverError("failure", "spawn: some processes did not exit")
        return count, t1 - t0, 0, c1 - c0, 0, rss_before, rss_after

    # ------------------------------------------------ pingpong
    def pingpong_mailbox(m):
        abox, bbox = deque(), deque()
        cnt_b = [0]

        def proc_a(b_g):
            while not abox:
                if runq:
                    runq_popleft().switch()
                else:
                    hub_switch()
            abox.popleft()          # start
            for i in range(m):
                send(b_g, bbox, 1)
                while not abox:
                    if runq:
                        runq_popleft().switch()
                    else:
                        hub_switch()
                abox.popleft()
            send(b_g, bbox, 0)
            send(main_g, main_box, 0)

        def proc_b(a_g):
            cnt = 0
            while True:
                while not bbox:
                    if runq:
                        runq_popleft().switch()
                    else:
                        hub_switch()
                v = bbox.popleft()
                if not v:
                    cnt_b[0] = cnt
                    return
                cnt += 1
                send(a_g, abox, 1)

        rss_before = rss()
        c0 = process_time_ns()
        t0 = perf_counter_ns()
        a = greenlet(start(proc_a), parent=hub)
        b = greenlet(start(proc_b), parent=hub)
        a._args = (b,)
        b._args = (a,)
        newq_append(a)
        newq_append(b)
        main_yield()
        t1 = perf_counter_ns()
        c1 = process_time_ns()
        rss_after = rss()
        c2 = process_time_ns()
        t2 = perf_counter_ns()
        send(a, abox, 1)
        main_receive()
        t3 = perf_counter_ns()
        c3 = process_time_ns()
        main_yield()            # let B see its stop
        return cnt_b[0], t1 - t0, t3 - t2, c1 - c0, c3 - c2, rss_before, rss_after

    def pingpong_switch(m):
        res = [0]

        def proc_a(b):
            b_switch = b.switch
            main_g.switch()     # wait for start
            for i in range(m):
                b_switch(1)     # ping; returns with B's pong
            b_switch(0)         # stop B; B's count comes back to main via B
            # not reached: B switches to main

        def proc_b():
            a_switch = None
            cnt = 0
            v = main_g.switch()          # spawned; wait
            a_switch = a.switch
            while v:
                cnt += 1
                v = a_switch(1)          # pong; returns with the next ping
            res[0] = cnt
            main_g.switch(0)             # tell main

        rss_before = rss()
        c0 = process_time_ns()
        t0 = perf_counter_ns()
        b = greenlet(proc_b)
        a = greenlet(proc_a)
        b.switch()
        a.switch(b)
        t1 = perf_counter_ns()
        c1 = process_time_ns()
        rss_after = rss()
        c2 = process_time_ns()
        t2 = perf_counter_ns()
        a.switch()
        t3 = perf_counter_ns()
        c3 = process_time_ns()
        return res[0], t1 - t0, t3 - t2, c1 - c0, c3 - c2, rss_before, rss_after

    # ------------------------------------------------ fanin (mailbox only)
    def fanin_mailbox(n, m):
        rbox = deque()
        got = [0]

        def receiver():
            total = n * m
            cnt = 0
            popleft = rbox.popleft
            while cnt < total:
                while not rbox:
                    if runq:
                        runq_popleft().switch()
                    else:
                        hub_switch()
                popleft()
                cnt += 1
            got[0] = cnt
            send(main_g, main_box, 0)

        def sender(box, r):
            while not box:
                if runq:
                    runq_popleft().switch()
                else:
                    hub_switch()
            box.popleft()
            for _ in range(m):
                if not rbox:
                    runq_append(r)
                rbox.append(1)   # a send never blocks: no switch until the sender is done

        rss_before = rss()
        c0 = process_time_ns()
        t0 = perf_counter_ns()
        r = greenlet(start(receiver), parent=hub)
        r._args = ()
        newq_append(r)
        gs, boxes = [], []
        for _ in range(n):
            b = deque()
            g = greenlet(start(sender), parent=hub)
            g._args = (b, r)
            newq_append(g)
            gs.append(g)
            boxes.append(b)
        main_yield()
        t1 = perf_counter_ns()
        c1 = process_time_ns()
        rss_after = rss()
        c2 = process_time_ns()
        t2 = perf_counter_ns()
        for g, b in zip(gs, boxes):
            send(g, b, 1)
        main_receive()
        t3 = perf_counter_ns()
        c3 = process_time_ns()
        main_yield()
        return got[0], t1 - t0, t3 - t2, c1 - c0, c3 - c2, rss_before, rss_after

    def fanin_switch(n, m):
        """Each message is a rendezvous: the sender switches to the receiver,
        carrying itself; the receiver counts it and switches back to that sender.
        The start signal is main switching to a sender, so senders run one after
        another (main regains control when a sender exits)."""
        res = [0]

        def receiver():
            total = n * m
            cnt = 0
            s = main_g.switch()          # spawned; blocked until the first message
            while True:
                cnt += 1
                if cnt == total:
                    res[0] = cnt
                    main_g.switch(cnt)   # tell main (the last sender stays parked)
                    return
                s = s.switch()           # hand back to the sender; returns the next one

        def sender():
            me = getcurrent()
            r_switch = r.switch
            main_g.switch()              # blocked until the start signal
            for _ in range(m):
                r_switch(me)

        rss_before = rss()
        c0 = process_time_ns()
        t0 = perf_counter_ns()
        r = greenlet(receiver)
        r.switch()
        senders = []
        for _ in range(n):
            g = greenlet(sender)
            g.switch()
            senders.append(g)
        t1 = perf_counter_ns()
        c1 = process_time_ns()
        rss_after = rss()
        c2 = process_time_ns()
        t2 = perf_counter_ns()
        for g in senders:
            g.switch()
        t3 = perf_counter_ns()
        c3 = process_time_ns()
        return res[0], t1 - t0, t3 - t2, c1 - c0, c3 - c2, rss_before, rss_after

    # ------------------------------------------------ trace
    # tokens are (value, sender index); each process prints its hop as it happens
    def trace_run(n, m):
        total = n * m
        hops = [0]

        def on_hop(i, frm):
            hops[0] += 1
            h = hops[0]
            emit({"type": "hop", "hop": h, "lap": (h - 1) // n + 1, "from": frm, "to": i})
            flush()   # printed as the hop happens

        if mode == "switch":
            def proc(i, succ_holder):
                v, frm = main_g.switch()
                while True:
                    on_hop(i, frm)
                    if v == 1:
                        main_g.switch(None)
                        return
                    v, frm = succ_holder[0].switch((v - 1, i))
            holders = [[None] for _ in range(n)]
            gs = [greenlet(proc) for _ in range(n)]
            for i in range(n):
                holders[i][0] = gs[(i + 1) % n]
                gs[i].switch(i, holders[i])
            t0 = perf_counter_ns()
            gs[0].switch((total, -1))
            t1 = perf_counter_ns()
        else:
            boxes = [deque() for _ in range(n)]
            gs = [None] * n

            def proc(i, box, succ, sbox):
                while True:
                    while not box:
                        if runq:
                            runq_popleft().switch()
                        else:
                            hub_switch()
                    v, frm = box.popleft()
                    on_hop(i, frm)
                    if v == 1:
                        send(main_g, main_box, 0)
                        return
                    send(succ[0], sbox, (v - 1, i))
            holders = [[None] for _ in range(n)]
            for i in range(n):
                gs[i] = greenlet(start(proc), parent=hub)
            for i in range(n):
                holders[i][0] = gs[(i + 1) % n]
                gs[i]._args = (i, boxes[i], holders[i], boxes[(i + 1) % n])
                newq_append(gs[i])
            main_yield()
            t0 = perf_counter_ns()
            send(gs[0], boxes[0], (total, -1))
            main_receive()
            t1 = perf_counter_ns()
        return hops[0], 0, t1 - t0, 0, 0, 0, 0

    def reset():
        runq.clear()
        newq.clear()
        idle_main[0] = False
        main_box.clear()
        cont[0] = 0

    if mode == "switch":
        return {"ring": ring_switch, "spawn": spawn_switch, "pingpong": pingpong_switch,
                "fanin": fanin_switch, "trace": trace_run, "reset": reset}
    return {"ring": ring_mailbox, "spawn": spawn_mailbox, "pingpong": pingpong_mailbox,
            "fanin": fanin_mailbox, "trace": trace_run, "reset": reset}


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
    mode = "mailbox"
    variant = ""
    while argv and argv[0].startswith("--"):
        opt = argv.pop(0)
        if opt in ("--mode=mailbox", "--mode=switch"):
            mode = variant = opt.split("=", 1)[1]
        else:
            raise DriverError("bad_param", "unknown option '%s' (known: --mode=mailbox, --mode=switch)" % opt)
    if not argv:
        raise DriverError("bad_param", "usage: driver.py describe | run <workload> key=value...")
    verb = argv[0]
    if verb == "describe":
        if len(argv) > 1:
            raise DriverError("bad_param", "describe takes no arguments")
        import greenlet
        emit({"type": "describe", "contract": 1, "name": NAME, "runtime": "CPython + greenlet",
              "version": "CPython %s, greenlet %s" % (sys.version.split()[0], greenlet.__version__),
              "workloads": workload_list(mode), "features": features(mode), "variant": variant})
        return 0
    if verb != "run":
        raise DriverError("bad_param", "unknown verb '%s' (expected describe or run)" % verb)
    if len(argv) < 2:
        raise DriverError("bad_param", "run needs a workload: " + ", ".join(workload_list(mode)))
    workload = argv[1]
    if workload not in WORKLOAD_KEYS:
        raise DriverError("unknown_workload", "unknown workload '%s' (this driver knows: %s)"
                          % (workload, ", ".join(workload_list(mode))))
    p = parse_params(workload, argv[2:])
    if workload == "selective":
        raise DriverError("unsupported", "greenlet processes have no selective receive: a mailbox is a "
                          "plain FIFO and there is no receive that skips non-matching messages")
    if mode == "switch" and workload == "ring" and p["tokens"] > 1:
        raise DriverError("unsupported", "the switch variant is a synchronous rendezvous ring: main gets "
                          "control back only when a token finishes, so K tokens cannot circulate at once "
                          "(running them one after another would not be the same work); use the mailbox variant")
    n = p.get("n", 2)
    if workload in ("ring", "spawn", "fanin"):
        check_memory(n + 1, BYTES_PER_PROCESS)

    import gc
    rt = make_runtime(mode)
    fn = rt[workload]
    gc.freeze()   # start-up objects are never scanned again

    if workload == "trace":
        count, s_ns, r_ns, s_cpu, r_cpu, rb, ra = fn(p["n"], p["m"])
        if count != p["n"] * p["m"]:
            raise DriverError("failure", "trace: %d hops, expected %d" % (count, p["n"] * p["m"]))
        emit({"type": "result", "workload": "trace", "iteration": 1, "n": p["n"], "m": p["m"],
              "count": count, "setup_ns": s_ns, "run_ns": r_ns, "setup_cpu_ns": s_cpu,
              "run_cpu_ns": r_cpu, "rss_before": rss(), "rss_after": rss()})
        return 0

    if workload == "ring" and p["sample_ms"] > 0:
        gc.disable()
        fn(p["n"], p["m"], p["tokens"], (p["sample_ms"], p["samples"]))
        flush()
        os._exit(0)   # no teardown

    for it in range(-p["warmup"] + 1, p["repeats"] + 1):
        gc.collect()
        before = gc.get_stats()
        gc.disable()
        if workload == "ring":
            res = fn(p["n"], p["m"], p["tokens"])
            expect = p["n"] * p["m"] * p["tokens"]
        elif workload == "spawn":
            res = fn(p["n"])
            expect = p["n"]
        elif workload == "pingpong":
            res = fn(p["m"])
            expect = p["m"]
        else:
            res = fn(p["n"], p["m"])
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
