"""Nothing lost, nothing misleading (issue 23): resume keeps everything a run says, hints work when pasted,
an import is all or nothing, a full disk names the file and leaves nothing half-written, a value given
twice is one cell, a failed cell is a note under an intact table, and an impossible request is refused
before anything runs."""

import json
import os
import shlex
import shutil
import subprocess
import sys

import pytest
from conftest import run_cli

import ringbench
from ringbench import api

RINGBENCH = [sys.executable, "-m", "ringbench.cli"]


def cli(*args, env=None):
    """Exit code, stdout and stderr of the command line: in this process unless the command needs an
    environment of its own (each process of it would first import ringbench, about half a second)."""
    if env is None:
        r = run_cli(*args)
        return r.exit_code, r.stdout, r.stderr
    return in_a_process(*args, env=env)


def in_a_process(*args, env=None):
    p = subprocess.run(
        RINGBENCH + [str(a) for a in args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )
    return p.returncode, p.stdout, p.stderr


def pasted(hint: str):
    """Run a hint as printed (`ringbench …`) through the real command line."""
    argv = shlex.split(hint)
    assert argv[0] == "ringbench"
    return in_a_process(*argv[1:])


def test_resume_keeps_the_warnings_and_a_complete_run_is_left_as_it_is(fake, db):
    fake(FAKE_NS_PER_HOP=100, FAKE_JITTER="1,1.6,1,1.6,1", FAKE_FAULT="slow", FAKE_SLOW_S="0.4")
    r = run_cli("sweep", "ring", "-r", "fake", "-n", "10,20", "-m", 1, "--repeat", 5, "--budget", "1s", "--db", db)
    assert r.exit_code == 3, r.output
    r = run_cli("sweep", "--resume", 1, "--db", db)
    assert r.exit_code == 0, r.output
    before = json.loads(run_cli("export", 1, "--db", db).stdout)
    assert any(w["kind"] == "noisy" for w in before["warnings"])  # measured before the stop, still there
    r = run_cli("sweep", "--resume", 1, "--db", db)
    assert r.exit_code == 0 and "run 1 is complete" in r.output
    after = json.loads(run_cli("export", 1, "--db", db).stdout)
    assert after == before


def test_every_hint_carries_the_store_and_works_when_pasted(fake, tmp_path, monkeypatch):
    # the commands that print a hint run in this process; each hint is pasted into the real command line
    db = tmp_path / "elsewhere.db"
    fake(FAKE_FAULT="slow", FAKE_SLOW_S="0.2")
    r = run_cli("sweep", "ring", "-r", "fake", "-n", "10,20", "-m", 1, "--repeat", 1, "--budget", "0.01s", "--db", db)
    assert r.exit_code == 3, r.output
    monkeypatch.delenv("FAKE_FAULT")
    (hint,) = [line.strip() for line in r.stdout.splitlines() if line.strip().startswith("ringbench sweep --resume")]
    assert hint == f"ringbench sweep --resume 1 --db {db}"
    code, _, err = pasted(hint)
    assert code == 0, err
    assert "complete" in run_cli("history", "--db", db).stdout
    assert run_cli("export", 1, "--out", tmp_path / "x.json", "--db", db).exit_code == 0
    out = run_cli("import", tmp_path / "x.json", "--db", db).stdout
    hint = out[out.index("`") + 1 : out.rindex("`")]
    assert hint == f"ringbench show 2 --db {db}"
    assert pasted(hint)[0] == 0


def test_an_import_is_all_or_nothing_and_never_resumable(fake, db, tmp_path):
    fake(FAKE_NS_PER_HOP=100)
    run_cli("run", "ring", "-r", "fake", "-n", "10,20", "-m", 5, "--repeat", 2, "--db", db)
    doc = json.loads(run_cli("export", 1, "--db", db).stdout)
    broken = json.loads(json.dumps(doc))
    del broken["cells"][1]["records"][1]["count"]
    bad = tmp_path / "broken.json"
    bad.write_text(json.dumps(broken))
    code, out, err = cli("import", bad, "--db", db)
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "cell 2" in err and "record 2" in err and "count" in err
    assert [r["id"] for r in api.history(db)] == [1]  # nothing of it stored
    good = tmp_path / "good.json"
    good.write_text(json.dumps(doc))
    assert cli("import", good, "--db", db)[0] == 0
    imported = api.load(2, db)
    assert imported.status == "imported"
    assert [c.values() for c in imported.cells] == [c.values() for c in api.load(1, db).cells]
    code, _, err = cli("sweep", "--resume", 2, "--db", db)
    assert code == 2 and "was imported" in err


@pytest.fixture
def tiny_disk(tmp_path):
    """A 1 MiB tmpfs: a real full disk (root only; skipped with the reason otherwise)."""
    where = tmp_path / "tiny"
    where.mkdir()
    if os.geteuid() != 0 or not shutil.which("mount"):
        pytest.skip("mounting a small tmpfs needs root")
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(where)], capture_output=True, text=True)
    if r.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.strip()}")
    yield where
    subprocess.run(["umount", "-l", str(where)])


def fill(disk, leave=0):
    """Fill the disk but for `leave` bytes."""
    free = shutil.disk_usage(disk).free - leave
    f = open(disk / "filler", "wb", buffering=0)
    try:
        f.write(b"x" * max(free, 0))
        while not leave:
            f.write(b"x" * 4096)
    except OSError:
        pass
    finally:
        f.close()


