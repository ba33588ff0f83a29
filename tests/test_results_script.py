"""scripts/results.py: the summary page and the topic pages, a section kept across the split byte for
byte, a section measured with uncommitted changes never published (kept: its tables withdrawn; from the
store: refused), and "what moved since contract 3". Made-up documents and a small fake store; nothing is
measured."""

import importlib.util
import json
import sqlite3
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("results_script", REPO / "scripts" / "results.py")
results = importlib.util.module_from_spec(_spec)
sys.modules["results_script"] = results
_spec.loader.exec_module(results)

TABLE = """\
| Runtime | hop | Cores | N | M | ns/hop | ±95% | CPU ns/hop | Rel % |
|---|---|---:|---:|---:|---:|---:|---:|---:|
| erlang/stock | mbox | 1 | 1,000 | 157 | 252 | 0.5% | 251 | 100 ref |
| go/stock | chan | 1 | 1,000 | 279 | 163 | 11% | 160 | 154.9 ✓ |
| erlang/stock | mbox | all | 1,000 | 157 | 256 | 2.9% | 266⁺ | 100 ref |
| go/stock | chan | all | 1,000 | 279 | 126 | 5.0% | 155⁺ | 203.4 ✓ |

> ⚠ noisy: a warning as ringbench printed it
"""


def section(heading: str, commit: str, run: int = 7, why: str = "How it is measured.") -> str:
    return (
        f"## {heading}\n\n{why}\n\nCommand: `ringbench x` (run {run}, 10 s wall, measured at commit {commit}, "
        f"started 2026-11-26 05:48 UTC, load average then 0.43 1.12 2.76)\n\n{TABLE}"
    )


FIDELITY = (
    f"{results.FIDELITY_HEADING}\n\nHand-written prose.\n\n<!-- fidelity:begin -->\n| a | b |\n|---|---|\n"
    "| 1 | 2 |\n<!-- fidelity:end -->\n\n<!-- perf-versus:begin -->\n## `ringbench perf` side by side with erlperf "
    "and timeit\n\nperf table\n<!-- perf-versus:end -->\n"
)


@pytest.fixture
def docs(tmp_path, monkeypatch):
    """docs/results.md as it was before the split (every section in one file), in a temporary folder, and
    no store."""
    doc = tmp_path / "results.md"
    sections = [
        section(results.HEADINGS["bench"], "d454267f9c09", 471),
        section(results.HEADINGS["ring-10k"], "5aa62fdc3816-dirty", 149, "As above, stock variants."),
        section(results.HEADINGS["ring-1m"], "39b1f3ea7a31-dirty", 150),
        f"## {results.GROWTH_HEADING}\n\nThe medians of the two tables above, divided.\n\n| runtime | ratio |\n"
        "|---|---:|\n| go/stock | 3.0 |\n",
        section(results.HEADINGS["memory"], "37e849d133eb", 472),
    ]
    doc.write_text(
        "# ringbench results\n\nThe old head.\n\n"
        + "\n".join(sections)
        + f"\n## {results.FAULTS_HEADING}\n\n{results.FAULTS}\n"
        + FIDELITY
    )
    monkeypatch.setattr(results, "DOC", doc)
    monkeypatch.setattr(results, "PAGES_DIR", tmp_path / "results")
    monkeypatch.setattr(results, "DB", tmp_path / "no-store.db")
    return doc, sections


def write(files: dict[Path, str]) -> None:
    for path, text in files.items():
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)


def test_a_section_measured_with_uncommitted_changes_keeps_its_prose_and_loses_its_tables():
    text = section("The ring at N = 10,000", "5aa62fdc3816-dirty", 149, "As above, stock variants.")
    out = results.publishable("ring-10k", text)
    assert out.startswith("## The ring at N = 10,000\n\nAs above, stock variants.\n\n")
    assert results.AWAITS in out
    assert "scripts/results.py --only ring-10k`" in out
    assert "run 149" in out and "5aa62fdc3816 with uncommitted changes" in out
    assert "|" not in out and "-dirty" not in out and "measured at commit" not in out
    # so it is kept as it is from then on
    assert results.publishable("ring-10k", out) == out
    also = section("x", "abc with uncommitted changes")
    assert results.AWAITS in results.publishable("x", also)


def test_a_section_measured_at_a_commit_is_kept_byte_for_byte():
    text = section("Bytes per idle process", "37e849d133eb")
    assert results.publishable("memory", text) == text


def test_runs_measured_with_uncommitted_changes_are_refused():
    clean = results.Stored(1, 1.0, "abc123", "2026-11-26 05:48 UTC", "0.1")
    dirty = results.Stored(2, 1.0, "abc123-dirty", "2026-11-26 05:48 UTC", "0.1")
    results.refuse_dirty({"bench": [clean], "tree": [clean]})
    with pytest.raises(SystemExit, match=r"tree: run 2 at abc123-dirty.*--only tree$"):
        results.refuse_dirty({"bench": [clean], "tree": [dirty]})


