"""What a workload is: its parameters, their bounds, and the count a driver must prove.

Each workload is defined once here; the CLI, the validator, the runner and the
conformance suite all read these definitions. Bounds mirror section 6 of
docs/driver-contract.md, which drivers check again on their side.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping


class ParamError(ValueError):
    """A parameter is missing, not an integer, or out of bounds (exit 2)."""


@dataclass(frozen=True)
class Param:
    name: str
    help: str
    minimum: int = 1
    maximum: int = 10_000_000
    default: int | None = None  # None: the user must give it

    def check(self, raw: object) -> int:
        if isinstance(raw, bool):
            raise ParamError(f"{self.name} must be an integer, got {raw!r}")
        if isinstance(raw, int):
            value = raw
        else:
            text = str(raw).strip().replace("_", "").replace(",", "")
            if not text.lstrip("-").isdigit():
                raise ParamError(f"{self.name} must be an integer, got {str(raw)!r}")
            value = int(text)
        if not self.minimum <= value <= self.maximum:
            raise ParamError(
                f"{self.name} must be between {self.minimum:,} and {self.maximum:,}, got {value:,}")
        return value


@dataclass(frozen=True)
class Workload:
    name: str
    summary: str
    params: tuple[Param, ...]
    expected: Callable[[Mapping[str, int]], int]  # the count the driver must prove
    hops: Callable[[Mapping[str, int]], int]      # messages in the timed run phase (for ns/hop)
    driver_workload: str = ""                     # the driver verb, when it differs from name
    extra_checks: tuple[Callable[[Mapping[str, int]], str | None], ...] = field(default=())

    @property
    def verb(self) -> str:
        return self.driver_workload or self.name

    def param_names(self) -> list[str]:
        return [p.name for p in self.params]

    def validate(self, given: Mapping[str, object]) -> dict[str, int]:
        """Return complete, checked parameters or raise ParamError."""
        known = {p.name: p for p in self.params}
        unknown = sorted(set(given) - set(known))
        if unknown:
            raise ParamError(f"workload {self.name!r} takes no parameter {', '.join(unknown)}"
                             f" (it takes: {', '.join(known)})")
        out: dict[str, int] = {}
        for p in self.params:
            raw = given.get(p.name)
            if raw is None:
                if p.default is None:
                    raise ParamError(f"workload {self.name!r} needs {p.name} ({p.help})")
                raw = p.default
            out[p.name] = p.check(raw)
        for check in self.extra_checks:
            problem = check(out)
            if problem:
                raise ParamError(problem)
        return out


N = Param("n", "number of processes")
M = Param("m", "laps of the ring (messages per process)", maximum=1_000_000_000)
TOKENS = Param("tokens", "tokens circulating at once", default=1)

_MAX_HOPS = 2 ** 62


def _tokens_fit(p: Mapping[str, int]) -> str | None:
    if p["tokens"] > p["n"]:
        return f"tokens ({p['tokens']:,}) cannot exceed n ({p['n']:,}): one token per process at most"
    if p["n"] * p["m"] * p["tokens"] >= _MAX_HOPS:
        return "n × m × tokens is too large (must stay below 2^62 hops)"
    return None


RING = Workload(
    name="ring",
    summary="N processes in a ring; tokens travel M laps (N×M×K messages). Spawn and message phases timed apart.",
    params=(N, M, TOKENS),
    expected=lambda p: p["n"] * p["m"] * p["tokens"],
    hops=lambda p: p["n"] * p["m"] * p["tokens"],
    extra_checks=(_tokens_fit,),
)

WORKLOADS: dict[str, Workload] = {w.name: w for w in (RING,)}

# Keys every driver accepts besides a workload's own (contract section 2).
COMMON_KEYS = ("repeats", "warmup", "cores", "sample_ms", "samples", "stats")


def get(name: str) -> Workload:
    try:
        return WORKLOADS[name]
    except KeyError:
        raise ParamError(f"unknown workload {name!r}; known: {', '.join(WORKLOADS)}") from None
