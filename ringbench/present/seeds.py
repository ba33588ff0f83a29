"""The seeds' published figures (1998, 2009, 2010) and the skynet tree's (2016), for "then and now" beside
today's measurements.

The figures live in seed_figures.json, transcribed with their sources from shared/seed-figures.md and from
the README of github.com/atemerev/skynet. They were measured on other machines with other software and are
shown only as a labelled historical reference: nothing here is ever stored with, or mixed into,
ringbench's own measured data.

    from ringbench.present import seeds
    for s in seeds.message_series():
        print(s.label, [(p.n, p.ns) for p in s.points])
    for t in seeds.tree_table():
        print(t.system, t.machine, t.published)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

DATA = Path(__file__).with_name("seed_figures.json")


@dataclass(frozen=True)
class Source:
    key: str
    citation: str
    transcribed_from: str


@dataclass(frozen=True)
class SeedPoint:
    n: int | None
    ns: float  # the figure in ns (per message, per process) or bytes (memory)
    lo: float
    hi: float
    note: str = ""


@dataclass(frozen=True)
class SeedSeries:
    year: int
    runtime: str  # the family today's runtimes are matched on: "erlang", "java", "go"
    system: str
    machine: str
    source: Source
    points: tuple[SeedPoint, ...]
    note: str = ""

    @property
    def label(self) -> str:
        return f"{self.year} · {self.system} · {self.machine}"

    def matches(self, runtime: str) -> bool:
        """Is today's runtime (erlang, java-threads, java-virtual) one of this series' family?"""
        name = runtime.split("/")[0]
        return name == self.runtime or name.startswith(self.runtime + "-")


@lru_cache(maxsize=1)
def _raw() -> dict:
    return json.loads(DATA.read_text(encoding="utf-8"))


def sources() -> dict[str, Source]:
    return {k: Source(k, v["citation"], v["transcribed_from"]) for k, v in _raw()["sources"].items()}


def _series(metric: str, scale: float, per_n: bool = False) -> list[SeedSeries]:
    src = sources()
    out = []
    for s in _raw()["series"]:
        if s["metric"] != metric or s.get("chart", True) is False or not s["runtime"]:
            continue
        pts = []
        for p in s["points"]:
            k = p["n"] if per_n else 1
            if per_n and not p["value"]:
                continue  # "0 ms": below the published timer's resolution, no figure to draw
            v = p["value"] * scale / k
            pts.append(
                SeedPoint(
                    p["n"],
                    v,
                    p.get("low", p["value"]) * scale / k,
                    p.get("high", p["value"]) * scale / k,
                    p.get("note", ""),
                )
            )
        out.append(
            SeedSeries(
                s["year"], s["runtime"], s["system"], s["machine"], src[s["source"]], tuple(pts), s.get("note", "")
            )
        )
    return out


def message_series() -> list[SeedSeries]:
    """Time per message against N: Ericsson 1998 (µs per message) and the 2009 ring (ms per N × M hops)."""
    out = _series("message", 1e3)
    src = sources()
    for s in _raw()["series"]:
        if s["metric"] != "ring_total":
            continue
        # The 2009 table varies M too; per hop it is flat in M (≈ 1.3 µs), so the middle column stands for it.
        ms = sorted({p["m"] for p in s["points"]})
        m = ms[len(ms) // 2]
        pts = tuple(
            SeedPoint(
                p["n"],
                p["value"] * 1e6 / (p["n"] * m),
                p["value"] * 1e6 / (p["n"] * m),
                p["value"] * 1e6 / (p["n"] * m),
                f"{p['value']:,} ms for M = {m:,} laps",
            )
            for p in s["points"]
            if p["m"] == m
        )
        out.append(
            SeedSeries(
                s["year"],
                s["runtime"],
                s["system"],
                s["machine"],
                src[s["source"]],
                pts,
                f"ring of N processes, M = {m:,} laps, per hop",
            )
        )
    return out


def spawn_series() -> list[SeedSeries]:
    """Spawn time per process: Ericsson 1998 (µs per process) and the 2009 ring (ms for N processes)."""
    return _series("spawn", 1e3) + _series("spawn_total", 1e6, per_n=True)


def memory_series() -> list[SeedSeries]:
    return _series("memory", 1.0)


def selective_series() -> list[dict]:
    """The 2010 mailbox figures: total ms for N replies, in arrival and in reverse order."""
    src = sources()
    return [
        {**p, "source": src[s["source"]], "year": s["year"], "system": s["system"], "runtime": s["runtime"]}
        for s in _raw()["series"]
        if s["metric"] == "selective_total"
        for p in s["points"]
    ]


def ring_table() -> list[dict]:
    """The 2009 ring table as published: ms for N processes × M laps, each with its source and machine."""
    src = sources()
    return [
        {**p, "source": src[s["source"]], "year": s["year"], "machine": s["machine"], "runtime": s["runtime"]}
        for s in _raw()["series"]
        if s["metric"] == "ring_total"
        for p in s["points"]
    ]


@dataclass(frozen=True)
class TreeFigure:
    """One line of the skynet README's results: a runtime's time for one tree, on one machine, as published."""

    year: int
    runtime: str | None  # the family today's runtimes are matched on (erlang, go); None: no ringbench driver
    system: str  # the runtime as the README names it: "Erlang (non-HIPE)", "Go", "Scala/Akka"
    machine: str
    heading: str | None  # the README's kind of runtime: Actors, Coroutines / fibers / channels, Futures / promises
    n: int  # leaves
    fanout: int
    ms: float  # the published time per tree, the middle of a published range
    low: float
    high: float
    published: str  # the README's line, verbatim
    note: str
    source: Source

    @property
    def processes(self) -> int:
        """Leaves and inner processes of the tree: (fanout·n − 1)/(fanout − 1)."""
        return (self.fanout * self.n - 1) // (self.fanout - 1)

    def matches(self, runtime: str) -> bool:
        name = runtime.split("/")[0]
        return bool(self.runtime) and (name == self.runtime or name.startswith(f"{self.runtime}-"))


def tree_table() -> list[TreeFigure]:
    """The skynet README's results tables, every figure with its runtime, machine and source, in its order."""
    src = sources()
    return [
        TreeFigure(
            s["year"],
            s["runtime"],
            s["system"],
            s["machine"],
            s.get("heading"),
            p["n"],
            p["fanout"],
            p["value"],
            p.get("low", p["value"]),
            p.get("high", p["value"]),
            s["published"],
            p.get("note", ""),
            src[s["source"]],
        )
        for s in _raw()["series"]
        if s["metric"] == "tree_total"
        for p in s["points"]
    ]


def tree_series() -> list[SeedSeries]:
    """The skynet figures of the runtime families ringbench drives, as series of time per tree in ns."""
    return _series("tree_total", 1e6)
