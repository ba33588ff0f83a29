"""A stored run read back: history, show, export and import with the same figures, compare, the
Rel % baseline, warnings derived from the records."""

import json

import pytest
from conftest import run_cli

from ringbench import api


def test_warnings_are_derived_from_the_records_printed_and_exported(fake, db):
    fake(FAKE_NS_PER_HOP=100, FAKE_JITTER="1,1.5")
    # 4 repeats in 2 fresh processes: too few processes for a test (the process is the unit)
    r = run_cli("run", "ring", "-r", "fake", "-n", 10, "-m", 10, "--repeat", 4, "--processes", 2, "--db", db)
    assert r.exit_code == 0
    assert "too few fresh driver processes" in r.output and "coefficient of variation" in r.output
    kinds = {w["kind"] for w in json.loads(run_cli("export", 1, "--db", db).stdout)["warnings"]}
    assert {"few", "noisy"} <= kinds
    assert "coefficient of variation" in run_cli("show", 1, "--db", db).output


def test_baseline_sets_the_reference_row(zoo, db):
    r = run_cli(
        "run",
        "ring",
        "-r",
        "erlang,fastgo",
        "-n",
        10,
        "-m",
        10,
        "--cores",
        "1,all",
        "--baseline",
        "fastgo",
        "--json",
        "--db",
        db,
    )
    cells = json.loads(r.stdout)["cells"]
    assert {(c["runtime"], c["summary"]["relative"]["reference"]) for c in cells} == {
        ("erlang", "fastgo"),
        ("fastgo", "fastgo"),
    }


def test_compare_says_significant_only_beyond_noise(fake, db):
    for ns in (100, 100, 200):
        fake(FAKE_NS_PER_HOP=ns, FAKE_JITTER="1,1.01,0.99,1.02,0.98")
        assert run_cli("run", "ring", "-r", "fake", "-n", 10, "-m", 10, "--repeat", 5, "--db", db).exit_code == 0
    _, _, (same,) = api.compare(1, 2, db)
    assert same.diff.significant is False and not same.regression(0)
    _, _, (worse,) = api.compare(1, 3, db)
    assert worse.diff.significant and worse.slower_pct == pytest.approx(100.0)
    shown = run_cli("compare", 1, 3, "--db", db).output
    assert "+100.0%" in shown and "slower" in shown


def test_export_then_import_gives_the_same_numbers(fake, db, tmp_path):
    fake(FAKE_NS_PER_HOP=100, FAKE_JITTER="1,2,3")
    run_cli("run", "ring", "-r", "fake", "-n", 10, "-m", 10, "--cores", "1,all", "--db", db)
    exported = tmp_path / "run.json"
    assert run_cli("export", 1, "--format", "json", "--out", exported, "--db", db).exit_code == 0
    other = tmp_path / "other.db"
    r = run_cli("import", exported, "--db", other)
    assert r.exit_code == 0 and "as run 1" in r.output
    a = json.loads(run_cli("show", 1, "--json", "--db", db).stdout)
    b = json.loads(run_cli("show", 1, "--json", "--db", other).stdout)
    assert a["cells"] == b["cells"] and a["environment"] == b["environment"]
    csv_text = run_cli("export", 1, "--format", "csv", "--db", db).stdout
    assert len(csv_text.strip().splitlines()) == 1 + 10  # header + 2 cells × 5 repeats (the default)
    md = run_cli("export", 1, "--format", "markdown", "--db", db).stdout
    assert md.count("| fake |") == 2 and "±95%" in md
    table = [line for line in md.splitlines() if line.startswith("|")]
    widths = {line.count("|") for line in table}
    assert len(table) == 4 and len(widths) == 1, table  # header, rule, 2 rows: one column count
    assert "| spawn µs |" in table[0]  # the terminal's two-line header, on one line


def test_history_and_show(fake, db):
    run_cli("run", "ring", "-r", "fake", "-n", 10, "-m", 10, "--db", db)
    h = run_cli("history", "--db", db)
    assert h.exit_code == 0 and "complete" in h.output and "fake" in h.output
    assert run_cli("show", 1, "--db", db).exit_code == 0
    assert run_cli("show", 99, "--db", db).exit_code == 2
