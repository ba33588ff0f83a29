"""Fake ringbench driver for the harness tests.

Environment:
  FAKE_NS_PER_HOP   ns per hop it reports (default 100); FAKE_JITTER a list "a,b,c" of
                    multipliers applied to successive processes (via FAKE_COUNTER_FILE)
  FAKE_FAULT        hang | crash | exit1 | garbage | wrong_count | absurd | missing_field |
                    negative | limit | slow
  FAKE_FAULT_ON     fault only in the k-th process launched (counted in FAKE_COUNTER_FILE)
  FAKE_SQUEEZE      continuous mode: "tokens:ns_per_hop,..." (default: FAKE_NS_PER_HOP for every K)
  FAKE_SAMPLE_JITTER continuous mode: multipliers of the hop time for successive samples
  FAKE_SAMPLE_SLEEP  continuous mode: really sleep this many seconds per sample (for interrupt tests)
  FAKE_CURVE        multipliers of the hop time for successive iterations of one process, the last one
                    repeated ("3,1.5,1": a runtime that settles on its third iteration); "1,1.2,*" alternates
  FAKE_WAIT_FILE    with FAKE_FAULT=slow: sleep only until this file exists (at most FAKE_SLOW_S), so a test
                    holds a run in its middle as long as it needs and no longer
  FAKE_LOG          a file each process appends "<launch number> <monotonic start> <ns per hop> <argv>" to
  FAKE_COLLECTOR    the collector `describe` reports (default "fake-gc")
"""

import json
import os
import sys
import time


def emit(rec):
    print(json.dumps(rec), flush=True)


def error(kind, msg, code):
    emit({"type": "error", "kind": kind, "message": msg})
    sys.exit(code)


def launch_number():
    path = os.environ.get("FAKE_COUNTER_FILE")
    if not path:
        return 1
    k = int(open(path).read() or 0) + 1 if os.path.exists(path) else 1
    with open(path, "w") as f:
        f.write(str(k))
    return k


def collector():
    """Like HotSpot, which picks SerialGC on one CPU and G1 on more, unless FAKE_COLLECTOR names one."""
    if os.environ.get("FAKE_COLLECTOR"):
        return os.environ["FAKE_COLLECTOR"]
    return "serial" if len(os.sched_getaffinity(0)) == 1 else "g1"


def main(argv):
    limit = ""
    if argv[:1] == ["+P"]:  # a raised limit, as BEAM's process table is raised ([limits] in the manifest)
        limit, argv = argv[1], argv[2:]
    if argv[:1] == ["describe"]:
        emit(
            {
                "type": "describe",
                "contract": 3,
                "name": "fake",
                "runtime": "Fake",
                "version": "0.0-fake",
                "workloads": ["ring"],
                "features": ["tokens", "continuous"],
                "variant": "",
                "clock": "the environment (a fake clock)",
                "collector": collector(),
            }
        )
        return
    if len(argv) < 2 or argv[0] != "run":
        error("bad_param", "usage: run <workload> key=value...", 2)
    if argv[1] != "ring":
        error("unknown_workload", f"unknown workload {argv[1]!r}", 2)
    params = {"tokens": 1, "burst": 0, "repeats": 1, "warmup": 0}
    for arg in argv[2:]:
        key, _, value = arg.partition("=")
        if not value.isdigit() or int(value) < 0:
            error("bad_param", f"{key} must be a non-negative integer, got {value!r}", 2)
        params[key] = int(value)
    k = launch_number()
    if os.environ.get("FAKE_LOG"):
        with open(os.environ["FAKE_LOG"], "a") as f:
            f.write(f"{k} {time.monotonic()} {os.environ.get('FAKE_NS_PER_HOP', '100')} {' '.join(argv)}\n")
    fault = os.environ.get("FAKE_FAULT", "")
    only = os.environ.get("FAKE_FAULT_ON")
    if only and int(only) != k:
        fault = ""
    jitter = [float(x) for x in os.environ.get("FAKE_JITTER", "1").split(",")]
    ns = float(os.environ.get("FAKE_NS_PER_HOP", "100")) * jitter[(k - 1) % len(jitter)]
    n, m, t = params["n"], params.get("m", 1), params["tokens"]
    if fault == "hang":
        time.sleep(3600)
    if fault == "crash":
        os.kill(os.getpid(), 9)
    if fault == "exit1":
        print("fake: something broke", file=sys.stderr)
        sys.exit(1)
    if fault == "limit":
        error("limit", "fake limit: too many processes (raise fake.max)", 3)
    if fault == "garbage":
        print("this is not json", flush=True)
        return
    if fault == "slow":
        slow_s = float(os.environ.get("FAKE_SLOW_S", "2"))
        wait_for = os.environ.get("FAKE_WAIT_FILE")
        until = time.monotonic() + slow_s
        while wait_for and not os.path.exists(wait_for) and time.monotonic() < until:
            time.sleep(0.02)
        if not wait_for:
            time.sleep(slow_s)
    if params.get("sample_ms", 0) > 0:
        return continuous(params, ns)
    curve = os.environ.get("FAKE_CURVE", "1").split(",")
    for i in range(1 - params["warmup"], params["repeats"] + 1):
        position = i + params["warmup"]  # 1 for the process's first iteration
        factor = curve[min(position, len(curve)) - 1]
        if factor == "*":  # alternate between the two factors before it
            factor = curve[-3 + (position - len(curve)) % 2]
        hops = n * m * t
        if i < 1:
            continue
        rec = {
            "type": "result",
            "workload": "ring",
            "iteration": i,
            "n": n,
            "m": m,
            "tokens": t,
            "gogc_seen": os.environ.get("GOGC", ""),
            "limit_seen": limit,
            "burst": params["burst"],
            "count": hops,
            "ready": n,
            "setup_ns": n * int(os.environ.get("FAKE_SETUP_NS_PER_PROC", "1000")),
            "run_ns": int(hops * ns * float(factor)),
            "setup_cpu_ns": n * 900,
            "run_cpu_ns": int(hops * ns * 0.5),
            "rss_before": 10_000_000,
            "rss_after": 10_000_000 + n * int(os.environ.get("FAKE_RSS_PER_PROC", "500")),
        }
        if fault == "wrong_count":
            rec["count"] = hops - 1
        if fault == "absurd":
            rec["run_ns"] = 1
        if fault == "missing_field":
            del rec["run_cpu_ns"]
        if fault == "negative":
            rec["setup_ns"] = -5
        emit(rec)


def continuous(params, ns):
    """Samples on a fake clock: elapsed = seq × sample_ms exactly; hops at the configured rate, whole laps."""
    n, t = params["n"], params["tokens"]
    table = dict(x.split(":") for x in os.environ.get("FAKE_SQUEEZE", "").split(",") if x)
    ns_per_hop = float(table.get(str(t), ns))
    jitter = [float(x) for x in os.environ.get("FAKE_SAMPLE_JITTER", "1").split(",")]
    period = params["sample_ms"] * 1_000_000
    count = 0
    for seq in range(1, params.get("samples", 3) + 1):
        time.sleep(float(os.environ.get("FAKE_SAMPLE_SLEEP", "0")))
        hops = period / (ns_per_hop * jitter[(seq - 1) % len(jitter)])
        count += int(hops // n) * n
        emit({"type": "sample", "seq": seq, "elapsed_ns": seq * period, "count": count})


main(sys.argv[1:])
