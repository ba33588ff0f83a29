"""scripts/versus.py: one driver against an independent program, both timed from outside.

Most tests replace only the wall clock (`run_timed`) so the arithmetic can be checked exactly;
the others launch real processes: the fake driver, a test-local driver that really takes the time
the fake reports, and small Python "programs".
"""
import importlib.util
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ringbench.harness import launch

FAKE_DIR = Path(__file__).resolve().parent / "fake_drivers"  # as in conftest.py

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "scripts" / "versus.py"

_spec = importlib.util.spec_from_file_location("versus", SCRIPT)
versus = importlib.util.module_from_spec(_spec)
sys.modules["versus"] = versus  # dataclasses look their module up while the file executes
_spec.loader.exec_module(versus)

PY = shlex.quote(sys.executable)


def program(code: str, args: str = "{n} {m}") -> str:
    """A program template: a Python one-liner (no site import: quick to start) and its arguments."""
    return f"{PY} -S -c {shlex.quote(code)} {args}"


SLEEPER = program("import sys,time; time.sleep(int(sys.argv[1])*int(sys.argv[2])*1e-9*float(sys.argv[3]))",
                  "{n} {m} 1000")


def run(argv, capsys):
    rc = versus.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


# -- a fake wall clock over the real pipeline ---------------------------------------------------
class Clock:
    """Stands in for run_timed: no process starts, but the driver's output is a real result record
    that versus must parse and check. Times: a start-up that differs per side (so it must cancel) plus
    a known cost per hop."""

    def __init__(self, driver_ns=150.0, program_ns=100.0, own_ns=140.0, ignore_m=False):
        self.driver_ns, self.program_ns, self.own_ns, self.ignore_m = driver_ns, program_ns, own_ns, ignore_m
        self.calls = []

    def __call__(self, argv, env, cwd, cpu, timeout):
        self.calls.append({"argv": argv, "env": env, "cwd": cwd, "cpu": cpu})
        if "ring" in argv and "run" in argv:  # the driver
            kv = dict(a.split("=", 1) for a in argv if "=" in a)
            n, m, k = int(kv["n"]), int(kv["m"]), int(kv["tokens"])
            hops = n * m * k
            rec = {"type": "result", "workload": "ring", "iteration": 1, "n": n, "m": m, "tokens": k,
                   "burst": int(kv["burst"]), "count": hops, "ready": n, "setup_ns": 1, "run_ns": int(hops * self.own_ns),
                   "setup_cpu_ns": 1, "run_cpu_ns": 1, "rss_before": 1, "rss_after": 2}
            return versus.Timed(0.400 + hops * self.driver_ns * 1e-9, json.dumps(rec) + "\n", "", 0)
        n, m = int(argv[-2]), int(argv[-1])
        hops = n * (1 if self.ignore_m else m)
        return versus.Timed(0.030 + hops * self.program_ns * 1e-9, "whatever it prints\n", "", 0)


@pytest.fixture
def clock(fake, monkeypatch):
    c = Clock()
    monkeypatch.setattr(versus, "run_timed", c)
    return c


PROG = program("pass")


def test_differential_figure_cancels_start_up_and_reads_the_ratio(clock, capsys):
    rc, out, err = run(["-r", "fake", "-p", PROG, "-n", "1000,10000", "-m", "10,100", "--rounds", "5",
                        "--env", "GOMAXPROCS={cores}", "--json"], capsys)
    assert rc == 0, err
    report = json.loads(out)
    assert [c["n"] for c in report["cells"]] == [1000, 10000]
    for c in report["cells"]:
        assert (c["m1"], c["m2"]) == (10, 100)
        assert c["hops_difference"] == c["n"] * 90
        # 0.4 s and 0.03 s of start-up are gone: only the per-hop cost is left
        assert c["driver"]["ns_per_hop"] == pytest.approx(150, rel=1e-6)
        assert c["program"]["ns_per_hop"] == pytest.approx(100, rel=1e-6)
        assert c["driver"]["own_ns_per_hop"] == pytest.approx(140)  # from the driver's record, shown beside it
        assert c["ratio"] == pytest.approx(1.5, rel=1e-6)
        assert c["at_least_as_fast"] is False
        assert c["significant"] is True and c["p_value"] < 0.05
        assert c["verdict"].startswith("driver slower")
        assert "repeats=1 warmup=0" in c["driver"]["command_m2"] and f"n={c['n']} m=100" in c["driver"]["command_m2"]
        assert c["program"]["command_m1"].endswith(f"{c['n']} 10")
    # --cores 1 (the default): every run pinned to the orchestrator's CPU, {cores} = 1 for the program
    assert {call["cpu"] for call in clock.calls} == {launch.pin_cpu()}
    prog_env = next(call["env"] for call in clock.calls if "-S" in call["argv"])
    assert prog_env["GOMAXPROCS"] == "1"
    assert prog_env["FAKE_CORES"] == "1"  # the driver manifest's [env], filled in
    # one warm-up run of each side, then 5 rounds of 4 runs, per N
    assert len(clock.calls) == 2 * (2 + 5 * 4)


