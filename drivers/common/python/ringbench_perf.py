"""Perf (docs/driver-contract.md, section 11) for Python drivers: the user's own code in a tight loop.

    driver.py [--variant=NAME] perf /tmp/job.json

A snippet's code runs in a namespace of its own (a fresh module dictionary): `init` and a runner or hook
written as definitions are executed there, so what `init` imports or assigns is seen by the rest as
globals. Each worker is one generated function (compiled from an AST, nothing re-indented by hand) in
which `init_runner`'s statements run as locals, as `timeit`'s setup does, and a runner written as
statements is inlined in the loop `for _ in itertools.repeat(None, k): <stmt>`, timeit's own loop; a
runner written as a function is called from it. A worker adds its iterations to its own slot of the
count after each chunk of k (k doubles from 1 until a chunk takes 1 % of the sample period), so a sample
lags the true count by less than one chunk a worker, and `total` is exact: a stopped worker finishes its
chunk.

Workers are threads (they share the GIL, as Python threads do) or, with `processes`, forked OS
processes counting into shared memory. init, done and the sampling run in the main thread; timed mode
runs its one worker in the main thread too. What a snippet prints goes to stderr: records are written
to the job's `records` descriptor (without it, to the original stdout).

The module runs on CPython 3.11 (python-threads) and on PyPy 3.9 (the pypy driver): standard library
only, no syntax or keyword newer than 3.9.
"""
import ast
import builtins
import ctypes
import gc
import importlib
import inspect
import itertools
import json
import mmap
import os
import re
import signal
import sys
import threading
import time
import traceback
from time import perf_counter_ns, process_time_ns

import ringbench_driver_common as common
from ringbench_driver_common import DriverError

KEYS = ("perf", "mode", "snippets", "concurrency", "loop", "samples", "sample_ms", "warmup", "ask", "max_samples",
        "min", "max", "processes", "code_path", "stats", "cores")
OPTIONAL_KEYS = ("records",)  # the descriptor the records go to (stdout without it)
SNIPPET_KEYS = ("snippet", "runner", "init", "init_runner", "done", "file")
MODES = ("continuous", "timed", "squeeze", "check")
HOOKS = ("init", "init_runner", "done")
REFERENCE = re.compile(r"^([A-Za-z_][\w.]*):([A-Za-z_][\w.]*)(?:/([0-9]+))?$")
MAX_CHUNK = 1 << 30


class Failure(Exception):
    """A hook or the runner raised: the snippet, the phase and the exception's own text."""

    def __init__(self, snippet, phase, exc):
        Exception.__init__(self, "".join(traceback.format_exception_only(type(exc), exc)).strip())
        self.snippet = snippet
        self.phase = phase


def fail_record(snippet, phase, message):
    common.emit({"type": "error", "kind": "failure", "snippet": snippet, "phase": phase, "message": message})
    common.flush()
    os._exit(common.EXIT["failure"])


# ---------------------------------------------------------------- the job file

def read_job(path):
    try:
        with open(path, encoding="utf-8") as f:
            job = json.load(f)
    except OSError as e:
        raise DriverError("bad_param", f"cannot read the job file {path}: {e.strerror}") from None
    except ValueError as e:
        raise DriverError("bad_param", f"the job file is not JSON: {e}") from None
    if not isinstance(job, dict):
        raise DriverError("bad_param", "the job file is not a JSON object")
    _exact_keys({k: v for k, v in job.items() if k not in OPTIONAL_KEYS}, KEYS, "the job")
    if "records" in job:
        _int(job, "records", 3, 1 << 20)
    _int(job, "perf", 1, 1)
    if job["mode"] not in MODES:
        raise DriverError("bad_param", f"unknown mode {job['mode']!r} (continuous, timed, squeeze or check)")
    for key, lo, hi in (("concurrency", 1, 1 << 27), ("loop", 0, 1 << 62), ("samples", 1, 1_000_000),
                        ("sample_ms", 1, 86_400_000), ("warmup", 0, 1_000_000), ("max_samples", 1, 1_000_000),
                        ("min", 1, 1 << 27), ("max", 1, 1 << 27), ("cores", 1, 1024)):
        _int(job, key, lo, hi)
    for key in ("ask", "processes", "stats"):
        if not isinstance(job[key], bool):
            raise DriverError("bad_param", f"{key} must be true or false")
    if not isinstance(job["code_path"], list) or not all(isinstance(p, str) for p in job["code_path"]):
        raise DriverError("bad_param", "code_path must be a list of strings")
    if not isinstance(job["snippets"], list) or not job["snippets"]:
        raise DriverError("bad_param", "snippets must be a non-empty list")
    for s in job["snippets"]:
        if not isinstance(s, dict):
            raise DriverError("bad_param", "each snippet must be a JSON object")
        _exact_keys(s, SNIPPET_KEYS, "a snippet")
        _int(s, "snippet", 1, 1_000_000)
        if not isinstance(s["runner"], str) or not all(s[h] is None or isinstance(s[h], str) for h in HOOKS):
            raise DriverError("bad_param", f"snippet {s['snippet']}: the runner and hooks must be strings")
    return job


