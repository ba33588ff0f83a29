"""Modes, history and reliability end to end, with the fake driver's fake clock."""
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import ringbench
from conftest import live_processes_with
from ringbench import api
from ringbench.cli import cli as main

RINGBENCH = [sys.executable, "-m", "ringbench.cli"]


def ringbench_cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def q(db, sql, *args):
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


def cells_stored(db) -> int:
    """Cells in the store so far (0 while the store is still being created)."""
    try:
        return q(db, "SELECT count(*) AS k FROM cells")[0]["k"] if db.exists() else 0
    except sqlite3.OperationalError:
        return 0


def test_api_returns_result_objects(fake, db):
    fake(FAKE_NS_PER_HOP=250)
    result = ringbench.measure("ring", "fake", params={"n": 20, "m": 5}, repeat=2, db=db)
    assert result.status == "complete" and result.run_id == 1
    (cell,) = result.cells
    assert cell.ok and cell.headline.median == 250 and len(cell.records) == 2
    with pytest.raises(ringbench.InputError):
        ringbench.measure("ring", "fake", params={"n": 0, "m": 5}, db=db)


def test_continuous_mode_reports_hops_per_sample_and_time_per_hop(fake, db):
    fake(FAKE_NS_PER_HOP=100)  # 100 ms samples at 100 ns/hop: 1,000,000 hops = 1,000 laps of 1,000
    r = ringbench_cli("run", "ring", "-r", "fake", "-n", 1000, "--continuous", "--samples", 4, "--sample-ms", 100,
                      "--json", "--db", db)
    assert r.exit_code == 0, r.output
    (cell,) = json.loads(r.stdout)["cells"]
    assert cell["mode"] == "continuous"
    assert len(cell["samples"]) == 5  # 4 counted + the warm-up
    assert cell["extra"]["counted_samples"] == 4
    assert cell["extra"]["hops_per_sample_mean"] == 1_000_000
    assert cell["summary"]["ns_per_hop"]["median"] == 100
    assert len(q(db, "SELECT * FROM samples")) == 5


def test_continuous_slower_than_one_sample_is_said(fake, db):
    fake(FAKE_NS_PER_HOP=100)  # 10 ms samples: 100,000 hops, less than one lap of 2,000,000
    r = ringbench_cli("run", "ring", "-r", "fake", "-n", 2_000_000, "--continuous", "--sample-ms", 10, "--db", db)
    assert r.exit_code == 0, r.output
    assert "a lap > a sample" in r.output
    assert json.loads(q(db, "SELECT extra FROM cells")[0]["extra"])["slower_than_one_sample"]


def test_cv_mode_samples_until_converged(fake, db):
    # The first intervals are noisy, then steady: with --samples 3 --cv 0.01 it stops once three agree.
    fake(FAKE_NS_PER_HOP=100, FAKE_SAMPLE_JITTER="1,1,2,1,1,1,1,1,1,1,1,1,1,1")
    r = ringbench_cli("run", "ring", "-r", "fake", "-n", 100, "--continuous", "--samples", 3, "--sample-ms", 10,
                      "--cv", 0.01, "--max-samples", 12, "--json", "--db", db)
    assert r.exit_code == 0, r.output
    (cell,) = json.loads(r.stdout)["cells"]
    assert cell["extra"]["converged"] is True
    assert len(cell["samples"]) == 6  # warm-up, 1, 2(noisy), then three steady intervals


def test_cv_mode_says_when_it_did_not_converge(fake, db):
    fake(FAKE_NS_PER_HOP=100, FAKE_SAMPLE_JITTER="1,2")
    r = ringbench_cli("run", "ring", "-r", "fake", "-n", 100, "--continuous", "--samples", 3, "--sample-ms", 10,
                      "--cv", 0.01, "--max-samples", 6, "--db", db)
    assert r.exit_code == 0
    assert "not converged" in r.output


def test_squeeze_finds_the_peak_concurrency(fake, db):
    fake(FAKE_SQUEEZE="1:100,2:50,3:34,4:40,5:45,6:50,7:60,8:70")
    r = ringbench_cli("run", "ring", "-r", "fake", "-n", 100, "--squeeze", "--max", 8, "--sample-ms", 10,
                      "--json", "--db", db)
    assert r.exit_code == 0, r.output
    (cell,) = json.loads(r.stdout)["cells"]
    assert cell["extra"]["peak_concurrency"] == 3
    assert [h["concurrency"] for h in cell["extra"]["history"]] == [1, 2, 3, 4, 5, 6]
    assert {s["tokens"] for s in cell["samples"]} == {1, 2, 3, 4, 5, 6}


