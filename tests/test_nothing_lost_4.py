"""Nothing lost, round four (issue 40): a resumed run keeps the environment it began with, an import
checks every record as a live run does, stored text is printed as it is (no markup, no terminal
escapes), impossible options are refused before anything runs, a closed pipe ends output quietly,
stale cookie files are swept, files follow the umask, and every line fits 100 columns."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time

import pytest
from conftest import cells_stored, q, run_cli

RINGBENCH = [sys.executable, "-m", "ringbench.cli"]


def cli(*args, env=None, drop=()):
    """Exit code, stdout and stderr of the command line: in this process unless the command needs an
    environment of its own (each process of it would first import ringbench, about half a second)."""
    if env is None and not drop:
        r = run_cli(*args)
        return r.exit_code, r.stdout, r.stderr
    environ = {k: v for k, v in os.environ.items() if k not in drop}
    p = subprocess.run(
        RINGBENCH + [str(a) for a in args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**environ, "COLUMNS": "100", **(env or {})},
    )
    return p.returncode, p.stdout, p.stderr


def test_resume_sets_the_recorded_tuning_variables_again(db):
    """ERL_FLAGS given to the first part of a sweep is given to the cells a resume measures, without it set."""
    environ = {**{k: v for k, v in os.environ.items() if k != "ERL_FLAGS"}, "ERL_FLAGS": "+sbwt none"}
    cmd = RINGBENCH + [
        "sweep",
        "ring",
        "-r",
        "erlang/stock",
        "-n",
        "10,20,30,40,50,60",
        "-m",
        "10",
        "--repeat",
        "1",
        "--warmup",
        "0",
        "--order",
        "sequential",
        "--db",
        str(db),
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environ)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and cells_stored(db) < 2:
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert cells_stored(db) < 6, "the sweep finished before the interrupt: nothing left to resume"
    rc, _, err = cli("sweep", "--resume", 1, "--db", db, drop=("ERL_FLAGS",), env={"GOGC": "50"})
    assert rc == 0, err
    assert "run 1 began with ERL_FLAGS='+sbwt none': set again for its drivers (unset here)" in err
    assert "run 1 began without GOGC: unset for its drivers (here GOGC=50)" in err
    cells = [json.loads(c["runtime_settings"]) for c in q(db, "SELECT runtime_settings FROM cells")]
    assert len(cells) == 6
    assert [c["inherited_tuning_env"] for c in cells] == [{"ERL_FLAGS": "+sbwt none"}] * 6


@pytest.fixture(scope="module")
def go_exports(tmp_path_factory):
    """A timed and a continuous ring of the real go driver, exported as JSON."""
    folder = tmp_path_factory.mktemp("exports")
    db = folder / "measured.db"
    rc, _, err = cli("run", "ring", "-r", "go/stock", "-n", 100, "-m", 100, "--repeat", 2, "--warmup", 0, "--db", db)
    assert rc == 0, err
    rc, _, err = cli(
        "run", "ring", "-r", "go/stock", "-n", 100, "--continuous", "--samples", 2, "--sample-ms", 50, "--db", db
    )
    assert rc == 0, err
    return [json.loads(cli("export", i, "--db", db)[1]) for i in (1, 2)]


@pytest.mark.parametrize("which, edit, words", [
    (0, lambda c: c["records"][1].update(count=12345),
     "cell 1 (go/stock [all] n=100 m=100): wrong_count: record 2: driver counted 12,345, expected 10,000"),
    (0, lambda c: c["records"][0].update(run_ns=-5),
     "cell 1 (go/stock [all] n=100 m=100): absurd: record 1: result field 'run_ns' is negative: -5"),
    (0, lambda c: c["records"][0].update(m=1000),
     "cell 1 (go/stock [all] n=100 m=100): garbled: record 1: result echoes m=1000, asked m=100"),
    (1, lambda c: c["samples"][1].update(count=100),
     "cell 1 (go/stock [all] n=100): absurd: driver process 1's samples: sample counts or times went backwards"),
    (1, lambda c: c["samples"][1].update(count=c["samples"][1]["count"] + 1),
     "is not a whole number of laps of 100"),
])  # fmt: skip
def test_an_edited_export_is_refused_naming_the_cell_and_nothing_is_stored(go_exports, tmp_path, which, edit, words):
    doc = json.loads(json.dumps(go_exports[which]))
    edit(doc["cells"][0])
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(doc))
    db = tmp_path / "store.db"
    rc, out, err = cli("import", path, "--db", db)
    assert rc == 2, err
    assert words in err and err.endswith("nothing imported\n"), err
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert not db.exists() or q(db, "SELECT count(*) AS k FROM runs")[0]["k"] == 0


def test_records_of_a_contract_3_store_stay_importable(go_exports, tmp_path):
    """Records without the context switches of contract 4 (setup_vcsw, …) import and show the same figures."""
    db = tmp_path / "store.db"
    for doc in go_exports:
        old = json.loads(json.dumps(doc))
        for c in old["cells"]:
            for r in c["records"]:
                for f in ("setup_vcsw", "setup_ivcsw", "run_vcsw", "run_ivcsw"):
                    r.pop(f, None)
        path = tmp_path / "contract3.json"
        path.write_text(json.dumps(old))
        rc, out, err = cli("import", path, "--db", db)
        assert rc == 0, err
    again = [json.loads(cli("export", i, "--db", db)[1]) for i in (1, 2)]
    for a, b in zip(again, go_exports, strict=True):  # every figure but those of the switches themselves
        sa, sb = a["cells"][0]["summary"], b["cells"][0]["summary"]
        assert {k for k in sb if "switch" not in k and "csw" not in k} <= set(sa), (sa, sb)
        assert all(sa[k] == sb[k] for k in sa if k in sb and "switch" not in k and "csw" not in k), (sa, sb)


def test_terminal_escapes_in_stored_text_are_shown_escaped(go_exports, tmp_path):
    """A run imported with escape sequences in its command, a version, a machine and a failed cell's reason:
    show, history and the exports print them as visible escapes, never as the bytes a terminal obeys."""
    doc = json.loads(json.dumps(go_exports[0]))
    doc["command"] = "ringbench run ring \x1b[2J\x1b]0;owned\x07 -n 100"
    doc["environment"]["cpu_model"] = "cpu\x1b[5m"
    doc["cells"][0]["runtime_version"] = "go\x9b31m1"
    failed = json.loads(json.dumps(doc["cells"][0]))
    failed.update(
        params={**failed["params"], "n": 200},
        status="failed",
        records=[],
        reason="crashed: \x1b[31mboom\x1b[0m\r\u202egnp.exe",
    )
    doc["cells"].append(failed)
    path = tmp_path / "escapes.json"
    path.write_text(json.dumps(doc))
    db = tmp_path / "store.db"
    assert cli("import", path, "--db", db)[0] == 0
    outputs = {}
    for argv in (
        ("show", 1),
        ("show", 1, "--wide"),
        ("history",),
        ("export", 1, "--format", "markdown"),
        ("export", 1, "--format", "csv"),
    ):
        rc, out, err = cli(*argv, "--db", db)
        assert rc in (0, 1), err
        outputs[argv] = out
        assert not any(ch in out + err for ch in "\x1b\x07\x9b\r\u202e"), (argv, out)
    show = outputs[("show", 1)]
    assert r"command: ringbench run ring \x1b[2J\x1b]0;owned\x07 -n 100" in show
    assert r"cpu\x1b[5m" in show
    assert r"crashed: \x1b[31mboom\x1b[0m" in show  # the first line of the reason
    assert r"go\x9b" in outputs[("show", 1, "--wide")]
    assert r"\x1b[2J" in outputs[("export", 1, "--format", "markdown")]


def test_brackets_in_a_stored_command_and_code_are_printed_verbatim(db):
    """`show` of a real perf run whose code and init hold [lists]: nothing is taken for rich markup."""
    code, init = "ets:insert(t, {1, [bold]}).", "ets:new(t, [named_table, public])."
    rc, _, err = cli("perf", code, "--init", init, "-l", 100, "-s", 2, "--db", db)
    assert rc == 0, err
    rc, out, err = cli("show", 1, "--wide", "--db", db)
    assert rc == 0, err
    flat = " ".join(out.split())  # the command line wraps at 100 columns
    assert f"--init '{init}'" in flat and f"ringbench perf '{code}'" in flat
    assert code in out


@pytest.mark.parametrize("argv, words", [
    (("run", "ring", "-r", "erlang", "-n", 100, "-m", 10, "--node-placement", "interleaved"),
     "--node-placement lays a ring out over nodes: give --nodes K (K ≥ 2) or --hosts too"),
    (("sweep", "ring", "-r", "erlang", "-n", 100, "-m", 10, "--nodes", 1, "--node-placement", "interleaved"),
     "--node-placement lays a ring out over nodes"),
    (("run", "ring", "-r", "erlang", "-n", 100, "--nodes", 2, "--squeeze"),
     "--squeeze raises the tokens of a ring on one node (as perf -q does): leave out --nodes and --hosts"),
    (("sweep", "ring", "-r", "erlang", "-n", 100, "--nodes", "1,2", "--squeeze", "--max", 2),
     "--squeeze raises the tokens of a ring on one node"),
])  # fmt: skip
def test_options_that_mean_nothing_together_are_refused_before_anything_runs(db, argv, words):
    started = time.monotonic()
    rc, out, err = cli(*argv, "--db", db)
    assert (rc, out) == (2, ""), err
    assert err == f"Error: {words}" + err.split(words, 1)[1] and len(err.splitlines()) == 1, err
    assert not db.exists()  # nothing stored, the store not even created
    assert time.monotonic() - started < 30  # refused before measuring, not after


def test_trace_refuses_a_node_placement_without_nodes():
    rc, out, err = cli("trace", "-r", "erlang", "-n", 3, "-m", 1, "--node-placement", "interleaved")
    assert rc == 2 and out == "", out
    assert err.strip() == "Error: --node-placement lays a ring out over nodes: give --nodes K (K ≥ 2)"


def _closed_pipe(*args):
    """The real CLI with its stdout a pipe whose reader has gone (`… | head -0`): exit status and stderr."""
    proc = subprocess.Popen(
        RINGBENCH + [str(a) for a in args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "COLUMNS": "100"},
    )
    proc.stdout.close()
    _, err = proc.communicate(timeout=300)
    return proc.returncode, err.decode()


def test_a_closed_pipe_ends_output_quietly_and_the_run_is_complete(db):
    rc, err = _closed_pipe("run", "ring", "-r", "go/stock,c-coro", "-n", 100, "-m", 100, "--repeat", 2, "--db", db)
    assert rc == 141, err
    for words in ("Traceback", "Exception ignored", "Error", "BrokenPipe"):
        assert words not in err, err
    assert [(r["status"], r["planned"]) for r in q(db, "SELECT status, planned FROM runs")] == [("complete", 2)]
    assert cells_stored(db) == 2
    for argv in (("show", 1), ("show", 1, "--json"), ("export", 1, "--format", "csv"), ("history",)):
        rc, err = _closed_pipe(*argv, "--db", db)
        assert (rc, err) == (141, ""), argv


def test_cookie_folders_of_killed_runs_are_swept_at_the_next_start(tmp_path, db, monkeypatch):
    """A --hosts run killed with SIGKILL leaves its cluster folder (the cookie, mode 0600): the next run
    removes it, and leaves alone a live run's folder, another program's and one not named by its owner."""
    from ringbench.harness import cluster

    gone = subprocess.Popen(["true"])
    gone.wait()
    with open(f"/proc/{os.getpid()}/stat") as f:
        my_start = f.read().rsplit(")", 1)[1].split()[19]
    stale = tmp_path / f"ringbench-cluster-{gone.pid}-12345-abcd"
    reused = tmp_path / f"ringbench-cluster-{os.getpid()}-1-abcd"  # this pid, another start time: a reused pid
    live = tmp_path / f"ringbench-cluster-{os.getpid()}-{my_start}-abcd"
    unnamed = tmp_path / "ringbench-cluster-abcd1234"
    other = tmp_path / "something-else"
    for folder in (stale, reused, live, unnamed, other):
        folder.mkdir(mode=0o700)
        (folder / "cluster").write_text("hosts=ringbench@x\ncookie=secret\n")
    rc, _, err = cli(
        "run", "ring", "-r", "c-coro", "-n", 10, "-m", 1, "--repeat", 1, "--db", db, env={"TMPDIR": str(tmp_path)}
    )
    assert rc == 0, err
    assert not stale.exists() and not reused.exists()
    assert live.exists() and unnamed.exists() and other.exists()
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setenv("RINGBENCH_COOKIE", "secret")
    monkeypatch.setattr(tempfile, "tempdir", None)
    with cluster.cluster_file(("ringbench@x",), "") as path:  # named after its owner, so that it can be swept
        assert os.path.basename(os.path.dirname(path)).startswith(f"ringbench-cluster-{os.getpid()}-{my_start}-")


@pytest.fixture(scope="module")
def one_c_coro_run(tmp_path_factory):
    """A store of one small c-coro run, measured once: the umask tests only read it."""
    db = tmp_path_factory.mktemp("umask") / "store.db"
    rc, _, err = cli("run", "ring", "-r", "c-coro", "-n", 10, "-m", 1, "--repeat", 1, "--db", db)
    assert rc == 0, err
    return db


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_written_files_follow_the_umask(tmp_path, umask, one_c_coro_run):
    """export --out and report write through a temporary file made 0600: the file gets 0666 & ~umask, as a
    plain open() would have given it."""
    db = one_c_coro_run
    for argv, name in ((("export", 1, "--format", "csv"), "run.csv"), (("report", 1), "report.html")):
        path = tmp_path / "out" / name
        p = subprocess.run(
            RINGBENCH + [str(a) for a in argv] + ["--out", str(path), "--db", str(db)],
            capture_output=True,
            text=True,
            timeout=300,
            preexec_fn=lambda: os.umask(umask),
        )
        assert p.returncode == 0, p.stderr
        assert oct(os.stat(path).st_mode & 0o777) == oct(0o666 & ~umask), name


def test_internal_names_are_never_shown_and_tokens_are_called_tokens(db):
    """A ring over 2 nodes, interleaved, with 1 and 2 tokens: progress, table, notes, warnings, history and
    show say `interleaved` and `tokens`, never `node_placement=1`, `burst=0` or a K column for tokens."""
    rc, out, err = cli(
        "run",
        "ring",
        "-r",
        "erlang",
        "-n",
        100,
        "-m",
        10,
        "--nodes",
        2,
        "--node-placement",
        "interleaved",
        "--tokens",
        "1,2",
        "--repeat",
        1,
        "--db",
        db,
    )
    assert rc == 0, err
    texts = [out, err, cli("history", "--db", db)[1], cli("show", 1, "--wide", "--db", db)[1]]
    for text in texts:
        assert "node_placement" not in text and "burst=" not in text, text
        assert not any(line.split()[3:4] == ["K"] for line in text.splitlines() if "Runtime" in line), text
    assert "erlang/stock [all] n=100 m=10 tokens=2 nodes=2 interleaved: ok" in err
    assert "ring m=10 n=100 interleaved nodes=2" in " ".join(texts[2].split()), texts[2]
    heads = [line.split() for line in out.splitlines() if line.lstrip().startswith("Runtime")]
    assert all("tokens" in h for h in heads) and len(heads) == 2, out


LONG = "run(L) -> lists:filter(fun(X) -> X rem 2 =:= 0 andalso X rem 3 =:= 0 andalso X rem 5 =:= 0 end, L)."


@pytest.fixture(scope="module")
def perf_runs(tmp_path_factory):
    """A real erlang perf run of two snippets (one over 100 characters) and the same run imported with every
    sample's time over twice the slowest: run 2 is more than twice as slow, significantly."""
    folder = tmp_path_factory.mktemp("perf")
    db = folder / "store.db"
    rc, _, err = cli(
        "perf",
        "run(L) -> [X || X <- L, X rem 2 =:= 0].",
        "--init_runner",
        "lists:seq(1, 100).",
        LONG,
        "--init_runner",
        "lists:seq(1, 100).",
        "-l",
        2000,
        "-s",
        5,
        "--db",
        db,
    )
    assert rc == 0, err
    doc = json.loads(cli("export", 1, "--db", db)[1])
    for c in doc["cells"]:  # each sample slower than the slowest of run 1: significant, however loaded the machine
        slowest = max(r["run_ns"] for r in c["records"])
        for i, r in enumerate(c["records"]):
            r["run_ns"] = 2 * slowest + i
    (folder / "slower.json").write_text(json.dumps(doc))
    assert cli("import", folder / "slower.json", "--db", db)[0] == 0
    return db


