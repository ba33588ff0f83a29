"""The arithmetic of continuous sampling and squeeze: pure functions over sample records.

A sample record is the driver's running hop count at one instant (contract section 5):
{"seq": i, "elapsed_ns": t, "count": hops so far}. The first sample of a process is the
warm-up: only the intervals after it are counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .stats import cv


def intervals(samples: list[dict]) -> list[tuple[int, int]]:
    """(hops, ns) of each counted interval: between consecutive samples, after the warm-up one."""
    out = []
    for prev, cur in zip(samples, samples[1:], strict=False):  # consecutive pairs
        if cur.get("process") == prev.get("process"):
            out.append((cur["count"] - prev["count"], cur["elapsed_ns"] - prev["elapsed_ns"]))
    return out


def rates(samples: list[dict]) -> list[float]:
    """Hops per second of each counted interval."""
    return [h * 1e9 / ns for h, ns in intervals(samples) if ns > 0]


def describe_samples(samples: list[dict]) -> dict:
    """Summary of a continuous cell: hops per sample and time per hop over the counted intervals."""
    import numpy as np

    iv = intervals(samples)
    hops = [h for h, _ in iv]
    total_hops, total_ns = sum(hops), sum(ns for _, ns in iv)
    return {
        "counted_samples": len(iv),
        "hops_per_sample_mean": float(np.mean(hops)) if hops else 0.0,
        "hops_per_sample_min": min(hops, default=0),
        "hops_per_sample_max": max(hops, default=0),
        "ns_per_hop": total_ns / total_hops if total_hops else None,
        "cv": cv(rates(samples)),
        # A lap longer than a sample shows as an interval with no hops: say so, never report 0 ns.
        "slower_than_one_sample": any(h == 0 for h in hops),
    }


def converged(rates_: list[float], target: float) -> bool:
    return len(rates_) >= 2 and cv(rates_) < target


@dataclass
class Squeeze:
    """Raise concurrency until throughput stops growing.

    Unlike a plain "no growth for `threshold` steps" rule (where one lucky sample can set a peak
    that ends the search early), a step counts against the peak only when it falls short of it by
    more than the samples' own spread (the larger standard deviation of the two steps). Steps
    within that noise neither end the search nor reset it; after 2 × threshold steps without
    significant growth the search ends anyway (a plateau).
    """

    threshold: int
    history: list[dict] = field(default_factory=list)
    peak: dict | None = None
    short: int = 0  # steps significantly below the peak since it was set
    flat: int = 0  # steps without significant growth since the peak was set
    stopped_because: str = "reached --max"

    def add(self, k: int, rates_: list[float]) -> bool:
        import numpy as np

        mean = float(np.mean(rates_)) if rates_ else 0.0
        sd = float(np.std(rates_, ddof=1)) if len(rates_) > 1 else 0.0
        step = {"concurrency": k, "hops_per_s": mean, "sd": sd, "samples": len(rates_)}
        self.history.append(step)
        if self.peak is None:
            self.peak = step
            return False
        noise = max(sd, self.peak["sd"])
        if mean > self.peak["hops_per_s"] + noise:
            self.peak, self.short, self.flat = step, 0, 0
            return False
        self.flat += 1
        if mean < self.peak["hops_per_s"] - noise:
            self.short += 1
        elif mean > self.peak["hops_per_s"]:
            self.peak = step  # higher but within noise: the best so far, without resetting the count
        if self.short >= self.threshold:
            self.stopped_because = f"{self.short} steps fell short of the peak by more than the spread"
            return True
        if self.flat >= 2 * self.threshold:
            self.stopped_because = f"{self.flat} steps without growth beyond the spread (a plateau)"
            return True
        return False

    def report(self) -> dict:
        return {
            "peak_concurrency": self.peak["concurrency"] if self.peak else None,
            "peak_hops_per_s": self.peak["hops_per_s"] if self.peak else None,
            "history": self.history,
            "stopped_because": self.stopped_because,
        }
