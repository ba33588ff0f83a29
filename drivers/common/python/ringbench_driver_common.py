"""What the three CPython drivers share (python-threads, python-greenlet, python-asyncio).

Each driver adds this folder to sys.path from its own location and imports this
module; it holds everything that is not the runtime's own idiom:

- the JSON Lines output and the error records (contract section 4);
- the parameters and their bounds (sections 2 and 6);
- the phase clocks, the one untimed collection and the memory rule (section 3):
  `Meter`;
- the verb handling, the iteration loop and the result and stats records:
  `serve`.

A driver supplies a `Runtime` (its workload functions) and a description.
Nothing here runs inside a timed phase except the clock reads that bound it.
"""
import _thread
import gc
import json
import os
import sys
import traceback    # imported up front: a failure under memory pressure must not need an import
from time import perf_counter_ns, process_time_ns

CONTRACT = 2
EXIT = {"bad_param": 2, "unknown_workload": 2, "unsupported": 2, "limit": 3, "failure": 1}

# ---------------------------------------------------------------- output

_out = []


def emit(rec):
    """Queue one JSON Lines record; records are written in batches, never inside a timed phase."""
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


_dying = _thread.allocate_lock()


def die(kind, message):
    """Print the error record and exit at once: os._exit, so that blocked threads cannot hang the exit.
    Callable from any thread; the first caller's record is the only one (later callers wait for
    the exit)."""
    _dying.acquire()
    emit({"type": "error", "kind": kind, "message": message})
    flush()
    os._exit(EXIT[kind])


def die_in_thread(unraisable):
    """sys.unraisablehook for drivers whose processes are threads: an exception that ends a
    process thread (which Python would only print) ends the driver with an error record, rather
    than leaving main waiting for a message that will never come."""
    exc = unraisable.exc_value
    if isinstance(exc, MemoryError):
        die("limit", "memory: a process thread could not allocate (MemoryError); free memory or lower n")
    traceback.print_exception(unraisable.exc_type, exc, unraisable.exc_traceback, file=sys.stderr)
    die("failure", "in a process thread: %s: %s" % (type(exc).__name__, exc))


# ---------------------------------------------------------------- parameters

WORKLOAD_KEYS = {
    "ring": ("n", "m", "tokens", "burst"),
    "spawn": ("n",),
    "pingpong": ("m",),
    "fanin": ("n", "m"),
    "selective": ("n", "m", "reverse"),
    "trace": ("n", "m"),
}
REQUIRED = {
    "ring": ("n", "m"),          # m may be left out in continuous mode
    "spawn": ("n",),
    "pingpong": ("m",),
    "fanin": ("n", "m"),
    "selective": ("n", "m"),
    "trace": ("n", "m"),
}
KEY_DEFAULTS = {"tokens": 1, "burst": 0, "reverse": 0}
COMMON_DEFAULTS = {"repeats": 1, "warmup": 0, "cores": None, "sample_ms": 0, "samples": 3, "stats": 0}
# Contract section 6, inclusive. tokens is further bounded by n, trace's n and m by TRACE_MAX.
BOUNDS = {
    "n": (1, 100_000_000),
    "m": (1, 1_000_000_000),
    "tokens": (1, 100_000_000),
    "burst": (0, 1),
    "reverse": (0, 1),
    "repeats": (1, 1_000_000),
    "warmup": (0, 1_000_000),
    "cores": (1, 1_024),
    "sample_ms": (0, 86_400_000),
    "samples": (1, 1_000_000),
    "stats": (0, 1),
}
TRACE_MAX = 100
MAX_HOPS = 1 << 62


def bound_text(key, lo, hi):
    if lo == 0 and hi == 1:
        return "%s must be 0 or 1" % key
    return "%s must be an integer in %d..%d" % (key, lo, hi)


