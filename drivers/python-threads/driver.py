"""ringbench driver: CPython threads, one OS thread per process, a queue.SimpleQueue each.

send = put (unbounded, never blocks); receive = a blocking get, which parks the thread on a lock with
the GIL released. Threads are started with the low-level _thread module. Variants (README.md):
  stock  the runtime as it comes (the platform's default thread stack size, the kernel's futex hash).
  tuned  64 KiB thread stacks, a futex hash sized per thread, the collector settings of
         ringbench_driver_common.tune_collector.
The shared module ringbench_driver_common is found through PYTHONPATH (driver.toml).
"""
import _thread
import sys
import threading
from queue import SimpleQueue
from time import perf_counter_ns, sleep

import oslimits
import ringbench_driver_common as common

NAME = "python-threads"
VARIANTS = ("stock", "tuned")
WORKLOADS = ["ring", "spawn", "pingpong", "fanin", "tree", "trace"]
FEATURES = ["tokens", "continuous", "stats", "perf"]
TUNED_STACK_SIZE = 64 * 1024  # threading.stack_size in the tuned variant (32 KiB is CPython's minimum)


class Gate:
    """The gate (contract section 3): each process arrives once, immediately before its first
    receive, by adding one to a count under a lock; the arrival that completes the count sets an
    Event, on which main waits once. No message to main per process."""

    def __init__(self, want):
        self.want = want
        self.arrived = 0
        self.lock = threading.Lock()
        self.open = threading.Event()

    def arrive(self):
        with self.lock:
            self.arrived += 1
            last = self.arrived == self.want
        if last:
            self.open.set()

    def wait(self):
        """Main: sleeps until the last arrival; the arrivals counted."""
        self.open.wait()
        return self.arrived


def ring_process(q, sq, first, main_q, gate):
    """One process of the ring (and, with main as its successor, of spawn).

    A hop: get() returns (the thread was woken by the sender's put), one compare, one receipt count,
    put(v - 1) into the successor's queue (which wakes it), get() again.
    """
    get = q.get
    put = sq.put
    cnt = 0
    gate.arrive()  # about to block in its first receive
    while True:
        v = get()
        if v > 1:
            cnt += 1
            put(v - 1)
        elif v == 1:
            cnt += 1
            main_q.put(0)  # a token finished
        else:  # the proof: v = -(1 + receipts so far); p0 sees it twice
            put(v - cnt)
            if first:
                main_q.put(-get() - 1)
            return


def ring_head_continuous(q, sq, gate, laps):
    """p0 in continuous mode: counts the laps (only p0 writes the count; main reads it). A negative
    value, which only Threads.close sends (batch), ends it."""
    get = q.get
    put = sq.put
    gate.arrive()
    while True:
        v = get()
        if v < 0:
            return
        laps.count += 1
        put(v)


def pinger(q, pong_q, main_q, gate, m):
    get = q.get
    put = pong_q.put
    gate.arrive()
    get()  # the start signal
    for _ in range(m):
        put(1)
        get()
    put(0)
    main_q.put(0)  # done


def ponger(q, ping_q, gate, result_q):
    get = q.get
    put = ping_q.put
    cnt = 0
    gate.arrive()
    while get():
        cnt += 1
        put(1)
    result_q.put(cnt)  # the round trips it counted


def fanin_receiver(q, main_q, gate, total):
    get = q.get
    cnt = 0
    gate.arrive()
    while cnt < total:
        get()
        cnt += 1
    main_q.put(cnt)


def fanin_sender(q, to_q, gate, m):
    put = to_q.put
    gate.arrive()
    q.get()  # the start signal
    for _ in range(m):
        put(1)


def tree_node(start, lo, n, fanout, to_q):
    """Covers leaves lo .. lo+n-1: a thread per child (start is Threads.start_in_turn), sums their
    messages, sends the sum to its parent and exits. A thread that cannot be started ends the driver
    with a `limit` error."""
    if n > 1:
        q = SimpleQueue()
        k = n // fanout
        for i in range(fanout):
            start(tree_node, start, lo + i * k, k, fanout, q)
        get = q.get
        lo = 0
        for _ in range(fanout):
            lo += get()
    to_q.put(lo)


