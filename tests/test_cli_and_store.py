"""The harness end to end with the fake driver: CLI, exit codes, the store, failure handling."""
import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from ringbench.cli import cli as main
from ringbench.results.store import Store, StoreError

FAKE = Path(__file__).parent / "fake_drivers" / "fake" / "fake.py"


def ringbench(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def rows(db, table):
    if not db.exists():
        return []
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    return con.execute(f"SELECT * FROM {table}").fetchall()


@pytest.mark.parametrize("cmd", [[], ["run"], ["bench"], ["runtimes"], ["build"]])
def test_help_on_every_command(cmd):
    r = ringbench(*cmd, "--help")
    assert r.exit_code == 0
    assert "Usage:" in r.output


def test_run_stores_run_cells_and_every_repeat(fake, db):
    fake(FAKE_NS_PER_HOP=100)
    r = ringbench("run", "ring", "-r", "fake", "-n", "100", "-m", "10", "--repeat", "4", "--db", str(db))
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
    import subprocess

    from ringbench.harness import environment

    def git(*args):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=tmp_path, check=True,
                       capture_output=True)

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
    r = ringbench("run", "ring", "-r", "fake", "-n", "10", "-m", "10", "--repeat", "3", "--json", "--db", str(db))
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
    r = ringbench("run", "ring", "-r", "fake", "-n", "2000", "-m", "1", "--repeat", "2", "--json", "--db", str(db))
    assert json.loads(r.stdout)["cells"][0]["summary"]["bytes_per_process"] == 500
    fake(FAKE_RSS_PER_PROC=-3)  # memory that fell while spawning: no figure, a reason
    r = ringbench("run", "ring", "-r", "fake", "-n", "2000", "-m", "1", "--repeat", "2", "--json", "--db", str(db))
    assert "memory fell" in json.loads(r.stdout)["cells"][0]["summary"]["bytes_per_process"]
    r = ringbench("run", "ring", "-r", "fake", "-n", "2000", "-m", "1", "--repeat", "2", "--db", str(db))
    assert "-" + "3" not in r.output.split("B/proc")[1].splitlines()[2]


def test_in_process_repeats_use_one_driver_process(fake, db):
    r = ringbench("run", "ring", "-r", "fake", "-n", "5", "-m", "2", "--repeat", "3", "--in-process", "--db", str(db))
    assert r.exit_code == 0, r.output
    assert {x["process"] for x in rows(db, "results")} == {1}
    assert rows(db, "cells")[0]["isolation"] == "in-process"


def test_both_core_settings_are_stored_apart(fake, db):
    r = ringbench("run", "ring", "-r", "fake", "-n", "5", "-m", "2", "--repeat", "1", "--cores", "1,all",
                  "--db", str(db))
    assert r.exit_code == 0, r.output
    cells = rows(db, "cells")
    assert [c["cores"] for c in cells] == ["1", "all"]
    one = json.loads(cells[0]["runtime_settings"])
    assert one["schedulers"] == 1 and one["env"]["FAKE_CORES"] == "1"


@pytest.mark.parametrize("args", [
    ["-n", "0", "-m", "1"], ["-n", "-1", "-m", "1"], ["-n", "abc", "-m", "1"], ["-n", "1.5", "-m", "1"],
    ["-n", "10", "-m", "0"], ["-n", "1,000"], ["-m", "10"], ["-n", "3", "-m", "1", "--tokens", "4"],
    ["-n", "10", "-m", "1", "--cores", "3"], ["-n", "10", "-m", "1", "-r", "no-such-runtime"],
])
def test_bad_input_exits_2_and_writes_nothing(fake, db, args):
    r = ringbench("run", "ring", "-r", "fake", *args, "--db", str(db))
    assert r.exit_code == 2, r.output
    assert "Error" in r.output
    assert rows(db, "runs") == []


def test_unknown_workload_exits_2(fake, db):
    r = ringbench("run", "juggle", "-r", "fake", "-n", "3", "-m", "1", "--db", str(db))
    assert r.exit_code == 2 and "unknown workload" in r.output
    assert rows(db, "runs") == []