def test_a_store_holding_a_run_at_a_dirty_revision_is_refused(docs, monkeypatch, tmp_path):
    db = tmp_path / "published.db"
    con = sqlite3.connect(db)
    con.execute(
        "CREATE TABLE runs (id INTEGER PRIMARY KEY, command TEXT, started_at TEXT, finished_at TEXT, "
        "environment TEXT, status TEXT)"
    )
    env = json.dumps({"git_revision": "0123456789ab-dirty", "loadavg": [0.1, 0.2, 0.3]})
    con.execute(
        "INSERT INTO runs VALUES (1, ?, '2026-11-28T10:00:00', '2026-11-28T10:04:00', ?, 'complete')",
        (f"ringbench bench --db {db}", env),
    )
    con.commit()
    con.close()
    monkeypatch.setattr(results, "DB", db)
    before = docs[0].read_text()
    with pytest.raises(SystemExit, match=r"bench: run 1 at 0123456789ab-dirty.*--only bench"):
        results.render("0123456789ab", [])
    assert docs[0].read_text() == before


def test_without_a_store_the_sections_move_to_their_pages_unchanged(docs):
    doc, sections = docs
    files = results.render("0123456789ab", [{"runtime": "go/stock", "hop": "chan", "version": "go1", "built": True}])
    pages = results.PAGES_DIR
    bench, memory, rings = (files[pages / f] for f in ("bench.md", "memory.md", "rings.md"))
    assert sections[0] in bench and sections[4] in memory  # byte for byte
    assert results.FIDELITY_HEADING in files[pages / "side-by-side.md"]
    assert FIDELITY.rstrip("\n") in files[pages / "side-by-side.md"]
    assert results.FAULTS in files[pages / "reliability.md"]
    assert "| go/stock | chan | go1 |" in files[pages / "runtimes.md"]
    # the two rings measured with uncommitted changes, and the section derived from them, are withdrawn
    assert rings.count(results.AWAITS) == 3
    assert "--only ring-10k`" in rings and "--only ring-1m`" in rings and "--only ring-10k,ring-1m`" in rings
    assert "As above, stock variants." in rings and "| go/stock | 3.0 |" not in rings
    summary = files[doc]
    assert "-dirty" not in summary and "uncommitted changes, from" not in summary
    assert "measured at commit" not in summary or "5aa62fdc3816" not in summary
    assert "(results/bench.md)" in summary and "(results/rings.md)" in summary
    # the headline: wall and CPU ns/hop on one core and on all cores, cell for cell
    assert "| go/stock | chan | 163 | 160 | 126 | 155⁺ | 203.4 ✓ |" in summary
    assert "## What moved since contract 3" in summary
    # kept across the split: rendering again from the pages writes the same files
    write(files)
    assert (
        results.render("0123456789ab", [{"runtime": "go/stock", "hop": "chan", "version": "go1", "built": True}])
        == files
    )


def test_a_block_fidelity_py_adds_to_the_summary_replaces_the_pages(docs):
    doc, _ = docs
    write(results.render("0123456789ab", []))
    # fidelity.py finds no markers in the summary any more, so it adds its block at the end
    doc.write_text(doc.read_text() + "\n## Side by side\n\n<!-- fidelity:begin -->\nnew table\n<!-- fidelity:end -->\n")
    page = results.render("0123456789ab", [])[results.PAGES_DIR / "side-by-side.md"]
    assert "Hand-written prose." in page and "new table" in page and "| 1 | 2 |" not in page


def test_what_moved_since_contract_3_sets_the_newest_bench_beside_contract_3s():
    then = results.section_of(
        results.sh(["git", "show", f"{results.CONTRACT_3}:docs/results.md"]).stdout, results.BENCH_HEADING
    )
    if not then:
        pytest.skip(f"{results.CONTRACT_3} is not in this clone's history")
    waiting = results.since_contract_3(then)
    assert "**Awaits the bench**" in waiting and "LinkedBlockingQueue" in waiting
    now = section(results.BENCH_HEADING, "0123456789ab", 900)
    moved = results.since_contract_3(now)
    # contract 3 published go/stock at 163 (one core) and 126 (all cores)
    assert "| go/stock | 163 | 163 | 1.00 | 126 | 126 | 1.00 |" in moved
    assert "Awaits" not in moved and "3 fresh processes" in moved


