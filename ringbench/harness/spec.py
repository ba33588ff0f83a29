"""What one cell asks for (CellSpec): plain data for the harness."""

from __future__ import annotations

from dataclasses import dataclass

from ..catalogue.drivers import Driver
from ..catalogue.workloads import Workload, cross_hops, cross_per_lap

# Generous per-hop and per-spawn allowances for the default timeout: a guard against hangs,
# not an expectation (the slowest driver here, Python threads, is ~20 µs per hop).
TIMEOUT_BASE_S = 60.0
TIMEOUT_PER_HOP_S = 50e-6
TIMEOUT_PER_PROCESS_S = 500e-6
# A hop to another node (contract section 10) goes through the runtime's remoting and the loopback stack:
# Pekko's, the slowest here, took 110-170 µs on a loaded 2-core machine. Each iteration of a ring across
# nodes also sends the proof once round (untimed), so one lap's crossings more.
TIMEOUT_PER_CROSS_HOP_S = 1e-3


@dataclass(frozen=True)
class CellSpec:
    driver: Driver
    workload: Workload
    params: dict  # the grid point as asked; a calibrated `m` is absent until calibration finds it
    cores: str  # "1" or "all"
    view: bool = False  # continuous mode: ask for the cluster view (node records, contract section 10)

    @property
    def label(self) -> str:
        ps = " ".join(f"{k}={v:,}" for k, v in self.params.items())
        return f"{self.driver.name} [{self.cores} core{'s' if self.cores != '1' else ''}] {self.workload.name} {ps}"

    def driver_params(self, **override: int) -> dict:
        return self.workload.to_driver({**self.params, **override})

    @property
    def processes(self) -> int:
        """Processes one iteration holds at most (limits and timeouts are sized by it)."""
        return self.workload.processes(self.driver_params(m=1))

    def timeout(self, iterations: int, given: float | None, **override: int) -> float:
        if given:
            return given
        p = self.driver_params(**override)
        per_iteration = self.workload.hops(p) * TIMEOUT_PER_HOP_S + self.processes * TIMEOUT_PER_PROCESS_S
        if p.get("nodes", 1) > 1 and "m" in p:
            crossing = cross_hops(p) + cross_per_lap(p["n"], p["nodes"], p.get("node_placement", 0))
            per_iteration += crossing * TIMEOUT_PER_CROSS_HOP_S
        return TIMEOUT_BASE_S + iterations * per_iteration