def test_show_wide_of_a_perf_run_fits_100_columns_with_the_code_whole(perf_runs):
    rc, out, err = cli("show", 1, "--wide", "--db", perf_runs)
    assert rc == 0, err
    assert max(map(len, out.splitlines())) <= 100, out
    assert LONG in " ".join(out.split()) and "#2  run(L) -> lists:filter(" in out, out
    assert "CPU/wall" in out  # the details, under the table


def test_compare_of_perf_runs_fits_100_columns_and_says_one_figure(perf_runs):
    rc, out, err = cli("compare", 1, 2, "--fail-above", 5, "--db", perf_runs)
    assert rc == 1, err
    assert max(map(len, (out + err).splitlines())) <= 100, out
    assert LONG in " ".join(out.split()), out
    rows = [line.split() for line in out.splitlines() if line.lstrip().startswith("erlang/")]
    gates = [g for g in " ".join(err.split()).split("regression: ") if g]
    assert len(rows) == len(gates) == 2, (out, err)
    for row, gate in zip(rows, gates, strict=True):
        figure = row[5]  # slower, in %: the same number and sign in the gate's line
        assert float(figure.rstrip("%")) > 90 and row[-1] == "slower", out
        assert f"{figure.rstrip('%')} % slower" in gate, (figure, gate)


