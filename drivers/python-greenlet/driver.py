"""ringbench driver: CPython + greenlet (Stackless-style tasklets).

Two variants (see README.md):
  mailbox  --mode=mailbox (also no option): each process is a greenlet with a
           hand-written mailbox (deque); send = append + make the receiver
           runnable; a blocked receive switches to the next runnable greenlet
           (Stackless's channel/scheduler model, asynchronous sends). hop = mailbox.
  switch   --mode=switch: send = greenlet.switch(value) straight into the
           receiver, which is always parked in its own switch (a synchronous
           rendezvous, no queue, no scheduler). hop = rendezvous.

Every ring is created and started in ring order p0, p1, ..., p(n-1), the order
the token visits them, so that consecutive hops touch memory allocated one
after the other.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "common", "python"))
import ringbench_driver_common as common  # noqa: E402
from ringbench_driver_common import DriverError, emit, flush  # noqa: E402

NAME = "python-greenlet"
WORKLOADS = ["ring", "spawn", "pingpong", "fanin", "trace"]
OPTIONS = {"--mode=mailbox": "mailbox", "--mode=switch": "switch"}


def import_greenlet():
    try:
        import greenlet
    except ImportError:
        raise DriverError("failure", "greenlet is not installed for %s: install Debian's python3-greenlet "
                          "(apt-get install python3-greenlet; `make setup` does it)" % sys.executable)
    return greenlet


def features(mode):
    # The switch variant is a synchronous rendezvous: K tokens cannot circulate at once.
    return ["continuous", "stats"] if mode == "switch" else ["tokens", "continuous", "stats"]


def make_runtime(mode):
    """Build the process primitives of one variant. Returns a common.Runtime."""
    _gl = import_greenlet()
    from collections import deque
    from time import perf_counter_ns

    greenlet = _gl.greenlet
    getcurrent = _gl.getcurrent
    main_g = getcurrent()
    main_switch = main_g.switch

    # ------------------------------------------------ mailbox scheduler
    # One run queue of runnable greenlets, each queued as its bound `switch`
    # method (bound once per process, not once per hop: a queued greenlet would
    # cost a `.switch` attribute lookup at every dequeue). A process that blocks
    # in receive calls the next entry, switching straight to that greenlet (or,
    # if none, to the hub greenlet, which also starts new processes and is the
    # parent every process returns to when it exits). A send appends to the
    # receiver's mailbox and, if that mailbox was empty (the receiver is
    # blocked: only the running greenlet can have an empty mailbox and not be
    # blocked, and it is the sender), puts the receiver's switch on the run queue.
    runq = deque()
    runq_append = runq.append
    runq_popleft = runq.popleft

    class Deadlock(Exception):
        pass

    # Spawned, not yet started: only the hub starts them, from its own shallow
    # stack (a greenlet's stack begins where it is first switched to, so one
    # started inside another process would nest in that process's stack).
    newq = deque()
    newq_append = newq.append
    idle_main = [False]
    ready = [0]          # ready signals: incremented by each process just before its first receive

    def hub_run():
        while True:
            if newq:
                g, args = newq.popleft()
                g.switch(*args)
            elif runq:
                runq_popleft()()
            elif idle_main[0]:
                idle_main[0] = False
                main_switch()
            else:
                main_g.throw(Deadlock("all processes blocked"))

    hub = greenlet(hub_run)
    hub_switch = hub.switch

    def spawn_later(fn, *args):
        g = greenlet(fn, parent=hub)
        newq_append((g, args))
        return g

    main_box = deque()

    def main_receive():
        while not main_box:
            hub_switch()
        return main_box.popleft()

    def main_wait_blocked():
        """Let every process run until all are blocked (end of a spawn phase, teardown)."""
        while newq or runq:
            idle_main[0] = True
            hub_switch()
            idle_main[0] = False

    def send(g_switch, box, v):
        """g_switch: the receiver's bound switch (what the run queue holds)."""
        if not box:
            runq_append(g_switch)
        box.append(v)

    # ---- ring, mailbox. A hop: the receiver's blocked receive resumes (one greenlet
    # switch, which copies the two greenlets' stack slices), popleft, one compare, one
    # receipt count, append to the successor's mailbox and put its switch on the run
    # queue, then the next receive finds the mailbox empty, pops that switch and calls
    # it. Everything the hop touches is a local of the process (bound in the prologue),
    # so the hop does no attribute lookup and reads no closure cell.
    def ring_proc(box, succ, sbox, first):
        popleft = box.popleft
        sappend = sbox.append
        succ_switch = succ.switch
        rq = runq                         # locals: the run queue is never rebound
        rq_append = runq_append
        rq_popleft = runq_popleft
        wake = succ is not getcurrent()   # n = 1: p0 is its own successor and is running
        cnt = 0
        stopping = False
        ready[0] += 1
        while True:
            while not box:
                if rq:
                    rq_popleft()()
                else:
                    hub_switch()
            v = popleft()
            if v > 1:
                cnt += 1
                if wake and not sbox:
                    rq_append(succ_switch)
                sappend(v - 1)
            elif v == 1:
                cnt += 1
                send(main_switch, main_box, 0)
            else:  # the proof: v = -(1 + receipts so far); p0 sees it twice
                if first and stopping:
                    send(main_switch, main_box, -v - 1)
                    return
                send(succ_switch, sbox, v - cnt)
                if not first:
                    return
                stopping = True

    # Continuous mode: the tokens never finish; p0 counts laps and checks the clock
    # once per lap, waking main (which "sleeps" in receive) when a sample is due.
    cont = [0, 0]  # laps, deadline_ns

    def ring_proc_cont(box, succ, sbox, first):
        popleft = box.popleft
        sappend = sbox.append
        succ_switch = succ.switch
        rq = runq
        rq_append = runq_append
        rq_popleft = runq_popleft
        wake = succ is not getcurrent()
        me_switch = getcurrent().switch
        ready[0] += 1
        while True:
            while not box:
                if rq:
                    rq_popleft()()
                else:
                    hub_switch()
            v = popleft()
            if first:
                cont[0] += 1
                if perf_counter_ns() >= cont[1]:
                    cont[1] = 1 << 62
                    send(main_switch, main_box, 0)
                    rq_append(me_switch)     # yield, so main runs even if p0 never blocks
                    hub_switch()
            if wake and not sbox:
                rq_append(succ_switch)
            sappend(v)

    def ring_mailbox(p, meter, emit_hops):
        n = p["n"]
        continuous = p["sample_ms"] > 0
        procfn = ring_proc_cont if continuous else ring_proc
        starts = common.token_starts(p)
        ready[0] = 0
        meter.spawn_begins()
        boxes = [deque() for _ in range(n)]
        gs = [greenlet(procfn, parent=hub) for _ in range(n)]
        for i in range(n):
            j = i + 1 if i + 1 < n else 0
            newq_append((gs[i], (boxes[i], gs[j], boxes[j], i == 0)))
        main_wait_blocked()    # the hub starts p0 ... p(n-1) in order; each blocks in its first receive
        meter.spawn_ends(ready[0])
        if continuous:
            return continuous_mailbox(n, starts, gs, boxes, p)
        v = n * p["m"]
        meter.run_begins()
        for k in starts:
            send(gs[k].switch, boxes[k], v)
        for _ in starts:
            main_receive()
        meter.run_ends()
        send(gs[0].switch, boxes[0], -1)
        count = main_receive()
        main_wait_blocked()
        return count

    def continuous_mailbox(n, starts, gs, boxes, p):
        period = p["sample_ms"] * 1_000_000
        t_start = perf_counter_ns()
        cont[1] = t_start + period
        for k in starts:
            send(gs[k].switch, boxes[k], 2)
        for seq in range(1, p["samples"] + 1):
            main_receive()
            now = perf_counter_ns()
            emit({"type": "sample", "seq": seq, "elapsed_ns": now - t_start, "count": cont[0] * n})
            flush()
            cont[1] = t_start + (seq + 1) * period
        return None

    # ------------------------------------------------ direct switch
    # A hop: succ.switch(v - 1) saves this greenlet's stack slice, restores the
    # successor's and returns v - 1 from the successor's own pending switch; one
    # compare and one receipt count on each side.
    # A process exits by returning; its return value goes to its parent, so on
    # the stop message each process first makes its successor its parent
    # (set then, not at spawn: greenlet walks the parent chain to refuse cycles).
    def sw_proc(succ, first):
        succ_switch = succ.switch
        cnt = 0
        v = main_switch(1)        # ready; blocked in the first receive
        while True:
            while v > 1:
                cnt += 1
                v = succ_switch(v - 1)
            if v == 1:
                cnt += 1
                v = main_switch(0)
                continue
            # the proof: v = -(1 + receipts so far); p0 sees it twice
            if first:
                v = succ_switch(v - cnt)
                return -v - 1              # to main (p0's parent)
            getcurrent().parent = succ
            return v - cnt                 # exit: the return value goes to the parent

    def sw_proc_cont(succ, first):
        succ_switch = succ.switch
        v = main_switch(1)
        while True:
            if first:
                cont[0] += 1
                if perf_counter_ns() >= cont[1]:
                    main_switch(0)       # main prints a sample and switches back
            v = succ_switch(v)

    def ring_switch(p, meter, emit_hops):
        n = p["n"]
        continuous = p["sample_ms"] > 0
        procfn = sw_proc_cont if continuous else sw_proc
        meter.spawn_begins()
        gs = [greenlet(procfn) for _ in range(n)]     # parent = main
        ready_n = 0
        for i in range(n):
            ready_n += gs[i].switch(gs[i + 1] if i + 1 < n else gs[0], i == 0)
        meter.spawn_ends(ready_n)
        p0 = gs[0]
        if continuous:
            period = p["sample_ms"] * 1_000_000
            t_start = perf_counter_ns()
            cont[1] = t_start + period
            p0.switch(2)
            samples = p["samples"]
            for seq in range(1, samples + 1):
                now = perf_counter_ns()
                emit({"type": "sample", "seq": seq, "elapsed_ns": now - t_start, "count": cont[0] * n})
                flush()
                cont[1] = t_start + (seq + 1) * period
                if seq < samples:
                    p0.switch()
            return None
        v = n * p["m"]
        meter.run_begins()
        p0.switch(v)       # tokens = 1 (more is unsupported); returns when the token finishes
        meter.run_ends()
        count = p0.switch(-1)
        # each dead p(i) still holds its parent p(i+1); free them front to back so
        # that no dealloc cascades down the whole chain (C stack overflow at n=1e5)
        for i in range(n):
            gs[i] = None
        return count

    # ------------------------------------------------ spawn
    def spawn_mailbox(p, meter, emit_hops):
        n = p["n"]

        def proc(box):
            send(main_switch, main_box, 1)     # ready, then block in the first receive
            while not box:
                hub_switch()    # via the hub, which starts all new processes before main
            box.popleft()

        meter.spawn_begins()
        boxes = [deque() for _ in range(n)]
        gs = [spawn_later(proc, b) for b in boxes]
        count = 0
        for _ in range(n):
            count += main_receive()
        meter.spawn_ends(count)
        for g, b in zip(gs, boxes):
            send(g.switch, b, 0)
        main_wait_blocked()
        dead = sum(1 for g in gs if g.dead)
        if dead != n:
            raise DriverError("failure", "spawn: %d of %d processes did not exit" % (n - dead, n))
        return count

    def spawn_switch(p, meter, emit_hops):
        n = p["n"]

        def proc():
            main_switch(1)      # ready; then blocked until someone sends

        meter.spawn_begins()
        gs = [greenlet(proc) for _ in range(n)]
        count = 0
        for g in gs:
            count += g.switch()
        meter.spawn_ends(count)
        for g in gs:
            g.switch(None)        # release: returns to main when it exits
        if not all(g.dead for g in gs):
            raise DriverError("failure", "spawn: some processes did not exit")
        return count

    # ------------------------------------------------ pingpong
    def pingpong_mailbox(p, meter, emit_hops):
        m = p["m"]
        abox, bbox = deque(), deque()
        cnt_b = [0]

        def receive(box):
            while not box:
                if runq:
                    runq_popleft()()
                else:
                    hub_switch()
            return box.popleft()

        def proc_a(b_switch):
            ready[0] += 1
            receive(abox)          # the start signal
            for _ in range(m):
                send(b_switch, bbox, 1)
                receive(abox)
            send(b_switch, bbox, 0)
            send(main_switch, main_box, 0)

        def proc_b(a_switch):
            cnt = 0
            ready[0] += 1
            while receive(bbox):
                cnt += 1
                send(a_switch, abox, 1)
            cnt_b[0] = cnt

        ready[0] = 0
        meter.spawn_begins()
        a = greenlet(proc_a, parent=hub)
        b = greenlet(proc_b, parent=hub)
        newq_append((a, (b.switch,)))
        newq_append((b, (a.switch,)))
        main_wait_blocked()
        meter.spawn_ends(ready[0])
        meter.run_begins()
        send(a.switch, abox, 1)
        main_receive()
        meter.run_ends()
        main_wait_blocked()            # let B see its stop
        return cnt_b[0]

    def pingpong_switch(p, meter, emit_hops):
        m = p["m"]
        res = [0]

        def proc_a(b):
            b_switch = b.switch
            main_switch(1)      # ready; wait for the start signal
            for _ in range(m):
                b_switch(1)     # ping; returns with B's pong
            b_switch(0)         # stop B; B tells main

        def proc_b(a):
            a_switch = a.switch
            cnt = 0
            v = main_switch(1)           # ready; wait for the first ping
            while v:
                cnt += 1
                v = a_switch(1)          # pong; returns with the next ping
            res[0] = cnt
            main_switch(0)               # tell main

        meter.spawn_begins()
        a = greenlet(proc_a)
        b = greenlet(proc_b)
        ready_n = a.switch(b) + b.switch(a)
        meter.spawn_ends(ready_n)
        meter.run_begins()
        a.switch()
        meter.run_ends()
        return res[0]

    # ------------------------------------------------ fanin
    def fanin_mailbox(p, meter, emit_hops):
        n, m = p["n"], p["m"]
        rbox = deque()
        got = [0]

        def receiver():
            total = n * m
            cnt = 0
            popleft = rbox.popleft
            ready[0] += 1
            while cnt < total:
                while not rbox:
                    if runq:
                        runq_popleft()()
                    else:
                        hub_switch()
                popleft()
                cnt += 1
            got[0] = cnt
            send(main_switch, main_box, 0)

        def sender(box, r_switch):
            ready[0] += 1
            while not box:
                if runq:
                    runq_popleft()()
                else:
                    hub_switch()
            box.popleft()
            for _ in range(m):
                if not rbox:
                    runq_append(r_switch)
                rbox.append(1)   # a send never blocks: no switch until the sender is done

        ready[0] = 0
        meter.spawn_begins()
        r = spawn_later(receiver)
        boxes = [deque() for _ in range(n)]
        gs = [spawn_later(sender, b, r.switch) for b in boxes]
        main_wait_blocked()
        meter.spawn_ends(ready[0])
        meter.run_begins()
        for g, b in zip(gs, boxes):
            send(g.switch, b, 1)
        main_receive()
        meter.run_ends()
        main_wait_blocked()
        return got[0]

    def fanin_switch(p, meter, emit_hops):
        """Each message is a rendezvous: the sender switches to the receiver,
        carrying itself; the receiver counts it and switches back to that sender.
        The start signal is main switching to a sender, so senders run one after
        another (main regains control when a sender exits)."""
        n, m = p["n"], p["m"]
        res = [0]

        def receiver():
            total = n * m
            cnt = 0
            s = main_switch(1)           # ready; blocked until the first message
            while True:
                cnt += 1
                if cnt == total:
                    res[0] = cnt
                    main_switch(cnt)     # tell main (the last sender stays parked)
                    return
                s = s.switch()           # hand back to the sender; returns the next one

        def sender(r_switch):
            me = getcurrent()
            main_switch(1)               # ready; blocked until the start signal
            for _ in range(m):
                r_switch(me)

        meter.spawn_begins()
        r = greenlet(receiver)
        ready_n = r.switch()
        senders = [greenlet(sender) for _ in range(n)]
        for g in senders:
            ready_n += g.switch(r.switch)
        meter.spawn_ends(ready_n)
        meter.run_begins()
        for g in senders:
            g.switch()
        meter.run_ends()
        return res[0]

    # ------------------------------------------------ trace
    # tokens are (value, sender index); each process prints its hop as it happens
    def trace_run(p, meter, emit_hops):
        n, m = p["n"], p["m"]
        total = n * m
        hops = [0]

        def on_hop(i, frm):
            hops[0] += 1
            if emit_hops:
                h = hops[0]
                emit({"type": "hop", "hop": h, "lap": (h - 1) // n + 1, "from": frm, "to": i})
                flush()   # printed as the hop happens

        if mode == "switch":
            def proc(i, succ):
                succ_switch = succ.switch
                v, frm = main_switch(1)
                while True:
                    on_hop(i, frm)
                    if v == 1:
                        main_switch(None)
                        return
                    v, frm = succ_switch((v - 1, i))

            meter.spawn_begins()
            gs = [greenlet(proc) for _ in range(n)]
            ready_n = 0
            for i in range(n):
                ready_n += gs[i].switch(i, gs[(i + 1) % n])
            meter.spawn_ends(ready_n)
            meter.run_begins()
            gs[0].switch((total, -1))
            meter.run_ends()
            return hops[0]

        def proc(i, box, succ_switch, sbox):
            ready[0] += 1
            while True:
                while not box:
                    if runq:
                        runq_popleft()()
                    else:
                        hub_switch()
                v, frm = box.popleft()
                if v == 0:          # released after the run
                    return
                on_hop(i, frm)
                if v == 1:
                    send(main_switch, main_box, 0)
                    return
                send(succ_switch, sbox, (v - 1, i))

        ready[0] = 0
        meter.spawn_begins()
        boxes = [deque() for _ in range(n)]
        gs = [greenlet(proc, parent=hub) for _ in range(n)]
        for i in range(n):
            j = (i + 1) % n
            newq_append((gs[i], (i, boxes[i], gs[j].switch, boxes[j])))
        main_wait_blocked()
        meter.spawn_ends(ready[0])
        meter.run_begins()
        send(gs[0].switch, boxes[0], (total, -1))
        main_receive()
        meter.run_ends()
        for g, b in zip(gs, boxes):
            if not g.dead:
                send(g.switch, b, (0, -2))
        main_wait_blocked()
        return hops[0]

    class GreenletRuntime(common.Runtime):
        def reset(self):
            runq.clear()
            newq.clear()
            idle_main[0] = False
            main_box.clear()
            ready[0] = 0
            cont[0] = 0

    if mode == "switch":
        return GreenletRuntime({"ring": ring_switch, "spawn": spawn_switch, "pingpong": pingpong_switch,
                                "fanin": fanin_switch, "trace": trace_run})
    return GreenletRuntime({"ring": ring_mailbox, "spawn": spawn_mailbox, "pingpong": pingpong_mailbox,
                            "fanin": fanin_mailbox, "trace": trace_run})


def describe(variant):
    greenlet = import_greenlet()
    return {"name": NAME, "runtime": "CPython + greenlet",
            "version": "%s, greenlet %s" % (common.python_version(), greenlet.__version__),
            "workloads": WORKLOADS, "features": features(variant or "mailbox")}


def prepare(variant, workload, p):
    mode = variant or "mailbox"
    if mode == "switch" and workload == "ring" and p["tokens"] > 1:
        raise DriverError("unsupported", "the switch variant is a synchronous rendezvous ring: main gets "
                          "control back only when a token finishes, so K tokens cannot circulate at once "
                          "(running them one after another would not be the same work); use the mailbox variant")
    return make_runtime(mode)


if __name__ == "__main__":
    common.serve(describe, prepare, OPTIONS,
                 selective_reason="greenlet processes have no selective receive: a mailbox is a plain FIFO "
                                  "and there is no receive that skips non-matching messages")
