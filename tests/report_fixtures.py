"""Stores for the chart, analysis and report tests, written through the store like any run.

`synthetic(db)` is a multi-runtime store with made-up figures and known winners (so findings can be
checked exactly); it lives only in a test's tmp_path. Its ring costs depend on M, a rendezvous idiom
spawns and costs more memory than every message-passing runtime, and a tree run has two core settings:
the cases where a summary could contradict its own table.
"""

import math
import re

from click.testing import CliRunner

from ringbench import api
from ringbench.catalogue import workloads
from ringbench.cli import cli as main
from ringbench.results.model import Cell
from ringbench.results.modes import Options
from ringbench.results.store import Store


def ringbench_cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


NS_PER_HOP = {
    "c-coro": 7,
    "go": 90,
    "erlang": 130,
    "rust-tokio/current-thread": 100,
    "rust-tokio/multi-thread": 400,
    "go/handoff": 40,
    "python-greenlet/switch": 300,
}
GROWTH = {
    "c-coro": 1.2,
    "go": 1.5,
    "erlang": 1.1,
    "rust-tokio/current-thread": 2.0,
    "rust-tokio/multi-thread": 1.3,
    "go/handoff": 1.02,
    "python-greenlet/switch": 1.05,
}
# At M = 10 the spawn phase weighs on a hop: go's lead over erlang shrinks from 1.44× (M = 100) to 1.05×.
M10_EXTRA = {"go": 1.5, "erlang": 1.05}
SPAWN_US = {
    "c-coro": 0.05,
    "go": 0.4,
    "erlang": 0.6,
    "rust-tokio/current-thread": 0.3,
    "rust-tokio/multi-thread": 0.5,
    "go/handoff": 0.2,
    "python-greenlet/switch": 4.65,
}
RSS = {
    "c-coro": 70,
    "go": 2600,
    "erlang": 2800,
    "rust-tokio/current-thread": 350,
    "rust-tokio/multi-thread": 360,
    "go/handoff": 300,
    "python-greenlet/switch": 6100,
}
HOP = {"c-coro": "floor", "go/handoff": "handoff", "python-greenlet/switch": "rendezvous"}  # else mailbox
JITTER = (0.97, 1.0, 1.03, 0.99, 1.01)
NS, MS = (100, 1000, 10000), (10, 100)
TREE_MS = {("go", "1"): 900, ("go", "all"): 400, ("erlang", "1"): 1200, ("erlang", "all"): 350}
TREE_PEAK = {"go": 420, "erlang": 900}
ENV = {
    "date": "2026-11-23T10:00:00+00:00",
    "hostname": "testbox",
    "cpu_model": "Test CPU 3000",
    "cpu_count": 2,
    "usable_cpus": 2,
    "memory_bytes": 8 * 2**30,
    "kernel": "6.1.0",
    "os": "Linux-6.1.0-x86_64",
    "python": "3.11",
    "loadavg": [1.5, 1.0, 0.5],
    "cpu_governor": None,
    "git_revision": "test",
}


def ns_per_hop(rt, n, m, cores):
    ns = NS_PER_HOP[rt] * GROWTH[rt] ** math.log10(n / 100) * (1.0 if cores == "1" else 1.5)
    return ns * (M10_EXTRA.get(rt, 1.0) if m == 10 else 1.0)


def record(n, m, ns_hop, spawn_us, rss, j, workload="ring", process=1, **extra):
    hops = n * m if m else n  # spawn and memory count the processes that reported ready
    return {
        "type": "result",
        "workload": workload,
        "iteration": 1,
        "process": process,
        "ready": n,
        "n": n,
        "m": m,
        "tokens": 1,
        "count": hops,
        "setup_ns": int(n * spawn_us * 1000 * j),
        "run_ns": int(hops * ns_hop * j),
        "setup_cpu_ns": int(n * spawn_us * 900),
        "run_cpu_ns": int(hops * ns_hop * j * 0.98),
        "rss_before": 5_000_000,
        "rss_after": int(5_000_000 + rss * j * n),
        **extra,
    }


def tree_record(n, fanout, ms, peak, j, process):
    procs = (fanout * n - 1) // (fanout - 1)
    return {
        "type": "result",
        "workload": "tree",
        "iteration": 1,
        "process": process,
        "n": n,
        "fanout": fanout,
        "count": n * (n - 1) // 2,
        "setup_ns": 0,
        "setup_cpu_ns": 0,
        "run_ns": int(ms * 1e6 * j),
        "run_cpu_ns": int(ms * 1e6 * j * 1.5),
        "rss_before": 5_000_000,
        "rss_after": 6_000_000,
        "rss_peak": int(5_000_000 + peak * procs * j),
    }


