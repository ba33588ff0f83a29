"""ringbench driver: CPython threads, one OS thread per process.

Hop: every process owns a queue.SimpleQueue (the standard library's C queue,
unbounded, FIFO); send = put, receive = blocking get, which parks the thread on
a lock with the GIL released. Threads are started with the low-level _thread
module. Variants (see README.md):
  simplequeue  --variant=simplequeue: the runtime as it comes (default thread stack size)
  tuned        --variant=tuned: 64 KiB thread stacks, futex hash sized per thread
"""
import os
import resource
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "common", "python"))
import ringbench_driver_common as common  # noqa: E402
from ringbench_driver_common import DriverError, emit, flush  # noqa: E402

NAME = "python-threads"
WORKLOADS = ["ring", "spawn", "pingpong", "fanin", "trace"]
FEATURES = ["tokens", "continuous", "stats"]
OPTIONS = {"--variant=simplequeue": "simplequeue", "--variant=tuned": "tuned"}
TUNED_STACK_SIZE = 64 * 1024    # threading.stack_size in the tuned variant (32 KiB is the minimum)


# ---------------------------------------------------------------- OS limits

def read_int(path):
    try:
        with open(path) as f:
            s = f.read().split()[0]
    except (OSError, IndexError):
        return None
    return None if s == "max" else int(s) if s.isdigit() else None