def parse_params(workload, args):
    """key=value arguments to a dict with every key of the workload and the common keys filled in."""
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
            hi = TRACE_MAX
        # ASCII digits only: no sign, no blanks, no other scripts' digits (int() accepts all three)
        if not (val.isascii() and val.isdigit()):
            raise DriverError("bad_param", "%s, got '%s'" % (bound_text(key, lo, hi), val))
        v = int(val) if len(val) <= 30 else hi + 1    # int() refuses very long digit strings
        if not lo <= v <= hi:
            raise DriverError("bad_param", "%s, got '%s'" % (bound_text(key, lo, hi), val))
        p[key] = v
    continuous = workload == "ring" and p.get("sample_ms", 0) > 0
    for key in REQUIRED[workload]:
        if key not in p and not (continuous and key == "m"):
            raise DriverError("bad_param", "missing required key '%s' for workload %s" % (key, workload))
    for key in allowed:
        if key in KEY_DEFAULTS:
            p.setdefault(key, KEY_DEFAULTS[key])
    for key, dflt in COMMON_DEFAULTS.items():
        p.setdefault(key, dflt)
    if p["cores"] is None:
        p["cores"] = os.cpu_count() or 1
    if workload == "ring":
        if p["tokens"] > p["n"]:
            raise DriverError("bad_param", "tokens must be an integer in 1..n (%d), got '%d'"
                              % (p["n"], p["tokens"]))
        if not continuous and p["n"] * p["m"] * p["tokens"] >= MAX_HOPS:
            raise DriverError("bad_param", "n*m*tokens must be < 2^62")
    if workload in ("fanin", "selective") and p["n"] * p["m"] >= MAX_HOPS:
        raise DriverError("bad_param", "n*m must be < 2^62")
    if p["sample_ms"] > 0 and workload != "ring":
        raise DriverError("unsupported", "continuous mode (sample_ms>0) is defined only for ring")
    return p


