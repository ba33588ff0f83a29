"""Planning a measurement before anything runs: cells from a request (or InputError), how much it
will do, the runtimes `bench` measures by default."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..catalogue import workloads
from ..catalogue.drivers import DriverError, hop_group, select
from ..harness import cluster, runner
from ..harness.spec import CellSpec
from ..results.modes import Options
from ..results.relative import NOT_RANKED
from ..results.store import DEFAULT_DB
from .errors import InputError
from .stored import load


def plan(
    workload: str,
    runtimes: str,
    grid: list[dict] | None = None,
    params: dict | None = None,
    cores: list[str] | str = "all",
    tuned: bool = False,
    hosts: tuple[str, ...] | str = (),
) -> tuple[workloads.Workload, list[CellSpec]]:
    """Validate and expand a request into cells, or raise InputError. Nothing runs. `hosts` (a ring across
    nodes on other hosts) makes the ring's nodes this machine's and one on each host, unless --nodes says."""
    try:
        w = workloads.get(workload)
        if hosts and grid is None:
            params = _nodes_for_hosts(w, params or {}, hosts)
        given_grid = grid is None
        grid = [w.validate(p) for p in grid] if grid is not None else w.grid(params or {})
        drivers = select(runtimes, tuned=tuned)
    except (workloads.ParamError, DriverError, cluster.ClusterError) as e:
        raise InputError(str(e)) from None
    if given_grid and (params or {}).get("node_placement") is not None and all(p.get("nodes", 1) == 1 for p in grid):
        raise InputError(PLACEMENT_WITHOUT_NODES)
    cores = [c.strip() for c in cores.split(",")] if isinstance(cores, str) else list(cores)
    bad = [c for c in cores if c not in ("1", "all")] or ([] if cores else ["(none)"])
    if bad:
        raise InputError(f"cores must be 1 or all (or both: 1,all), got {','.join(cores)}")
    return w, runner.plan(drivers, w, grid, list(dict.fromkeys(cores)))


PLACEMENT_WITHOUT_NODES = "--node-placement lays a ring out over nodes: give --nodes K (K ≥ 2) or --hosts too"


def _nodes_for_hosts(w: workloads.Workload, params: dict, hosts: tuple[str, ...] | str) -> dict:
    """A ring over other hosts has this machine's node and one on each host: --nodes, when given, may say
    only that (and 1, the in-node ring, which is measured beside it anyway)."""
    if "nodes" not in {p.name for p in w.params}:
        raise cluster.ClusterError(f"--hosts spreads a ring over nodes on other hosts; {w.name} runs on one node")
    k = cluster.nodes_of(cluster.parse_hosts(hosts))
    given = params.get("nodes")
    if given is None:
        return {**params, "nodes": k}
    values = {workloads.NODES.check(v) for v in str(given).split(",") if v.strip()}
    if not values <= {1, k}:
        raise cluster.ClusterError(
            f"--hosts with {k - 1} host(s) makes {k} nodes (this machine's and one on each host); "
            f"--nodes {given} asks for others"
        )
    return params


@dataclass(frozen=True)
class Estimate:
    """How much a measurement will do, before it runs: for the progress display."""

    cells: int
    processes: int  # steps to take: driver processes in timed mode, cells otherwise
    seconds: float  # a rough guess of the wall time


def ranked_runtimes(tuned: bool = False) -> list[str]:
    """The built variants `bench` measures by default: every one a table ranks beside the runtimes' own
    mailboxes and channels, and the floor for scale. Hand-offs, rendezvous and the drivers' hand-written
    mailboxes (manifest `ranked = "hand-written"`, ranked apart) come with `--all-idioms`: none of them is
    the idiom a programmer of the runtime reaches for first."""
    try:
        chosen = select("all", tuned=tuned)
    except DriverError:
        return []
    return [d.name for d in chosen if d.hop not in ("handoff", "rendezvous") and not d.ranked]


def estimate(cells: int | list[CellSpec], options: dict) -> Estimate:
    """A rough size of a measurement with these mode options (Options fields): of the planned cells, a
    JIT runtime's counted with its warm-up and each runtime's calibration probe; or of a number of
    cells of runtimes not known."""
    o = Options(**{k: v for k, v in options.items() if v is not None})
    mode = o.mode_object
    if isinstance(cells, int):
        return Estimate(cells, cells * mode.steps(o), cells * mode.seconds(o))
    seconds = sum(mode.seconds(o, c.driver.jit) for c in cells)
    calibrated = [c for c in cells if c.workload.calibrates and c.workload.calibrates not in c.params]
    # a probe per runtime and grid point (measure._calibration's key), serving both core settings
    probed = {(c.driver.name, json.dumps(c.params, sort_keys=True)): c.driver.jit for c in calibrated}
    seconds += sum(mode.probe_seconds(o, jit) for jit in probed.values())
    return Estimate(len(cells), len(cells) * mode.steps(o), seconds)


def resume_estimate(run_id: int, db: Path | str = DEFAULT_DB) -> Estimate:
    """What resuming a stored run still has to measure."""
    run = load(run_id, db)
    left = (run.planned or len(run.cells)) - sum(c.status in ("ok", "refused") for c in run.cells)
    return estimate(max(left, 0), vars(run.options))


def check_baseline_of_plan(baseline: str | None, cells: list[CellSpec]) -> None:
    if not baseline:
        return
    named = [c.driver for c in cells if c.driver.name == baseline or c.driver.base == baseline]
    if not named:
        have = ", ".join(dict.fromkeys(c.driver.name for c in cells))
        raise InputError(f"--baseline {baseline} is not a runtime of this run (it has: {have})")
    if not any(hop_group(d.hop) == "message" for d in named):
        raise InputError(f"--baseline {baseline}: {NOT_RANKED.get(named[0].hop, 'it is not ranked')}")
