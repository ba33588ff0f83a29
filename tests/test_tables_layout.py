"""Numbers a reader can trust: like-for-like comparisons, honest significance, tables that fit,
modes that agree with themselves, calibrated work per repeat. Exact, with fake drivers' fake clocks."""

import json
import re

from click.testing import CliRunner

from ringbench.cli import cli as main


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def rel_column(output: str) -> dict[tuple[str, str, str], str]:
    """(runtime, cores, N) -> the Rel % cell of the printed table."""
    out = {}
    for line in output.splitlines():
        m = re.match(
            r"\s*(\S+)\s+\S+\s+(1|all|all:1t)\s+([\d,k.M]+)\s.*?(100 ref|floor|apart|–|[\d.]+ [✓≈?])\s*$", line
        )
        if m:
            out[(m.group(1), m.group(2), m.group(3))] = m.group(4)
    return out


def test_show_prints_the_table_run_printed_and_the_reference_row_first(zoo, db):
    r = cli("run", "ring", "-r", "erlang,fastgo", "-n", 10, "-m", 5, "--repeat", 5, "--baseline", "fastgo", "--db", db)
    assert rel_column(r.output)[("fastgo", "all", "10")] == "100 ref"
    assert rel_column(r.output)[("erlang", "all", "10")].startswith("50.0")
    assert [k[0] for k in rel_column(r.output)] == ["fastgo", "erlang"], "each group's reference is its first row"
    shown = cli("show", 1, "--db", db)
    table = lambda text: text[text.index("Runtime") : text.index("Rel % =")]  # noqa: E731
    assert table(shown.output) == table(r.output)  # show reproduces exactly what run printed
    exported = json.loads(cli("export", 1, "--db", db).stdout)
    assert exported["baseline"] == "fastgo"
    assert cli("show", 1, "--baseline", "nosuch", "--db", db).exit_code == 2


def test_the_compact_table_fits_100_columns_with_every_name_whole(zoo, db, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    r = cli(
        "run",
        "ring",
        "-r",
        "all",
        "-n",
        "1000000",
        "-m",
        1,
        "--tokens",
        3,
        "--cores",
        "1,all",
        "--repeat",
        2,
        "--db",
        db,
    )
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert max(map(len, lines)) <= 100
    assert any("rust-tokio/current-thread" in line for line in lines)
    assert any(line.strip().startswith("1M") or " 1M " in line for line in lines)


def test_runtimes_and_history_fit_100_columns_one_line_per_run(zoo, db, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    for _ in range(3):
        cli("run", "ring", "-r", "all", "-n", "10,100", "-m", 1, "--repeat", 1, "--db", db)
    h = cli("history", "--db", db)
    assert max(map(len, h.output.splitlines())) <= 100
    assert sum(1 for line in h.output.splitlines() if re.match(r"\s*\d+\s+2\d\d\d-", line)) == 3
    rt = cli("runtimes")
    assert max(map(len, rt.output.splitlines())) <= 100 and "rust-tokio/current-thread" in rt.output


def test_a_thousands_separator_in_a_number_gets_a_hint(zoo, db):
    r = cli("run", "ring", "-r", "erlang", "-n", "1,000", "--db", db)
    assert r.exit_code == 2 and "did you mean 1000" in r.output


def test_compare_and_the_wide_block_fit_100_columns_with_every_row_named_and_no_figure_cut(zoo, db, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    for _ in range(2):
        r = cli(
            "run",
            "ring",
            "-r",
            "all",
            "-n",
            "10000,1000000",
            "-m",
            1,
            "--tokens",
            3,
            "--cores",
            "1,all",
            "--repeat",
            3,  # the fewest processes a side that compare's test takes
            "--wide",
            "--db",
            db,
        )
        assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert max(map(len, lines)) <= 100
    details = r.output[r.output.index("details") :]
    for name in ("rust-tokio/current-thread", "beam/stock", "fastgo"):  # each row of the wide block is named
        assert name in details
    c = cli("compare", 1, 2, "--db", db)
    assert c.exit_code == 0, c.output
    rows = [line for line in c.output.splitlines() if "N=" in line]
    assert max(map(len, c.output.splitlines())) <= 100 and len(rows) == 24  # 4 runtimes × 2 N × 2 cores + K's
    assert "…" not in c.output  # nothing cut: long parameters wrap instead
    assert all(re.search(r"[+-]\d+\.\d%\s+[+-]\d+\.\.[+-]\d+%", line) for line in rows if "%" in line)


def test_history_lists_grids_without_mixing_thousands_and_list_commas(zoo, db, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    cli(
        "run",
        "ring",
        "-r",
        "erlang,fastgo,rust-tokio,beam",
        "-n",
        "1000,10000",
        "-m",
        "100,1000",
        "--repeat",
        1,
        "--db",
        db,
    )
    h = cli("history", "--db", db).output
    assert "n=1k,10k" in h and "m=100,1k" in h and "beam/stock,erlang +2" in h
