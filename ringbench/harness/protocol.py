"""Reading what a driver printed: JSON Lines records checked against the contract.

Nothing a driver says becomes a number until it passes `check_result`: all fields
present and integral, the echoed parameters equal to what was asked, the count
equal to the expected count, timings physically possible.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from ..results.sampling import intervals

RECORD_TYPES = {"describe", "result", "stats", "sample", "node", "hop", "error"}
RESULT_FIELDS = ("count", "setup_ns", "run_ns", "setup_cpu_ns", "run_cpu_ns", "rss_before", "rss_after")
# Contract 4: the process's voluntary and involuntary context switches over each phase. A contract-4
# driver's describe says 4 and conformance holds it to them; records of contract 3 (old stores, imports)
# lack them, so they are checked wherever one is present.
SWITCH_FIELDS = ("setup_vcsw", "setup_ivcsw", "run_vcsw", "run_ivcsw")
ERROR_KINDS = {"bad_param", "unknown_workload", "unsupported", "limit", "failure"}
# A message hop costs at least a few instructions; below this a driver is not measuring.
MIN_NS_PER_HOP = 0.5


class DriverFailed(Exception):
    """A driver run produced no usable result. `kind` says why (stored with the cell)."""

    def __init__(self, kind: str, message: str, stderr_tail: str = ""):
        super().__init__(message)
        self.kind = kind  # a contract error kind, or crashed / timeout / garbled / wrong_count / absurd
        self.message = message
        self.stderr_tail = stderr_tail

    def __str__(self) -> str:
        return f"{self.kind}: {self.message}"


def read_record(line: str, types: Collection[str] | None = None) -> dict:
    """A line of driver output as a record: a JSON object with a string `type` (one of `types` if given); else
    DriverFailed("garbled"). Every reader of driver output (run, versus, perf) reads its lines so."""
    try:
        rec = json.loads(line)
    except json.JSONDecodeError:
        raise DriverFailed("garbled", f"output is not JSON: {line[:120]!r}") from None
    if (
        not isinstance(rec, dict)
        or not isinstance(rec.get("type"), str)
        or (types is not None and rec["type"] not in types)
    ):
        raise DriverFailed("garbled", f"not a contract record: {line[:120]!r}")
    return rec


def parse_line(line: str) -> dict:
    """A record of a measuring verb (RECORD_TYPES); a driver's error record raised as DriverFailed."""
    rec = read_record(line, RECORD_TYPES)
    if rec["type"] == "error":
        kind = rec["kind"] if rec.get("kind") in ERROR_KINDS else "failure"
        raise DriverFailed(kind, str(rec.get("message", "(no message)")))
    return rec


def _int_field(rec: Mapping, name: str) -> int:
    value = rec.get(name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise DriverFailed("garbled", f"result field {name!r} missing or not an integer: {value!r}")
    if value < 0:
        raise DriverFailed("absurd", f"result field {name!r} is negative: {value}")
    return value


@dataclass(frozen=True)
class Expectation:
    workload: str
    params: Mapping[str, int]
    count: int  # what the driver must prove
    hops: int  # messages in the timed run phase
    ready: int | None = None  # processes that must have signalled ready when the spawn phase ended
    proves: Mapping[str, int] | None = None  # further counts the driver must prove (cross_hops)


def check_result(rec: Mapping, want: Expectation) -> dict:
    """Return the record if it is a believable result for `want`, else raise DriverFailed."""
    if rec.get("workload") != want.workload:
        raise DriverFailed("garbled", f"result is for workload {rec.get('workload')!r}, asked {want.workload!r}")
    for k, v in want.params.items():
        if rec.get(k) != v:
            raise DriverFailed("garbled", f"result echoes {k}={rec.get(k)!r}, asked {k}={v}")
    values = {f: _int_field(rec, f) for f in RESULT_FIELDS}
    if any(f in rec for f in SWITCH_FIELDS):
        for f in SWITCH_FIELDS:
            _int_field(rec, f)
    if values["count"] != want.count:
        raise DriverFailed("wrong_count", f"driver counted {values['count']:,}, expected {want.count:,}")
    for k, v in (want.proves or {}).items():
        if rec.get(k) != v:
            raise DriverFailed("wrong_count", f"driver counted {k}={rec.get(k)!r}, expected {v:,}")
    if want.ready is not None and rec.get("ready") != want.ready:
        raise DriverFailed(
            "wrong_count",
            f"spawn phase ended with ready={rec.get('ready')!r} of {want.ready:,} "
            "processes (contract section 3: every process blocked in its first receive)",
        )
    if want.hops and values["run_ns"] < want.hops * MIN_NS_PER_HOP:
        raise DriverFailed("absurd", f"run_ns={values['run_ns']} for {want.hops:,} hops is impossibly fast")
    return dict(rec)


def check_samples(samples: list[dict], n: int, expected: int) -> None:
    """A believable sample stream, or DriverFailed: the right number, time and counts never go back,
    counts in whole laps, no interval faster than physics allows."""
    if len(samples) != expected:
        raise DriverFailed("garbled", f"asked for {expected} samples, got {len(samples)}")
    for s in samples:
        for f in ("seq", "elapsed_ns", "count"):
            if isinstance(s.get(f), bool) or not isinstance(s.get(f), int) or s[f] < 0:
                raise DriverFailed("garbled", f"sample field {f!r} missing, negative or not an integer: {s}")
        if s["count"] % n:
            raise DriverFailed("garbled", f"sample count {s['count']} is not a whole number of laps of {n}")
    for hops, ns in intervals(samples):
        if hops < 0 or ns <= 0:
            raise DriverFailed("absurd", f"sample counts or times went backwards ({hops} hops in {ns} ns)")
        if hops * MIN_NS_PER_HOP > ns:
            raise DriverFailed("absurd", f"{hops:,} hops in {ns:,} ns is impossibly fast")