def test_runs_are_interleaved_abba_and_swap_sides_each_round(clock, capsys):
    rc, out, _ = run(["-r", "fake", "-p", PROG, "-n", "100", "-m", "10,100", "--rounds", "4", "--json"], capsys)
    assert rc == 0
    order = [(side, m) for _, side, m in json.loads(out)["cells"][0]["order"]]
    d, p = "driver", "program"
    assert order == [(d, 10), (p, 10),
                     (d, 10), (p, 10), (p, 100), (d, 100),
                     (p, 10), (d, 10), (d, 100), (p, 100),
                     (d, 10), (p, 10), (p, 100), (d, 100),
                     (p, 10), (d, 10), (d, 100), (p, 100)]
    # the launches really happened in that order
    launched = [(d if "ring" in c["argv"] else p) for c in clock.calls]
    assert launched == [side for side, _ in order]


def test_hops_budget_sets_laps_per_n_and_cores_all_does_not_pin(clock, capsys):
    rc, out, _ = run(["-r", "fake", "-p", PROG, "-n", "1000,100000", "--hops", "2000000", "--cores", "all",
                      "--rounds", "2", "--warmup-runs", "0", "--json"], capsys)
    assert rc == 0
    report = json.loads(out)
    assert [(c["m1"], c["m2"]) for c in report["cells"]] == [(200, 2000), (2, 20)]
    assert report["pinned_cpu"] is None and {c["cpu"] for c in clock.calls} == {None}
    assert report["cells"][0]["significant"] is None  # 2 rounds: no test, and it says so
    assert "too few rounds" in report["cells"][0]["verdict"]


def test_faster_driver_verdict_and_text_tables(fake, monkeypatch, capsys):
    monkeypatch.setattr(versus, "run_timed", Clock(driver_ns=80, program_ns=100, own_ns=79))
    rc, out, _ = run(["-r", "fake", "-p", PROG, "-n", "500,5000", "-m", "100", "--rounds", "5"], capsys)
    assert rc == 0
    assert out.count("ratio driver/program") == 2  # one table per N
    assert "M = 10 (short) / 100 (long)" in out  # -m M2 alone: M1 = M2 / 10
    assert "0.800" in out and "driver at least as fast" in out
    assert "fake/fake.py run ring n=5000 m=100 tokens=1 burst=0 cores=1 repeats=1 warmup=0" in out


def test_markdown_table(clock, capsys):
    rc, out, _ = run(["-r", "fake", "-p", PROG, "-n", "1000,10000", "-m", "10,100", "--markdown"], capsys)
    assert rc == 0
    rows = [ln for ln in out.splitlines() if ln.startswith("| ")]
    assert rows[0].startswith("| N | M short → long |")
    assert rows[1].startswith("| 1,000 | 10 → 100 | 1 | 150 |") and rows[1].endswith("| no |")
    assert rows[2].startswith("| 10,000 |")
    assert "```" in out and "Command: `scripts/versus.py -r fake" in out


def test_a_program_that_ignores_the_laps_is_a_failure(fake, monkeypatch, capsys):
    monkeypatch.setattr(versus, "run_timed", Clock(ignore_m=True))
    rc, out, err = run(["-r", "fake", "-p", PROG, "-n", "100", "-m", "10,100", "--rounds", "3"], capsys)
    assert rc == 1 and out == ""
    assert err.splitlines()[-1].startswith("versus: failed: program at N=100: the long runs")


