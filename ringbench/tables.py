"""Turning measured cells into tables (rich for the terminal, plain dicts for JSON)."""
from __future__ import annotations

from dataclasses import dataclass

from rich.table import Table

from . import stats
from .workloads import Workload


@dataclass(frozen=True)
class Row:
    runtime: str
    cores: str
    params: dict
    status: str
    reason: str | None
    records: list[dict]


def fmt(x: float | None) -> str:
    if x is None:
        return "–"
    if abs(x) >= 100:
        return f"{x:,.0f}"
    if abs(x) >= 1:
        return f"{x:,.2f}"
    return f"{x:.3g}"


def summaries(w: Workload, records: list[dict]) -> dict[str, stats.Summary]:
    out = {}
    for metric in w.metrics:
        values = [v for v in map(metric.of, records) if v is not None]
        if values:
            out[metric.name] = stats.summarize(values)
    return out


def _rel(w: Workload, rows: list[Row]) -> tuple[dict[int, dict], dict[int, float]]:
    ok = {i: summaries(w, r.records) for i, r in enumerate(rows) if r.status == "ok" and r.records}
    head = {i: s[w.headline.name].median for i, s in ok.items() if w.headline.name in s}
    return ok, stats.relative_pct(head) if head else {}


def table(w: Workload, rows: list[Row], title: str) -> Table:
    ok, rel = _rel(w, rows)
    t = Table(title=title, title_justify="left")
    t.add_column("Runtime")
    t.add_column("Cores", justify="right")
    for p in w.params:
        t.add_column(p.name.upper() if len(p.name) == 1 else p.name, justify="right")
    t.add_column(w.headline.label, justify="right")
    t.add_column("spread", justify="right")
    for metric in w.metrics[1:]:
        t.add_column(metric.label, justify="right")
    for col in ("Rel %", "count verified", "repeats"):
        t.add_column(col, justify="right")
    width = 3 + len(w.metrics) + 3
    for i, r in enumerate(rows):
        head = [r.runtime, r.cores, *(f"{r.params[p.name]:,}" for p in w.params)]
        if i not in ok:
            label = "n/a" if r.status == "refused" else r.status
            t.add_row(*head, f"[red]{label}[/red]", (r.reason or "").splitlines()[0][:90], *[""] * (width - 3))
            continue
        s = ok[i]
        hl = s.get(w.headline.name)
        t.add_row(*head, fmt(hl.median if hl else None), f"{fmt(hl.low)}–{fmt(hl.high)}" if hl else "–",
                  *(fmt(s[m.name].median if m.name in s else None) for m in w.metrics[1:]),
                  f"{rel[i]:.1f}" if i in rel else "–", f"{r.records[0]['count']:,}", str(len(r.records)))
    return t


def as_json(w: Workload, rows: list[Row]) -> list[dict]:
    ok, rel = _rel(w, rows)
    out = []
    for i, r in enumerate(rows):
        item = {"runtime": r.runtime, "cores": r.cores, "params": r.params, "status": r.status,
                "reason": r.reason, "repeats": r.records}
        if i in ok:
            item["summary"] = {k: vars(v) for k, v in ok[i].items()}
            item["summary"]["rel_pct"] = rel.get(i)
        out.append(item)
    return out