def test_a_full_disk_names_the_file_and_leaves_no_half_written_file(fake, db, tiny_disk):
    fake(FAKE_NS_PER_HOP=100)
    run_cli("run", "ring", "-r", "fake", "-n", "10", "-m", 5, "--repeat", 2, "--db", db)
    fill(tiny_disk)
    for args in (["export", 1, "--out", tiny_disk / "run.json"], ["report", 1, "--out", tiny_disk / "r.html"]):
        code, _, err = cli(*args, "--db", db)
        assert code == 1 and str(tiny_disk) in err and "Traceback" not in err, err
    assert sorted(p.name for p in tiny_disk.iterdir()) == ["filler"]


def test_a_full_disk_while_measuring_is_one_line_and_the_run_is_not_complete(fake, tiny_disk):
    db = tiny_disk / "s.db"
    r = run_cli("run", "ring", "-r", "fake", "-n", "10", "-m", 5, "--repeat", 1, "--db", db)
    assert r.exit_code == 0, r.output
    # 120 KB left: room to begin the run, not for its 200 records (40 cells of 5 repeats grew this store by
    # 148 KB, measured): the disk fills while measuring, and an exit 0 would be a write error swallowed.
    # The records come 20 to a driver process (--in-process): 10 launches, not 200, fill it as well.
    fill(tiny_disk, leave=120_000)
    code, _, err = cli(
        "run",
        "ring",
        "-r",
        "fake",
        "-n",
        ",".join(str(10 + i) for i in range(10)),
        "-m",
        1,
        "--repeat",
        20,
        "--in-process",
        "--db",
        db,
        env={"FAKE_RSS_PER_PROC": "1"},
    )
    assert code != 0, "200 records stored in 120 KB: the disk never filled, or its error was swallowed"
    assert code == 1 and "disk full" in err and str(db) in err and "Traceback" not in err
    statuses = {r["id"]: r["status"] for r in api.history(db)}
    assert statuses[1] == "complete" and statuses[2] != "complete"


def test_a_value_given_twice_is_one_cell_and_resume_takes_no_other_settings(fake, db):
    fake(FAKE_NS_PER_HOP=100)
    run = ringbench.measure("ring", "fake", params={"n": "100,100,1_00", "m": 5}, repeat=1, db=db)
    assert len(run.cells) == 1
    r = run_cli("sweep", "ring", "-n", 5000, "--resume", 1, "--db", db)
    assert r.exit_code == 2 and "leave out ring, -n" in r.output


def test_a_failed_cell_is_a_note_and_every_other_figure_is_whole(zoo, db, monkeypatch):
    monkeypatch.setenv("FAKE_FAULT", "exit1")
    monkeypatch.setenv("FAKE_FAULT_ON", "3")  # the third launch: erlang's describe, fastgo's… then one process
    monkeypatch.setenv("COLUMNS", "100")
    r = run_cli(
        "sweep", "ring", "-r", "erlang,fastgo", "-n", 10, "-m", 5, "--repeat", 1, "--cores", "1,all", "--db", db
    )
    table = r.output[r.output.index("Runtime") : r.output.index("ns/hop: median")]
    failed = [line for line in table.splitlines() if " failed " in line or "crashed" in line]
    assert failed and all("[1]" in line for line in failed)
    assert "[1] " in r.output and "exit status 1" in r.output
    assert "…" not in table and "timeout: timeout" not in r.output


@pytest.mark.parametrize(
    "args,words",
    [
        (["run", "selective", "-r", "fake", "-n", 10, "-m", 1], "fake does not implement selective"),
        (
            ["run", "ring", "-r", "fake", "-n", 10, "-m", 1, "--placement", "nosuch"],
            "--placement must be spread or burst",
        ),
        (["compare", 1, 1], "two different runs"),
    ],
)
def test_impossible_requests_are_one_line_and_store_nothing(fake, db, args, words):
    code, _, err = cli(*args, "--db", db)
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1, err
    assert not db.exists() or args[0] == "compare"


def test_clicks_own_usage_errors_are_one_line_too(fake, db):
    code, _, err = in_a_process("run", "ring", "--no-such-option", "--db", db)  # the entry point folds them
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--no-such-option" in err


def test_help_says_each_commands_own_defaults_and_fits_100_columns():
    code, out, _ = cli("bench", "--help", env={"COLUMNS": "100"})
    assert "[default: 30ms]" in out and "[default: 100ms]" not in out
    code, out, _ = cli("run", "--help", env={"COLUMNS": "100"})
    assert max(map(len, out.splitlines())) <= 100


def test_a_new_store_is_said_and_a_concurrent_run_warned_about(fake, db):
    from ringbench.results.store import Store

    # wide enough that the store's path (longer under pytest -n: popen-gw0/) is not folded
    code, _, err = cli(
        "run", "ring", "-r", "fake", "-n", 10, "-m", 1, "--repeat", 1, "--db", db, env={"COLUMNS": "300"}
    )
    assert f"creating the store {db}" in err
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from ringbench.results.store import Store\n"
            "s = Store(sys.argv[1]); s.begin_run('other', {'workload': 'ring'}, {})\n"
            "print('owner', flush=True); time.sleep(60)",
            str(db),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout.readline().strip() == "owner"
        code, out, err = cli("run", "ring", "-r", "fake", "-n", 10, "-m", 1, "--repeat", 1, "--db", db)
        assert "creating the store" not in err
        assert "run(s) 2 were being measured into the same store" in out
    finally:
        child.kill()
        child.wait()
    with Store(db) as s:
        assert [r["status"] for r in s.runs()] == ["complete", "abandoned", "complete"]
