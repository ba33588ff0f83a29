"""ringbench driver: CPython threads, one OS thread per process.

Hand-off: every process owns a queue.SimpleQueue (C-implemented, unbounded,
FIFO); send = put, receive = blocking get, which parks the thread on a lock and
releases the GIL. Threads are started with the low-level _thread module and a
small stack (threading.stack_size). See README.md for what was measured.
"""
import sys
import os
import json

NAME = "python-threads"
EXIT = {"bad_param": 2, "unknown_workload": 2, "unsupported": 2, "limit": 3, "failure": 1}
STACK_SIZE = 64 * 1024          # threading.stack_size: virtual reservation per thread
# Rough resident bytes per idle thread (touched stack pages, kernel task, Python
# thread state, queue), measured with `run spawn n=10000`; x1.5 margin in the check.
BYTES_PER_PROCESS = 16000

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


def read_int(path):
    try:
        with open(path) as f:
            s = f.read().strip()
    except OSError:
        return None
    if s == "max":
        return None
    try:
        return int(s)
    except ValueError:
        return None


def system_threads():
    """Threads (kernel tasks) alive on the machine, from /proc/loadavg."""
    try:
        with open("/proc/loadavg") as f:
            return int(f.read().split()[3].split("/")[1])
    except (OSError, ValueError, IndexError):
        return 0


def check_thread_limits(n):
    """Refuse, before spawning, a request the OS cannot hold: every limit that
    caps the number of threads one process can start."""
    import resource
    cur = system_threads()
    pid_max = read_int("/proc/sys/kernel/pid_max")
    if pid_max is not None and cur + n >= pid_max:
        raise DriverError("limit", "kernel.pid_max: %d threads wanted, %d tasks already exist and "
                          "kernel.pid_max is %d (every thread takes a pid); raise it with "
                          "sysctl -w kernel.pid_max=4194304 or lower n" % (n, cur, pid_max))
    tmax = read_int("/proc/sys/kernel/threads-max")
    if tmax is not None and cur + n >= tmax:
        raise DriverError("limit", "kernel.threads-max: %d threads wanted, %d tasks already exist and "
                          "kernel.threads-max is %d; raise it with sysctl -w kernel.threads-max=N "
                          "or lower n" % (n, cur, tmax))
    soft, _ = resource.getrlimit(resource.RLIMIT_NPROC)
    if os.geteuid() != 0 and soft != resource.RLIM_INFINITY and cur + n >= soft:
        raise DriverError("limit", "RLIMIT_NPROC (ulimit -u) is %d and counts every thread of the user "
                          "(%d tasks exist on the machine); raise it with ulimit -u or lower n"
                          % (soft, cur))
    maps_max = read_int("/proc/sys/vm/max_map_count")
    if maps_max is not None:
        with open("/proc/self/maps", "rb") as f:
            maps = sum(1 for _ in f)
        need = maps + 2 * n + 256    # a stack and its guard page per thread
        if need > maps_max:
            raise DriverError("limit", "vm.max_map_count: %d threads need about %d memory mappings "
                              "(stack + guard page each) but vm.max_map_count is %d; raise it with "
                              "sysctl -w vm.max_map_count=%d or lower n" % (n, need, maps_max, need * 2))
    for pm, pc in (("/sys/fs/cgroup/pids.max", "/sys/fs/cgroup/pids.current"),
                   ("/sys/fs/cgroup/pids/pids.max", "/sys/fs/cgroup/pids/pids.current")):
        lim = read_int(pm)
        if lim is not None:
            used = read_int(pc) or 0
            if used + n >= lim:
                raise DriverError("limit", "cgroup pids.max: %d threads wanted, the cgroup holds %d "
                                  "tasks and pids.max is %d (%s); raise it or lower n"
                                  % (n, used, lim, pm))
            break


