"""Turning measured cells into tables (rich for the terminal, plain rows for JSON)."""
from __future__ import annotations

from dataclasses import dataclass

from rich.table import Table

from . import stats


@dataclass(frozen=True)
class Row:
    runtime: str
    cores: str
    params: dict
    status: str
    reason: str | None
    records: list[dict]


def _fmt(x: float, digits: int = 1) -> str:
    if x >= 100:
        return f"{x:,.0f}"
    return f"{x:,.{digits}f}"


def ring_summary(records: list[dict]) -> dict:
    """The figures of one ring cell, each a Summary over its repeats."""
    return {
        "ns_per_hop": stats.summarize(map(stats.ns_per_hop, records)),
        "spawn_us_per_process": stats.summarize(map(stats.spawn_us_per_process, records)),
        "cpu_per_wall": stats.summarize(map(stats.cpu_per_wall, records)),
        "rss_bytes_per_process": stats.summarize(map(stats.rss_bytes_per_process, records)),
    }


def ring_table(rows: list[Row], title: str = "ring") -> Table:
    ok = {i: ring_summary(r.records) for i, r in enumerate(rows) if r.status == "ok" and r.records}
    rel = stats.relative_pct({i: s["ns_per_hop"].median for i, s in ok.items()}) if ok else {}
    t = Table(title=title, title_justify="left")
    for col, just in [("Runtime", "left"), ("Cores", "right"), ("N", "right"), ("M", "right"), ("K", "right"),
                      ("spawn µs/proc", "right"), ("ns/hop", "right"), ("spread", "right"),
                      ("CPU/wall", "right"), ("RSS B/proc", "right"), ("Rel %", "right"),
                      ("hops verified", "right"), ("repeats", "right")]:
        t.add_column(col, justify=just)
    for i, r in enumerate(rows):
        p = r.params
        head = [r.runtime, r.cores, f"{p['n']:,}", f"{p['m']:,}", str(p.get("tokens", 1))]
        if i not in ok:
            t.add_row(*head, f"[red]{r.status}[/red]", (r.reason or "").splitlines()[0][:70], *[""] * 6)
            continue
        s = ok[i]
        hop = s["ns_per_hop"]
        t.add_row(*head, _fmt(s["spawn_us_per_process"].median, 2), _fmt(hop.median),
                  f"{_fmt(hop.low)}–{_fmt(hop.high)}", f"{s['cpu_per_wall'].median:.2f}",
                  f"{s['rss_bytes_per_process'].median:,.0f}", f"{rel[i]:.1f}",
                  f"{r.records[0]['count']:,}", str(len(r.records)))
    return t


def ring_json(rows: list[Row]) -> list[dict]:
    ok = {i: ring_summary(r.records) for i, r in enumerate(rows) if r.status == "ok" and r.records}
    rel = stats.relative_pct({i: s["ns_per_hop"].median for i, s in ok.items()}) if ok else {}
    out = []
    for i, r in enumerate(rows):
        item = {"runtime": r.runtime, "cores": r.cores, "params": r.params, "status": r.status,
                "reason": r.reason, "repeats": r.records}
        if i in ok:
            item["summary"] = {k: vars(v) for k, v in ok[i].items()}
            item["summary"]["rel_pct"] = rel[i]
        out.append(item)
    return out
