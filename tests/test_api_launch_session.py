"""The one launch session (harness/launch.py `Session`) that `run_driver` and perf read records through: the
records against a deadline, answers on stdin, what else the process prints passed on with its tail kept, the
process group killed on every way out."""

import os
import sys
import time
from pathlib import Path

import pytest

from ringbench.harness import launch

PY = sys.executable


def session(code: str, **kw) -> launch.Session:
    return launch.Session([PY, "-S", "-c", code], dict(os.environ), **kw)


def test_records_come_in_order_then_none_and_stderr_is_the_tail():
    s = session(
        "import sys\n"
        "for i in range(30): print(f'err {i}', file=sys.stderr)\n"
        'print(\'{"type": "a"}\'); print(\'{"type": "b"}\')'
    )
    assert [s.next(10), s.next(10), s.next(10)] == ['{"type": "a"}\n', '{"type": "b"}\n', None]
    assert s.close() == 0
    assert s.tail().splitlines() == [f"err {i}" for i in range(10, 30)]  # the last 20 lines
    assert s.tail(2) == "err 28\nerr 29"


def test_silence_past_the_deadline_kills_the_process_group():
    child = "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])"
    s = session(f"import subprocess, sys, time\n{child}\nprint('started', flush=True)\ntime.sleep(60)")
    assert s.next(10) == "started\n"
    t0 = time.monotonic()
    with pytest.raises(TimeoutError):
        s.next(0.3)
    assert time.monotonic() - t0 < 5
    assert s.close() < 0  # killed
    assert gone(s.proc.pid)  # and the child it started went with it


def gone(group: int) -> bool:
    """No live process of the group is left (a zombie not yet reaped is no longer running)."""
    for _ in range(50):
        if not any(state != "Z" for state in _states(group)):
            return True
        time.sleep(0.1)
    return False


def _states(group: int) -> list[str]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if int(fields[2]) == group:  # after the command: state, ppid, pgrp
            out.append(fields[0])
    return out


def test_records_on_a_pipe_of_their_own_and_answers_on_stdin():
    seen: list[str] = []
    code = (
        "import os, sys\n"
        "fd = int(sys.argv[1])\n"
        "print('a snippet prints this', flush=True)\n"
        'os.write(fd, b\'{"type": "ask"}\\n\')\n'
        "os.write(fd, ('{\"type\": \"' + sys.stdin.readline().strip() + '\"}\\n').encode())\n"
    )
    records = launch.records_pipe()
    s = launch.Session([PY, "-S", "-c", code, str(records[1])], dict(os.environ), records=records, answers=True,
                       on_output=seen.append)  # fmt: skip
    assert s.next(10) == '{"type": "ask"}\n'
    s.answer("enough")
    assert s.next(10) == '{"type": "enough"}\n'
    assert s.next(10) is None
    assert s.close() == 0
    assert seen == ["a snippet prints this"] and s.tail() == "a snippet prints this"  # passed on, not a record


def test_a_process_that_lingers_after_its_records_is_killed_at_close():
    s = session("import os, sys, time\nos.close(1)\ntime.sleep(60)")
    assert s.next(10) is None
    t0 = time.monotonic()
    assert s.close(grace=0.3) < 0  # killed
    assert time.monotonic() - t0 < 5


def test_the_deadline_kills_the_whole_process_however_busy_its_reader_is():
    s = session("import time\nprint('one', flush=True)\ntime.sleep(60)")
    s.deadline(0.5)
    t0 = time.monotonic()
    assert s.next() == "one\n"
    assert s.next() is None  # its output ends when the group is killed
    assert s.close() < 0 and s.timed_out
    assert time.monotonic() - t0 < 5
    quick = session("print('done')")
    quick.deadline(60)
    assert quick.next() == "done\n" and quick.next() is None
    assert quick.close() == 0 and not quick.timed_out
    assert quick.timer is not None
    quick.timer.join(2)
    assert not quick.timer.is_alive()  # cancelled at close, not left to fire in 60 s