def start_failed(index, want, err):
    """A thread could not be started: a `limit` error naming the machine's figures, so the user
    sees which limit ran out. The orchestrator checks these limits before launch (from the
    manifest); this is the real failure, when one it could not see was reached. Python reports
    every failure of pthread_create as RuntimeError("can't start new thread"), without errno."""
    try:
        with open("/proc/loadavg") as f:
            tasks = f.read().split()[3].split("/")[1]
    except (OSError, IndexError):
        tasks = "?"
    soft, _ = resource.getrlimit(resource.RLIMIT_NPROC)
    vsoft, _ = resource.getrlimit(resource.RLIMIT_AS)
    avail = None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    avail = int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    figures = [("kernel.pid_max", read_int("/proc/sys/kernel/pid_max")),
               ("kernel.threads-max", read_int("/proc/sys/kernel/threads-max")),
               ("vm.max_map_count", read_int("/proc/sys/vm/max_map_count")),
               ("ulimit -u", None if soft == resource.RLIM_INFINITY else soft),
               ("ulimit -v KiB", None if vsoft == resource.RLIM_INFINITY else vsoft // 1024),
               ("cgroup pids.max", read_int("/sys/fs/cgroup/pids.max")),
               ("MemAvailable MiB", avail)]
    raise DriverError("limit", "could not start thread %d of %d (%s). Tasks on the machine: %s; %s. "
                      "Raise the limit that ran out (sysctl -w kernel.pid_max=N, kernel.threads-max=N, "
                      "vm.max_map_count=N; ulimit -u N; ulimit -v; cgroup pids.max; memory) or use a smaller n"
                      % (index, want, err, tasks,
                         ", ".join("%s %s" % (k, "unlimited" if v is None else v) for k, v in figures)))


def futex_hash_setup(threads):
    """Tuned variant only: size the process's private futex hash for `threads` threads.

    Since Linux 6.16 a process gets a private futex hash table sized by the CPU
    count (16 buckets on 2 cores), not the thread count, so with thousands of
    parked threads every futex wake walks a long chain. Like drivers/c-pthreads
    (futex_hash_setup), ask for slots = next power of two >= threads, clamped to
    [16, 2^22]: prctl(PR_FUTEX_HASH=78, PR_FUTEX_HASH_SET_SLOTS=1, slots, 0, 0).
    RINGBENCH_FUTEX_HASH_SLOTS overrides the count (negative: skip the call).
    Older kernels reject the option; any failure is ignored. Returns prctl's
    result, or None when the call was not made."""
    slots = 16
    while slots < threads and slots < (1 << 22):
        slots <<= 1
    env = os.environ.get("RINGBENCH_FUTEX_HASH_SLOTS", "")
    try:
        if env:
            slots = int(env)
        if slots < 0:
            return None
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        prctl = libc.prctl
        prctl.restype = ctypes.c_int
        ul = ctypes.c_ulong
        return prctl(ctypes.c_int(78), ul(1), ul(slots), ul(0), ul(0))
    except Exception:  # noqa: BLE001 - no ctypes, no prctl, bad override: keep the default table
        return None


# ---------------------------------------------------------------- workloads

def make_runtime(tuned, threads):
    import _thread
    import threading
    from queue import SimpleQueue
    from time import perf_counter_ns, sleep

    # threading.stack_size() with no argument would also reset the size: keep what was set
    stack_size = TUNED_STACK_SIZE if tuned else 0    # 0: the platform default (RLIMIT_STACK, 8 MiB)
    threading.stack_size(stack_size)
    base_threads = _thread._count()
    sys.unraisablehook = common.die_in_thread    # a process thread that fails ends the driver

    def start(fn, *args):
        try:
            _thread.start_new_thread(fn, args)
        except RuntimeError as e:
            start_failed(_thread._count() - base_threads + 1, threads, e)

    def wait_exited():
        """Untimed teardown: wait until every process thread has exited."""
        while _thread._count() > base_threads:
            sleep(0.0005)

    cont = [0]

    # A hop: get() returns (the thread was woken by the sender's put), one compare, one
    # receipt count, put(v - 1) into the successor's queue (which wakes it), get() again.
    def ring_proc(q, sq, first, mq):
        get = q.get
        put = sq.put
        cnt = 0
        mq.put(1)          # ready: linked, about to block in its first receive
        while True:
            v = get()
            if v > 1:
                cnt += 1
                put(v - 1)
            elif v == 1:
                cnt += 1
                mq.put(0)
            else:          # the proof: v = -(1 + receipts so far); p0 sees it twice
                put(v - cnt)
                if first:
                    mq.put(-get() - 1)
                return

    def ring_proc_cont(q, sq, first, mq):
        get = q.get
        put = sq.put
        mq.put(1)
        if first:
            while True:
                v = get()
                cont[0] += 1     # only p0 writes; main reads (under the GIL: a word store)
                put(v)
        while True:
            put(get())

    def ring(p, meter, emit_hops):
        n = p["n"]
        tokens = p["tokens"]
        starts = common.token_starts(p)
        continuous = p["sample_ms"] > 0
        procfn = ring_proc_cont if continuous else ring_proc
        mq = SimpleQueue()
        mget = mq.get
        meter.spawn_begins()
        qs = [SimpleQueue() for _ in range(n)]
        for i in range(n):
            start(procfn, qs[i], qs[i + 1 if i + 1 < n else 0], i == 0, mq)
        ready = 0
        for _ in range(n):
            ready += mget()
        meter.spawn_ends(ready)
        if continuous:
            sample_ms, samples = p["sample_ms"], p["samples"]
            t_start = perf_counter_ns()
            for k in starts:
                qs[k].put(2)
            for seq in range(1, samples + 1):
                d = t_start + seq * sample_ms * 1_000_000 - perf_counter_ns()
                if d > 0:
                    sleep(d / 1e9)
                now = perf_counter_ns()
                emit({"type": "sample", "seq": seq, "elapsed_ns": now - t_start, "count": cont[0] * n})
                flush()
            return None
        v = n * p["m"]
        meter.run_begins()
        for k in starts:
            qs[k].put(v)
        for _ in range(tokens):
            mget()
        meter.run_ends()
        qs[0].put(-1)
        count = mget()
        wait_exited()
        return count

    def spawn(p, meter, emit_hops):
        n = p["n"]
        mq = SimpleQueue()
        mget = mq.get

        def proc(q):
            mq.put(1)      # ready, then block in the first receive
            q.get()

        meter.spawn_begins()
        qs = [SimpleQueue() for _ in range(n)]
        for q in qs:
            start(proc, q)
        count = 0
        for _ in range(n):
            count += mget()
        meter.spawn_ends(count)
        for q in qs:
            q.put(0)
        wait_exited()
        return count

    def pingpong(p, meter, emit_hops):
        m = p["m"]
        mq, aq, bq = SimpleQueue(), SimpleQueue(), SimpleQueue()
        res = [0]

        def proc_a():
            get = aq.get
            put = bq.put
            mq.put(1)
            get()              # the start signal
            for _ in range(m):
                put(1)
                get()
            put(0)
            mq.put(0)

        def proc_b():
            get = bq.get
            put = aq.put
            cnt = 0
            mq.put(1)
            while get():
                cnt += 1
                put(1)
            res[0] = cnt

        meter.spawn_begins()
        start(proc_a)
        start(proc_b)
        ready = mq.get() + mq.get()
        meter.spawn_ends(ready)
        meter.run_begins()
        aq.put(1)
        mq.get()
        meter.run_ends()
        wait_exited()
        return res[0]

    def fanin(p, meter, emit_hops):
        n, m = p["n"], p["m"]
        mq, rq = SimpleQueue(), SimpleQueue()
        res = [0]

        def receiver():
            get = rq.get
            total = n * m
            cnt = 0
            mq.put(1)
            while cnt < total:
                get()
                cnt += 1
            res[0] = cnt
            mq.put(0)

        def sender(q):
            put = rq.put
            mq.put(1)
            q.get()            # the start signal
            for _ in range(m):
                put(1)

        meter.spawn_begins()
        start(receiver)
        qs = [SimpleQueue() for _ in range(n)]
        for q in qs:
            start(sender, q)
        ready = 0
        for _ in range(n + 1):
            ready += mq.get()
        meter.spawn_ends(ready)
        meter.run_begins()
        for q in qs:
            q.put(1)
        mq.get()
        meter.run_ends()
        wait_exited()
        return res[0]

    def trace(p, meter, emit_hops):
        n, m = p["n"], p["m"]
        mq = SimpleQueue()
        hops = [0]

        def proc(i, q, sq):
            mq.put(1)
            while True:
                msg = q.get()
                if msg is None:        # released after the run
                    return
                v, frm = msg
                hops[0] += 1
                if emit_hops:
                    h = hops[0]
                    emit({"type": "hop", "hop": h, "lap": (h - 1) // n + 1, "from": frm, "to": i})
                    flush()   # printed as the hop happens, by the receiving thread
                if v == 1:
                    mq.put(0)
                    return
                sq.put((v - 1, i))

        meter.spawn_begins()
        qs = [SimpleQueue() for _ in range(n)]
        for i in range(n):
            start(proc, i, qs[i], qs[(i + 1) % n])
        ready = 0
        for _ in range(n):
            ready += mq.get()
        meter.spawn_ends(ready)
        meter.run_begins()
        qs[0].put((n * m, -1))
        mq.get()
        meter.run_ends()
        last = (n * m - 1) % n    # the process that finished the token has exited
        for i in range(n):        # the others are still blocked in get(): release them
            if i != last:
                qs[i].put(None)
        wait_exited()
        return hops[0]

    class ThreadsRuntime(common.Runtime):
        def reset(self):
            cont[0] = 0

        def stats(self):
            return {"switch_interval_us": int(round(sys.getswitchinterval() * 1e6)),
                    "thread_stack_size": stack_size,    # 0: the platform default
                    "threads_alive": _thread._count()}

    return ThreadsRuntime({"ring": ring, "spawn": spawn, "pingpong": pingpong, "fanin": fanin,
                           "trace": trace})


def describe(variant):
    return {"name": NAME, "runtime": "CPython threads", "version": common.python_version(),
            "workloads": WORKLOADS, "features": FEATURES}


def prepare(variant, workload, p):
    nthreads = {"ring": p.get("n", 0), "spawn": p.get("n", 0), "fanin": p.get("n", 0) + 1,
                "pingpong": 2, "trace": p.get("n", 0)}[workload]
    tuned = variant == "tuned"
    if tuned:
        futex_hash_setup(nthreads)
    return make_runtime(tuned, nthreads)


if __name__ == "__main__":
    common.serve(describe, prepare, OPTIONS, kernel_stack=True,
                 selective_reason="Python threads have no selective receive: queue.SimpleQueue is strictly "
                                  "FIFO and there is no receive that skips non-matching messages")