def _driver_folder(root, name, extra=""):
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "driver.toml").write_text(
        f'name = "{name}"\ncommand = ["{{python}}", "{FAKE}"]\n{extra}\n')
    return folder


def test_size_beyond_memory_is_refused_before_anything_runs(fake, db, monkeypatch, tmp_path):
    _driver_folder(tmp_path / "drv", "hungry", "bytes_per_process = 1000000000")  # 1 GB a process
    monkeypatch.setenv("RINGBENCH_DRIVER_PATH", str(tmp_path / "drv"))
    r = ringbench("run", "ring", "-r", "hungry", "-n", "1000000", "-m", "1", "--db", str(db))
    assert r.exit_code == 2 and "GiB" in r.output and "available" in r.output
    assert rows(db, "runs") == []


def test_os_thread_limit_is_refused_naming_the_limit(fake, db, monkeypatch, tmp_path):
    _driver_folder(tmp_path / "drv", "threaded", "os_threads_per_process = 1")
    monkeypatch.setenv("RINGBENCH_DRIVER_PATH", str(tmp_path / "drv"))
    r = ringbench("run", "ring", "-r", "threaded", "-n", "9000000", "-m", "1", "--db", str(db))
    assert r.exit_code == 2, r.output
    assert "OS threads" in r.output and ("ulimit" in r.output or "sysctl" in r.output)
    assert rows(db, "runs") == []


def test_unbuilt_driver_says_how_to_build(fake, db, monkeypatch, tmp_path):
    folder = tmp_path / "drv" / "unbuilt"
    folder.mkdir(parents=True)
    (folder / "driver.toml").write_text('name = "unbuilt"\nbuild = "true"\nartifact = "bin/x"\ncommand = ["{dir}/bin/x"]\n')
    monkeypatch.setenv("RINGBENCH_DRIVER_PATH", str(tmp_path / "drv"))
    r = ringbench("run", "ring", "-r", "unbuilt", "-n", "3", "-m", "1", "--db", str(db))
    assert r.exit_code == 2 and "ringbench build unbuilt" in r.output
    assert rows(db, "runs") == []


@pytest.mark.parametrize("fault,status,words", [
    ("crash", "failed", "SIGKILL"),
    ("exit1", "failed", "exit status 1"),
    ("garbage", "failed", "not JSON"),
    ("wrong_count", "failed", "expected 30"),
    ("absurd", "failed", "impossibly fast"),
    ("missing_field", "failed", "run_cpu_ns"),
    ("negative", "failed", "negative"),
    ("limit", "refused", "fake limit"),
])
def test_a_failed_cell_keeps_no_partial_results(fake, db, fault, status, words):
    fake(FAKE_FAULT=fault, FAKE_FAULT_ON=2)  # the second of three processes misbehaves
    r = ringbench("run", "ring", "-r", "fake", "-n", "3", "-m", "10", "--repeat", "3", "--db", str(db))
    assert r.exit_code == 1, r.output
    (cell,) = rows(db, "cells")
    assert cell["status"] == status and words in cell["reason"]
    assert rows(db, "results") == []  # repeat 1 succeeded, but a cell is all or nothing
    # a refusal (the runtime's own limit) is an answer, not a failure of the run; the exit status says both
    assert rows(db, "runs")[0]["status"] == ("complete" if status == "refused" else "failed")


def test_hung_driver_is_killed_at_the_timeout(fake, db):
    fake(FAKE_FAULT="hang")
    r = ringbench("run", "ring", "-r", "fake", "-n", "3", "-m", "1", "--repeat", "1", "--timeout", "1",
                  "--db", str(db))
    assert r.exit_code == 1
    (cell,) = rows(db, "cells")
    assert cell["status"] == "timeout"


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


def test_runtimes_lists_the_fake(fake):
    r = ringbench("runtimes", "--json")
    assert r.exit_code == 0
    (fake_row,) = [x for x in json.loads(r.stdout) if x["runtime"] == "fake"]
    assert fake_row["built"] and fake_row["version"] == "0.0-fake" and fake_row["workloads"] == ["ring"]
