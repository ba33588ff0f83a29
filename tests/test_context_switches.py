"""Context switches per phase (contract 4): the Python and BEAM drivers' counts mean what they say.

Each driver is run as the orchestrator runs it. An OS-thread ring wakes a blocked thread at every hop, so
its message phase counts about one voluntary switch per hop; a ring of greenlets, asyncio tasks or
tasklets runs in one thread that never blocks, so (about) none; BEAM's schedulers keep busy while a ring
runs, so far fewer than one a hop. The tree, timed as one phase, reports no setup switches. The
conformance suite checks that the four fields are there; these tests check that the figures come from
the right counter, read at the right marks.
"""

import json
import os
import subprocess

import pytest
from conftest import usable

N, M = 200, 20  # 4,000 hops: enough to tell one switch a hop from none, quick on every driver
HOPS = N * M
FIELDS = ("setup_vcsw", "setup_ivcsw", "run_vcsw", "run_ivcsw")


def results(name, *args):
    d = usable(name)
    env = {**os.environ, **d.environ(2, N)}
    p = subprocess.run(d.argv(2, N) + list(args), capture_output=True, text=True, timeout=120, env=env, cwd=d.folder)
    assert p.returncode == 0, p.stderr
    recs = [json.loads(line) for line in p.stdout.splitlines() if line.strip()]
    out = [r for r in recs if r["type"] == "result"]
    assert out, p.stdout
    for r in out:
        for f in FIELDS:
            assert isinstance(r[f], int) and r[f] >= 0, (f, r)
    return out


def test_an_os_thread_ring_switches_about_once_a_hop():
    # Two iterations: the second runs with the threads' stacks and queues warm.
    r = results("python-threads/stock", "run", "ring", f"n={N}", f"m={M}", "repeats=2")[-1]
    # Each hop blocks the sender on its own queue (or the receiver was blocked on its): at least one
    # voluntary switch a hop in all but the rare hop whose receiver had not yet slept. The spawn phase
    # starts N threads, each of which blocks once in its first receive.
    assert r["run_vcsw"] >= HOPS // 2, r
    assert r["run_vcsw"] <= HOPS * 4, r
    assert r["setup_vcsw"] >= N // 2, r


@pytest.mark.parametrize(
    "name",
    [
        "python-greenlet/stock",
        "python-greenlet/switch",
        "python-asyncio/stock",
        "pypy/greenlet",
        "pypy/switch",
        "pypy/stackless",
    ],
)
def test_a_one_thread_ring_does_not_switch(name):
    r = results(name, "run", "ring", f"n={N}", f"m={M}", "repeats=2")[-1]
    # No thread blocks; a stray switch (the kernel's timer, a page fault's I/O) is not a hop's.
    assert r["run_vcsw"] < HOPS // 100, r


@pytest.mark.parametrize("name", ["erlang/stock", "elixir/stock"])
def test_a_beam_ring_switches_less_than_once_a_hop(name):
    r = results(name, "run", "ring", f"n={N}", f"m={M}", "repeats=2")[-1]
    # Schedulers pass messages in memory; a thread sleeps only when its run queue is empty.
    assert r["run_vcsw"] < HOPS // 2, r


@pytest.mark.parametrize("name", ["python-threads/stock", "python-greenlet/stock", "erlang/stock"])
def test_the_tree_has_no_setup_switches(name):
    r = results(name, "run", "tree", "n=100")[-1]
    assert r["setup_vcsw"] == 0 and r["setup_ivcsw"] == 0, r
    assert r["setup_ns"] == 0, r


@pytest.mark.parametrize("name", ["python-threads/stock", "erlang/stock"])
def test_a_phase_that_blocks_counts_in_its_own_field(name):
    # spawn has no message phase: what its threads or schedulers do while main waits for the ready
    # signals belongs to setup_*, and run_* stays 0 (a mark read at the wrong place would mix them).
    r = results(name, "run", "spawn", "n=200")[-1]
    assert r["run_vcsw"] == 0 and r["run_ivcsw"] == 0, r
    if name.startswith("python-threads"):
        assert r["setup_vcsw"] >= 100, r