@pytest.mark.parametrize("args,words", [
    (["--samples", "3"], "--samples belongs"),
    (["--continuous", "--squeeze"], "one of"),
    (["--continuous", "--min", "2"], "--min belongs"),
    (["--squeeze", "--cv", "0.1"], "--cv belongs"),
    (["--continuous", "--cv", "5"], "fraction"),
    (["--continuous", "--in-process"], "timed mode"),
])
def test_mode_settings_must_match_the_mode(fake, db, args, words):
    r = ringbench_cli("run", "ring", "-r", "fake", "-n", 10, "-m", 1, *args, "--db", db)
    assert r.exit_code == 2 and words in r.output
    assert not Path(db).exists() or not q(db, "SELECT * FROM runs")


def test_warnings_are_derived_from_the_records_printed_and_exported(fake, db):
    fake(FAKE_NS_PER_HOP=100, FAKE_JITTER="1,1.5")
    r = ringbench_cli("run", "ring", "-r", "fake", "-n", 10, "-m", 10, "--repeat", 3, "--db", db)
    assert r.exit_code == 0
    assert "too few" in r.output and "coefficient of variation" in r.output
    kinds = {w["kind"] for w in json.loads(ringbench_cli("export", 1, "--db", db).stdout)["warnings"]}
    assert {"few", "noisy"} <= kinds
    assert "coefficient of variation" in ringbench_cli("show", 1, "--db", db).output


def test_baseline_sets_the_reference_row(zoo, db):
    r = ringbench_cli("run", "ring", "-r", "erlang,fastgo", "-n", 10, "-m", 10, "--cores", "1,all",
                      "--baseline", "fastgo", "--json", "--db", db)
    cells = json.loads(r.stdout)["cells"]
    assert {(c["runtime"], c["summary"]["relative"]["reference"]) for c in cells} == {("erlang", "fastgo"),
                                                                                       ("fastgo", "fastgo")}


def test_compare_says_significant_only_beyond_noise(fake, db):
    for ns in (100, 100, 200):
        fake(FAKE_NS_PER_HOP=ns, FAKE_JITTER="1,1.01,0.99,1.02,0.98")
        assert ringbench_cli("run", "ring", "-r", "fake", "-n", 10, "-m", 10, "--repeat", 5, "--db", db).exit_code == 0
    _, _, (same,) = api.compare(1, 2, db)
    assert same.diff.significant is False and not same.regression(0)
    _, _, (worse,) = api.compare(1, 3, db)
    assert worse.diff.significant and worse.slower_pct == pytest.approx(100.0)
    shown = ringbench_cli("compare", 1, 3, "--db", db).output
    assert "+100.0%" in shown and "slower" in shown


def test_export_then_import_gives_the_same_numbers(fake, db, tmp_path):
    fake(FAKE_NS_PER_HOP=100, FAKE_JITTER="1,2,3")
    ringbench_cli("run", "ring", "-r", "fake", "-n", 10, "-m", 10, "--cores", "1,all", "--db", db)
    exported = tmp_path / "run.json"
    assert ringbench_cli("export", 1, "--format", "json", "--out", exported, "--db", db).exit_code == 0
    other = tmp_path / "other.db"
    r = ringbench_cli("import", exported, "--db", other)
    assert r.exit_code == 0 and "as run 1" in r.output
    a = json.loads(ringbench_cli("show", 1, "--json", "--db", db).stdout)
    b = json.loads(ringbench_cli("show", 1, "--json", "--db", other).stdout)
    assert a["cells"] == b["cells"] and a["environment"] == b["environment"]
    csv_text = ringbench_cli("export", 1, "--format", "csv", "--db", db).stdout
    assert len(csv_text.strip().splitlines()) == 1 + 10  # header + 2 cells × 5 repeats (the default)
    md = ringbench_cli("export", 1, "--format", "markdown", "--db", db).stdout
    assert md.count("| fake |") == 2 and "±95%" in md
    table = [line for line in md.splitlines() if line.startswith("|")]
    widths = {line.count("|") for line in table}
    assert len(table) == 4 and len(widths) == 1, table  # header, rule, 2 rows: one column count
    assert "| spawn µs |" in table[0]  # the terminal's two-line header, on one line


