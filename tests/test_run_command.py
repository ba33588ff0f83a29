"""`ringbench run` end to end with the fake driver: what is stored, what is printed, every repeat's raw
record, the memory rule, processes and core settings."""

import json
import sqlite3
import subprocess

import pytest
from conftest import run_cli

from ringbench.results.store import Store, StoreError


def rows(db, table):
    if not db.exists():
        return []
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    return con.execute(f"SELECT * FROM {table}").fetchall()


@pytest.mark.parametrize("cmd", [[], ["run"], ["bench"], ["runtimes"], ["build"]])
def test_help_on_every_command(cmd):
    r = run_cli(*cmd, "--help")
    assert r.exit_code == 0
    assert "Usage:" in r.output


def test_run_stores_run_cells_and_every_repeat(fake, db):
    fake(FAKE_NS_PER_HOP=100)
    r = run_cli("run", "ring", "-r", "fake", "-n", "100", "-m", "10", "--repeat", "4", "--db", str(db))
    assert r.exit_code == 0, r.output
    assert "fake" in r.output and " 100 " in r.output
    (run,) = rows(db, "runs")
    assert run["status"] == "complete"
    env = json.loads(run["environment"])
    assert env["cpu_count"] and env["kernel"] and env["cpu_model"] and env["git_revision"]
    (cell,) = rows(db, "cells")
    assert (cell["runtime"], cell["status"], cell["cores"]) == ("fake", "ok", "all")
    assert json.loads(cell["params"]) == {"n": 100, "m": 10, "tokens": 1, "burst": 0}
    assert cell["runtime_version"] == "0.0-fake"
    assert json.loads(cell["runtime_settings"])["env"]["FAKE_CORES"]
    results = rows(db, "results")
    assert len(results) == 4 and all(x["count"] == 1000 for x in results)
    assert sorted(x["process"] for x in results) == [1, 2, 3, 4]  # a fresh process per repeat


def test_the_stored_revision_is_dirty_for_code_changes_not_for_results_files(tmp_path, monkeypatch):

    from ringbench.harness import environment

    def git(*args):
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=tmp_path, check=True, capture_output=True
        )

    git("init", "-q")
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "fidelity.jsonl").write_text("{}\n")
    (tmp_path / "driver.c").write_text("int main;\n")
    git("add", ".")
    git("commit", "-qm", "x")
    monkeypatch.setattr(environment, "REPO", tmp_path)
    clean = environment.git_revision()
    assert len(clean) == 12 and not clean.endswith("-dirty")
    (tmp_path / "results" / "fidelity.jsonl").write_text("{}\n{}\n")  # a fidelity run's own appends
    assert environment.git_revision() == clean
    (tmp_path / "driver.c").write_text("int main = 1;\n")  # what is measured changed
    assert environment.git_revision() == clean + "-dirty"


def test_json_output_has_raw_repeats_and_known_statistics(fake, db):
    fake(FAKE_NS_PER_HOP=100, FAKE_JITTER="1,3,2")  # processes report 100, 300, 200 ns/hop
    r = run_cli("run", "ring", "-r", "fake", "-n", "10", "-m", "10", "--repeat", "3", "--json", "--db", str(db))
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    (cell,) = doc["cells"]
    assert [x["run_ns"] for x in cell["records"]] == [10000, 30000, 20000]
    hop = cell["summary"]["ns_per_hop"]
    assert (hop["median"], hop["low"], hop["high"]) == (200, 100, 300)
    assert "relative" not in cell["summary"], "a row alone in its group is compared with nothing"
    assert "fewer than 1,000 processes" in cell["summary"]["bytes_per_process"]  # 10 processes: a few pages


def test_bytes_per_process_comes_from_the_first_spawn_and_is_never_negative(fake, db):
    fake(FAKE_NS_PER_HOP=100)  # the fake's RSS grows 500 B per process
    r = run_cli("run", "ring", "-r", "fake", "-n", "2000", "-m", "1", "--repeat", "2", "--json", "--db", str(db))
    assert json.loads(r.stdout)["cells"][0]["summary"]["bytes_per_process"] == 500
    fake(FAKE_RSS_PER_PROC=-3)  # memory that fell while spawning: no figure, a reason
    r = run_cli("run", "ring", "-r", "fake", "-n", "2000", "-m", "1", "--repeat", "2", "--json", "--db", str(db))
    assert "memory fell" in json.loads(r.stdout)["cells"][0]["summary"]["bytes_per_process"]
    r = run_cli("run", "ring", "-r", "fake", "-n", "2000", "-m", "1", "--repeat", "2", "--db", str(db))
    assert "-" + "3" not in r.output.split("B/proc")[1].splitlines()[2]


