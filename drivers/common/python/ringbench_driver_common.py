"""What every Python driver shares: the contract, not the runtime's idiom (docs/driver-contract.md).

A driver finds this module through its manifest (`PYTHONPATH = "{dir}/../common/python"` in `[env]`),
imports it, and hands `serve` two functions:

- `describe(variant)`: a dict with the driver's `name`, `runtime`, `version`, `workloads`, `features`;
- `prepare(variant, workload, p)`: a `Runtime` whose methods are the workloads (raises `DriverError`
  for what the variant cannot honestly serve).

Everything else is here: the verbs and the `--variant=` option, parameters and bounds, the iteration
loop, the clocks, the one forced collection per process, the memory rule, the records, the collector
settings of `tuned` variants. Nothing here runs inside a timed phase except the clock reads that bound
it. The module runs on CPython 3.11 and on PyPy 3.9 (standard library only, no newer syntax).
"""
import _thread
import gc
import json
import os
import platform
import resource
import sys
import traceback  # imported up front: a failure under memory pressure must not need an import
from time import perf_counter_ns, process_time_ns

CONTRACT = 4
CLOCK = ("time.perf_counter_ns (CLOCK_MONOTONIC); CPU: time.process_time_ns (CLOCK_PROCESS_CPUTIME_ID); "
         "context switches: resource.getrusage(RUSAGE_SELF)")
EXIT = {"bad_param": 2, "unknown_workload": 2, "unsupported": 2, "limit": 3, "failure": 1}

# A token value for continuous mode: counted down by one per hop, it does not finish in any run.
ENDLESS_TOKEN = 1 << 62

# ---------------------------------------------------------------- output

_out: list[str] = []  # JSON Lines not yet written
# Where records go: stdout, unless perf (section 10) moved the snippets' own output to stderr and kept the
# original stdout for records here.
RECORDS = None


def emit(rec):
    """Queue one JSON Lines record; records are written in batches, never inside a timed phase."""
    _out.append(json.dumps(rec, separators=(",", ":")))
    if len(_out) >= 256:
        flush()


def flush():
    out = RECORDS or sys.stdout
    if _out:
        out.write("\n".join(_out) + "\n")
        _out.clear()
    out.flush()