def test_history_and_show(fake, db):
    ringbench_cli("run", "ring", "-r", "fake", "-n", 10, "-m", 10, "--db", db)
    h = ringbench_cli("history", "--db", db)
    assert h.exit_code == 0 and "complete" in h.output and "fake" in h.output
    assert ringbench_cli("show", 1, "--db", db).exit_code == 0
    assert ringbench_cli("show", 99, "--db", db).exit_code == 2


def test_budget_stops_cleanly_and_resume_finishes_without_redoing(fake, db):
    fake(FAKE_FAULT="slow", FAKE_SLOW_S=0.6)
    r = ringbench_cli("sweep", "ring", "-r", "fake", "-n", "10,20,30,40", "-m", 1, "--repeat", 1, "--warmup", 0,
                      "--budget", "1s", "--db", db)
    assert r.exit_code == 3, r.output  # a budget stop: its own status and exit code, not an interrupt
    first = q(db, "SELECT params FROM cells")
    assert 1 <= len(first) < 4
    assert q(db, "SELECT status FROM runs")[0]["status"] == "budget"
    assert "sweep --resume 1" in r.output
    r = ringbench_cli("sweep", "--resume", 1, "--db", db)
    assert r.exit_code == 0, r.output
    cells = [json.loads(c["params"])["n"] for c in q(db, "SELECT params FROM cells")]
    assert sorted(cells) == [10, 20, 30, 40]  # each once: nothing lost, nothing duplicated
    assert q(db, "SELECT status FROM runs")[0]["status"] == "complete"


def _env(fake_env):
    return {**os.environ, **fake_env}