def test_a_bench_in_the_store_is_written_with_what_moved_since_contract_3(docs, monkeypatch, tmp_path):
    """A made-up bench written through the store as a run of `ringbench bench` (nothing measured): its page
    from ringbench's own export, the summary's headline from that table, and the two benches side by side."""
    from report_fixtures import ENV, JITTER, cell, record

    from ringbench.results.modes import Options
    from ringbench.results.store import Store

    then = results.section_of(
        results.sh(["git", "show", f"{results.CONTRACT_3}:docs/results.md"]).stdout, results.BENCH_HEADING
    )
    if not then:
        pytest.skip(f"{results.CONTRACT_3} is not in this clone's history")
    db = tmp_path / "published.db"
    store = Store(db)
    settings = {"workload": "ring", "runtimes": [], "grid": [], "cores": ["1", "all"], **vars(Options(repeat=5))}
    rid = store.begin_run(f"ringbench bench --db {db}", settings, {**ENV, "git_revision": "0123456789ab"})
    for rt, ns in (("erlang/stock", 250.0), ("go/stock", 150.0)):
        for cores in ("1", "all"):
            recs = [(i + 1, 1, record(1000, 200, ns, 0.5, 2000, j, process=i + 1)) for i, j in enumerate(JITTER)]
            store.save_cell(
                rid, cell(rt, "ring", {"m": 200, "n": 1000, "tokens": 1}, cores, recs, runtime_settings={"hop": "chan"})
            )
    store.finish_run(rid, "complete")
    store.close()
    monkeypatch.setattr(results, "DB", db)
    files = results.render("0123456789ab", [])
    bench, summary = files[results.PAGES_DIR / "bench.md"], files[results.DOC]
    assert f"Command: `ringbench bench` (run {rid}," in bench and "measured at commit 0123456789ab" in bench
    assert "d454267f9c09" not in bench  # the kept contract 3 bench is replaced by the store's
    assert "| go/stock | chan | 150 | 147 | 150 | 147 |" in summary
    moved = summary[summary.index("## What moved since contract 3") :]
    assert "Awaits" not in moved.split("\n\n")[1]
    assert "| go/stock | 163 | 150 | 0.92 | 126 | 150 | 1.19 |" in moved
    assert "| erlang/stock | 252 | 250 | 0.99 | 256 | 250 | 0.98 |" in moved


def test_a_position_cell_that_drifts_is_marked_not_settled_and_a_flat_one_is_not(monkeypatch):
    """Whatever the settle rule said of a process's first iterations, a cell whose iterations 21-40 drift
    (or alternate) is shown as not settled in the positions table."""
    import random

    rng = random.Random(7)
    flat = [100.0 * (1 + rng.uniform(-0.01, 0.01)) for _ in range(40)]
    drifting = flat[:20] + [100.0 * (1 - 0.015 * k) * (1 + rng.uniform(-0.01, 0.01)) for k in range(20)]

    def cell(n, ns):
        recs = [{"position": i + 1, "count": 1000, "run_ns": x * 1000} for i, x in enumerate(ns)]
        return {"status": "ok", "params": {"n": n}, "records": recs}

    monkeypatch.setattr(results, "cells", lambda run: [cell(1000, flat), cell(10000, drifting)])
    rows = {line.split("|")[2].strip(): line for line in results.positions([("x/stock", 5)]).splitlines()
            if line.startswith("| x/stock")}  # fmt: skip
    assert "**drifts**" in rows["10,000"] and "**not settled**" in rows["10,000"]
    assert "**drifts**" not in rows["1,000"] and "not settled" not in rows["1,000"]


def test_a_cell_the_positions_check_flags_is_marked_in_every_table_showing_it_and_only_there():
    """The positions verdict (variant, N, one core) carries to other tables: a row of the same variant at
    the same N on one core and one node is marked, others are not; marking twice changes nothing, and a
    variant no longer flagged loses its mark and the note."""
    positions = (
        "| variant | N | run | a | b | c | d | settle | e |\n|---|---:|---|---|---|---|---|---|---|\n"
        "| x/stock | 1,000 | 5 | 1 | 1 | 1 | **drifts** | 10, **not settled** | 2 of 11 |\n"
        "| x/stock | 10,000 | 5 | 1 | 1 | 1 | flat | 10 | 0 of 11 |\n"
    )
    unsettled = results.positions_unsettled(positions)
    assert unsettled == {("x/stock", 1000)}
    bench = (
        "Intro.\n\n| Runtime | hop | Cores | N | nodes | ns/hop |\n|---|---|---:|---:|---:|---:|\n"
        "| x/stock | mbox | 1 | 1,000 | 1 | 5 |\n| x/stock | mbox | all | 1,000 | 1 | 4 |\n"
        "| x/stock | mbox | 1 | 10,000 | 1 | 6 |\n| x/stock | mbox | 1 | 1,000 | 2 | 9 |\n"
        "| y/stock | mbox | 1 | 1,000 | 1 | 7 |\n\nAfter.\n"
    )
    marked = results.mark_unsettled(bench, unsettled)
    rows = [line for line in marked.splitlines() if line.startswith("| x/") or line.startswith("| y/")]
    assert [r.split("|")[1].strip() for r in rows] == ["x/stock §", "x/stock", "x/stock", "x/stock", "y/stock"]
    assert marked.count(results.POSITIONS_NOTE) == 1 and marked.endswith("\nAfter.\n")
    assert marked.index(results.POSITIONS_NOTE) < marked.index("After.")
    assert results.mark_unsettled(marked, unsettled) == marked
    assert results.mark_unsettled(marked, set()) == bench
    steady = "| variant | runs | default ns/hop |\n|---|---|---:|\n| x/stock | 1–10 | 5 |\n"
    assert "| x/stock § |" in results.mark_unsettled(steady, unsettled, 1000, "1")
    assert "§" not in results.mark_unsettled(steady, unsettled, 10000, "1")
