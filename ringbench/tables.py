"""Turning cells into tables: rich for the terminal, dicts for JSON, text for Markdown.

Rel % is throughput against a reference row (the fastest, or --baseline), with a bootstrap
95 % interval; "sig." says whether the row differs from the reference beyond noise
(non-overlapping 95 % intervals of the medians; see stats.compare).
"""
from __future__ import annotations

from rich.markup import escape
from rich.table import Table

from . import stats
from .api import CellResult


def fmt(x: float | None) -> str:
    if x is None:
        return "–"
    if abs(x) >= 100:
        return f"{x:,.0f}"
    if abs(x) >= 1:
        return f"{x:,.2f}"
    return f"{x:.3g}"


def pct(x: float | None) -> str:
    """A percentage with enough digits to tell 0.04 % from 0.4 %."""
    if x is None:
        return "–"
    return f"{x:.1f}" if x >= 1 else f"{x:.2g}"


def reference(cells: list[CellResult], baseline: str | None = None) -> int | None:
    """Index of the row others are compared with: the baseline runtime's, else the fastest."""
    ok = [(i, c) for i, c in enumerate(cells) if c.ok and c.headline]
    if baseline:
        for i, c in ok:
            if c.runtime == baseline or c.runtime.split("/")[0] == baseline:
                return i
    return min(ok, key=lambda ic: ic[1].headline.median)[0] if ok else None


def relative(cells: list[CellResult], baseline: str | None = None) -> dict[int, dict]:
    """Per ok row: rel_pct (reference time / row time × 100), its interval, and significance."""
    ref = reference(cells, baseline)
    if ref is None:
        return {}
    base = cells[ref].values()
    out = {}
    for i, c in enumerate(cells):
        if not (c.ok and c.headline):
            continue
        vals = c.values()
        diff = stats.compare(base, vals)
        lo, hi = diff.ratio_ci
        out[i] = {"rel_pct": 100.0 / diff.ratio, "rel_ci": (100.0 / hi, 100.0 / lo),
                  "significant": diff.significant if i != ref else None, "p_value": diff.p_value,
                  "reference": i == ref}
    return out


def _columns(cells: list[CellResult]) -> list[str]:
    return [p.name for p in cells[0].workload.params]


def table(cells: list[CellResult], title: str, baseline: str | None = None) -> Table:
    if not cells:
        t = Table(title=title)
        t.add_column("nothing measured")
        return t
    mode = cells[0].mode
    w = cells[0].workload
    rel = relative(cells, baseline)
    t = Table(title=title, title_justify="left")
    t.add_column("Runtime")
    t.add_column("Cores", justify="right")
    params = _columns(cells)
    for p in params:
        t.add_column(p.upper() if len(p) == 1 else p, justify="right")
    if mode == "timed":
        metrics = w.metrics
        t.add_column(metrics[0].label + " (median)", justify="right")
    else:
        metrics = ()
        t.add_column("ns/hop (median)", justify="right")
    t.add_column("95 % CI", justify="right")
    t.add_column("spread", justify="right")
    for m in metrics[1:]:
        t.add_column(m.label, justify="right")
    if mode != "timed":
        t.add_column("hops/sample", justify="right")
        t.add_column("CV %", justify="right")
    if mode == "squeeze":
        t.add_column("peak K", justify="right")
    t.add_column("Rel %", justify="right")
    t.add_column("Rel 95 % CI", justify="right")
    t.add_column("sig.", justify="center")
    t.add_column("count verified" if mode == "timed" else "samples", justify="right")
    ncols = len(t.columns)
    for i, c in enumerate(cells):
        head = [c.runtime, c.cores, *(f"{c.params[p]:,}" if p in c.params else "" for p in params)]
        if not c.ok:
            label = "n/a" if c.status == "refused" else c.status
            t.add_row(*head, f"[red]{label}[/red]", escape((c.reason or "").splitlines()[0][:100]),
                      *[""] * (ncols - len(head) - 2))
            continue
        s = c.summaries()
        hl = c.headline
        vals = c.values()
        ci = stats.bootstrap_median_ci(vals) if len(vals) > 1 else None
        row = [fmt(hl.median) if hl else "–", f"{fmt(ci[0])}–{fmt(ci[1])}" if ci else "–",
               f"{fmt(hl.low)}–{fmt(hl.high)}" if hl else "–"]
        row += [fmt(s[m.name].median if m.name in s else None) for m in metrics[1:]]
        if mode != "timed":
            x = c.extra
            slow = " [yellow](a lap > a sample)[/yellow]" if x.get("slower_than_one_sample") else ""
            row += [f"{x.get('hops_per_sample_mean', 0):,.0f}{slow}", f"{x.get('cv', 0) * 100:.1f}"]
        if mode == "squeeze":
            row.append(str(c.extra.get("peak_concurrency")))
        r = rel.get(i)
        if r:
            sig = "ref" if r["reference"] else ("yes" if r["significant"] else "no")
            ci_text = "–" if r["reference"] else f"{pct(r['rel_ci'][0])}–{pct(r['rel_ci'][1])}"
            row += [pct(r["rel_pct"]), ci_text, sig]
        else:
            row += ["–", "–", ""]
        if mode == "timed":
            row.append(f"{c.records[0]['count']:,} ×{len(c.records)}")
        else:
            row.append(str(c.extra.get("counted_samples", len(c.samples))) +
                       ("" if "converged" not in c.extra else " (converged)" if c.extra["converged"] else " (not converged)"))
        t.add_row(*head, *row)
    return t