def spread(cv):
    """Five multipliers whose coefficient of variation is `cv`: four at 1 and one slow outlier, so the
    median (and every comparison of medians and ranks) is that of a quiet cell."""
    y = cv / (0.2**0.5 - cv / 5)  # four at 1, one at 1 + y: sd = √0.2·y, mean = 1 + y/5
    return (1.0, 1.0, 1.0, 1.0, 1.0 + y)


def cell(
    rt,
    workload,
    params,
    cores,
    recs=(),
    status="ok",
    mode="timed",
    samples=(),
    reason=None,
    extra=None,
    runtime_settings=None,
):
    return Cell(
        rt,
        workloads.get(workload),
        params,
        cores,
        mode,
        status,
        reason,
        [r for _, _, r in recs],
        list(samples),
        extra or {},
        None,
        runtime_settings or {},
    )


def begin(store, workload, mode="timed", **opts):
    o = vars(Options(mode=mode, repeat=5, **opts))
    return store.begin_run(
        f"ringbench sweep {workload} (synthetic)",
        {"workload": workload, "runtimes": [], "grid": [], "cores": ["1", "all"], **o},
        ENV,
    )


def synthetic(db):
    """Runs 1–6: ring N×M on 1 and all cores, spawn, memory, selective, squeeze, tree; run 1 has noisy cells
    (rust-tokio/multi-thread's) and was taken on a machine that was not idle (load 1.5 on 2 CPUs)."""
    st = Store(db)
    rid = begin(st, "ring")
    for rt in NS_PER_HOP:
        for cores in ("1", "all"):
            for n in NS:
                for m in MS:
                    ns = ns_per_hop(rt, n, m, cores)
                    # rust-tokio/multi-thread's cells are noisy: CV 5.1 % at N = 100 up to 15 % at N = 10,000
                    jitter = spread(0.05 + n / 100_000) if rt == "rust-tokio/multi-thread" else JITTER
                    recs = [
                        (i + 1, 1, record(n, m, ns, SPAWN_US[rt], RSS[rt], j, process=i + 1))
                        for i, j in enumerate(jitter)
                    ]
                    st.save_cell(
                        rid,
                        cell(
                            rt,
                            "ring",
                            {"m": m, "n": n, "tokens": 1},
                            cores,
                            recs,
                            runtime_settings={"hop": HOP.get(rt, "mailbox")},
                        ),
                    )
    st.save_cell(
        rid,
        cell(
            "c-pthreads",
            "ring",
            {"m": 10, "n": 10000, "tokens": 1},
            "1",
            status="refused",
            reason="c-pthreads: 10,000 processes need 10,000 OS threads; the limit here is 4,096",
        ),
    )
    st.finish_run(rid, "complete")
    for wl in ("spawn", "memory"):
        rid = begin(st, wl, warmup=0)
        for rt in NS_PER_HOP:
            for n in (1000, 100000):
                recs = [
                    (i + 1, 1, record(n, 0, 0, SPAWN_US[rt], RSS[rt], j, "spawn", i + 1)) for i, j in enumerate(JITTER)
                ]
                st.save_cell(rid, cell(rt, wl, {"n": n}, "1", recs, runtime_settings={"hop": HOP.get(rt, "mailbox")}))
        st.finish_run(rid, "complete")
    rid = begin(st, "selective")
    for rt in ("erlang", "c-coro"):
        for n in (100, 1000, 10000):
            for rev in (0, 1):
                ns = 200 * (1 + n / 100 * rev)
                recs = [(i + 1, 1, record(n, 1, ns, 1, 100, j, "selective", reverse=rev)) for i, j in enumerate(JITTER)]
                st.save_cell(rid, cell(rt, "selective", {"m": 1, "n": n, "reverse": rev}, "1", recs))
    st.finish_run(rid, "complete")
    rid = begin(st, "ring", mode="squeeze")
    for rt, peak_k in (("erlang", 4), ("go", 2)):
        hist = [{"concurrency": k, "hops_per_s": 1e7 * min(k, peak_k), "sd": 1e5, "samples": 3} for k in (1, 2, 4, 8)]
        samples = [
            {"process": 1, "tokens": peak_k, "seq": s, "elapsed_ns": (s + 1) * 10**8, "count": (s + 1) * 10**6 * peak_k}
            for s in range(6)
        ]
        st.save_cell(
            rid,
            cell(
                rt,
                "ring",
                {"m": 1, "n": 1000, "tokens": 1},
                "all",
                mode="squeeze",
                extra={"history": hist, "peak_concurrency": peak_k},
                samples=samples,
            ),
        )
    st.finish_run(rid, "complete")
    rid = begin(st, "tree")
    for (rt, cores), ms in TREE_MS.items():
        for n in (10_000, 1_000_000):
            scale = n / 1_000_000
            recs = [(i + 1, 1, tree_record(n, 10, ms * scale, TREE_PEAK[rt], j, i + 1)) for i, j in enumerate(JITTER)]
            st.save_cell(rid, cell(rt, "tree", {"n": n, "fanout": 10}, cores, recs))
    st.finish_run(rid, "complete")
    st.close()
    return db