def _exact_keys(d, keys, what):
    missing = [k for k in keys if k not in d]
    unknown = [k for k in d if k not in keys]
    if missing:
        raise DriverError("bad_param", f"{what} has no key {missing[0]}")
    if unknown:
        raise DriverError("bad_param", f"{what} has an unknown key {unknown[0]}")


def _int(d, key, lo, hi):
    v = d[key]
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise DriverError("bad_param", f"{key} must be an integer in {lo}..{hi}, got {v!r}")


# ---------------------------------------------------------------- code: what each piece is

class Code:
    """One piece of code: `kind` is statements, definitions (the first function is the one meant) or a
    reference (module:function); `arity` what it is given."""

    def __init__(self, snippet, what, text):
        self.snippet, self.what, self.text = snippet, what, text
        self.tree = None
        self.func = None  # the function named by a definition or a reference, once loaded
        ref = REFERENCE.match(text.strip())
        if ref and "\n" not in text.strip():
            self.kind = "reference"
            self.module, self.attr, given = ref.group(1), ref.group(2), ref.group(3)
            self.arity = int(given) if given is not None else None
            return
        try:
            self.tree = ast.parse(text, f"<snippet {snippet} {what}>")
        except SyntaxError as e:
            raise DriverError("bad_param", f"snippet {snippet}, {what}: line {e.lineno}: {e.msg}") from None
        body = self.tree.body
        if not body:
            raise DriverError("bad_param", f"snippet {snippet}, {what}: no code")
        defs = [s for s in body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
        module_like = all(isinstance(s, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef, ast.Assign,
                                         ast.AnnAssign)) for s in body)
        if defs and module_like:
            self.kind = "definitions"
            f = defs[0]
            if isinstance(f, ast.AsyncFunctionDef):
                raise DriverError("bad_param", f"snippet {snippet}, {what}: {f.name} is a coroutine function")
            self.name = f.name
            positional = f.args.posonlyargs + f.args.args
            self.arity = len(positional) - len(f.args.defaults)
        else:
            self.kind = "statements"
            self.arity = 0
            if what == "runner":
                _refuse_loop_control(snippet, body)

    def load(self, ns):
        """Define what the code defines in the snippet's namespace (definitions), or find the function it
        names (reference); statements are compiled where they run."""
        if self.kind == "definitions":
            exec(compile(self.tree, f"<snippet {self.snippet} {self.what}>", "exec"), ns)
            self.func = ns[self.name]
        elif self.kind == "reference":
            try:
                obj = importlib.import_module(self.module)
                for part in self.attr.split("."):
                    obj = getattr(obj, part)
            except Exception as e:  # noqa: BLE001 - the import's own message, as bad input
                raise DriverError("bad_param", f"snippet {self.snippet}, {self.what}: {self.text.strip()}: "
                                  f"{type(e).__name__}: {e}") from None
            if not callable(obj):
                raise DriverError("bad_param", f"snippet {self.snippet}, {self.what}: {self.text.strip()} "
                                  "is not callable")
            self.func = obj
            if self.arity is None:
                self.arity = _required_positional(obj)