# -- real processes -------------------------------------------------------------------------------
SLEEPY = '''\
import os, runpy, sys, time
kv = dict(a.split("=", 1) for a in sys.argv[3:] if "=" in a)
with open(os.environ["VS_LOG"], "a") as f:
    f.write(f"driver {kv.get('m')}\\n")
if sys.argv[1:2] == ["run"]:  # take the time the fake driver will report
    time.sleep(int(kv["n"]) * int(kv["m"]) * float(os.environ["FAKE_NS_PER_HOP"]) * 1e-9)
runpy.run_path(os.environ["VS_FAKE"], run_name="__main__")
'''


@pytest.fixture
def sleepy(fake, monkeypatch, tmp_path):
    """A driver that runs the fake driver after sleeping for the time the fake reports, and logs each
    launch: the differential figure of a driver must come out as what the driver itself reports."""
    folder = tmp_path / "drivers" / "sleepy"
    folder.mkdir(parents=True)
    (folder / "driver.toml").write_text(
        'name = "sleepy"\ncommand = ["{python}", "-S", "{dir}/sleepy.py"]\nhop = "channel"\n')
    (folder / "sleepy.py").write_text(SLEEPY)
    monkeypatch.setenv("RINGBENCH_DRIVER_PATH", f"{FAKE_DIR}{os.pathsep}{folder.parent}")
    monkeypatch.setenv("VS_FAKE", str(FAKE_DIR / "fake" / "fake.py"))
    log = tmp_path / "launches.log"
    monkeypatch.setenv("VS_LOG", str(log))
    return log


def test_real_processes_end_to_end(sleepy, fake, capsys):
    fake(FAKE_NS_PER_HOP=50_000)
    # The program sleeps 100 µs per hop and logs its launches to the same file.
    prog = program("import os,sys,time; open(os.environ['VS_LOG'],'a').write('program '+sys.argv[2]+'\\n'); "
                   "time.sleep(int(sys.argv[1])*int(sys.argv[2])*100e-6)")
    rc, out, err = run(["-r", "sleepy", "-p", prog, "-n", "10", "-m", "2,402", "--rounds", "3", "--json"], capsys)
    assert rc == 0, err
    c = json.loads(out)["cells"][0]
    assert c["driver"]["own_ns_per_hop"] == 50_000
    # 4,000 extra hops: 0.2 s more for the driver, 0.4 s more for the program. Only loose bounds:
    # a busy test machine adds tens of ms to any one run.
    assert 25_000 < c["driver"]["ns_per_hop"] < 100_000
    assert 60_000 < c["program"]["ns_per_hop"] < 170_000
    assert 0.2 < c["ratio"] < 0.95 and c["at_least_as_fast"]
    logged = [tuple(ln.split()) for ln in sleepy.read_text().splitlines()]
    assert logged == [(side, str(m)) for _, side, m in c["order"]]
    assert logged[:6] == [("driver", "2"), ("program", "2"), ("driver", "2"), ("program", "2"),
                          ("program", "402"), ("driver", "402")]


def test_program_failure_is_one_line_and_exit_1(fake, capsys):
    prog = program("import sys; print('boom: no such ring', file=sys.stderr); sys.exit(3)")
    rc, out, err = run(["-r", "fake", "-p", prog, "-n", "10", "-m", "1,2"], capsys)
    assert rc == 1 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("versus: failed: program failed (N=10 M=1, warm-up run 1): exit status 3; "
                               "stderr: boom: no such ring; command: ")


def test_program_timeout_kills_it(fake, capsys, tmp_path):
    pidfile = tmp_path / "pid"
    prog = program(f"import os,time; open({str(pidfile)!r},'w').write(str(os.getpid())); time.sleep(60)")
    t0 = time.monotonic()
    rc, _, err = run(["-r", "fake", "-p", prog, "-n", "10", "-m", "1,2", "--timeout", "3"], capsys)
    assert rc == 1 and time.monotonic() - t0 < 20
    assert err.strip().splitlines()[-1].startswith("versus: failed: program timed out after 3 s (N=10 M=1, warm-up run 1): ")
    with pytest.raises(ProcessLookupError):
        os.kill(int(pidfile.read_text()), 0)