def squeeze_history(cell: CellResult) -> Table:
    t = Table(title=escape(f"squeeze: {cell.label} — {cell.extra.get('stopped_because', '')}"), title_justify="left")
    for col in ("concurrency (tokens)", "hops/s (mean)", "sd", "samples", ""):
        t.add_column(col, justify="right")
    peak = cell.extra.get("peak_concurrency")
    for h in cell.extra.get("history", []):
        t.add_row(str(h["concurrency"]), f"{h['hops_per_s']:,.0f}", f"{h['sd']:,.0f}", str(h["samples"]),
                  "← peak" if h["concurrency"] == peak else "")
    return t


def runtime_stats(cells: list[CellResult]) -> Table | None:
    rows = [(c, r["runtime_stats"]) for c in cells for r in c.records if "runtime_stats" in r]
    if not rows:
        return None
    t = Table(title="runtime statistics (per repeat, as the runtime reports them)", title_justify="left")
    t.add_column("Runtime")
    t.add_column("Cores")
    t.add_column("repeat")
    t.add_column("statistics")
    for c, st in rows:
        shown = ", ".join(f"{k}={v:,}" if isinstance(v, int) else f"{k}={v}" for k, v in st.items()
                          if k not in ("workload", "iteration"))
        t.add_row(c.runtime, c.cores, str(st.get("iteration", "")), shown)
    return t


def as_json(cells: list[CellResult], baseline: str | None = None) -> list[dict]:
    rel = relative(cells, baseline)
    out = []
    for i, c in enumerate(cells):
        item = {"runtime": c.runtime, "cores": c.cores, "params": c.params, "mode": c.mode, "status": c.status,
                "reason": c.reason, "runtime_version": c.version,
                "hops": c.workload.hops(c.workload.to_driver(c.params)),  # messages per repeat's run phase
                "repeats": c.records, "samples": c.samples, "extra": c.extra}
        if c.ok:
            item["summary"] = {k: vars(v) for k, v in c.summaries().items()}
            vals = c.values()
            if len(vals) > 1:
                item["summary"]["headline_ci95"] = stats.bootstrap_median_ci(vals)
            if i in rel:
                item["summary"]["relative"] = rel[i]
        out.append(item)
    return out


def plain_rows(cells: list[CellResult], baseline: str | None = None) -> tuple[list[str], list[list[str]]]:
    """The headline figures as text cells: shared by the Markdown export and the HTML report."""
    if not cells:
        return ["nothing measured"], []
    w = cells[0].workload
    label = w.headline.label if cells[0].mode == "timed" else "ns/hop"
    params = _columns(cells)
    rel = relative(cells, baseline)
    others = w.metrics[1:] if cells[0].mode == "timed" else ()
    header = ["Runtime", "Cores", *params, f"{label} (median)", "95 % CI", "spread", *(m.label for m in others),
              "Rel %", "significant", "count"]
    rows = []
    for i, c in enumerate(cells):
        ps = [f"{c.params.get(p, ''):,}" for p in params]
        if not c.ok:
            rows.append([c.runtime, c.cores, *ps, f"{'n/a' if c.status == 'refused' else c.status}: "
                         f"{(c.reason or '').splitlines()[0]}", *[""] * (len(header) - len(ps) - 3)])
            continue
        s = c.summaries()
        extra = [fmt(s[m.name].median if m.name in s else None) for m in others]
        vals = c.values()
        ci = stats.bootstrap_median_ci(vals) if len(vals) > 1 else None
        hl = c.headline
        r = rel.get(i, {})
        sig = "ref" if r.get("reference") else ("yes" if r.get("significant") else "no")
        count = f"{c.records[0]['count']:,} ×{len(c.records)}" if c.records else f"{len(c.samples)} samples"
        rows.append([c.runtime, c.cores, *ps, fmt(hl.median), f"{fmt(ci[0])}–{fmt(ci[1])}" if ci else "–",
                     f"{fmt(hl.low)}–{fmt(hl.high)}", *extra, pct(r.get("rel_pct")), sig, count])
    return header, rows


def markdown(cells: list[CellResult], baseline: str | None = None) -> str:
    """A Markdown table of the headline figures (ready for a blog post)."""
    header, rows = plain_rows(cells, baseline)
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"