def test_sigint_keeps_finished_cells_and_resume_completes(fake, db):
    fake(FAKE_FAULT="slow", FAKE_SLOW_S=0.7)
    cmd = RINGBENCH + ["sweep", "ring", "-r", "fake", "-n", "10,20,30,40,50", "-m", "1", "--repeat", "1",
                       "--warmup", "0", "--db", str(db)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if cells_stored(db) >= 2:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    kept = q(db, "SELECT count(*) AS k FROM cells")[0]["k"]
    assert 2 <= kept < 5
    assert q(db, "SELECT status FROM runs")[0]["status"] == "interrupted"
    done = subprocess.run(RINGBENCH + ["sweep", "--resume", "1", "--db", str(db)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    ns = sorted(json.loads(c["params"])["n"] for c in q(db, "SELECT params FROM cells"))
    assert ns == [10, 20, 30, 40, 50]
    assert len(q(db, "SELECT * FROM results")) == 5


def test_sigterm_also_keeps_finished_cells(fake, db):
    fake(FAKE_FAULT="slow", FAKE_SLOW_S=0.7)
    cmd = RINGBENCH + ["sweep", "ring", "-r", "fake", "-n", "10,20,30", "-m", "1", "--repeat", "1",
                       "--warmup", "0", "--db", str(db)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not cells_stored(db):
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert q(db, "SELECT status FROM runs")[0]["status"] == "interrupted"
    assert q(db, "SELECT count(*) AS k FROM cells")[0]["k"] >= 1


def test_two_writers_on_one_store_lose_nothing(fake, db):
    cmd = RINGBENCH + ["sweep", "ring", "-r", "fake", "-n", ",".join(str(10 + i) for i in range(8)), "-m", "1",
                       "--repeat", "2", "--warmup", "0", "--db", str(db)]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    assert [r["status"] for r in q(db, "SELECT status FROM runs")] == ["complete", "complete"]
    assert len(q(db, "SELECT * FROM cells WHERE status='ok'")) == 16
    assert len(q(db, "SELECT * FROM results")) == 32


@pytest.mark.parametrize("fault,status", [
    ("hang", "timeout"), ("crash", "failed"), ("exit1", "failed"), ("garbage", "failed"),
    ("wrong_count", "failed"), ("absurd", "failed"), ("missing_field", "failed"), ("negative", "failed"),
    ("limit", "refused"), ("slow", "ok"),
])
def test_a_fault_in_a_sweep_costs_one_cell_only(fake, db, fault, status):
    # The second cell's driver misbehaves; the first and third are measured and kept.
    fake(FAKE_FAULT=fault, FAKE_FAULT_ON=2, FAKE_SLOW_S=0.3)
    r = ringbench_cli("sweep", "ring", "-r", "fake", "-n", "10,20,30", "-m", 5, "--repeat", 1, "--timeout", 3,
                      "--db", db)
    assert r.exit_code == (0 if status == "ok" else 1), r.output
    cells = q(db, "SELECT id, params, status, reason FROM cells ORDER BY id")
    assert [c["status"] for c in cells] == ["ok", status, "ok"]
    kept = q(db, "SELECT cell_id, count FROM results ORDER BY cell_id")
    expected = [(cells[0]["id"], 50), (cells[2]["id"], 150)]
    if status == "ok":
        expected.insert(1, (cells[1]["id"], 100))
    assert [(k["cell_id"], k["count"]) for k in kept] == expected
    if status != "ok":
        assert cells[1]["reason"]


def test_a_slow_driver_past_its_timeout_is_killed_with_its_children(fake, db, tmp_path):
    fake(FAKE_FAULT="slow", FAKE_SLOW_S=30)
    started = time.monotonic()
    r = ringbench_cli("run", "ring", "-r", "fake", "-n", 10, "-m", 1, "--repeat", 1, "--timeout", 2, "--db", db)
    assert r.exit_code == 1 and time.monotonic() - started < 20
    assert q(db, "SELECT status FROM cells")[0]["status"] == "timeout"
    assert live_processes_with(os.environ["FAKE_COUNTER_FILE"]) == []



def test_sweep_records_refused_cells_with_their_reason(fake, db, monkeypatch, tmp_path):
    folder = tmp_path / "drv" / "threaded"
    folder.mkdir(parents=True)
    fake_py = Path(__file__).parent / "fake_drivers" / "fake" / "fake.py"
    (folder / "driver.toml").write_text(f'name = "threaded"\ncommand = ["{{python}}", "{fake_py}"]\n'
                                        "os_threads_per_process = 1\n")
    monkeypatch.setenv("RINGBENCH_DRIVER_PATH", str(tmp_path / "drv"))
    r = ringbench_cli("sweep", "ring", "-r", "threaded", "-n", "10,9000000", "-m", 1, "--repeat", 1, "--db", db)
    assert r.exit_code == 1, r.output
    cells = q(db, "SELECT status, reason FROM cells ORDER BY id")
    assert [c["status"] for c in cells] == ["ok", "refused"]
    assert "OS threads" in cells[1]["reason"]
    assert "n/a" in r.output


def test_a_workload_the_named_runtime_lacks_is_refused_before_anything_runs(fake, db):
    r = ringbench_cli("run", "selective", "-r", "fake", "-n", 10, "-m", 1, "--repeat", 1, "--db", db)
    assert r.exit_code == 2 and "fake does not implement selective" in r.output
    assert not Path(db).exists()


def test_in_a_sweep_a_workload_the_runtime_lacks_is_not_applicable_with_its_reason(fake, db):
    r = ringbench_cli("sweep", "selective", "-r", "fake", "-n", 10, "-m", 1, "--repeat", 1, "--db", db)
    assert r.exit_code == 1
    cells = q(db, "SELECT status, reason FROM cells")
    assert [c["status"] for c in cells] == ["refused", "refused"]  # reverse = 0 and 1
    assert "does not implement selective" in cells[0]["reason"]
    assert "[1] fake [all]" in r.output and "does not implement selective" in r.output


def test_run_all_shows_a_cell_too_large_as_na_instead_of_refusing_everything(fake, db, monkeypatch, tmp_path):
    folder = tmp_path / "drv" / "threaded"
    folder.mkdir(parents=True)
    fake_py = Path(__file__).parent / "fake_drivers" / "fake" / "fake.py"
    (folder / "driver.toml").write_text(f'name = "threaded"\ncommand = ["{{python}}", "{fake_py}"]\n'
                                        "os_threads_per_process = 1\n")
    monkeypatch.setenv("RINGBENCH_DRIVERS_DIR", str(tmp_path / "drv"))  # only these two: `all` must not
    monkeypatch.setenv("RINGBENCH_DRIVER_PATH", str(Path(__file__).parent / "fake_drivers"))  # reach real drivers
    r = ringbench_cli("run", "ring", "-r", "all", "-n", 5_000_000, "-m", 1, "--repeat", 1, "--db", db)
    assert r.exit_code == 1, r.output  # measured what fits, said what did not
    cells = {c["runtime"]: c for c in q(db, "SELECT runtime, status, reason FROM cells")}
    assert cells["fake"]["status"] == "ok"
    assert cells["threaded"]["status"] == "refused" and "OS threads" in cells["threaded"]["reason"]
    named = ringbench_cli("run", "ring", "-r", "threaded", "-n", 5_000_000, "-m", 1, "--db", db)
    assert named.exit_code == 2  # a runtime named explicitly: bad input, nothing run
