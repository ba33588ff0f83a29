"""What cannot be measured is refused with its reason: before anything runs when the runtime was
named, as an n/a cell in a sweep or with `-r all`; bad input exits 2 and stores nothing."""

import sqlite3
from pathlib import Path

import pytest
from conftest import FAKE_PY, q, run_cli


def rows(db, table):
    if not db.exists():
        return []
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    return con.execute(f"SELECT * FROM {table}").fetchall()


def _driver_folder(root, name, extra=""):
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "driver.toml").write_text(f'name = "{name}"\ncommand = ["{{python}}", "{FAKE_PY}"]\n{extra}\n')
    return folder


@pytest.mark.parametrize(
    "args",
    [
        ["-n", "0", "-m", "1"],
        ["-n", "-1", "-m", "1"],
        ["-n", "abc", "-m", "1"],
        ["-n", "1.5", "-m", "1"],
        ["-n", "10", "-m", "0"],
        ["-n", "1,000"],
        ["-m", "10"],
        ["-n", "3", "-m", "1", "--tokens", "4"],
        ["-n", "10", "-m", "1", "--cores", "3"],
        ["-n", "10", "-m", "1", "-r", "no-such-runtime"],
    ],
)
def test_bad_input_exits_2_and_writes_nothing(fake, db, args):
    r = run_cli("run", "ring", "-r", "fake", *args, "--db", str(db))
    assert r.exit_code == 2, r.output
    assert "Error" in r.output
    assert rows(db, "runs") == []


def test_unknown_workload_exits_2(fake, db):
    r = run_cli("run", "juggle", "-r", "fake", "-n", "3", "-m", "1", "--db", str(db))
    assert r.exit_code == 2 and "unknown workload" in r.output
    assert rows(db, "runs") == []


def test_size_beyond_memory_is_refused_before_anything_runs(fake, db, monkeypatch, tmp_path):
    _driver_folder(tmp_path / "drv", "hungry", "bytes_per_process = 1000000000")  # 1 GB a process
    monkeypatch.setenv("RINGBENCH_DRIVER_PATH", str(tmp_path / "drv"))
    r = run_cli("run", "ring", "-r", "hungry", "-n", "1000000", "-m", "1", "--db", str(db))
    assert r.exit_code == 2 and "GiB" in r.output and "available" in r.output
    assert rows(db, "runs") == []


def test_os_thread_limit_is_refused_naming_the_limit(fake, db, monkeypatch, tmp_path):
    _driver_folder(tmp_path / "drv", "threaded", "os_threads_per_process = 1")
    monkeypatch.setenv("RINGBENCH_DRIVER_PATH", str(tmp_path / "drv"))
    r = run_cli("run", "ring", "-r", "threaded", "-n", "9000000", "-m", "1", "--db", str(db))
    assert r.exit_code == 2, r.output
    assert "OS threads" in r.output and ("ulimit" in r.output or "sysctl" in r.output)
    assert rows(db, "runs") == []


def test_unbuilt_driver_says_how_to_build(fake, db, monkeypatch, tmp_path):
    folder = tmp_path / "drv" / "unbuilt"
    folder.mkdir(parents=True)
    (folder / "driver.toml").write_text(
        'name = "unbuilt"\nbuild = "true"\nartifact = "bin/x"\ncommand = ["{dir}/bin/x"]\n'
    )
    monkeypatch.setenv("RINGBENCH_DRIVER_PATH", str(tmp_path / "drv"))
    r = run_cli("run", "ring", "-r", "unbuilt", "-n", "3", "-m", "1", "--db", str(db))
    assert r.exit_code == 2 and "ringbench build unbuilt" in r.output
    assert rows(db, "runs") == []


def test_sweep_records_refused_cells_with_their_reason(fake, db, monkeypatch, tmp_path):
    folder = tmp_path / "drv" / "threaded"
    folder.mkdir(parents=True)
    fake_py = Path(__file__).parent / "fake_drivers" / "fake" / "fake.py"
    (folder / "driver.toml").write_text(
        f'name = "threaded"\ncommand = ["{{python}}", "{fake_py}"]\nos_threads_per_process = 1\n'
    )
    monkeypatch.setenv("RINGBENCH_DRIVER_PATH", str(tmp_path / "drv"))
    r = run_cli("sweep", "ring", "-r", "threaded", "-n", "10,9000000", "-m", 1, "--repeat", 1, "--db", db)
    assert r.exit_code == 1, r.output
    cells = q(db, "SELECT status, reason FROM cells ORDER BY id")
    assert [c["status"] for c in cells] == ["ok", "refused"]
    assert "OS threads" in cells[1]["reason"]
    assert "n/a" in r.output