def print_hop(hop, n, sender, receiver):
    """A trace record, printed as the hop happens (contract section 3, trace)."""
    emit({"type": "hop", "hop": hop, "lap": (hop - 1) // n + 1, "from": sender, "to": receiver})
    flush()


def print_sample(seq, elapsed_ns, count):
    """A continuous-mode sample (contract section 5)."""
    emit({"type": "sample", "seq": seq, "elapsed_ns": elapsed_ns, "count": count})
    flush()


class HopLog:
    """trace: counts the hops as the processes report them, and prints each unless a warm-up."""

    def __init__(self, n, printing):
        self.n = n
        self.printing = printing
        self.hops = 0

    def hop(self, sender, receiver):
        self.hops += 1
        if self.printing:
            print_hop(self.hops, self.n, sender, receiver)


class Laps:
    """Continuous mode: the laps p0 has counted, and when the next sample is due (single-threaded
    drivers, where p0 itself must wake main)."""

    __slots__ = ("count", "due")

    def __init__(self):
        self.count = 0
        self.due = 0


class DriverError(Exception):
    def __init__(self, kind, message):
        Exception.__init__(self, message)
        self.kind = kind
        self.message = message


_dying = _thread.allocate_lock()
_batching = False  # the verb is `batch`: each run's records end with a `done` record


def die(kind, message):
    """Print the error record and exit at once: os._exit, so that blocked threads cannot hang the exit.
    Callable from any thread; the first caller's record is the only one (later callers wait for the exit).
    Under `batch` the `done` record of the run follows the error record."""
    _dying.acquire()
    emit({"type": "error", "kind": kind, "message": message})
    if _batching:
        emit({"type": "done", "exit": EXIT[kind]})
    flush()
    os._exit(EXIT[kind])


def error_of(exc):
    """The (kind, message) of an exception that ended a run: a DriverError's own, MemoryError a `limit`,
    anything else a `failure` (its traceback on stderr)."""
    if isinstance(exc, DriverError):
        return exc.kind, exc.message
    if isinstance(exc, MemoryError):
        return "limit", "memory: the Python heap could not grow (MemoryError); free memory or lower n"
    traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
    return "failure", f"{type(exc).__name__}: {exc}"


def die_in_thread(unraisable):
    """sys.unraisablehook for drivers whose processes are threads: an exception that ends a process
    thread (which Python would only print) ends the driver with an error record, rather than leaving
    main waiting for a message that will never come."""
    exc = unraisable.exc_value
    if isinstance(exc, DriverError):
        die(exc.kind, exc.message)
    if isinstance(exc, MemoryError):
        die("limit", "memory: a process thread could not allocate (MemoryError); free memory or lower n")
    traceback.print_exception(unraisable.exc_type, exc, unraisable.exc_traceback, file=sys.stderr)
    die("failure", f"in a process thread: {type(exc).__name__}: {exc}")


# ---------------------------------------------------------------- parameters (sections 2 and 6)

WORKLOAD_KEYS = {
    "ring": ("n", "m", "tokens", "burst"),
    "spawn": ("n",),
    "pingpong": ("m",),
    "fanin": ("n", "m"),
    "selective": ("n", "m", "reverse"),
    "tree": ("n", "fanout"),
    "trace": ("n", "m"),
}
REQUIRED = {
    "ring": ("n", "m"),  # m may be left out in continuous mode
    "spawn": ("n",),
    "pingpong": ("m",),
    "fanin": ("n", "m"),
    "selective": ("n", "m"),
    "tree": ("n",),
    "trace": ("n", "m"),
}
KEY_DEFAULTS = {"tokens": 1, "burst": 0, "reverse": 0, "fanout": 10}
COMMON_DEFAULTS = {"repeats": 1, "warmup": 0, "cores": None, "sample_ms": 0, "samples": 3, "stats": 0}
# Inclusive. tokens is further bounded by n, trace's n and m by TRACE_MAX, tree's n by the power rule.
BOUNDS = {
    "n": (1, 100_000_000),
    "m": (1, 1_000_000_000),
    "tokens": (1, 100_000_000),
    "burst": (0, 1),
    "reverse": (0, 1),
    "fanout": (2, 1_000),
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
        return f"{key} must be 0 or 1"
    return f"{key} must be an integer in {lo}..{hi}"


def parse_params(workload, args):
    """key=value arguments to a dict with every key of the workload and the common keys filled in."""
    allowed = WORKLOAD_KEYS[workload]
    p = {}
    for a in args:
        key, eq, val = a.partition("=")
        if not eq or not key:
            raise DriverError("bad_param", f"expected key=value, got '{a}'")
        if key not in allowed and key not in COMMON_DEFAULTS:
            raise DriverError("bad_param", f"unknown key '{key}' for workload {workload} "
                              f"(allowed: {', '.join(allowed + tuple(COMMON_DEFAULTS))})")
        if key in p:
            raise DriverError("bad_param", f"key '{key}' given twice")
        lo, hi = BOUNDS[key]
        if workload == "trace" and key in ("n", "m"):
            hi = TRACE_MAX
        # ASCII digits only: no sign, no blanks, no other scripts' digits (int() accepts all three)
        if not (val.isascii() and val.isdigit()):
            raise DriverError("bad_param", f"{bound_text(key, lo, hi)}, got '{val}'")
        v = int(val) if len(val) <= 30 else hi + 1  # int() refuses very long digit strings
        if not lo <= v <= hi:
            raise DriverError("bad_param", f"{bound_text(key, lo, hi)}, got '{val}'")
        p[key] = v
    continuous = workload == "ring" and p.get("sample_ms", 0) > 0
    for key in REQUIRED[workload]:
        if key not in p and not (continuous and key == "m"):
            raise DriverError("bad_param", f"missing required key '{key}' for workload {workload}")
    for key in allowed:
        if key in KEY_DEFAULTS:
            p.setdefault(key, KEY_DEFAULTS[key])
    for key, dflt in COMMON_DEFAULTS.items():
        p.setdefault(key, dflt)
    if p["cores"] is None:
        p["cores"] = os.cpu_count() or 1
    if workload == "ring":
        if p["tokens"] > p["n"]:
            raise DriverError("bad_param", f"tokens must be an integer in 1..n ({p['n']}), got '{p['tokens']}'")
        if not continuous and p["n"] * p["m"] * p["tokens"] >= MAX_HOPS:
            raise DriverError("bad_param", "n*m*tokens must be < 2^62")
    if workload in ("fanin", "selective") and p["n"] * p["m"] >= MAX_HOPS:
        raise DriverError("bad_param", "n*m must be < 2^62")
    if workload == "tree":
        check_power_of_fanout(p["n"], p["fanout"])
    if p["sample_ms"] > 0 and workload != "ring":
        raise DriverError("unsupported", "continuous mode (sample_ms>0) is defined only for ring")
    return p


def check_power_of_fanout(n, fanout):
    """tree's n (leaves) must be fanout^k for some k >= 0."""
    power = 1
    while power < n:
        power *= fanout
    if power != n:
        below = power // fanout
        raise DriverError("bad_param", f"tree's n (leaves) must be a power of the fanout {fanout}, got {n} "
                          f"(the nearest valid sizes are {below} and {power})")


def token_starts(p):
    """Where the ring's tokens are injected: spread (token j at p(j*n div tokens)), or all at p0 (burst)."""
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
    if workload == "tree":
        return p["n"] * (p["n"] - 1) // 2
    return p["n"] * p["m"]  # fanin, selective, trace


# ---------------------------------------------------------------- memory (section 3)

def proc_status():
    """VmRSS and VmHWM (bytes) and Threads of /proc/self/status."""
    out = {}
    with open("/proc/self/status", "rb") as f:
        for line in f:
            if line.startswith((b"VmRSS:", b"VmHWM:")):
                out[line[:5].decode()] = int(line.split()[1]) * 1024
            elif line.startswith(b"Threads:"):
                out["Threads"] = int(line.split()[1])
    return out


def threads_now():
    """The OS threads of this process (Threads: of /proc/self/status)."""
    return proc_status()["Threads"]


def reset_peak_rss():
    """Reset the kernel's peak-RSS mark (VmHWM) to the current RSS: write 5 to /proc/self/clear_refs."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


# ---------------------------------------------------------------- the collector

def collector_name():
    """The collector of this process, by the runtime's own name (the manifest's `collector`)."""
    if sys.implementation.name == "pypy":
        return "pypy incminimark"
    return "cpython refcount+cyclic"


def _gc_counts():
    """Collections and collected objects per generation so far (CPython's gc.get_stats; [] elsewhere)."""
    if sys.implementation.name != "cpython":
        return []
    return [(g["collections"], g["collected"]) for g in gc.get_stats()]


def _gc_delta(before, after):
    return [(after[g][0] - before[g][0], after[g][1] - before[g][1]) for g in range(len(after))]


class PyPyCollector:
    """PyPy's incminimark collector, read through its documented interfaces only (PyPy's
    pypy/doc/gc_info.rst, "GC hooks" and "get_stats"): `gc.hooks` counts minor collections, major steps
    and major collections and keeps the memory each reports (`total_memory_used` at the end of a minor
    collection; `arenas_bytes`, `rawmalloc_bytes_after` at the end of a major one), and
    `gc.get_stats().total_gc_time` is the time spent collecting, in ms (the one figure GcStats gives as
    a number: the others are formatted text). Made only when statistics are asked for: a hook is a
    Python call per collection."""

    def __init__(self):
        self.minor = self.steps = self.major = 0
        self.memory_used = self.arenas_bytes = self.rawmalloc_bytes = 0
        gc.hooks.set(self)  # on_gc_minor, on_gc_collect_step, on_gc_collect below

    def on_gc_minor(self, stats):
        self.minor += stats.count
        self.memory_used = stats.total_memory_used

    def on_gc_collect_step(self, stats):
        self.steps += stats.count

    def on_gc_collect(self, stats):
        self.major += stats.count
        self.arenas_bytes = stats.arenas_bytes
        self.rawmalloc_bytes = stats.rawmalloc_bytes_after

    COUNTS = ("gc_minor_collections", "gc_major_steps", "gc_major_collections", "gc_time_ms")

    def counts(self):
        """The figures of COUNTS so far (a stats record gives their change)."""
        return [self.minor, self.steps, self.major, gc.get_stats().total_gc_time]

    def memory(self):
        """The memory figures as of the last collection that reported them, in bytes."""
        return {"gc_memory_used": self.memory_used, "gc_arenas_bytes": self.arenas_bytes,
                "gc_rawmalloc_bytes": self.rawmalloc_bytes}


# The settings of `tuned` variants, each with its source (README of each driver):
# - gc.freeze() once start-up is over: the objects alive then (modules, classes, functions) go to the
#   permanent generation and no later collection scans them. docs.python.org/3.11/library/gc.html#gc.freeze
#   ("... or to speed up collection"); the rationale in python/cpython#75739 (bpo-31558): start-up
#   objects are cold data that every full collection walks again.
# - gc.set_threshold(2000, 10, 10): generation 0 is collected after 2,000 net new container objects
#   instead of 700. docs.python.org/3/library/gc.html#gc.set_threshold (the collection frequency);
#   2,000 is CPython's own default in its current sources (GC_GENERATION_INIT in
#   Include/internal/pycore_interp_structs.h), against 700 in the 3.11 that runs here.
TUNED_GC_THRESHOLD = (2000, 10, 10)


def tune_collector():
    if sys.implementation.name != "cpython":
        raise DriverError("unsupported", "the tuned collector settings are CPython's (gc.freeze, gc.set_threshold)")
    gc.set_threshold(*TUNED_GC_THRESHOLD)
    gc.freeze()


# ---------------------------------------------------------------- phases and memory rule (section 3)

def context_switches():
    """Voluntary and involuntary context switches of the whole process (every thread, those that ended
    too) so far: getrusage(RUSAGE_SELF)'s ru_nvcsw and ru_nivcsw (contract section 4)."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_nvcsw, ru.ru_nivcsw


class Meter:
    """The clocks of one iteration's phases, and the memory of the process's first spawn (or tree).

    Ring-like workloads: spawn_begins / spawn_ends(ready) bound setup_ns; run_begins / run_ends
    bound run_ns. The tree: tree_begins / tree_ends bound run_ns; the peak is read just after. Each
    mark reads the context switches outside the clocks (before the CPU clock at a start, after it at
    an end), so the getrusage call is in neither the wall nor the CPU figure. Memory is read around
    the first spawn phase (or tree) of the process only, the warm-up's when there is one, *_after
    after the process's one forced collection (gc.collect(), untimed); every later iteration echoes
    those first values and forces no collection. The collector stays on throughout.
    """

    def __init__(self, threads=False):
        self.threads = threads  # report threads_before/threads_after (one OS thread per process)
        self.memory = None      # {"rss_before": ..., ...} of the first spawn phase or tree
        self._before = None
        self.reset()

    def reset(self):
        self.ready = None
        self.setup_ns = self.setup_cpu_ns = self.run_ns = self.run_cpu_ns = 0
        self.setup_vcsw = self.setup_ivcsw = self.run_vcsw = self.run_ivcsw = 0
        self.gc_spawn = self.gc_run = None

    def _remember_before(self):
        if self.memory is None:
            self._before = proc_status()

    def _remember_after(self, **extra):
        if self.memory is None:
            gc.collect()  # the process's one forced collection, with its one memory reading
            now = proc_status()
            mem = {"rss_before": self._before["VmRSS"], "rss_after": now["VmRSS"]}
            mem.update(extra)
            if self.threads:
                mem["threads_before"] = self._before["Threads"]
                mem["threads_after"] = now["Threads"]
            self.memory = mem

    def spawn_begins(self):
        self._remember_before()
        self._gc0 = _gc_counts()
        self._cs0 = context_switches()
        self._c0 = process_time_ns()
        self._t0 = perf_counter_ns()

    def spawn_ends(self, ready):
        t1 = perf_counter_ns()
        c1 = process_time_ns()
        cs1 = context_switches()
        self.setup_ns = t1 - self._t0
        self.setup_cpu_ns = c1 - self._c0
        self.setup_vcsw = cs1[0] - self._cs0[0]
        self.setup_ivcsw = cs1[1] - self._cs0[1]
        self.ready = ready
        self.gc_spawn = _gc_delta(self._gc0, _gc_counts())
        self._remember_after()

    def run_begins(self):
        self._gc2 = _gc_counts()
        self._cs2 = context_switches()
        self._c2 = process_time_ns()
        self._t2 = perf_counter_ns()

    def run_ends(self):
        t3 = perf_counter_ns()
        c3 = process_time_ns()
        cs3 = context_switches()
        self.run_ns = t3 - self._t2
        self.run_cpu_ns = c3 - self._c2
        self.run_vcsw = cs3[0] - self._cs2[0]
        self.run_ivcsw = cs3[1] - self._cs2[1]
        self.gc_run = _gc_delta(self._gc2, _gc_counts())

    def tree_begins(self):
        if self.memory is None:
            self._remember_before()
            reset_peak_rss()
        self.run_begins()

    def tree_ends(self):
        self.run_ends()
        peak = proc_status()["VmHWM"] if self.memory is None else 0
        self._remember_after(rss_peak=peak)


# ---------------------------------------------------------------- the driver program

class Runtime:
    """A driver's workloads: a method per workload, called as method(p, meter, emit_hops), returning the
    count it proved (None in continuous mode, after its samples). `emit_hops` is False for trace
    warm-ups, which print no hops."""

    def run(self, workload, p, meter, emit_hops):
        return getattr(self, workload)(p, meter, emit_hops)

    def reset(self):
        """Between iterations (untimed)."""

    def stats(self):
        """Extra fields of the stats record: numbers only."""
        return {}

    def close(self):
        """`batch` only, after a run (or its refusal), before its `done` record: release what the run
        left behind, so the next run starts as in a fresh process. A continuous ring's processes
        circulate their tokens for ever (`run` exits without teardown): they end here. Nothing to do
        for a runtime whose runs end every process and own nothing that outlives them."""


class _Serving:
    """What `serve` was given, and the Runtime of the run in progress (`batch` closes it)."""

    def __init__(self, prepare, variant, tuned, threads, selective_reason):
        self.prepare = prepare
        self.variant = variant
        self.tuned = variant in tuned
        self.threads = threads
        self.selective_reason = selective_reason
        self.rt = None


def serve(describe, prepare, variants, tuned=("tuned",), threads=False, selective_reason="", perf=False):
    """Run the driver program on sys.argv and exit.

    variants: the names `--variant=` accepts (the first is the default); tuned: those that apply the
    collector settings above; threads: one OS thread per process (threads_* in the memory record);
    perf: the driver runs the user's own code (`perf <job.json>`, contract section 10, ringbench_perf).
    """
    try:
        rc = _main(sys.argv[1:], describe, prepare, variants, tuned, threads, selective_reason, perf)
    except Exception as e:  # noqa: BLE001 - any bug is a failure record, never a bare traceback
        die(*error_of(e))
    flush()
    os._exit(rc)


def _variant(argv, variants):
    variant = variants[0]
    if argv and argv[0].startswith("--"):
        opt = argv.pop(0)
        name = opt[len("--variant="):] if opt.startswith("--variant=") else None
        if name not in variants:
            raise DriverError("bad_param", f"unknown option '{opt}' (known: "
                              f"{', '.join('--variant=' + v for v in variants)})")
        variant = name
    return variant


def _main(argv, describe, prepare, variants, tuned, threads, selective_reason, perf=False):
    variant = _variant(argv, variants)
    if not argv:
        raise DriverError("bad_param", "usage: driver.py [--variant=NAME] describe | run <workload> key=value... "
                          "| batch | perf <job.json>")
    if argv[0] == "perf" and perf:
        import ringbench_perf  # the family's perf runner, beside this module
        return ringbench_perf.run(argv[1:], processes_ok=True)
    verb = argv[0]
    if verb == "describe":
        if len(argv) > 1:
            raise DriverError("bad_param", "describe takes no arguments")
        d = describe(variant)
        features = list(d["features"]) + [f for f in FAMILY_FEATURES if f not in d["features"]]
        emit({"type": "describe", "contract": CONTRACT, "name": d["name"], "runtime": d["runtime"],
              "version": d["version"], "workloads": d["workloads"], "features": features,
              "variant": variant, "clock": CLOCK, "collector": collector_name()})
        return 0
    serving = _Serving(prepare, variant, tuned, threads, selective_reason)
    if verb == "run":
        return _run(argv[1:], serving)
    if verb == "batch":
        if len(argv) > 1:
            raise DriverError("bad_param", "batch takes no arguments: each line of its input is one run's, "
                              "tab-separated")
        return _batch(serving)
    raise DriverError("bad_param", f"unknown verb '{verb}' (expected describe, run or batch)")


# What every driver of the family serves, whatever its variant: `batch` (contract section 2).
FAMILY_FEATURES = ("batch",)


def _run(args, serving):
    """`run <args>`: its records; the exit status (0), or a DriverError for a refusal or a failure."""
    if not args:
        raise DriverError("bad_param", "run needs a workload: " + ", ".join(WORKLOAD_KEYS))
    workload = args[0]
    if workload not in WORKLOAD_KEYS:
        raise DriverError("unknown_workload", f"unknown workload '{workload}' "
                          f"(this driver knows: {', '.join(WORKLOAD_KEYS)})")
    p = parse_params(workload, args[1:])
    if workload == "selective" and serving.selective_reason:
        raise DriverError("unsupported", serving.selective_reason)
    rt = serving.rt = serving.prepare(serving.variant, workload, p)
    if serving.tuned:
        tune_collector()  # start-up is over: the runtime is built, nothing measured yet
    meter = Meter(serving.threads)

    if workload == "ring" and p["sample_ms"] > 0:
        rt.run(workload, p, meter, False)  # prints its samples
        flush()
        if _batching:
            return 0  # the batch ends the ring's processes (Runtime.close)
        os._exit(0)  # no teardown (contract section 5)

    expect = expected_count(workload, p)
    for it in range(1 - p["warmup"], p["repeats"] + 1):
        meter.reset()
        count = rt.run(workload, p, meter, it >= 1)
        if count != expect:
            raise DriverError("failure", f"{workload}: count {count} != expected {expect}")
        rt.reset()
        if it < 1:
            continue
        emit(result_record(workload, it, p, count, meter))
        if p["stats"]:
            emit(stats_record(workload, it, meter, rt))
        flush()  # each result as its iteration ends
    return 0


def _batch(serving, lines=None):
    """`batch` (contract section 2): each line of stdin (UTF-8) holds the arguments of one `run`,
    separated by tabs (an empty line: none). Each is answered as `run` would answer it, then with
    {"type":"done","exit":E}, E the status `run` would exit with. After E = 1 or 3 the driver exits
    with E; at the end of the input, with 0. `lines`: an iterable of byte lines in place of stdin
    (the family's test)."""
    global _batching
    _batching = True
    threshold = gc.get_threshold() if hasattr(gc, "get_threshold") else None  # CPython's
    for raw in iter(sys.stdin.buffer.readline, b"") if lines is None else lines:
        line = raw[:-1] if raw.endswith(b"\n") else raw
        args = line.decode("utf-8", "surrogateescape").split("\t") if line else []
        serving.rt = None
        try:
            status = _run(args, serving)
        except Exception as e:  # noqa: BLE001 - answered as `run` answers it, an error record
            kind, message = error_of(e)
            emit({"type": "error", "kind": kind, "message": message})
            status = EXIT[kind]
        if status in (0, 2):
            try:
                _release(serving, threshold)
            except Exception as e:  # noqa: BLE001 - a run that cannot be released ends the batch
                kind, message = error_of(e)
                emit({"type": "error", "kind": kind, "message": f"after the run: {message}"})
                status = EXIT[kind]
        emit({"type": "done", "exit": status})
        flush()
        if status not in (0, 2):
            os._exit(status)  # failure, limit: the runtime may be in a state a fresh process is not
    return 0


def _release(serving, threshold):
    """Between two runs of a batch: the run's own release (Runtime.close), then the collector as a fresh
    process has it (a tuned run's settings undone, PyPy's hooks removed)."""
    rt, serving.rt = serving.rt, None
    if rt is not None:
        rt.close()
    if serving.tuned and threshold is not None:
        gc.unfreeze()
        gc.set_threshold(*threshold)
    hooks = getattr(gc, "hooks", None)  # PyPy: PyPyCollector's, set by a run with stats=1
    if hooks is not None:
        hooks.reset()


def result_record(workload, iteration, p, count, meter):
    rec = {"type": "result", "workload": workload, "iteration": iteration}
    for k in WORKLOAD_KEYS[workload]:
        rec[k] = p[k]
    rec["count"] = count
    if meter.ready is not None:
        rec["ready"] = meter.ready
    rec.update({"setup_ns": meter.setup_ns, "run_ns": meter.run_ns,
                "setup_cpu_ns": meter.setup_cpu_ns, "run_cpu_ns": meter.run_cpu_ns,
                "setup_vcsw": meter.setup_vcsw, "setup_ivcsw": meter.setup_ivcsw,
                "run_vcsw": meter.run_vcsw, "run_ivcsw": meter.run_ivcsw})
    rec.update(meter.memory or {})
    return rec


def stats_record(workload, iteration, meter, rt):
    """The cyclic collector's work inside each timed phase (the process's one untimed forced
    collection is not counted), its settings, and whatever the driver adds."""
    rec = {"type": "stats", "workload": workload, "iteration": iteration}
    for phase, delta in (("spawn", meter.gc_spawn), ("run", meter.gc_run)):
        for gen, (collections, collected) in enumerate(delta or ()):
            rec[f"gc_{phase}_gen{gen}_collections"] = collections
            rec[f"gc_{phase}_gen{gen}_collected"] = collected
    rec["gc_enabled"] = 1 if gc.isenabled() else 0
    if hasattr(gc, "get_threshold"):
        rec["gc_threshold0"], rec["gc_threshold1"], rec["gc_threshold2"] = gc.get_threshold()
        rec["gc_frozen"] = gc.get_freeze_count()
    rec["rss_now"] = proc_status()["VmRSS"]
    rec.update(rt.stats())
    return rec


def python_version():
    """The interpreter's implementation and version, and which binary runs (the manifest picks it)."""
    impl = platform.python_implementation()
    if impl == "PyPy":
        v = sys.pypy_version_info
        return f"PyPy {v.major}.{v.minor}.{v.micro} (Python {platform.python_version()}) ({sys.executable})"
    return f"{impl} {platform.python_version()} ({sys.executable})"
