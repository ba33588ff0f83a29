"""The batch verb of ringbench_driver_common (contract section 2), on a fake runtime.

Each case starts a driver program built on `serve` whose workloads only count, or fail the way a run
can fail, feeds it tab-separated lines and checks what comes back: every line answered as `run`
answers it, then {"type":"done","exit":E}; the next line read after E = 0 or 2; an exit with E right
after the done record when E = 1 or 3 (a count that does not match, a MemoryError, a process thread
that dies); exit 0 at the end of the input; each run's Runtime closed before the next is prepared.

    PYTHONPATH=../common/python /usr/bin/python3 ../common/python/tests/check_batch.py   (or pypy3)
"""

import json
import os
import subprocess
import sys

# The driver program: ring counts; fanin proves a wrong count (failure); spawn raises MemoryError
# (limit); tree's process thread raises a limit (die_in_thread); a continuous ring prints samples.
# prepare refuses to build a runtime while the previous one is still open: close must come first.
DRIVER = r'''
import _thread, sys, time
import ringbench_driver_common as common

OPEN = []

class Fake(common.Runtime):
    def ring(self, p, meter, emit_hops):
        if p["sample_ms"] > 0:
            for seq in range(1, p["samples"] + 1):
                common.print_sample(seq, seq, seq * p["n"])
            return None
        meter.spawn_begins(); meter.spawn_ends(p["n"]); meter.run_begins(); meter.run_ends()
        return p["n"] * p["m"] * p["tokens"]
    def fanin(self, p, meter, emit_hops):
        return p["n"] * p["m"] + 1
    def spawn(self, p, meter, emit_hops):
        raise MemoryError
    def tree(self, p, meter, emit_hops):
        def process():
            raise common.DriverError("limit", "a process thread could not start")
        sys.unraisablehook = common.die_in_thread
        _thread.start_new_thread(process, ())
        time.sleep(60)
    def close(self):
        OPEN.remove(self)
        print("closed", file=sys.stderr, flush=True)

def prepare(variant, workload, p):
    if OPEN:
        raise common.DriverError("failure", "the previous run's runtime was not closed")
    rt = Fake()
    OPEN.append(rt)
    return rt

def describe(variant):
    return {"name": "fake", "runtime": "fake", "version": "0", "workloads": ["ring"],
            "features": ["tokens"]}

common.serve(describe, prepare, ("stock",), selective_reason="no selective receive here")
'''


def batch(text, *verb):
    """(exit status, records, stderr) of the fake driver answering `text` on stdin."""
    here = os.path.dirname(os.path.abspath(__file__))  # the working directory: no module of its own
    env = dict(os.environ, PYTHONPATH=os.path.join(here, ".."))
    p = subprocess.run([sys.executable, "-c", DRIVER, *(verb or ("batch",))], input=text.encode(),
                       capture_output=True, env=env, cwd=here, timeout=60)
    return p.returncode, [json.loads(line) for line in p.stdout.splitlines()], p.stderr.decode()


def answers(records):
    """The records split at each done record: [(exit, [records before it]), ...]."""
    out, cur = [], []
    for r in records:
        if r["type"] == "done":
            out.append((r["exit"], cur))
            cur = []
        else:
            cur.append(r)
    assert cur == [], f"records after the last done: {cur}"
    return out


def check(cond, what):
    if not cond:
        sys.exit(f"check_batch: {what}")


def main():
    lines = ["ring\tn=3\tm=2", "ring\tn= 3\tm=1", "", "no-such\tn=1", "ring\tn=3\tsample_ms=10\tsamples=2",
             "selective\tn=1\tm=1", "ring\tn=4\tm=1\ttokens=2", "ring\tn=3\tn=3\tm=1", "ring\tn=2\tm=5"]
    code, recs, err = batch("\n".join(lines))  # no newline after the last line: still a line
    got = answers(recs)
    check(code == 0, f"exit {code} at the end of the input, expected 0 ({err})")
    check([e for e, _ in got] == [0, 2, 2, 2, 0, 2, 0, 2, 0], f"done exits {[e for e, _ in got]}")
    first = got[0][1]
    check(len(first) == 1 and first[0]["type"] == "result" and first[0]["count"] == 6, f"line 1: {first}")
    kinds = [rs[-1].get("kind") for e, rs in got if e == 2]
    check(kinds == ["bad_param", "bad_param", "unknown_workload", "unsupported", "bad_param"], f"refusals {kinds}")
    check("' 3'" in got[1][1][0]["message"], f"`n= 3` arrives whole: {got[1][1]}")
    check([r["count"] for r in got[4][1]] == [3, 6], f"continuous samples {got[4][1]}")
    check(got[6][1][0]["count"] == 8 and got[8][1][0]["count"] == 10, "later lines run afresh")
    # one close per prepared runtime (the refusals before prepare have none), each before the next
    check(err.count("closed") == 4, f"{err.count('closed')} closes for 4 runtimes: {err}")

    for line, kind, status in (("fanin\tn=1\tm=1", "failure", 1), ("spawn\tn=5", "limit", 3),
                               ("tree\tn=1", "limit", 3)):
        code, recs, err = batch(f"ring\tn=1\tm=1\n{line}\nring\tn=1\tm=1\n")
        got = answers(recs)
        check(code == status, f"{line}: exit {code}, expected {status} ({err})")
        check([e for e, _ in got] == [0, status], f"{line}: done exits {[e for e, _ in got]}, the line after "
              "a failure or a limit must not be read")
        check(got[1][1][-1] == {"type": "error", "kind": kind, "message": got[1][1][-1]["message"]},
              f"{line}: {got[1][1]}")

    code, recs, err = batch("", "batch", "ring")
    check(code == 2 and recs[-1]["kind"] == "bad_param", f"`batch ring`: {code} {recs}")
    code, recs, err = batch("", "describe")
    check(code == 0 and recs[0]["features"] == ["tokens", "batch"], f"describe: {recs}")
    print(f"check_batch: every line answered and closed; failure, limit, a dying thread end the batch "
          f"({sys.implementation.name})")


if __name__ == "__main__":
    main()