def token_starts(p):
    """Where the ring's tokens are injected (contract section 3): spread, or all at p0 (burst)."""
    n, tokens = p["n"], p["tokens"]
    if p["burst"]:
        return [0] * tokens
    return [j * n // tokens for j in range(tokens)]


def expected_count(workload, p):
    if workload == "ring":
        return p["n"] * p["m"] * p["tokens"]
    if workload == "spawn":
        return p["n"]
    if workload == "pingpong":
        return p["m"]
    return p["n"] * p["m"]      # fanin, selective, trace


# ---------------------------------------------------------------- memory

def rss():
    """VmRSS of this process, bytes."""
    with open("/proc/self/status", "rb") as f:
        for line in f:
            if line.startswith(b"VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def kernel_stack():
    """KernelStack of /proc/meminfo, bytes: the kernel stacks of every thread on the machine,
    which RSS does not show (one 16 KiB stack per thread on x86-64)."""
    with open("/proc/meminfo", "rb") as f:
        for line in f:
            if line.startswith(b"KernelStack:"):
                return int(line.split()[1]) * 1024
    return 0


class Meter:
    """The clocks of one iteration's two phases, and the memory of the process's first spawn.

    Contract section 3: the spawn phase ends when main has seen every ready signal; then,
    untimed, one full collection (gc.collect(): CPython's single call for it); memory is read
    around the first spawn phase of the process only (the warm-up's when there is one),
    `*_after` after that collection, and every later iteration echoes those first values.
    The collectors stay on throughout: nothing is frozen or disabled.
    """

    def __init__(self, with_kernel_stack=False):
        self.with_kernel_stack = with_kernel_stack
        self.memory = None          # {"rss_before": ..., ...} of the first spawn phase
        self._before = None
        self.reset()

    def reset(self):
        self.ready = 0
        self.setup_ns = self.setup_cpu_ns = self.run_ns = self.run_cpu_ns = 0
        self.gc_spawn = self.gc_run = None

    def spawn_begins(self):
        if self.memory is None:
            self._before = (rss(), kernel_stack() if self.with_kernel_stack else 0)
        self._gc0 = gc.get_stats()
        self._c0 = process_time_ns()
        self._t0 = perf_counter_ns()

    def spawn_ends(self, ready):
        t1 = perf_counter_ns()
        c1 = process_time_ns()
        self.setup_ns = t1 - self._t0
        self.setup_cpu_ns = c1 - self._c0
        self.ready = ready
        self.gc_spawn = _gc_delta(self._gc0, gc.get_stats())
        gc.collect()
        if self.memory is None:
            mem = {"rss_before": self._before[0], "rss_after": rss()}
            if self.with_kernel_stack:
                mem["kernel_stack_before"] = self._before[1]
                mem["kernel_stack_after"] = kernel_stack()
            self.memory = mem

    def run_begins(self):
        self._gc2 = gc.get_stats()
        self._c2 = process_time_ns()
        self._t2 = perf_counter_ns()

    def run_ends(self):
        t3 = perf_counter_ns()
        c3 = process_time_ns()
        self.run_ns = t3 - self._t2
        self.run_cpu_ns = c3 - self._c2
        self.gc_run = _gc_delta(self._gc2, gc.get_stats())


def _gc_delta(before, after):
    return [(a["collections"] - b["collections"], a["collected"] - b["collected"])
            for b, a in zip(before, after)]


# ---------------------------------------------------------------- the driver program

class Runtime:
    """A driver's workload functions. Each is called as fn(p, meter, emit_hops) and returns the
    count it proved (None in continuous mode, after its samples). `emit_hops` is False for
    trace warm-ups, which print no hops."""

    def __init__(self, workloads):
        self.workloads = workloads

    def call(self, fn, p, meter, emit_hops):
        return fn(p, meter, emit_hops)

    def reset(self):
        """Between iterations (untimed)."""

    def stats(self):
        """Extra fields of the stats record: numbers only."""
        return {}


def serve(describe, prepare, options=None, selective_reason="", kernel_stack=False):
    """Run the driver program on sys.argv and exit.

    describe(variant) -> dict with runtime, version, workloads, features;
    prepare(variant, workload, p) -> Runtime (raises DriverError for unsupported/limit);
    options: {"--mode=x": "x"}: the leading options that select a variant.
    """
    try:
        rc = _main(sys.argv[1:], describe, prepare, options or {}, selective_reason, kernel_stack)
    except DriverError as e:
        die(e.kind, e.message)
    except MemoryError:
        die("limit", "memory: the Python heap could not grow (MemoryError); free memory or lower n")
    except Exception as e:  # noqa: BLE001 - any bug is a failure record, never a bare traceback
        traceback.print_exc(file=sys.stderr)
        die("failure", "%s: %s" % (type(e).__name__, e))
    flush()
    os._exit(rc)


def _main(argv, describe, prepare, options, selective_reason, with_kernel_stack):
    variant = ""
    while argv and argv[0].startswith("--"):
        opt = argv.pop(0)
        if opt not in options:
            known = ", ".join(options) or "none"
            raise DriverError("bad_param", "unknown option '%s' (known: %s)" % (opt, known))
        variant = options[opt]
    if not argv:
        raise DriverError("bad_param", "usage: driver.py [option] describe | run <workload> key=value...")
    verb = argv[0]
    if verb == "describe":
        if len(argv) > 1:
            raise DriverError("bad_param", "describe takes no arguments")
        d = describe(variant)
        emit({"type": "describe", "contract": CONTRACT, "name": d["name"], "runtime": d["runtime"],
              "version": d["version"], "workloads": d["workloads"], "features": d["features"],
              "variant": variant})
        return 0
    if verb != "run":
        raise DriverError("bad_param", "unknown verb '%s' (expected describe or run)" % verb)
    if len(argv) < 2:
        raise DriverError("bad_param", "run needs a workload: " + ", ".join(WORKLOAD_KEYS))
    workload = argv[1]
    if workload not in WORKLOAD_KEYS:
        raise DriverError("unknown_workload", "unknown workload '%s' (this driver knows: %s)"
                          % (workload, ", ".join(WORKLOAD_KEYS)))
    p = parse_params(workload, argv[2:])
    if workload == "selective" and selective_reason:
        raise DriverError("unsupported", selective_reason)
    rt = prepare(variant, workload, p)
    fn = rt.workloads[workload]
    meter = Meter(with_kernel_stack)

    if workload == "ring" and p["sample_ms"] > 0:
        rt.call(fn, p, meter, False)    # prints its samples
        flush()
        os._exit(0)                     # no teardown (contract section 5)

    expect = expected_count(workload, p)
    for it in range(1 - p["warmup"], p["repeats"] + 1):
        meter.reset()
        count = rt.call(fn, p, meter, it >= 1)
        if count != expect:
            raise DriverError("failure", "%s: count %d != expected %d" % (workload, count, expect))
        rt.reset()
        if it < 1:
            continue
        rec = {"type": "result", "workload": workload, "iteration": it}
        for k in WORKLOAD_KEYS[workload]:
            rec[k] = p[k]
        rec.update({"count": count, "ready": meter.ready, "setup_ns": meter.setup_ns, "run_ns": meter.run_ns,
                    "setup_cpu_ns": meter.setup_cpu_ns, "run_cpu_ns": meter.run_cpu_ns})
        rec.update(meter.memory)
        emit(rec)
        if p["stats"]:
            emit(stats_record(meter, rt))
        flush()
    return 0


def stats_record(meter, rt):
    """The cyclic GC's work inside each timed phase (the one untimed collection between them is
    not counted), and whatever the driver adds."""
    rec = {"type": "stats"}
    for phase, delta in (("spawn", meter.gc_spawn), ("run", meter.gc_run)):
        for gen, (collections, collected) in enumerate(delta or ()):
            rec["gc_%s_gen%d_collections" % (phase, gen)] = collections
            rec["gc_%s_gen%d_collected" % (phase, gen)] = collected
    rec["gc_enabled"] = 1 if gc.isenabled() else 0
    rec["gc_threshold0"], rec["gc_threshold1"], rec["gc_threshold2"] = gc.get_threshold()
    rec["rss_now"] = rss()
    rec.update(rt.stats())
    return rec


def python_version():
    """CPython's version and which interpreter binary runs (the manifest picks it)."""
    return "CPython %s (%s)" % (sys.version.split()[0], sys.executable)