def _required_positional(f):
    try:
        params = inspect.signature(f).parameters.values()
    except (TypeError, ValueError):
        return 0  # a builtin without a signature: called with no arguments unless /N says otherwise
    return sum(1 for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty)


def _refuse_loop_control(snippet, body):
    """A runner's statements are the body of ringbench's loop: break, continue, return or yield there would
    change the loop, not the snippet."""
    todo = list(body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            todo += node.orelse  # break/continue in the loop's body belong to that loop
            todo += [n for s in node.body for n in ast.walk(s) if isinstance(n, (ast.Return, ast.Yield,
                                                                                 ast.YieldFrom))]
            continue
        if isinstance(node, (ast.Break, ast.Continue, ast.Return, ast.Yield, ast.YieldFrom)):
            raise DriverError("bad_param", f"snippet {snippet}, runner: {type(node).__name__.lower()} outside a "
                              "loop of the snippet's own (the runner's statements are the body of ringbench's loop)")
        todo += list(ast.iter_child_nodes(node))


class Snippet:
    def __init__(self, spec):
        self.k = spec["snippet"]
        self.runner = Code(self.k, "runner", spec["runner"])
        self.hooks = {h: Code(self.k, h, spec[h]) for h in HOOKS if spec[h] is not None}
        self.check_arities()
        self.ns = {"__name__": f"__ringbench_perf_{self.k}__", "__builtins__": builtins}

    def hook(self, name):
        return self.hooks.get(name)

    def check_arities(self):
        k, ra = self.k, self.runner.arity
        init, ir, done = self.hook("init"), self.hook("init_runner"), self.hook("done")
        if ra is not None and ra > 2:
            raise DriverError("bad_param", f"snippet {k}: the runner takes {ra} arguments; it may take 0, "
                              "1 (init_runner's value) or 2 (that value and the state)")
        if ra and ir is None:
            raise DriverError("bad_param", f"snippet {k}: runner/{ra} requires init_runner (it is given "
                              "init_runner's value)")
        if init is not None and init.arity:
            raise DriverError("bad_param", f"snippet {k}: init takes no arguments (init/{init.arity})")
        for name, hook in (("init_runner", ir), ("done", done)):
            if hook is None or hook.arity is None:
                continue
            if hook.arity > 1:
                raise DriverError("bad_param", f"snippet {k}: {name} takes 0 or 1 argument (init's value), "
                                  f"not {hook.arity}")
            if hook.arity == 1 and init is None:
                raise DriverError("bad_param", f"snippet {k}: {name}/1 requires init (it is given init's value)")

    def load(self):
        """Everything defined and imported, in order: hooks, then the runner. A reference's arity is known
        only once its module is imported, so the arities are checked again."""
        for code in list(self.hooks.values()) + [self.runner]:
            code.load(self.ns)
        self.check_arities()
        self.ns["_rb_repeat"] = itertools.repeat


# ---------------------------------------------------------------- generated functions

WORKER = """
def _rb_worker(_rb_i, _rb_w):
    _rb_a = None
    _rb_f = _rb_w.runner_func
    _RB_INIT_RUNNER
    _rb_s = _rb_a
    _rb_k = _rb_w.started()
    _rb_counts = _rb_w.counts
    _rb_slot = _rb_w.slot
    _rb_stop = _rb_w.stop
    _rb_clock = _rb_w.clock
    _rb_target = _rb_w.chunk_ns
    while not _rb_stop[0]:
        _rb_t0 = _rb_clock()
        for _rb_j in _rb_repeat(None, _rb_k):
            _RB_RUNNER
        _rb_counts[_rb_slot] += _rb_k
        if _rb_k < _rb_w.max_chunk and _rb_clock() - _rb_t0 < _rb_target:
            _rb_k += _rb_k
"""

TIMED = """
def _rb_timed(_rb_i, _rb_w):
    _rb_a = None
    _rb_f = _rb_w.runner_func
    _RB_INIT_RUNNER
    _rb_w.started()
    _rb_clock = _rb_w.clock
    _rb_cpu = _rb_w.cpu
    for _rb_n in _rb_w.plan:
        _rb_s = _rb_a  # each sample starts the state afresh, as erlperf's timed samples do
        _rb_it = _rb_repeat(None, _rb_n)
        _rb_c0 = _rb_cpu()
        _rb_t0 = _rb_clock()
        for _rb_j in _rb_it:
            _RB_RUNNER
        _rb_t1 = _rb_clock()
        _rb_c1 = _rb_cpu()
        _rb_w.report(_rb_t1 - _rb_t0, _rb_c1 - _rb_c0)
"""


def _statements(text):
    return ast.parse(text).body


def _generate(template, snippet):
    """The template with its two placeholders replaced by the snippet's init_runner and runner."""
    tree = ast.parse(template)
    ir, runner = snippet.hook("init_runner"), snippet.runner

    if ir is None:
        ir_body = [ast.Pass()]
    elif ir.kind == "statements":
        ir_body = list(ir.tree.body)
        last = ir_body[-1]
        if isinstance(last, ast.Expr):  # its value is init_runner's value
            ir_body[-1] = ast.Assign(targets=[ast.Name("_rb_a", ast.Store())], value=last.value)
            ast.copy_location(ir_body[-1], last)
    else:
        ir_body = _statements("_rb_a = _rb_w.init_runner_func(_rb_i)" if ir.arity == 1
                              else "_rb_a = _rb_w.init_runner_func()")
    if runner.kind == "statements":
        runner_body = list(runner.tree.body)
    else:
        runner_body = _statements({0: "_rb_f()", 1: "_rb_f(_rb_a)", 2: "_rb_s = _rb_f(_rb_a, _rb_s)"}[runner.arity])

    class Fill(ast.NodeTransformer):
        def visit_Expr(self, node):
            if isinstance(node.value, ast.Name) and node.value.id == "_RB_INIT_RUNNER":
                return ir_body
            if isinstance(node.value, ast.Name) and node.value.id == "_RB_RUNNER":
                return runner_body
            return node

    tree = ast.fix_missing_locations(Fill().visit(tree))
    return compile(tree, f"<snippet {snippet.k} runner>", "exec")


def _value_of(code, ns, args):
    """Run a hook: statements in the namespace (the value of the last expression), or call the function."""
    if code.kind != "statements":
        return code.func(*args[:code.arity])
    body = list(code.tree.body)
    if isinstance(body[-1], ast.Expr):
        body[-1] = ast.copy_location(ast.Assign(targets=[ast.Name("_rb_value", ast.Store())],
                                                value=body[-1].value), body[-1])
    tree = ast.fix_missing_locations(ast.Module(body=body, type_ignores=[]))
    ns.pop("_rb_value", None)
    exec(compile(tree, f"<snippet {code.snippet} {code.what}>", "exec"), ns)
    return ns.pop("_rb_value", None)


# ---------------------------------------------------------------- workers

class Workers:
    """The workers of one snippet: threads sharing a list of counts, or forked processes sharing a
    ctypes array in an anonymous shared mapping."""

    def __init__(self, snippet, job, init_value, processes):
        self.snippet = snippet
        self.job = job
        self.init_value = init_value
        self.processes = processes
        self.capacity = max(job["concurrency"], job["max"]) if job["mode"] == "squeeze" else job["concurrency"]
        if processes:
            self.mem = mmap.mmap(-1, 8 * (self.capacity + 1))
            self.counts = (ctypes.c_int64 * self.capacity).from_buffer(self.mem)
            self.stop = (ctypes.c_int64 * 1).from_buffer(self.mem, 8 * self.capacity)
            self.errors_r, self.errors_w = os.pipe()
            os.set_blocking(self.errors_r, False)
        else:
            self.counts = [0] * self.capacity
            self.stop = [False]
        self.started = 0
        self.threads = []
        self.pids = []
        self.reaped = set()
        self._batch = 0
        self.ready = threading.Semaphore(0)
        self.go = threading.Event()
        ns = snippet.ns
        exec(_generate(WORKER, snippet), ns)
        self.worker = ns["_rb_worker"]
        period_ns = job["sample_ms"] * 1_000_000
        self.chunk_ns = max(period_ns // 100, 1)

    def count(self):
        return sum(self.counts)

    def add(self, n):
        """Start n more workers; return when each has run init_runner (a failure ends the driver)."""
        first = self.started
        self.started += n
        if self.processes:
            ready_r, ready_w = os.pipe()
            go_r, go_w = os.pipe()
            common.flush()
            for slot in range(first, first + n):
                pid = os.fork()
                if pid == 0:
                    os.close(ready_r)
                    os.close(go_w)
                    self._child(slot, ready_w, go_r)
                self.pids.append(pid)
            os.close(ready_w)
            os.close(go_r)
            got = 0
            while got < n:
                b = os.read(ready_r, n - got)
                if not b:
                    self.check_processes(wait=True)
                    common.die("failure", "a worker process ended before it was ready")
                got += len(b)
            os.close(ready_r)
            self._go_pipe, self._batch = go_w, n
            return
        self.go.clear()
        for slot in range(first, first + n):
            t = threading.Thread(target=self._thread, args=(slot,), daemon=True)
            self.threads.append(t)
            t.start()
        for _ in range(n):
            self.ready.acquire()

    def release(self):
        if self.processes:
            os.write(self._go_pipe, b"g" * self._batch)  # each new worker reads one byte
            os.close(self._go_pipe)
        else:
            self.go.set()

    def _thread(self, slot):
        w = _WorkerView(self, slot, self.ready.release, self.go.wait)
        try:
            self.worker(self.init_value, w)
        except BaseException as e:  # noqa: BLE001 - any exception of the snippet ends the driver with it
            fail_record(self.snippet.k, w.phase, Failure(self.snippet.k, w.phase, e).args[0])

    def _child(self, slot, ready_w, go_r):
        """A forked worker: runs, reports a failure to the parent through the error pipe, never returns."""
        def ready():
            os.write(ready_w, b"r")

        def wait_go():
            os.read(go_r, 1)

        w = _WorkerView(self, slot, ready, wait_go)
        try:
            self.worker(self.init_value, w)
            os._exit(0)
        except BaseException as e:  # noqa: BLE001
            msg = json.dumps({"phase": w.phase, "message": Failure(self.snippet.k, w.phase, e).args[0]})
            try:
                os.write(self.errors_w, (msg + "\n").encode())
            finally:
                os._exit(1)

    def check_processes(self, wait=False):
        """A forked worker that failed ends the driver with its error (the parent prints it)."""
        if not self.processes:
            return
        self._errors()
        for pid in self.pids:
            if pid in self.reaped:
                continue
            done, status = os.waitpid(pid, 0 if wait else os.WNOHANG)
            if done:
                self.reaped.add(pid)
                if status:
                    time.sleep(0.05)  # its message, if it wrote one, is in the pipe by now
                    self._errors()
                    fail_record(self.snippet.k, "runner", f"a worker process ended ({_status(status)})")

    def _errors(self):
        try:
            data = os.read(self.errors_r, 65536)
        except BlockingIOError:
            data = b""
        if data:
            err = json.loads(data.decode().splitlines()[0])
            fail_record(self.snippet.k, err["phase"], err["message"])

    def stop_all(self):
        """Ask every worker to stop after its chunk; wait a little for them (one stuck inside an iteration
        is left: a process is killed, a thread ends with the driver)."""
        self.stop[0] = True
        deadline = time.monotonic() + max(1.0, 2 * self.job["sample_ms"] / 1000)
        if self.processes:
            for pid in self.pids:
                while pid not in self.reaped and time.monotonic() < deadline:
                    done, _ = os.waitpid(pid, os.WNOHANG)
                    if done:
                        self.reaped.add(pid)
                    else:
                        time.sleep(0.001)
                if pid not in self.reaped:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    self.reaped.add(pid)
            self._errors()
        else:
            for t in self.threads:
                t.join(max(0.0, deadline - time.monotonic()))


def _status(status):
    if os.WIFSIGNALED(status):
        return f"killed by signal {os.WTERMSIG(status)}"
    return f"exit status {os.WEXITSTATUS(status)}"


class _WorkerView:
    """What a generated worker function reads from `_rb_w`."""

    clock = staticmethod(perf_counter_ns)
    cpu = staticmethod(process_time_ns)
    max_chunk = MAX_CHUNK

    def __init__(self, workers, slot, ready, wait_go):
        s = workers.snippet
        self.phase = "init_runner"
        self.runner_func = s.runner.func
        ir = s.hook("init_runner")
        self.init_runner_func = ir.func if ir is not None else None
        self.counts = workers.counts
        self.stop = workers.stop
        self.slot = slot
        self.chunk_ns = workers.chunk_ns
        self._ready, self._wait_go = ready, wait_go

    def started(self):
        self.phase = "runner"
        self._ready()
        self._wait_go()
        return 1


class _TimedView:
    clock = staticmethod(perf_counter_ns)
    cpu = staticmethod(process_time_ns)

    def __init__(self, snippet, job):
        self.phase = "init_runner"
        self.runner_func = snippet.runner.func
        ir = snippet.hook("init_runner")
        self.init_runner_func = ir.func if ir is not None else None
        self.plan = [job["loop"]] * (job["warmup"] + job["samples"])
        self.warmup = job["warmup"]
        self.k = snippet.k
        self.loop = job["loop"]
        self.done = 0

    def started(self):
        common.emit({"type": "phase", "snippet": self.k, "phase": "running"})
        common.flush()
        self.phase = "runner"

    def report(self, ns, cpu_ns):
        self.done += 1
        if self.done > self.warmup:
            common.emit({"type": "result", "workload": "perf", "snippet": self.k, "iteration": self.done - self.warmup,
                         "loop": self.loop, "count": self.loop, "run_ns": ns, "run_cpu_ns": cpu_ns})
            common.flush()


# ---------------------------------------------------------------- measuring

class Stdin:
    """The orchestrator's answers: one line, `more` or `enough` (end of file: enough)."""

    @staticmethod
    def answer():
        line = sys.stdin.readline()
        if not line:
            return "enough"
        word = line.strip()
        if word not in ("more", "enough"):
            raise DriverError("bad_param", f"expected more or enough on stdin, got {word!r}")
        return word


def phase(k, name):
    common.emit({"type": "phase", "snippet": k, "phase": name})
    common.flush()


def guarded(k, name, f, *args):
    try:
        return f(*args)
    except DriverError:
        raise
    except BaseException as e:  # noqa: BLE001 - the snippet's own exception, reported as its failure
        fail_record(k, name, Failure(k, name, e).args[0])


def measure(job, snippet):
    k, ns = snippet.k, snippet.ns
    phase(k, "init")
    init = snippet.hook("init")
    init_value = guarded(k, "init", _value_of, init, ns, ()) if init is not None else None
    if job["mode"] == "timed":
        timed(job, snippet, init_value)
    else:
        steps = [job["concurrency"]] if job["mode"] == "continuous" else list(range(job["min"], job["max"] + 1))
        sampled(job, snippet, init_value, steps)
    phase(k, "done")
    done = snippet.hook("done")
    if done is not None:
        guarded(k, "done", _value_of, done, ns, (init_value,))
    common.emit({"type": "finished", "snippet": k})
    common.flush()


def timed(job, snippet, init_value):
    k = snippet.k
    phase(k, "init_runner")
    exec(_generate(TIMED, snippet), snippet.ns)
    view = _TimedView(snippet, job)
    try:
        snippet.ns["_rb_timed"](init_value, view)
    except DriverError:
        raise
    except BaseException as e:  # noqa: BLE001
        fail_record(k, view.phase, Failure(k, view.phase, e).args[0])
    common.emit({"type": "total", "snippet": k, "count": job["loop"] * (job["warmup"] + job["samples"])})


def sampled(job, snippet, init_value, steps):
    k = snippet.k
    workers = Workers(snippet, job, init_value, job["processes"])
    stats = Stats() if job["stats"] else None
    t0 = perf_counter_ns()
    for step, want in enumerate(steps, 1):
        phase(k, "init_runner")
        workers.add(want - workers.started)
        phase(k, "running")
        workers.release()
        start = perf_counter_ns()
        sample(k, step, want, 0, start - t0, workers.count())
        take_samples(job, workers, step, want, t0, start, stats)
        if step == len(steps):
            break
        common.emit({"type": "step", "snippet": k, "step": step, "concurrency": want})
        common.flush()
        if Stdin.answer() == "enough":
            break
    workers.stop_all()
    common.emit({"type": "total", "snippet": k, "count": workers.count()})


def take_samples(job, workers, step, conc, t0, start, stats):
    w, n, ask, most, period = job["warmup"], job["samples"], job["ask"], job["max_samples"], job["sample_ms"]
    last = w + (max(n, most) if ask else n)
    seq = 1
    while True:
        deadline = start + seq * period * 1_000_000
        while True:
            left = deadline - perf_counter_ns()
            if left <= 0:
                break
            time.sleep(min(left / 1e9, 0.05) if workers.processes else left / 1e9)
            workers.check_processes()
        now = perf_counter_ns()
        sample(workers.snippet.k, step, conc, seq, now - t0, workers.count())
        workers.check_processes()
        if stats is not None:
            stats.emit(workers.snippet.k, step, seq)
        if seq >= last:
            return
        if ask and seq - w >= n and Stdin.answer() == "enough":
            return
        seq += 1


def sample(k, step, conc, seq, elapsed_ns, count):
    common.emit({"type": "sample", "snippet": k, "step": step, "concurrency": conc, "seq": seq,
                 "elapsed_ns": elapsed_ns, "count": count})
    common.flush()


class Stats:
    """-v: the collector's work over each sample, the process's memory. CPython: the cyclic collector's
    collections per generation (gc.get_stats). PyPy: its incminimark collector's minor collections, major
    steps and major collections, its time and memory (common.PyPyCollector: gc.hooks, set only with -v,
    and the documented gc.get_stats figure)."""

    def __init__(self):
        self.pypy = common.PyPyCollector() if sys.implementation.name == "pypy" else None
        self.before = self.now()

    def now(self):
        if self.pypy is not None:
            return self.pypy.counts()
        return [g["collections"] for g in gc.get_stats()]

    def emit(self, k, step, seq):
        after = self.now()
        rec = {"type": "stats", "workload": "perf", "snippet": k, "step": step, "seq": seq}
        if self.pypy is not None:
            names = common.PyPyCollector.COUNTS
            extra = self.pypy.memory()
        else:
            names = tuple(f"gc_gen{gen}_collections" for gen in range(len(after)))
            extra = {}
        for i, name in enumerate(names):
            rec[name] = after[i] - self.before[i]
        rec.update(extra)
        status = common.proc_status()
        rec["rss"] = status["VmRSS"]
        rec["threads"] = status["Threads"]
        self.before = after
        common.emit(rec)
        common.flush()


# ---------------------------------------------------------------- entry

def run(argv, processes_ok):
    """`perf <job.json>`: returns the exit status (errors end the driver through DriverError or die)."""
    if len(argv) != 1:
        raise DriverError("bad_param", "usage: driver.py [--variant=NAME] perf <job.json>")
    job = read_job(argv[0])
    # Records go to the job's `records` descriptor (inherited from the orchestrator; without the key, to the
    # original stdout); what the snippets print (print(), C-level writes to fd 1) goes to stderr.
    common.flush()
    fd = job.get("records")
    if fd is None:
        fd = os.dup(1)
    os.set_inheritable(fd, False)  # a command a snippet starts does not hold the records open
    try:
        records = os.fdopen(fd, "w", encoding="utf-8")
    except OSError as e:
        raise DriverError("bad_param", f"records: descriptor {fd} is not open for writing: {e.strerror}") from None
    os.dup2(2, 1)
    common.RECORDS = records
    sys.stdout = sys.stderr
    if job["processes"] and not processes_ok:
        raise DriverError("unsupported", "this driver's workers are threads only")
    for p in reversed(job["code_path"]):
        sys.path.insert(0, p)
    snippets = [Snippet(s) for s in job["snippets"]]
    for s in snippets:
        s.load()
    common.emit({"type": "ready", "snippets": len(snippets), "runner_arity": [s.runner.arity for s in snippets]})
    common.flush()
    if job["mode"] == "check":
        return 0
    for s in snippets:
        measure(job, s)
    common.flush()
    return 0