def test_in_process_repeats_use_one_driver_process(fake, db):
    r = run_cli("run", "ring", "-r", "fake", "-n", "5", "-m", "2", "--repeat", "3", "--in-process", "--db", str(db))
    assert r.exit_code == 0, r.output
    assert {x["process"] for x in rows(db, "results")} == {1}
    assert rows(db, "cells")[0]["isolation"] == "in-process"


def test_both_core_settings_are_stored_apart(fake, db):
    r = run_cli("run", "ring", "-r", "fake", "-n", "5", "-m", "2", "--repeat", "1", "--cores", "1,all", "--db", str(db))
    assert r.exit_code == 0, r.output
    cells = rows(db, "cells")
    assert [c["cores"] for c in cells] == ["1", "all"]
    one = json.loads(cells[0]["runtime_settings"])
    assert one["schedulers"] == 1 and one["env"]["FAKE_CORES"] == "1"


def test_store_refuses_newer_schema_and_foreign_files(tmp_path):
    newer = tmp_path / "newer.db"
    sqlite3.connect(newer).execute("PRAGMA user_version=99").connection.commit()
    with pytest.raises(StoreError, match="newer ringbench"):
        Store(newer)
    foreign = tmp_path / "foreign.db"
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE t(x)")
    con.commit()
    with pytest.raises(StoreError, match="not a ringbench store"):
        Store(foreign)


def test_runtimes_lists_the_fake(fake, tmp_path, monkeypatch):
    # the real drivers out of the way: asking each runtime its version took ~10 s (the JVMs, the BEAMs)
    monkeypatch.setenv("RINGBENCH_DRIVERS_DIR", str(tmp_path / "none"))
    r = run_cli("runtimes", "--json")
    assert r.exit_code == 0
    (fake_row,) = [x for x in json.loads(r.stdout) if x["runtime"] == "fake"]
    assert fake_row["built"] and fake_row["version"] == "0.0-fake" and fake_row["workloads"] == ["ring"]


def test_bench_measures_the_ranked_idioms_and_all_idioms_adds_handoffs_and_own_mailboxes(fake, tmp_path, monkeypatch):
    from conftest import FAKE_DIR, FAKE_PY

    from ringbench import api

    folder = tmp_path / "drv" / "fakehand"
    folder.mkdir(parents=True)
    manifest = (FAKE_DIR / "fake" / "driver.toml").read_text()
    manifest = manifest.replace('name = "fake"', 'name = "fakehand"\nhop = "handoff"')
    (folder / "driver.toml").write_text(manifest.replace("{dir}/fake.py", str(FAKE_PY)))
    # a driver whose variant is a mailbox of its own, ranked apart: not the everyday idiom, so not by default
    own = tmp_path / "drv" / "fakeown"
    own.mkdir()
    own_manifest = manifest.replace('name = "fakehand"\nhop = "handoff"', 'name = "fakeown"')
    own_manifest += '\n[variants.own]\nmailbox = "hand-written"\nranked = "hand-written"\n'
    (own / "driver.toml").write_text(own_manifest.replace("{dir}/fake.py", str(FAKE_PY)))
    monkeypatch.setenv("RINGBENCH_DRIVER_PATH", f"{FAKE_DIR}:{tmp_path / 'drv'}")
    monkeypatch.setenv("RINGBENCH_DRIVERS_DIR", str(tmp_path / "none"))  # the real drivers out of the way
    assert api.ranked_runtimes() == ["fake"]
    # bench first waits for the CPUs to fall idle (up to a minute, on a machine the other tests load):
    # that it asks is checked, the wait itself is not this test's
    waits = []
    monkeypatch.setattr(api, "wait_until_idle", lambda on_wait, most_s=60.0: waits.append(most_s) or 0.0)
    db = tmp_path / "b.db"
    fake(FAKE_NS_PER_HOP=100)
    # by default 6 repeats in 3 fresh processes (a test needs 3 a side: the process is the unit); a
    # smaller --repeat without --processes takes a process each
    for flags, runtimes, processes in [
        ([], {"fake"}, [1, 1, 2, 2, 3, 3]),
        (["--all-idioms", "--repeat", 2], {"fake", "fakehand", "fakeown/own"}, [1, 2]),
    ]:
        r = run_cli("bench", "-m", 10, "-n", 10, "--cores", 1, "--json", "--db", db, *flags)
        assert r.exit_code == 0, r.output
        cells = json.loads(r.stdout)["cells"]
        assert {c["runtime"] for c in cells} == runtimes
        assert all([rec["process"] for rec in c["records"]] == processes for c in cells)
    assert len(waits) == 2, "bench waits for an idle machine before each comparison"
    from ringbench import cli
    from ringbench.results import stats

    assert cli._BENCH["processes"] >= stats.MIN_PROCESSES_FOR_TEST
