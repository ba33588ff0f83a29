"""Nothing lost, round four (issue 40): a resumed run keeps the environment it began with, an import
checks every record as a live run does, stored text is printed as it is (no markup, no terminal
escapes), impossible options are refused before anything runs, a closed pipe ends output quietly,
stale cookie files are swept, files follow the umask, and every line fits 100 columns."""

import json
import os
import signal
import subprocess
import sys
import time

from conftest import cells_stored, q

RINGBENCH = [sys.executable, "-m", "ringbench.cli"]


def cli(*args, env=None, drop=()):
    environ = {k: v for k, v in os.environ.items() if k not in drop}
    p = subprocess.run(RINGBENCH + [str(a) for a in args], capture_output=True, text=True, timeout=300,
                       env={**environ, "COLUMNS": "100", **(env or {})})
    return p.returncode, p.stdout, p.stderr


def test_resume_sets_the_recorded_tuning_variables_again(db):
    """ERL_FLAGS given to the first part of a sweep is given to the cells a resume measures, without it set."""
    environ = {**{k: v for k, v in os.environ.items() if k != "ERL_FLAGS"}, "ERL_FLAGS": "+sbwt none"}
    cmd = RINGBENCH + ["sweep", "ring", "-r", "erlang/stock", "-n", "10,20,30,40,50,60", "-m", "10",
                       "--repeat", "1", "--warmup", "0", "--order", "sequential", "--db", str(db)]
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