def futex_hash_setup(threads):
    """Size the process's private futex hash for `threads` threads.

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

WORKLOADS = ["ring", "spawn", "pingpong", "fanin", "trace"]
FEATURES = ["tokens", "continuous", "stats"]


def make_runtime():
    import _thread
    import threading
    from queue import SimpleQueue
    from time import perf_counter_ns, process_time_ns, sleep

    threading.stack_size(STACK_SIZE)
    base_threads = _thread._count()

    def start(fn, *args):
        try:
            _thread.start_new_thread(fn, args)
        except RuntimeError as e:
            raise DriverError("limit", "could not start thread %d (%s): an OS limit on threads was hit "
                              "(kernel.pid_max, kernel.threads-max, ulimit -u, vm.max_map_count, "
                              "cgroup pids.max or memory); raise it or lower n"
                              % (_thread._count() - base_threads + 1, e))

    def wait_exited():
        """Untimed teardown: wait until every process thread has exited."""
        while _thread._count() > base_threads:
            sleep(0.0005)

    cont = [0]

    def ring_proc(q, sq, first, mq):
        get = q.get
        put = sq.put
        mq.put(0)          # alive and linked
        cnt = 0
        stopping = False
        while True:
            v = get()
            if v > 1:
                cnt += 1
                put(v - 1)
            elif v == 1:
                cnt += 1
                mq.put(0)
            else:   # stop: v = -(sum+1)
                if first and stopping:
                    mq.put(-v - 1)
                    return
                put(v - cnt)
                if first:
                    stopping = True
                else:
                    return

    def ring_proc_cont(q, sq, first, mq):
        get = q.get
        put = sq.put
        mq.put(0)
        if first:
            while True:
                v = get()
                cont[0] += 1     # only p0 writes; main reads (GIL: a word store)
                put(v)
        while True:
            put(get())

    def ring(n, m, tokens, cont_cfg=None):
        mq = SimpleQueue()
        mget = mq.get
        procfn = ring_proc if cont_cfg is None else ring_proc_cont
        rss_before = rss()
        c0 = process_time_ns()
        t0 = perf_counter_ns()
        qs = [SimpleQueue() for _ in range(n)]
        for i in range(n):
            start(procfn, qs[i], qs[(i + 1) % n], i == 0, mq)
        for _ in range(n):
            mget()
        t1 = perf_counter_ns()
        c1 = process_time_ns()
        rss_after = rss()
        if cont_cfg is not None:
            sample_ms, samples = cont_cfg
            t_start = perf_counter_ns()
            for j in range(tokens):
                qs[j * n // tokens].put(2)
            for seq in range(1, samples + 1):
                d = t_start + seq * sample_ms * 1_000_000 - perf_counter_ns()
                if d > 0:
                    sleep(d / 1e9)
                now = perf_counter_ns()
                emit({"type": "sample", "seq": seq, "elapsed_ns": now - t_start, "count": cont[0] * n})
                flush()
            return None
        v = n * m
        c2 = process_time_ns()
        t2 = perf_counter_ns()
        for j in range(tokens):
            qs[j * n // tokens].put(v)
        for _ in range(tokens):
            mget()
        t3 = perf_counter_ns()
        c3 = process_time_ns()
        qs[0].put(-1)
        count = mget()
        wait_exited()
        return count, t1 - t0, t3 - t2, c1 - c0, c3 - c2, rss_before, rss_after

    def spawn(n):
        mq = SimpleQueue()
        mget = mq.get

        def proc(q):
            mq.put(1)
            q.get()

        rss_before = rss()
        c0 = process_time_ns()
        t0 = perf_counter_ns()
        qs = [SimpleQueue() for _ in range(n)]
        for q in qs:
            start(proc, q)
        count = 0
        for _ in range(n):
            count += mget()
        t1 = perf_counter_ns()
        c1 = process_time_ns()
        rss_after = rss()
        for q in qs:
            q.put(0)
        wait_exited()
        return count, t1 - t0, 0, c1 - c0, 0, rss_before, rss_after

    def pingpong(m):
        mq, aq, bq = SimpleQueue(), SimpleQueue(), SimpleQueue()
        res = [0]

        def proc_a():
            get = aq.get
            put = bq.put
            mq.put(0)
            get()
            for _ in range(m):
                put(1)
                get()
            put(0)
            mq.put(0)

        def proc_b():
            get = bq.get
            put = aq.put
            mq.put(0)
            cnt = 0
            while get():
                cnt += 1
                put(1)
            res[0] = cnt

        rss_before = rss()
        c0 = process_time_ns()
        t0 = perf_counter_ns()
        start(proc_a)
        start(proc_b)
        mq.get()
        mq.get()
        t1 = perf_counter_ns()
        c1 = process_time_ns()
        rss_after = rss()
        c2 = process_time_ns()
        t2 = perf_counter_ns()
        aq.put(1)
        mq.get()
        t3 = perf_counter_ns()
        c3 = process_time_ns()
        wait_exited()
        return res[0], t1 - t0, t3 - t2, c1 - c0, c3 - c2, rss_before, rss_after

    def fanin(n, m):
        mq, rq = SimpleQueue(), SimpleQueue()
        res = [0]

        def receiver():
            get = rq.get
            total = n * m
            cnt = 0
            mq.put(0)
            while cnt < total:
                get()
                cnt += 1
            res[0] = cnt
            mq.put(0)

        def sender(q):
            put = rq.put
            mq.put(0)
            q.get()
            for _ in range(m):
                put(1)

        rss_before = rss()
        c0 = process_time_ns()
        t0 = perf_counter_ns()
        start(receiver)
        qs = [SimpleQueue() for _ in range(n)]
        for q in qs:
            start(sender, q)
        for _ in range(n + 1):
            mq.get()
        t1 = perf_counter_ns()
        c1 = process_time_ns()
        rss_after = rss()
        c2 = process_time_ns()
        t2 = perf_counter_ns()
        for q in qs:
            q.put(1)
        mq.get()
        t3 = perf_counter_ns()
        c3 = process_time_ns()
        wait_exited()
        return res[0], t1 - t0, t3 - t2, c1 - c0, c3 - c2, rss_before, rss_after

    def trace(n, m):
        mq = SimpleQueue()
        hops = [0]

        def proc(i, q, sq):
            mq.put(0)
            while True:
                v, frm = q.get()
                hops[0] += 1
                h = hops[0]
                emit({"type": "hop", "hop": h, "lap": (h - 1) // n + 1, "from": frm, "to": i})
                flush()   # printed as the hop happens, by the receiving thread
                if v == 1:
                    mq.put(0)
                    return
                sq.put((v - 1, i))

        qs = [SimpleQueue() for _ in range(n)]
        for i in range(n):
            start(proc, i, qs[i], qs[(i + 1) % n])
        for _ in range(n):
            mq.get()
        t0 = perf_counter_ns()
        qs[0].put((n * m, -1))
        mq.get()
        t1 = perf_counter_ns()
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
    rec["switch_interval_us"] = int(round(sys.getswitchinterval() * 1e6))
    rec["thread_stack_bytes"] = STACK_SIZE
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
        emit({"type": "describe", "contract": 1, "name": NAME, "runtime": "CPython threads",
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
        raise DriverError("unsupported", "Python threads have no selective receive: queue.SimpleQueue "
                          "is strictly FIFO and there is no receive that skips non-matching messages")
    nthreads = {"ring": p.get("n", 0), "spawn": p.get("n", 0), "fanin": p.get("n", 0) + 1,
                "pingpong": 2, "trace": p.get("n", 0)}[workload]
    check_thread_limits(nthreads)
    check_memory(nthreads, BYTES_PER_PROCESS)
    futex_hash_setup(nthreads)

    import gc
    rt = make_runtime()
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