SYNTHETIC_RUNS = [1, 2, 3, 4, 5, 6]


def loaded(db, ids):
    store = Store(db)
    runs = [(api.load(i, db), store.run(i)["command"]) for i in ids]
    store.close()
    return runs


def render(db, ids) -> str:
    from ringbench.present import report

    return report.render(loaded(db, ids))


def text(html_text: str) -> str:
    """The page's text without the inlined library and chart data, tags stripped."""
    body = re.sub(r"<script.*?</script>", "", html_text, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body))


# -- perf runs: snippets of code (ringbench perf) -------------------------------------------------------
PERF_QPS = {"erlang:unique_integer().": 40e6, "rand:uniform().": 10e6}  # per worker and node


def _perf_samples(qps, workers=1, step=1, count=6, warm=1, jitter=(1.0, 1.02, 0.98, 1.01, 0.99, 1.0)):
    """A running job's samples: `count` samples 100 ms apart, iterations at `qps` each interval."""
    out, total = [], 0
    for seq in range(count):
        total += int(qps * workers * 0.1 * jitter[seq % len(jitter)]) if seq else 0
        out.append({"process": step, "tokens": workers, "seq": seq, "elapsed_ns": seq * 10**8, "count": total})
    return out


def perf_runs(db):
    """Runs 1–2 of their own store: a continuous perf run of two snippets on 2 BEAM nodes (each node's samples
    kept), and a squeeze of one snippet that peaks at 3 workers."""
    st = Store(db)
    settings = {"perf": 1, "workers": "BEAM processes", "warmup": 1}
    rid = begin(st, "perf", mode="perf-continuous", samples=5, sample_ms=100)
    for code, qps in PERF_QPS.items():
        per_node = [_perf_samples(qps * (1 + 0.1 * j)) for j in range(2)]
        summed = [{**a, "tokens": 2, "count": a["count"] + b["count"]} for a, b in zip(*per_node, strict=True)]
        extra = {
            **settings,
            "total": summed[-1]["count"],
            "node_names": ["n0@box", "n1@box"],
            "node_totals": [{"node": j, "name": f"n{j}@box", "count": s[-1]["count"]} for j, s in enumerate(per_node)],
            "node_samples": [{"node": j, **x} for j, s in enumerate(per_node) for x in s],
            "node_records": [],
        }
        st.save_cell(
            rid,
            cell(
                "erlang/stock",
                "perf",
                {"code": code, "concurrency": 1, "nodes": 2},
                "all",
                mode="perf-continuous",
                samples=summed,
                extra=extra,
            ),
        )
    st.finish_run(rid, "complete")
    rid = begin(st, "perf", mode="perf-squeeze", samples=5, sample_ms=100)
    steps = {1: 5e6, 2: 9e6, 3: 12e6, 4: 11e6, 5: 11.5e6, 6: 10e6}
    samples = [s for k, q in steps.items() for s in _perf_samples(q / k, k, step=k)]
    hist = [{"concurrency": k, "hops_per_s": q, "sd": q * 0.02, "samples": 5} for k, q in steps.items()]
    st.save_cell(
        rid,
        cell(
            "erlang/stock",
            "perf",
            {"code": "rand:uniform()."},
            "all",
            mode="perf-squeeze",
            samples=samples,
            extra={**settings, "history": hist, "peak_concurrency": 3, "peak_step": 3, "total": 10**7},
        ),
    )
    st.finish_run(rid, "complete")
    st.close()
    return db
