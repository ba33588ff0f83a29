"""A ring across nodes (contract section 10), from the orchestrator's side: the layout's cross-node hops, bad
input (one line, exit 2), the cookie's sources, a driver without the feature refusing, and — with the real
Erlang driver — that no BEAM node or epmd it started outlives a normal run, a Ctrl-C or a SIGKILL of the
orchestrator. The driver's own vectors are in test_conformance.py."""

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from conftest import RINGBENCH, beam_left, beam_processes, cannot_run, run_cli, usable

from ringbench.catalogue import workloads
from ringbench.catalogue.workloads import cross_hops
from ringbench.harness import cluster

ROOT = Path(__file__).resolve().parent.parent


# -- the layout -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "n,k,placement,per_lap",
    [
        (10, 2, 0, 2),
        (10, 5, 0, 5),
        (7, 3, 0, 3),
        (10, 2, 1, 10),
        (9, 2, 1, 8),
        (9, 3, 1, 9),
        (2, 2, 1, 2),
        (5, 1, 0, 0),
    ],
)
def test_cross_node_hops_of_a_lap(n, k, placement, per_lap):
    def node(i):
        return i * k // n if placement == 0 else i % k

    # Receipts of the processes whose predecessor (p(i-1), p(n-1) for p0) is on another node.
    assert sum(node(i) != node((i - 1) % n) for i in range(n)) == per_lap
    assert cross_hops({"n": n, "m": 3, "tokens": 2, "nodes": k, "node_placement": placement}) == per_lap * 6


def test_nodes_out_of_bounds_or_above_n_are_refused():
    for given, says in [
        ({"nodes": 4, "n": 3}, "cannot exceed n"),
        ({"nodes": 0, "n": 3}, "nodes"),
        ({"nodes": 257, "n": 1000}, "nodes"),
    ]:
        with pytest.raises(workloads.ParamError, match=says):
            workloads.RING.validate({"m": 1, **given})


def test_one_node_has_no_layout_and_is_left_out_of_a_cell():
    p = workloads.RING.validate({"n": 10, "m": 1, "nodes": 1, "node_placement": "interleaved"})
    assert "nodes" not in p and "node_placement" not in p


# -- hosts and the cookie ---------------------------------------------------------------------------
def test_hosts_are_parsed_and_a_node_given_twice_is_refused():
    assert cluster.parse_hosts("a,x@b:4370") == ("ringbench@a", "x@b:4370")
    for bad in ["a,ringbench@a", "a,,b", "a:0", "a b"]:
        with pytest.raises(cluster.ClusterError):
            cluster.parse_hosts(bad)


def test_the_cookie_file_wins_over_the_environment_and_must_be_private(tmp_path, monkeypatch):
    f = tmp_path / "cookie"
    f.write_text("FROMFILE\n")
    f.chmod(0o600)
    monkeypatch.setenv("RINGBENCH_COOKIE", "FROMENV")
    assert cluster.cookie(str(f)) == "FROMFILE"
    assert cluster.cookie() == "FROMENV"
    f.chmod(0o644)
    with pytest.raises(cluster.ClusterError, match="chmod 600") as e:
        cluster.cookie(str(f))
    assert "FROMFILE" not in str(e.value)


def test_the_cluster_file_is_private_and_removed(tmp_path, monkeypatch):
    monkeypatch.setenv("RINGBENCH_COOKIE", "SECRET")
    with cluster.cluster_file(("ringbench@a",)) as path:
        assert os.stat(path).st_mode & 0o077 == 0
        assert Path(path).read_text() == "hosts=ringbench@a\ncookie=SECRET\n"
    assert not Path(path).exists()


def test_hosts_with_no_cookie_is_one_line_and_exit_2(tmp_path, monkeypatch):
    monkeypatch.delenv("RINGBENCH_COOKIE", raising=False)
    r = run_cli(
        "run",
        "ring",
        "-r",
        "erlang",
        "-n",
        "10",
        "-m",
        "1",
        "--hosts",
        "h1",
        "--cookie-file",
        tmp_path / "none",
        "--db",
        tmp_path / "db",
    )
    assert r.exit_code == 2 and "no cookie" in r.output and len(r.output.strip().splitlines()) == 1, r.output


# -- a driver without the feature -------------------------------------------------------------------
def test_a_driver_without_nodes_is_refused_in_one_line(fake, tmp_path):
    r = run_cli("run", "ring", "-r", "fake", "-n", "10", "-m", "1", "--nodes", "2", "--db", tmp_path / "db")
    assert r.exit_code == 2, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and "cannot spread a ring over 2 nodes" in lines[0], r.output
    assert not (tmp_path / "db").exists()