def test_a_workload_the_named_runtime_lacks_is_refused_before_anything_runs(fake, db):
    r = run_cli("run", "selective", "-r", "fake", "-n", 10, "-m", 1, "--repeat", 1, "--db", db)
    assert r.exit_code == 2 and "fake does not implement selective" in r.output
    assert not Path(db).exists()


def test_in_a_sweep_a_workload_the_runtime_lacks_is_not_applicable_with_its_reason(fake, db):
    r = run_cli("sweep", "selective", "-r", "fake", "-n", 10, "-m", 1, "--repeat", 1, "--db", db)
    assert r.exit_code == 1
    cells = q(db, "SELECT status, reason FROM cells")
    assert [c["status"] for c in cells] == ["refused", "refused"]  # reverse = 0 and 1
    assert "does not implement selective" in cells[0]["reason"]
    assert "[1] fake [all]" in r.output and "does not implement selective" in r.output


def test_run_all_shows_a_cell_too_large_as_na_instead_of_refusing_everything(fake, db, monkeypatch, tmp_path):
    folder = tmp_path / "drv" / "threaded"
    folder.mkdir(parents=True)
    fake_py = Path(__file__).parent / "fake_drivers" / "fake" / "fake.py"
    (folder / "driver.toml").write_text(
        f'name = "threaded"\ncommand = ["{{python}}", "{fake_py}"]\nos_threads_per_process = 1\n'
    )
    monkeypatch.setenv("RINGBENCH_DRIVERS_DIR", str(tmp_path / "drv"))  # only these two: `all` must not
    monkeypatch.setenv("RINGBENCH_DRIVER_PATH", str(Path(__file__).parent / "fake_drivers"))  # reach real drivers
    r = run_cli("run", "ring", "-r", "all", "-n", 5_000_000, "-m", 1, "--repeat", 1, "--db", db)
    assert r.exit_code == 1, r.output  # measured what fits, said what did not
    cells = {c["runtime"]: c for c in q(db, "SELECT runtime, status, reason FROM cells")}
    assert cells["fake"]["status"] == "ok"
    assert cells["threaded"]["status"] == "refused" and "OS threads" in cells["threaded"]["reason"]
    named = run_cli("run", "ring", "-r", "threaded", "-n", 5_000_000, "-m", 1, "--db", db)
    assert named.exit_code == 2  # a runtime named explicitly: bad input, nothing run


def test_a_runtime_whose_processes_each_map_memory_is_refused_at_vm_max_map_count(fake, db, monkeypatch, tmp_path):
    from pathlib import Path

    limit = int(Path("/proc/sys/vm/max_map_count").read_text())
    folder = tmp_path / "drv" / "fibers"
    folder.mkdir(parents=True)
    (folder / "driver.toml").write_text(
        f'name = "fibers"\ncommand = ["{{python}}", "{FAKE_PY}"]\nmaps_per_process = 2\n'
    )
    monkeypatch.setenv("RINGBENCH_DRIVER_PATH", str(tmp_path / "drv"))
    n = limit // 2 + 1000
    r = run_cli("run", "ring", "-r", "fibers", "-n", n, "-m", 1, "--db", db)
    assert r.exit_code == 2 and "vm.max_map_count" in r.output
    assert f"sysctl -w vm.max_map_count={2 * n + 65530}" in r.output
    assert run_cli("run", "ring", "-r", "fibers", "-n", 1000, "-m", 1, "--repeat", 1, "--db", db).exit_code == 0


def test_every_workloads_checks_take_parameters_before_m_is_calibrated():
    """`run fanin -n 10` without -m once ended in a KeyError traceback: m is calibrated after the checks."""
    from ringbench.catalogue.workloads import WORKLOADS

    for w in WORKLOADS.values():
        given = {p.name: (p.default[0] if p.default else 1) for p in w.params if p.name != w.calibrates}
        for check in w.extra_checks:
            assert check(given) is None, w.name