def trace_process(i, q, sq, main_q, gate, log):
    """A ring process of the trace: the token carries its sender's index; each hop is printed here,
    by the receiving thread."""
    gate.arrive()
    while True:
        msg = q.get()
        if msg is None:  # released after the run
            return
        v, sender = msg
        log.hop(sender, i)
        if v == 1:
            main_q.put(0)
            return
        sq.put((v - 1, i))


def planned_threads(workload, p):
    if workload == "tree":
        return (p["fanout"] * p["n"] - 1) // (p["fanout"] - 1)
    return {"pingpong": 2, "fanin": p.get("n", 0) + 1}.get(workload, p.get("n", 0))


class Threads(common.Runtime):
    def __init__(self, stack_size, planned):
        self.stack_size = stack_size  # 0: the platform's default (RLIMIT_STACK, 8 MiB)
        self.planned = planned
        threading.stack_size(stack_size)
        sys.unraisablehook = common.die_in_thread  # a process thread that fails ends the driver
        self.endless = None  # a continuous ring's queues and the thread count before it

    def close(self):
        """batch (contract section 2): end a continuous ring's threads, which `run` leaves circulating.
        A -1 in every queue: a ring process forwards a negative and exits, p0 exits on one; tokens
        left in the queues of exited threads are garbage. Then wait until the threads are gone."""
        if self.endless is not None:
            qs, base = self.endless
            self.endless = None
            for q in qs:
                q.put(-1)
            self.wait_exited(base)

    def start(self, fn, *args):
        """A process thread running fn(*args); main goes on at once."""
        try:
            _thread.start_new_thread(fn, args)
        except RuntimeError as e:
            oslimits.start_failed(common.threads_now(), self.planned, e)

    def start_in_turn(self, fn, *args):
        """A process thread running fn(*args), the everyday way: threading.Thread.start returns once
        the new thread runs, so the starting thread hands it the GIL. Where processes start processes
        (tree), starting them all at once leaves thousands of threads waiting for the GIL, each waking
        every switch interval to ask for it: at 11,111 threads that took minutes of system time."""
        try:
            threading.Thread(target=fn, args=args, daemon=True).start()
        except RuntimeError as e:
            oslimits.start_failed(common.threads_now(), self.planned, e)

    def wait_exited(self, base):
        """Untimed teardown: wait until the process's OS threads are back to `base` (Threads: of
        /proc/self/status), so that the next iteration starts with none of this one's."""
        while common.threads_now() > base:
            sleep(0.0005)

    def stats(self):
        return {"switch_interval_us": int(round(sys.getswitchinterval() * 1e6)),
                "thread_stack_size": self.stack_size,
                "threads_alive": common.threads_now()}

    def ring(self, p, meter, emit_hops):
        n = p["n"]
        continuous = p["sample_ms"] > 0
        laps = common.Laps()
        base = common.threads_now()
        main_q = SimpleQueue()
        gate = Gate(n)
        meter.spawn_begins()
        qs = [SimpleQueue() for _ in range(n)]
        for i in range(n):
            sq = qs[i + 1 if i + 1 < n else 0]
            if continuous and i == 0:
                self.start(ring_head_continuous, qs[0], sq, gate, laps)
            else:
                self.start(ring_process, qs[i], sq, i == 0, main_q, gate)
        meter.spawn_ends(gate.wait())
        starts = common.token_starts(p)
        if continuous:
            self.endless = (qs, base)
            return self._samples(p, qs, starts, laps)
        v = n * p["m"]
        get = main_q.get
        meter.run_begins()
        for k in starts:
            qs[k].put(v)
        for _ in starts:
            get()
        meter.run_ends()
        qs[0].put(-1)
        count = get()
        self.wait_exited(base)
        return count

    def _samples(self, p, qs, starts, laps):
        period = p["sample_ms"] * 1_000_000
        t_start = perf_counter_ns()
        for k in starts:
            qs[k].put(common.ENDLESS_TOKEN)
        for seq in range(1, p["samples"] + 1):
            d = t_start + seq * period - perf_counter_ns()
            if d > 0:
                sleep(d / 1e9)  # the GIL is released: the ring runs
            common.print_sample(seq, perf_counter_ns() - t_start, laps.count * p["n"])
        return None

    def spawn(self, p, meter, emit_hops):
        """n ring processes whose successor is main: each holds what a ring process holds."""
        n = p["n"]
        base = common.threads_now()
        main_q = SimpleQueue()
        gate = Gate(n)
        meter.spawn_begins()
        qs = [SimpleQueue() for _ in range(n)]
        for q in qs:
            self.start(ring_process, q, main_q, False, main_q, gate)
        meter.spawn_ends(gate.wait())
        get = main_q.get
        for q in qs:  # one at a time: released all at once, n threads would wait for the GIL together
            q.put(-1)  # the stop message: it answers main and exits
            get()
        self.wait_exited(base)
        return meter.ready

    def pingpong(self, p, meter, emit_hops):
        base = common.threads_now()
        main_q, result_q, aq, bq = SimpleQueue(), SimpleQueue(), SimpleQueue(), SimpleQueue()
        gate = Gate(2)
        meter.spawn_begins()
        self.start(pinger, aq, bq, main_q, gate, p["m"])
        self.start(ponger, bq, aq, gate, result_q)
        meter.spawn_ends(gate.wait())
        meter.run_begins()
        aq.put(1)
        main_q.get()  # A is done
        meter.run_ends()
        count = result_q.get()
        self.wait_exited(base)
        return count

    def fanin(self, p, meter, emit_hops):
        n, m = p["n"], p["m"]
        base = common.threads_now()
        main_q, rq = SimpleQueue(), SimpleQueue()
        gate = Gate(n + 1)
        meter.spawn_begins()
        self.start(fanin_receiver, rq, main_q, gate, n * m)
        qs = [SimpleQueue() for _ in range(n)]
        for q in qs:
            self.start(fanin_sender, q, rq, gate, m)
        meter.spawn_ends(gate.wait())
        meter.run_begins()
        for q in qs:
            q.put(1)  # the start signal
        count = main_q.get()
        meter.run_ends()
        self.wait_exited(base)
        return count

    def tree(self, p, meter, emit_hops):
        base = common.threads_now()
        main_q = SimpleQueue()
        meter.tree_begins()
        self.start_in_turn(tree_node, self.start_in_turn, 0, p["n"], p["fanout"], main_q)
        total = main_q.get()
        meter.tree_ends()
        self.wait_exited(base)
        return total

    def trace(self, p, meter, emit_hops):
        n, m = p["n"], p["m"]
        base = common.threads_now()
        main_q = SimpleQueue()
        log = common.HopLog(n, emit_hops)
        gate = Gate(n)
        meter.spawn_begins()
        qs = [SimpleQueue() for _ in range(n)]
        for i in range(n):
            self.start(trace_process, i, qs[i], qs[(i + 1) % n], main_q, gate, log)
        meter.spawn_ends(gate.wait())
        meter.run_begins()
        qs[0].put((n * m, -1))
        main_q.get()
        meter.run_ends()
        last = (n * m - 1) % n  # the process that finished the token has exited
        for i in range(n):  # the others are still blocked in get(): release them
            if i != last:
                qs[i].put(None)
        self.wait_exited(base)
        return log.hops


def describe(variant):
    return {"name": NAME, "runtime": "CPython threads", "version": common.python_version(),
            "workloads": WORKLOADS, "features": FEATURES}


def prepare(variant, workload, p):
    planned = planned_threads(workload, p)
    if variant == "tuned":
        oslimits.futex_hash_setup(planned)
        return Threads(TUNED_STACK_SIZE, planned)
    return Threads(0, planned)


if __name__ == "__main__":
    common.serve(describe, prepare, VARIANTS, threads=True, perf=True,
                 selective_reason="Python threads have no selective receive: queue.SimpleQueue is strictly "
                                  "FIFO and there is no receive that skips non-matching messages")