@pytest.fixture
def remote_node(tmp_path):
    """A node of the user's own, as README's `--hosts` section starts one (a fixed port, no epmd), its cookie
    in its own ~/.erlang.cookie: (name@host:port, cookie). Stopped afterwards."""
    import socket

    home = tmp_path / "home"
    home.mkdir()
    (home / ".erlang.cookie").write_text("h5cookie4test")
    (home / ".erlang.cookie").chmod(0o600)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    node = subprocess.Popen(
        [
            "erl",
            "-sname",
            "ringbench@localhost",
            "-start_epmd",
            "false",
            "-erl_epmd_port",
            str(port),
            "-noshell",
            "-noinput",
        ],
        env={**os.environ, "HOME": str(home)},
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60  # until the node listens on its port (it used to be a fixed 2 s)
    while True:
        assert node.poll() is None and time.monotonic() < deadline, "the node did not start"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.05)
    yield f"ringbench@localhost:{port}", "h5cookie4test"
    os.killpg(node.pid, signal.SIGKILL)
    node.wait()


def test_the_cookie_folder_of_a_run_killed_over_hosts_is_swept_by_the_next_run(tmp_path, remote_node, db):
    """SIGKILL of the orchestrator in a real ring over a node of the user's: its cluster folder (the cookie)
    outlives it; the next run, of any kind, removes it."""
    host, cookie = remote_node
    env = {**os.environ, "TMPDIR": str(tmp_path), "RINGBENCH_COOKIE": cookie, "COLUMNS": "100"}
    cmd = RINGBENCH + [
        "run",
        "ring",
        "-r",
        "erlang",
        "-n",
        100,
        "--hosts",
        host,
        "--continuous",
        "--samples",  # 3 s a cell: the in-node ring beside, which has no cluster folder, runs first
        15,
        "--sample-ms",
        200,
        "--db",
        db,
    ]
    proc = subprocess.Popen([str(a) for a in cmd], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    folders: list = []
    while time.monotonic() < deadline and not folders and proc.poll() is None:
        # the one of the measurement, after the check of the hosts (whose folder is removed at once)
        folders = [f for f in tmp_path.glob("ringbench-cluster-*") if cells_stored(db) or _running(db)]
        time.sleep(0.05)
    assert folders, proc.stderr.read().decode() if proc.poll() is not None else "no cluster folder"
    proc.kill()
    proc.wait()
    time.sleep(0.5)  # the driver dies with the orchestrator (contract section 8)
    assert [f for f in folders if (f / "cluster").exists()], "the killed run's cookie is gone already"
    rc, _, err = cli(
        "run",
        "ring",
        "-r",
        "c-coro",
        "-n",
        10,
        "-m",
        1,
        "--repeat",
        1,
        "--db",
        tmp_path / "other.db",
        env={"TMPDIR": str(tmp_path)},
    )
    assert rc == 0, err
    assert not list(tmp_path.glob("ringbench-cluster-*"))


def _running(db) -> bool:
    try:
        return bool(q(db, "SELECT id FROM runs WHERE status = 'running'")) if db.exists() else False
    except Exception:  # the store still being created
        return False
