"""A ring across nodes (contract section 10), read from the model: the share of cross-node hops, the
cost of one cross-node hop derived against the in-node ring of the same run, and the cluster view of a
continuous cell. Derived whenever asked, never stored: a table, an export and the report say the same.

ns per cross-node hop. A ring of `hops` hops of which a share s crosses a node boundary runs in
hops × t_K, t_K its median ns/hop; the same ring on one node (the in-node ring, measured in the same run,
in turn with it) costs t_1 a hop. Charging the in-node hops t_1 each, the cross-node hops cost
    t_x = (t_K − (1 − s) × t_1) / s.
With interleaved nodes s ≈ 1 and t_x ≈ t_K; with contiguous blocks s = K / N is small, and t_x is the
difference t_K − t_1 magnified 1/s times: unless that difference is significant it is noise (the table
marks it). Both are one machine's figures: no network, the loopback interface between processes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..catalogue.workloads import NS_PER_HOP, cross_per_lap
from . import noise, stats
from .difference import difference

if TYPE_CHECKING:  # cells are read, never made, here: the model imports this module for its warnings
    from .model import Cell

PLACEMENT = {0: "contiguous", 1: "interleaved"}


def nodes_of(c: Cell) -> int:
    return int(c.params.get("nodes", 1))


def distributed(c: Cell) -> bool:
    return nodes_of(c) > 1


def placement(c: Cell) -> str:
    return PLACEMENT.get(int(c.params.get("node_placement", 0)), "?")


def share(c: Cell) -> float | None:
    """Cross-node hops over all hops, as the driver proved them (the first record; every repeat is alike)."""
    if not distributed(c) or not c.records:
        return None
    r = c.records[0]
    if r.get("cross_hops") is None or not r.get("count"):
        return None
    return r["cross_hops"] / r["count"]


def layout_share(n: int, nodes: int, node_placement: int) -> float:
    """The share the layout gives (without a measurement): crossing edges over the ring's n edges."""
    return cross_per_lap(n, nodes, node_placement) / n


def in_node(c: Cell, cells: list[Cell]) -> Cell | None:
    """The in-node ring of `c` in the same run: the same runtime, cores, mode and parameters on one node."""
    want = {k: v for k, v in c.params.items() if k not in ("nodes", "node_placement")}
    return next(
        (
            o
            for o in cells
            if o.ok
            and not distributed(o)
            and (o.runtime, o.cores, o.mode, o.workload.name) == (c.runtime, c.cores, c.mode, c.workload.name)
            and o.params == want
        ),
        None,
    )


@dataclass(frozen=True)
class CrossHop:
    """One ring across nodes beside its in-node ring."""

    cell: Cell
    reference: Cell | None  # the in-node ring; None when the run has none
    share: float | None  # cross-node hops / hops
    ns_per_hop: float  # median of the ring across nodes
    in_node_ns: float | None  # median of the in-node ring
    ns_per_cross_hop: float | None  # derived: (t_K − (1 − s) t_1) / s
    significant: bool | None  # t_K against t_1 (Mann-Whitney); None: too few repeats
    p_value: float | None

    @property
    def ratio(self) -> float | None:
        """ns per cross-node hop over ns per in-node hop."""
        if self.ns_per_cross_hop is None or not self.in_node_ns:
            return None
        return self.ns_per_cross_hop / self.in_node_ns


def cross_hops(cells: list[Cell]) -> list[CrossHop]:
    """Every measured ring across nodes (timed, ns/hop) of `cells`, with its derived figures."""
    out = []
    for c in cells:
        if not (c.ok and distributed(c) and c.mode_object.settles and c.workload.headline is NS_PER_HOP):
            continue
        vals = c.values()
        if not vals:
            continue
        t_k = stats.summarize(vals).median
        ref = in_node(c, cells)
        s = share(c)
        t_1 = derived = p = None
        significant = None
        if ref is not None and ref.values():
            t_1 = stats.summarize(ref.values()).median
            if s:
                derived = (t_k - (1 - s) * t_1) / s
            d = difference(ref, c)
            significant, p = d.significant, d.p_value
        out.append(CrossHop(c, ref, s, t_k, t_1, derived, significant, p))
    return out