def test_trace_across_nodes_is_refused_by_a_driver_without_them():
    other = usable("c-coro")  # a driver without `nodes` (tests/expected_features.toml); on CI it is built
    r = run_cli("trace", "-r", other.name, "-n", "3", "--nodes", "2")
    assert r.exit_code == 2 and "cannot spread a ring over 2 nodes" in r.output, r.output


# -- nothing left running (the real Erlang driver) --------------------------------------------------
@pytest.fixture
def erlang_built():
    """The real erlang/stock driver: not built, the test fails on CI and skips here (conftest.usable)."""
    return usable("erlang/stock")


needs_erlang = pytest.mark.usefixtures("erlang_built")


def _cmd(tmp_path, *how):
    return RINGBENCH + [
        "run",
        "ring",
        "-r",
        "erlang/stock",
        "-n",
        "1000",
        *how,
        "--nodes",
        "3",
        "--warmup",
        "0",
        "--db",
        str(tmp_path / "db"),
    ]


@needs_erlang
def test_a_normal_run_leaves_no_node_running(tmp_path):
    before = beam_processes()
    cmd = _cmd(tmp_path, "-m", "10", "--repeat", "2")
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert "nodes=3" in p.stdout
    assert beam_left(before, 10) == set()


@needs_erlang
@pytest.mark.timeout(600)  # its own deadlines (nodes up within 240 s, gone within 30 s) come first
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "sigkill"])
def test_an_interrupted_or_killed_orchestrator_leaves_no_node_running(tmp_path, sig):
    before = beam_processes()
    cmd = _cmd(tmp_path, "--target", "2s", "--repeat", "5")
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:  # the in-node ring beside it runs first: wait for the ring across nodes (its M calibrated)
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and len(beam_processes() - before) < 3:  # the driver and its two nodes
            time.sleep(0.1)
        assert len(beam_processes() - before) >= 3, "the nodes never came up"
        proc.send_signal(sig)
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert beam_left(before) == set()


# -- TLS distribution (ERL_ZFLAGS, README "A ring across nodes") ------------------------------------
def _tls_ring(tmp_path, certfile):
    """The smallest ring across 2 local nodes, every hop crossing, with every node on TLS distribution."""
    conf = tmp_path / "dist.conf"
    conf.write_text(
        f'[{{server, [{{certfile, "{certfile}"}}, {{keyfile, "{tmp_path / "key.pem"}"}}, '
        "{verify, verify_none}]}, {client, [{verify, verify_none}]}].\n"
    )
    env = {**os.environ, "ERL_ZFLAGS": f"-proto_dist inet_tls -ssl_dist_optfile {conf}"}
    cmd = RINGBENCH + [
        "run",
        "ring",
        "-r",
        "erlang/stock",
        "-n",
        "100",
        "-m",
        "2",
        "--nodes",
        "2",
        "--node-placement",
        "interleaved",
        "--repeat",
        "1",
        "--processes",
        "1",
        "--warmup",
        "0",
        "--json",
        "--db",
        str(tmp_path / "db"),
    ]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=ROOT, env=env)
    assert p.returncode in (0, 1), p.stderr
    return next(c for c in json.loads(p.stdout)["cells"] if c["params"].get("nodes") == 2), p.stderr


@needs_erlang
def test_the_ring_crosses_nodes_over_tls_distribution_and_a_bad_certificate_is_one_line(tmp_path):
    if shutil.which("openssl") is None:
        cannot_run("openssl, which makes the test certificate, is not on PATH")
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            tmp_path / "key.pem",
            "-out",
            tmp_path / "cert.pem",
            "-days",
            "1",
            "-subj",
            "/CN=localhost",
        ],
        check=True,
        capture_output=True,
    )
    before = beam_processes()
    cell, _ = _tls_ring(tmp_path, tmp_path / "cert.pem")
    assert cell["status"] == "ok", cell["reason"]
    assert [(r["count"], r["cross_hops"]) for r in cell["records"]] == [(200, 200)]
    # The same nodes without a certificate cannot connect: the hops above did go over TLS.
    cell, _ = _tls_ring(tmp_path, tmp_path / "missing.pem")
    assert cell["status"] == "failed"
    assert "could not connect" in cell["reason"] and "inet_tls" in cell["reason"], cell["reason"]
    assert "\n" not in cell["reason"] and "erpc" not in cell["reason"]
    assert beam_left(before, 10) == set()