@pytest.mark.parametrize("fault, kind", [("wrong_count", "wrong_count"), ("crash", "crashed"),
                                         ("limit", "limit")])
def test_driver_failure_is_one_line_and_exit_1(fake, capsys, fault, kind):
    fake(FAKE_FAULT=fault)
    rc, out, err = run(["-r", "fake", "-p", PROG, "-n", "10", "-m", "1,2"], capsys)
    assert rc == 1 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"versus: failed: driver fake failed (N=10 M=1, warm-up run 1): "
                                                   f"{kind}: ")


def test_build_command_runs_first_and_its_failure_is_exit_1(clock, capsys, tmp_path):
    exe = tmp_path / "ring"
    rc, _, err = run(["-r", "fake", "-p", f"{exe} {{n}} {{m}}", "-n", "10", "-m", "1,2",
                      "--build", "echo 'cannot compile ring.go' >&2; exit 4"], capsys)
    assert rc == 1 and err.strip().splitlines()[-1] == (
        "versus: failed: build command failed (exit 4): echo 'cannot compile ring.go' >&2; exit 4; "
        "cannot compile ring.go")
    assert clock.calls == []
    # without --build the missing program is bad input; with a build that makes it, it runs
    rc, _, err = run(["-r", "fake", "-p", f"{exe} {{n}} {{m}}", "-n", "10", "-m", "1,2"], capsys)
    assert rc == 2 and "not found or not executable (build it first, or give --build)" in err
    build = f"printf '#!/bin/sh\\nexit 0\\n' > {exe} && chmod +x {exe}"
    rc, _, err = run(["-r", "fake", "-p", f"{exe} {{n}} {{m}}", "-n", "10", "-m", "1,2", "--build", build], capsys)
    assert rc == 0, err
    assert exe.exists() and [str(exe), "10", "2"] in [c["argv"] for c in clock.calls]


@pytest.mark.parametrize("args, message", [
    (["-p", "prog {n}"], "must contain {m} (laps) or {hops}"),
    (["-p", "prog {n} {m} {laps}"], "unknown placeholder {laps}"),
    (["-p", PROG, "--tokens", "2"], "neither {tokens} nor {hops}"),
    (["-p", PROG, "-n", "1,000"], "for 1000 write 1000 or 1_000"),
    (["-p", PROG, "-m", "10,10"], "must do more laps"),
    (["-p", PROG, "-m", "10", "--hops", "1000"], "give -m or --hops, not both"),
    (["-p", PROG, "--json", "--markdown"], "exclude each other"),
    (["-p", PROG, "-r", "nosuch"], "unknown runtime 'nosuch'"),
    (["-p", PROG, "--env", "NOEQUALS"], "--env takes KEY=VALUE"),
    (["-p", PROG, "--env", "X={m}"], "placeholder {m} not allowed"),
    (["-p", "/nonexistent/ring {n} {m}"], "not found or not executable"),
    (["-p", PROG, "--cores", "3"], "'3' is not one of '1', 'all'"),
    (["-p", PROG, "-n", "10,0"], "N must be a positive integer, got '0'"),
    (["-p", PROG, "-n", "100000001"], "n must be between 1 and 100,000,000"),
    (["-p", "'unclosed {n} {m}"], "No closing quotation"),
])
def test_bad_input_is_one_line_exit_2_and_runs_nothing(fake, capsys, tmp_path, args, message):
    argv = ["-r", "fake", "-n", "10", "-m", "1,2"]
    # later options win in click, so the case's own -r/-n/-m replace the defaults above
    rc, out, err = run(argv + args, capsys)
    assert rc == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("versus: error: ") and message in lines[0], err
    assert not (tmp_path / "launches").exists()  # the fake driver was never started


def test_help_explains_the_method_with_an_example():
    proc = subprocess.run([sys.executable, str(SCRIPT), "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    text = proc.stdout
    for needle in ("(t(M2) - t(M1)) / (N x (M2 - M1) x tokens)", "{n} processes", "{hops}", "--cores",
                   "Example", "scripts/versus.py --runtime go/channel", "docs/versus.md", "Exit status"):
        assert needle in text
