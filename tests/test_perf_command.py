"""`ringbench perf` end to end on the real perf runners (erlang, python): erlperf's command line, its
table, what is stored and shown, and bad input as one line with exit 2 (docs/driver-contract.md, section 10).

Timings here are never checked (the machine may be busy): the figures exist, the counts add up."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import RINGBENCH, q, real_drivers, run_cli

from ringbench import api
from ringbench.cli import BadInput, perf_args
from ringbench.harness.perf import parse_count

RUNNERS = {d.base for d in real_drivers() if not d.tuned}
ON_CI = bool(os.environ.get("CI"))  # on CI a runner that is not built fails its tests (with its reason), never skips
needs_erlang = pytest.mark.skipif("erlang" not in RUNNERS and not ON_CI, reason="the erlang driver is not built")
needs_python = pytest.mark.skipif(
    "python-threads" not in RUNNERS and not ON_CI, reason="the python-threads driver is not built"
)
ROOT = Path(__file__).resolve().parent.parent
QUICK = ["-d", "50", "-s", "2", "-w", "0"]  # short samples: the figures are not the point here


def ringbench(*args):
    """Exit code, stdout and stderr of the command line, run in this process: these tests are about what perf
    measures and says, not about the command's own process (tests/test_perf_lifecycle.py starts it as one),
    and each process of it would first import ringbench (about half a second)."""
    r = run_cli(*args)
    return r.exit_code, r.stdout, r.stderr


def one_line_error(err: str) -> str:
    """The one line a refusal prints (a status line may come before it, nothing after)."""
    assert "Traceback" not in err, err
    lines = [x for x in err.splitlines() if x.strip()]
    assert lines and lines[-1].startswith("Error: "), err
    return lines[-1]


# -- erlperf's command line, parsed -------------------------------------------------------------------
def test_each_hook_pairs_with_the_code_before_it():
    snippets, opts = perf_args([
        "--init_runner", "lists:seq(1, 100).", "[X || X <- L].", "lists:filter(fun(X) -> true end, L).",
        "--init-runner", "lists:seq(1, 10).", "--done", "ok.", "-c", "2", "-pa", "/a", "--path=/b", "-q",
    ])  # fmt: skip
    assert snippets == [
        {"runner": "[X || X <- L].", "init_runner": "lists:seq(1, 100)."},
        {"runner": "lists:filter(fun(X) -> true end, L).", "init_runner": "lists:seq(1, 10).", "done": "ok."},
    ]
    assert opts == {"code_path": ["/a", "/b"], "concurrency": 2, "squeeze": True, "clean_env": False}


@pytest.mark.parametrize("argv,says", [
    ([], "give the code"),
    (["ok.", "--init", "a.", "--init", "b."], "given twice"),
    (["ok.", "-c"], "needs a value"),
    (["ok.", "-c", "two"], "whole number"),
    (["ok.", "--colour", "red"], "unknown option --colour"),
    (["ok.", "--squeeze=1"], "takes no value"),
    (["ok.", "--cv", "low"], "--cv"),
    (["ok.", "--clean-env", "--keep-env"], "not both"),
])  # fmt: skip
def test_a_command_line_that_does_not_fit_is_refused(argv, says):
    with pytest.raises(BadInput, match=says):
        perf_args(argv)


@pytest.mark.parametrize(
    "text,count",
    [("100", 100), ("10K", 10_000), ("100M", 100_000_000), ("3G", 3 * 10**9), ("1_000", 1000), ("2k", 2000)],
)
def test_loop_counts_take_erlperfs_suffixes(text, count):
    assert parse_count(text) == count


@pytest.mark.parametrize("text", ["0", "1.5M", "M", "-3", "10T"])
def test_a_loop_count_that_is_not_one_is_refused(text):
    with pytest.raises(ValueError):
        parse_count(text)


def test_help_fits_100_columns_names_every_runner_and_says_the_code_is_unsandboxed():
    p = subprocess.run([*RINGBENCH, "perf", "--help"], capture_output=True, text=True,
                       env={**os.environ, "COLUMNS": "100"})  # fmt: skip
    assert p.returncode == 0, p.stderr
    long = [line for line in p.stdout.splitlines() if len(line) > 100]
    assert not long, long
    # every runner a driver's manifest names (read here from the files themselves), in the -r entry
    named = set()
    for toml in (ROOT / "drivers").glob("*/driver.toml"):
        m = re.search(r'^perf\s*=\s*"([^"]+)"', toml.read_text(), re.M)
        if m:
            named.add(m.group(1))
    assert {"erlang", "elixir", "node", "pypy", "python"} <= named
    entry = " ".join(p.stdout.split("-r, --runtime NAME", 1)[1].split("-pa DIR", 1)[0].split())
    assert all(name in entry for name in named), entry
    assert "sandboxed" in " ".join(p.stdout.split())


@pytest.mark.parametrize("argv,says", [
    (["ok.", "--colour"], "unknown option --colour"),
    ([], "give the code"),
    (["ok.", "-l", "99999999999999999999999"], "-l/--loop must be at most"),
    (["ok.", "-c", "99999999999999999999"], "-c/--concurrency must be an integer from 1"),
])  # fmt: skip
def test_a_refusal_is_one_line_with_one_hint_and_bounds_are_checked_before_a_runtime_starts(tmp_path, argv, says):
    """Checked in Python before anything starts: the loop count used to reach the runtime, whose answer
    was `got {"v":…}`; the help hint used to be printed twice."""
    code, out, err = ringbench("perf", *argv, "--db", tmp_path / "s.db")
    assert code == 2, (out, err)
    line = one_line_error(err)
    assert says in line and line.count("--help") <= 1 and '{"v"' not in line, line
    assert not (tmp_path / "s.db").exists()


# -- the command, on the real runners -----------------------------------------------------------------
@needs_erlang
def test_erlperf_table_stored_and_shown(tmp_path):
    db = tmp_path / "s.db"
    code, out, err = ringbench("perf", "rand:uniform().", "erlang:unique_integer().", *QUICK, "--db", db)
    assert code == 0, err
    assert "Traceback" not in err
    head = next(line for line in out.splitlines() if "Code" in line)
    assert head.split() == ["Code", "||", "QPS", "±95%", "Time", "Rel", "%"]
    assert "rand:uniform()." in out and "erlang:unique_integer()." in out and "100 ref" in out
    assert "stored as run 1" in err
    (run,) = q(db, "SELECT * FROM runs")
    assert run["status"] == "complete" and run["command"].startswith("ringbench perf 'rand:uniform().'")
    cells = q(db, "SELECT * FROM cells ORDER BY id")
    assert [(c["workload"], c["status"], c["runtime"]) for c in cells] == [("perf", "ok", "erlang/stock")] * 2
    assert [json.loads(c["params"])["code"] for c in cells] == ["rand:uniform().", "erlang:unique_integer()."]

    # the reading commands in this process (the real command line stored the run above)
    r = run_cli("history", "--db", db)
    assert r.exit_code == 0, r.output
    assert "perf continuous" in r.stdout and "rand:uniform()" in r.stdout
    r = run_cli("show", "1", "--db", db)
    assert r.exit_code == 0, r.output
    assert "rand:uniform()." in r.stdout and "Rel %" in r.stdout
    r = run_cli("show", "1", "--json", "--db", db)
    assert r.exit_code == 0, r.output
    assert [c["params"]["code"] for c in json.loads(r.stdout)["cells"]] == [
        "rand:uniform().",
        "erlang:unique_integer().",
    ]


@needs_erlang
def test_timed_and_squeeze_modes(tmp_path):
    db = tmp_path / "s.db"
    code, out, err = ringbench("perf", "erlang:unique_integer().", "-l", "10K", "-s", "2", "--db", db)
    assert code == 0, err
    assert "perf (timed)" in out
    (cell,) = q(db, "SELECT * FROM cells")
    assert json.loads(cell["params"]) == {"code": "erlang:unique_integer().", "loop": 10_000}
    assert [r["count"] for r in q(db, "SELECT count FROM results")] == [10_000, 10_000]

    code, out, err = ringbench("perf", "ok.", "-q", "--max", "2", "-s", "1", "-w", "0", "-d", "30", "--db", db)
    assert code == 0, err
    assert "perf (squeeze)" in out


@needs_erlang
@pytest.mark.parametrize("mode", [["-l", "10", "-s", "1"], QUICK], ids=["timed", "continuous"])
def test_a_beam_worker_starts_with_a_grown_heap_that_init_runner_may_give_back(tmp_path, mode):
    """A fresh process's 233 words would make an allocating snippet collect every few iterations (the
    driver's worker_options/1); process_flag in init_runner restores erlperf's fresh heap."""
    db = tmp_path / "s.db"
    grown, fresh = (f"{{min_heap_size, {w}}} = process_info(self(), min_heap_size)." for w in (1598, 233))
    code, out, err = ringbench("perf", grown, *mode, "--db", db)
    assert code == 0, err
    code, out, err = ringbench("perf", fresh, *mode, "--db", db)
    assert code == 1 and "no match of right hand side value {min_heap_size,1598}" in one_line_error(err), err
    code, out, err = ringbench("perf", fresh, "--init_runner", "process_flag(min_heap_size, 233).", *mode, "--db", db)
    assert code == 0, err


@needs_erlang
@pytest.mark.parametrize("argv,says", [
    (["foo("], "syntax error"),
    (["run(A) -> A."], "init_runner"),
    (["ok.", "-l", "10", "-c", "2"], "timed mode"),
    (["ok.", "-l", "10", "-q"], "choose one"),
    (["ok.", "-r", "no-such-runner"], "no perf runner"),
    (["ok.", "ok."], "again"),
])  # fmt: skip
def test_bad_input_is_one_line_exit_2_and_nothing_stored(tmp_path, argv, says):
    db = tmp_path / "s.db"
    code, out, err = ringbench("perf", *argv, *QUICK, "--db", db)
    assert code == 2, (out, err)
    assert says in one_line_error(err)
    assert not db.exists() or not q(db, "SELECT * FROM runs")


@needs_erlang
def test_code_that_raises_stops_the_run_with_the_runtimes_message(tmp_path):
    db = tmp_path / "s.db"
    code, out, err = ringbench("perf", "erlang:error(boom).", "ok.", *QUICK, "--db", db)
    assert code == 1, (out, err)
    line = one_line_error(err)
    assert "boom" in line and "erlang:error(boom)." in line
    (run,) = q(db, "SELECT * FROM runs")
    assert run["status"] == "failed"
    cells = q(db, "SELECT * FROM cells")
    assert [c["status"] for c in cells] == ["failed"]  # the next snippet never ran
    assert not q(db, "SELECT * FROM results")  # no figure of failing code


@needs_python
def test_python_runner(tmp_path):
    db = tmp_path / "s.db"
    code, out, err = ringbench(
        "perf",
        "-r",
        "python",
        "sorted(xs)",
        "--init_runner",
        "xs = list(range(100, 0, -1))",
        "xs.sort()",
        "--init_runner",
        "xs = list(range(100, 0, -1))",
        *QUICK,
        "--db",
        db,
    )
    assert code == 0, err
    assert "sorted(xs)" in out and "Python threads" in out
    code, out, err = ringbench("perf", "-r", "python", "def run(:", *QUICK, "--db", db)
    assert code == 2
    assert "invalid syntax" in one_line_error(err)


@needs_python
def test_api_perf_mirrors_erlperf_run(tmp_path):
    db = tmp_path / "s.db"
    run = api.perf(
        [
            {"runner": "sum(xs)", "init_runner": "xs = [1, 2, 3]"},
            {"runner": "len(xs)", "init_runner": "xs = [1, 2, 3]"},
        ],
        {"sample_duration": 50, "samples": 2, "warmup": 0},
        runtime="python",
        db=db,
    )
    assert run.status == "complete" and len(run.cells) == 2
    rows = api.perf_rows(run)
    assert [r.code for r in rows] == ["sum(xs)", "len(xs)"]
    assert all(r.qps and r.qps > 0 and r.ns_per_iteration and r.ns_per_iteration > 0 for r in rows)
    assert sum(r.is_reference for r in rows) == 1
    timed = api.perf(
        {"runner": "sum(xs)", "init_runner": "xs = [1]"},
        {"sample_duration": ("timed", 1000), "samples": 2},
        runtime="python",
        db=db,
    )
    assert timed.cells[0].params["loop"] == 1000
    with pytest.raises(api.InputError, match="invalid syntax"):
        api.perf("def run(:", runtime="python", db=db)


@needs_python
def test_a_ctrl_c_while_the_perf_run_is_begun_is_a_keyboard_interrupt_with_nothing_stored(tmp_path, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(api.Store, "begin_run", interrupted)  # the store is open, the run not begun
    db = tmp_path / "s.db"
    with pytest.raises(KeyboardInterrupt):
        api.perf("sum(xs)", {"sample_duration": 50, "samples": 1, "warmup": 0}, runtime="python", db=db)
    monkeypatch.undo()
    assert api.Store(db).runs() == []


@needs_erlang
def test_perf_runs_are_compared_and_exported_like_any_other(tmp_path):
    db = tmp_path / "s.db"
    for _ in range(2):
        code, _, err = ringbench("perf", "rand:uniform().", *QUICK, "--db", db)
        assert code == 0, err
    r = run_cli("compare", "1", "2", "--fail-above", "1000", "--db", db)  # reading commands: in this process
    assert r.exit_code == 0, r.output
    assert "QPS" in r.stdout and "erlang/stock" in r.stdout
    r = run_cli("export", "2", "--db", db)
    assert r.exit_code == 0, r.output
    assert [c["params"]["code"] for c in json.loads(r.stdout)["cells"]] == ["rand:uniform()."]


@needs_erlang
def test_a_runner_slower_than_the_sample_is_0_qps_with_the_reason(tmp_path):
    db = tmp_path / "s.db"
    code, out, err = ringbench("perf", "timer:sleep(1000).", "-d", "50", "-s", "2", "-w", "1", "--db", db)
    assert code == 0, err
    row = next(line for line in out.splitlines() if line.strip().startswith("timer:sleep"))
    assert row.split()[-4:] == ["1", "0", "–", "inf"], row
    assert "slower than the sample period" in " ".join(out.split())


@needs_erlang
def test_a_runner_that_never_returns_is_killed_after_the_timeout(tmp_path):
    code, out, err = ringbench("perf", "timer:sleep(infinity).", "-l", "1", "--timeout", "3", "--db", tmp_path / "s.db")
    assert code == 1, (out, err)
    line = one_line_error(err)
    assert "timeout" in line and "killed" in line and "snippet 1 was running" in line, line


@needs_python
def test_a_relative_code_path_is_found_from_where_ringbench_runs(tmp_path, monkeypatch):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "mymod.py").write_text("def twice(x):\n    return 2 * x\n")
    monkeypatch.chdir(tmp_path)  # the runner itself starts in its driver's folder
    code, out, err = ringbench(
        "perf", "-r", "python", "--path", "mine", "import mymod; mymod.twice(3)", *QUICK, "--db", tmp_path / "s.db"
    )
    assert code == 0, err
    assert "mymod.twice(3)" in out


# -- scripts/perf_versus.py's third column: the snippet in a bare loop ---------------------------------
def _perf_versus():
    import importlib.util

    spec = importlib.util.spec_from_file_location("perf_versus", ROOT / "scripts" / "perf_versus.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["perf_versus"] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@needs_erlang
def test_the_erlang_bare_loop_inlines_the_snippet_and_times_one_iteration(tmp_path):
    pv = _perf_versus()
    sleep = pv.Case("sleep", "erlperf", [], ["timer:sleep(1).", "-l", "50", "-s", "1"])
    ((_, argv),) = pv.bare_commands(sleep, tmp_path)
    source = next(tmp_path.glob("*.erl")).read_text()
    assert "-> timer:sleep(1), loop(RbBareN - 1, RbBareA)." in source  # inlined, not a fun called
    _, times, _ = pv.run_bare(sleep, tmp_path)
    assert 1e6 <= times["timer:sleep(1)."] < 2e7  # one sleep of a millisecond an iteration, in ns
    pair = pv.Case(
        "pair",
        "erlperf",
        [],
        [
            "run(L) -> lists:sum(L).",
            "--init_runner",
            "lists:seq(1, 100).",
            "run(L) -> length(L).",
            "--init_runner",
            "[a].",
            "-l",
            "1000",
            "-s",
            "1",
        ],
    )
    _, times, _ = pv.run_bare(pair, tmp_path)
    assert set(times) == {"run(L) -> lists:sum(L).", "run(L) -> length(L)."} and all(t > 0 for t in times.values())


def test_the_python_bare_loop_is_a_for_loop_with_the_setup_as_locals(tmp_path):
    pv = _perf_versus()
    source = pv.py_bare_source(["-r", "2", "-s", "import time", "-s", "d = 0.001", "time.sleep(d)"])
    assert "    import time\n    d = 0.001\n" in source and "    for _ in range(n):\n        time.sleep(d)\n" in source
    path = tmp_path / "bare.py"
    path.write_text(source)
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, check=True).stdout
    assert 1e6 <= float(out) < 2e7  # a millisecond an iteration, in ns


def test_erlperf_s_timed_figure_is_read_from_its_median_sample_not_its_whole_nanoseconds():
    """erlperf's timed Time column is whole nanoseconds (4.49 prints 4 ns); the extended report's median
    sample over the loop keeps three digits (its code cut to 15 characters, which run_other matches back)."""
    pv = _perf_versus()
    basic = (
        "Code                             ||        QPS       Time\n"
        "erlang:unique_integer().          1     250 Mi       4 ns\n"
    )
    assert pv.parse_erlperf(basic) == ({"erlang:unique_integer().": 4.0}, 1)
    extended = (
        "Code               ||   Samples       Avg   StdDev    Median      P99  Iteration\n"
        "erlang:unique_i     1         3    452 ms    4.46%    449 ms   499 ms       4 ns\n"
    )
    times, peak = pv.parse_erlperf(extended, 100_000_000)
    assert peak == 1 and times == {"erlang:unique_i": pytest.approx(4.49)}
