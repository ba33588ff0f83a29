"""The drivers: build them, list them, trace one."""

from __future__ import annotations

from collections.abc import Callable

from ..catalogue import workloads
from ..catalogue.drivers import Driver, DriverError, at_installation, build_record, discover, select
from ..catalogue.drivers import build as build_driver
from ..harness import cluster, runner
from ..harness.launch import run_driver
from ..harness.measure import jit_floor
from ..harness.protocol import DriverFailed
from .errors import InputError
from .planning import PLACEMENT_WITHOUT_NODES


def build(
    names: list[str],
    on_each: Callable[[str, str | None], None] = lambda name, problem: None,
    keep_env: bool = False,
    on_env: Callable[[str, dict], None] = lambda name, record: None,
) -> list[str]:
    """Build the named drivers (all when none is named) with their own tools; `on_each(folder, problem)`
    reports each (problem None when built); returns the folders that failed. Unknown names: InputError.
    A build runs without the variables its manifest's `build_env` names (RUSTFLAGS, GOFLAGS, CFLAGS…)
    unless `keep_env`; `on_env(folder, record)` hears of each build that found some set."""
    drivers = discover()
    folders = {d.base: d for d in drivers.values()}
    wanted = list(names) or list(folders)
    unknown = [n for n in wanted if n.partition("@")[0] not in folders and n.partition("@")[0] not in drivers]
    if unknown:
        raise InputError(f"unknown runtime(s) {', '.join(unknown)}; known: {', '.join(folders)}")
    failed = []
    for name in wanted:
        runtime, _, at = name.partition("@")
        try:  # runtime@installation: the driver built for that installation, into its own folder
            d = at_installation(name, drivers)[0] if at else (folders.get(name) or drivers[name])
        except DriverError as e:
            raise InputError(str(e)) from None
        label = f"{d.base}@{d.installation}" if at else d.base
        try:
            record = build_driver(d, keep_env)
            on_each(label, None)
            if record.get("removed") or record.get("kept"):
                on_env(label, record)
        except DriverError as e:
            failed.append(label)
            on_each(label, str(e))
    return failed


# -- runtimes and trace ------------------------------------------------------------------------------
def runtimes() -> list[dict]:
    """Every driver found under drivers/: built or not, version, workloads, features, kind of hop."""
    rows = []
    for d in discover().values():
        info = {
            "runtime": d.name,
            "language": d.language,
            "description": d.description,
            "hop": d.hop,
            "mailbox": d.mailbox,
            "tuned": d.tuned,
            "single_threaded": d.single_threaded,
            "built": d.is_built(),
            "missing": d.missing_tools(),
            "version": None,
            "workloads": [],
            "features": [],
            "problem": None,
            "tuning_env": list(d.tuning_env),
            "build_env": list(d.build_env),
            "build": build_record(d),
        }
        if info["built"] and not info["missing"]:
            try:
                desc = runner.describe_cached(d)
                info.update(
                    version=desc.get("version"), workloads=desc.get("workloads", []), features=desc.get("features", [])
                )
            except (DriverFailed, OSError) as e:  # OSError: an artifact that cannot be executed
                info["problem"] = str(e)
        rows.append(info)
    return rows


def trace_drivers(
    runtime: str, n: object, m: object, nodes: object = None, node_placement: object = None
) -> tuple[list[Driver], int, int]:
    """Validate a trace request: (drivers, n, m), or InputError. With nodes > 1 (a ring across nodes),
    every driver must describe the feature `nodes`."""
    try:
        params = workloads.TRACE.validate({"n": n, "m": m, "nodes": nodes, "node_placement": node_placement})
        drivers = select(runtime)
    except workloads.ParamError as e:
        raise InputError(f"{e} (trace prints every hop; for larger rings use `ringbench run ring`)") from None
    except DriverError as e:
        raise InputError(str(e)) from None
    if node_placement is not None and params.get("nodes", 1) == 1:
        raise InputError(PLACEMENT_WITHOUT_NODES.replace(" or --hosts too", ""))
    for d in drivers:
        if workloads.TRACE.name not in runner.workloads_of(d):
            raise InputError(f"{d.name} does not implement trace")
        if params.get("nodes", 1) > 1 and "nodes" not in runner.features_of(d):
            raise InputError(cluster.no_nodes(d.name, params["nodes"]))
    return drivers, params["n"], params["m"]


def trace(
    d: Driver,
    n: int,
    m: int,
    on_hop: Callable[[dict], None],
    timeout: float = 60,
    nodes: int = 1,
    node_placement: int = 0,
) -> str | None:
    """Run one driver's trace, calling `on_hop` as each hop is printed; None if every hop followed the
    ring's rule (and, across nodes, the driver proved the cross-node hops of the layout), else what was wrong."""
    seen: list[dict] = []

    def hop(rec: dict) -> None:
        if rec["type"] == "hop":
            seen.append(rec)
            on_hop(rec)

    try:
        across = [f"nodes={nodes}", f"node_placement={node_placement}"] if nodes > 1 else []
        launch = run_driver(d, ["run", "trace", f"n={n}", f"m={m}", *across], n=n, timeout=timeout, on_record=hop)
    except DriverFailed as e:
        return str(e)
    problem = workloads.check_trace(seen, n, m, launch.records)
    if problem or nodes == 1:
        return problem
    want = workloads.cross_hops({"n": n, "m": m, "tokens": 1, "nodes": nodes, "node_placement": node_placement})
    got = next((r.get("cross_hops") for r in launch.records if r.get("type") == "result"), None)
    return None if got == want else f"cross-node hops {got}, expected {want}"


def jit_floors() -> dict[str, int]:
    """Each runtime's JIT floor: the units of work its warm-ups pass before the settle window starts (0 without
    a JIT), as a default run applies it (scripts/results.py replays the settle rule with them)."""
    return {name: jit_floor(d) for name, d in discover().items()}