# -- the cluster view ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class NodeRow:
    """One node over the counted samples of a continuous cell (erlperf's cluster monitor, per node)."""

    node: int
    name: str
    processes_in_ring: int
    hops_per_s: float  # receipts of the node's ring processes (its laps × its processes), per second
    dist_in_per_s: float  # distribution packets received per second
    dist_out_per_s: float
    scheduler_utilisation: float | None  # active / total scheduler time of its normal schedulers
    cpu_per_wall: float | None  # the node's OS process CPU time over wall time
    memory: int  # bytes (erlang:memory(total)), at the last sample
    processes: int  # the node's process count at the last sample


def node_records(c: Cell) -> list[dict]:
    return list(c.extra.get("nodes", [])) if c.ok else []


def view(c: Cell) -> list[NodeRow]:
    """Per node, from the first counted sample (after the warm-up) to the last; [] without a view."""
    recs = node_records(c)
    if not recs:
        return []
    seqs = [s["seq"] for s in c.mode_object.counted_samples(c)]
    first_seq = min(seqs, default=1)
    out = []
    for node in sorted({r["node"] for r in recs}):
        mine = sorted((r for r in recs if r["node"] == node and r["seq"] >= first_seq), key=lambda r: r["seq"])
        if len(mine) < 2:
            continue
        a, b = mine[0], mine[-1]
        ns = b["elapsed_ns"] - a["elapsed_ns"]
        if ns <= 0:
            continue
        per_s = 1e9 / ns
        total = b["sched_total"] - a["sched_total"]
        out.append(
            NodeRow(
                node,
                str(b.get("name", "")),
                int(b["processes_in_ring"]),
                (b["laps"] - a["laps"]) * b["processes_in_ring"] * per_s,
                (b["dist_in"] - a["dist_in"]) * per_s,
                (b["dist_out"] - a["dist_out"]) * per_s,
                (b["sched_active"] - a["sched_active"]) / total if total > 0 else None,
                (b["cpu_ns"] - a["cpu_ns"]) / ns if "cpu_ns" in b else None,
                int(b["memory"]),
                int(b["processes"]),
            )
        )
    return out


def view_series(c: Cell) -> dict[int, list[tuple[float, float]]]:
    """Per node, (sample number, hops per second over the interval ending at that sample; the node's own clock)."""
    out: dict[int, list[tuple[float, float]]] = {}
    for node in sorted({r["node"] for r in node_records(c)}):
        mine = sorted((r for r in node_records(c) if r["node"] == node), key=lambda r: r["seq"])
        pts = []
        for a, b in zip(mine, mine[1:], strict=False):
            ns = b["elapsed_ns"] - a["elapsed_ns"]
            if ns > 0:
                rate = (b["laps"] - a["laps"]) * b["processes_in_ring"] * 1e9 / ns
                pts.append((float(b["seq"]), rate))
        out[node] = pts
    return out


# -- warnings ---------------------------------------------------------------------------------------
def warnings(cells: list[Cell], environment: dict) -> list[noise.RunWarning]:
    """Nodes pinned one per CPU (--cores 1) but more nodes than CPUs: some share one, round-robin."""
    cpus = environment.get("usable_cpus") or 0
    return [
        noise.RunWarning(
            "nodes-share-cpus",
            f"{nodes_of(c)} nodes pinned one per CPU on {cpus} CPU(s): some nodes share a CPU (round-robin)",
            "read it as nodes competing for CPUs, or use fewer nodes than CPUs",
            c.label,
            f"{nodes_of(c)} nodes",
            {"nodes": nodes_of(c), "cpus": cpus},
            c.identity,
        )
        for c in cells
        if c.ok and distributed(c) and c.cores == "1" and cpus and nodes_of(c) > cpus
    ]
