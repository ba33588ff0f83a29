"""A ring across nodes (contract section 10), from the orchestrator's side: the layout's cross-node hops, bad
input (one line, exit 2), the cookie's sources, the manifests' `[nodes]` tables (which runtimes have the
feature, which take nodes on other hosts), a driver without the feature refusing, and — with every real
driver whose line in tests/expected_features.toml lists `nodes` — the cross-node hops proven through the
command line, each traced hop's node, and that nothing the driver started (its nodes, a name service)
outlives a normal run, a Ctrl-C or a SIGKILL of the orchestrator. The drivers' own vectors are in
test_conformance.py."""

import json
import os
import re
import shutil
import signal
import subprocess
import time
import tomllib
from pathlib import Path

import pytest
from conftest import (
    EXPECTED_FEATURES,
    RINGBENCH,
    RingProcesses,
    cannot_run,
    nodes_drivers,
    real_drivers,
    run_cli,
    usable,
)

from ringbench.catalogue import drivers, workloads
from ringbench.catalogue.workloads import cross_hops
from ringbench.harness import cluster

# Not `alone` (pekko's cases neither, JVM_NODES below): no test here times anything on the wall clock (its deadlines
# are minutes, for a loaded machine), and each counts only the processes of its own orchestrator
# (conftest.RingProcesses), never another test's nodes.
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


def test_a_ring_kept_private_by_tls_needs_no_cookie_and_gets_none(tmp_path, monkeypatch):
    """Pekko's and CAF's nodes on other hosts are kept private by TLS (manifest `[nodes] cookie = false`): the
    orchestrator asks for no cookie and writes no cookie line; Erlang's still needs one."""
    monkeypatch.delenv("RINGBENCH_COOKIE", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.erlang.cookie
    found = drivers.discover()
    assert not cluster.uses_cookie(found["caf/stock"]) and cluster.uses_cookie(found["erlang/stock"])
    with cluster.cluster_file(("ringbench@a",), driver=found["caf/stock"]) as path:
        assert Path(path).read_text() == "hosts=ringbench@a\n"
    with pytest.raises(cluster.ClusterError, match="no cookie"):
        with cluster.cluster_file(("ringbench@a",), driver=found["erlang/stock"]):
            pass


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
    # ... naming the runtimes whose manifests declare the feature (erlang's among them), not a fixed list.
    assert lines[0] == f"Error: {cluster.no_nodes('fake', 2)}" and "erlang" in lines[0], r.output
    assert not (tmp_path / "db").exists()


def test_trace_across_nodes_is_refused_by_a_driver_without_them():
    other = usable("c-coro")  # a driver without `nodes` (tests/expected_features.toml); on CI it is built
    r = run_cli("trace", "-r", other.name, "-n", "3", "--nodes", "2")
    assert r.exit_code == 2 and "cannot spread a ring over 2 nodes (only " in r.output, r.output
    assert r.output.strip() == f"Error: {cluster.no_nodes(other.name, 2)}", r.output


# -- the manifests' [nodes] tables -----------------------------------------------------------------
def _zoo(tmp_path, monkeypatch, **tables):
    """Drivers named after the keywords, each manifest with the given text added (a `[nodes]` table, an
    `[env]` passing `{cluster}`, nothing); only these are discoverable."""
    for name, text in tables.items():
        (tmp_path / "drivers" / name).mkdir(parents=True)
        command = "" if text.startswith("command") else 'command = ["true"]\n'
        (tmp_path / "drivers" / name / "driver.toml").write_text(f'name = "{name}"\n{command}{text}')
    monkeypatch.setenv("RINGBENCH_DRIVERS_DIR", str(tmp_path / "drivers"))
    monkeypatch.delenv("RINGBENCH_DRIVER_PATH", raising=False)
    return {d.name: d for d in drivers.discover().values()}


def test_the_runtimes_with_nodes_are_the_manifests_that_declare_them(tmp_path, monkeypatch):
    found = _zoo(
        tmp_path,
        monkeypatch,
        beam='[env]\nRINGBENCH_CLUSTER = "{cluster}"\n',
        jvm='[nodes]\ntransport = "Pekko Artery"\nhosts = false\n',
        cpp='[nodes]\ntransport = "CAF middleman"\n',
        go="",
    )
    assert cluster.with_nodes() == {
        "beam": cluster.Remoting("", True),
        "cpp": cluster.Remoting("CAF middleman", True),
        "jvm": cluster.Remoting("Pekko Artery", False),
    }
    assert cluster.no_nodes("go", 2) == "go cannot spread a ring over 2 nodes (only beam, cpp and jvm can)"
    # --hosts: refused for the one that starts every node itself, in one line naming those that take them.
    assert cluster.no_hosts(found["beam"]) is None and cluster.no_hosts(found["go"]) is None
    refusal = cluster.no_hosts(found["jvm"])
    assert refusal is not None and "\n" not in refusal and len(refusal) <= 100
    assert refusal == "jvm starts its nodes itself: no --hosts (give --nodes K); beam and cpp take it"


def test_a_nodes_table_that_cannot_be_read_is_named_as_any_bad_manifest(tmp_path, monkeypatch):
    with pytest.raises(drivers.DriverError, match=r"bad/driver.toml: \[nodes\] takes transport"):
        _zoo(tmp_path / "a", monkeypatch, bad='[nodes]\nhosts = "no"\n', good="[nodes]\n")
    found = _zoo(tmp_path / "b", monkeypatch, good="[nodes]\n")
    assert list(cluster.with_nodes()) == ["good"]
    assert cluster.no_nodes("x", 3) == "x cannot spread a ring over 3 nodes (only good can)"
    assert cluster.no_hosts(found["good"]) is None


def test_every_manifest_declares_nodes_exactly_when_its_driver_has_them():
    """The refusal names the runtimes from their manifests; the drivers' describe is checked against
    tests/expected_features.toml (test_conformance.py): the two must agree, runtime by runtime."""
    drivers = real_drivers()
    described = {d.name.split("/")[0] for d in drivers if "nodes" in EXPECTED_FEATURES.get(d.name, ())}
    declared = set(cluster.with_nodes(drivers))
    assert declared == described, (
        f"[nodes] in the manifests of {sorted(declared - described)} but no `nodes` for them in "
        f"tests/expected_features.toml; `nodes` there for {sorted(described - declared)} without the table"
    )
    assert {"erlang", "elixir"} <= described  # what the tests below run on, at least
    for d in drivers:
        table = tomllib.loads((d.folder / "driver.toml").read_text()).get("nodes")
        if (r := cluster.remoting(d)) is not None and r.hosts and table is not None:
            assert "{cluster}" in d.env.values(), f"{d.name} takes --hosts: its [env] must pass {{cluster}}"


DESCRIBES_NODES = """import json, sys
if sys.argv[1:] == ["describe"]:
    print(json.dumps({"type": "describe", "contract": 4, "name": "own", "runtime": "Own", "version": "1",
                      "workloads": ["ring"], "features": ["tokens", "nodes"], "variant": "", "clock": "x"}))
    sys.exit(0)
print(json.dumps({"type": "error", "kind": "failure", "message": "never run"}))
sys.exit(1)
"""


def test_hosts_are_refused_in_one_line_for_a_runtime_that_starts_its_nodes_itself(tmp_path, monkeypatch):
    """Before any cookie is read (there is none here) and before anything runs or is stored."""
    (tmp_path / "own.py").write_text(DESCRIBES_NODES)
    _zoo(
        tmp_path,
        monkeypatch,
        own=f'command = ["{{python}}", "{tmp_path / "own.py"}"]\n[nodes]\ntransport = "its own"\nhosts = false\n',
        beam='[env]\nRINGBENCH_CLUSTER = "{cluster}"\n',
    )
    monkeypatch.delenv("RINGBENCH_COOKIE", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.erlang.cookie either
    r = run_cli("run", "ring", "-r", "own", "-n", "10", "-m", "1", "--hosts", "h1", "--db", tmp_path / "db")
    assert r.exit_code == 2, r.output
    assert r.output.strip().splitlines() == [
        "Error: own starts its nodes itself: no --hosts (give --nodes K); beam takes it"
    ]
    assert not (tmp_path / "db").exists()


# -- every driver with the feature, through the command line ----------------------------------------
# A runtime whose every node is a JVM (pekko) starts three at once a run: beside the parallel session's other
# work on a loaded 2-core machine its ring across nodes came close to the orchestrator's timeout from the size
# (about 70 s). These tests time nothing: its runs are given 240 s (SLOW_START), an event-bound limit (the
# command ends when the ring does), so they run in the parallel session like the others' (pekko's own peers
# have 60 s each to boot, as in tests/test_conformance.py's rings across nodes, which run there too).
JVM_NODES = {"pekko"}
ACROSS = pytest.mark.parametrize("d", [pytest.param(d, id=d.name) for d in nodes_drivers()])


def slow_start(d) -> list[str]:
    """The options that give a driver whose nodes are JVMs time to start them on a loaded machine."""
    return ["--timeout", "240"] if d.base in JVM_NODES else []


def _cmd(d, tmp_path, *how):
    return RINGBENCH + [
        "run",
        "ring",
        "-r",
        d.name,
        "-n",
        "1000",
        *how,
        "--nodes",
        "3",
        "--warmup",
        "0",
        *slow_start(d),
        "--db",
        str(tmp_path / "db"),
    ]


@ACROSS
def test_a_normal_run_proves_its_cross_node_hops_and_leaves_nothing_running(d, tmp_path):
    procs = RingProcesses()
    # Two repeats in one driver process (--in-process): its nodes start once, and each record is proved.
    # Two laps: every lap proves the same (pekko's cross-node hops take over 100 µs each, its nodes' start-up
    # seconds).
    cmd = _cmd(d, tmp_path, "-m", "2", "--repeat", "2", "--in-process", "--node-placement", "interleaved", "--json")
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=procs.env)
    procs.root = p.pid
    out, err = p.communicate(timeout=300)
    assert p.returncode == 0, err
    cell = next(c for c in json.loads(out)["cells"] if c["params"].get("nodes") == 3)
    assert cell["status"] == "ok", cell["reason"]
    # Interleaved over 3 nodes, n = 1000: every edge of a lap crosses (999 is a multiple of 3 but the closing
    # one), 999 × 2 laps; the driver proved them, the orchestrator checked them against the layout.
    want = cross_hops({"n": 1000, "m": 2, "tokens": 1, "nodes": 3, "node_placement": 1})
    assert want == 1998
    assert [(r["count"], r["cross_hops"]) for r in cell["records"]] == [(2_000, want)] * len(cell["records"])
    assert len(cell["records"]) >= 2
    assert procs.left(10) == set(), "a process the driver started outlived a normal run"


@ACROSS
def test_trace_names_the_node_of_each_hop(d):
    procs = RingProcesses()
    cmd = RINGBENCH + ["trace", "-r", d.name, "-n", "5", "-m", "2", "--nodes", "2", "--node-placement", "interleaved"]
    cmd += slow_start(d)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=280, cwd=ROOT, env=procs.env)
    assert p.returncode == 0, p.stdout + p.stderr
    hops = re.findall(r"hop +(\d+) +lap +(\d+): +p(\d+) ← \S+ +\(node (\d+)\)", p.stdout)
    # The trace record's `node` is the receiver's node: interleaved, process i is on node i mod 2.
    assert [(int(h), int(i) % 2) for h, _, i, _ in hops] == [(int(h), int(j)) for h, _, _, j in hops], p.stdout
    assert [int(h) for h, *_ in hops] == list(range(1, 11)), p.stdout
    assert "10 hops, each from its predecessor, in order" in p.stdout
    assert procs.left(10) == set()


@ACROSS
@pytest.mark.timeout(600)  # its own deadlines (nodes up within 240 s, gone within 30 s) come first
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "sigkill"])
def test_an_interrupted_or_killed_orchestrator_leaves_nothing_running(d, tmp_path, sig):
    procs = RingProcesses()
    # M given, not calibrated, one repeat: no calibration launches, and the in-node ring beside, which runs first
    # (a million hops), is over in a moment. Interleaved, every hop of the ring across nodes crosses: a million
    # crossings keep its nodes up for many seconds (several µs each at the least, Pekko's over 100 µs), so the
    # signal lands on a running ring across nodes, as it did with a long --target, without waiting for the
    # calibrations and the in-node repeats of seconds each that a --target takes first.
    cmd = _cmd(d, tmp_path, "-m", "1000", "--repeat", "1", "--node-placement", "interleaved")
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=procs.env)
    procs.root = proc.pid
    try:  # wait for the ring across nodes
        deadline, peers = time.monotonic() + 240, []
        while time.monotonic() < deadline and len(peers) < 2 and proc.poll() is None:
            time.sleep(0.1)
            peers = procs.peers()  # each repeat is a driver process of its own: its nodes come and go
        if len(peers) < 2:
            proc.kill()
            out, err = proc.communicate()
            pytest.fail(f"the two nodes beside the driver's never came up (connected)\n{out}{err}")
        seen = procs.now()
        proc.send_signal(sig)
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert set(peers) <= seen, "the ring across nodes had ended before the signal: it landed on no node"
    assert procs.left() == set(), f"left running of {sorted(seen)}"


# -- TLS distribution (ERL_ZFLAGS, README "A ring across nodes"): Erlang's own -------------------------
@pytest.fixture
def erlang_built():
    """The real erlang/stock driver: not built, the test fails on CI and skips here (conftest.usable)."""
    return usable("erlang/stock")


needs_erlang = pytest.mark.usefixtures("erlang_built")


def _tls_ring(tmp_path, certfile, procs):
    """The smallest ring across 2 local nodes, every hop crossing, with every node on TLS distribution."""
    conf = tmp_path / "dist.conf"
    conf.write_text(
        f'[{{server, [{{certfile, "{certfile}"}}, {{keyfile, "{tmp_path / "key.pem"}"}}, '
        "{verify, verify_none}]}, {client, [{verify, verify_none}]}].\n"
    )
    env = {**procs.env, "ERL_ZFLAGS": f"-proto_dist inet_tls -ssl_dist_optfile {conf}"}
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
    procs = RingProcesses()
    cell, _ = _tls_ring(tmp_path, tmp_path / "cert.pem", procs)
    assert cell["status"] == "ok", cell["reason"]
    assert [(r["count"], r["cross_hops"]) for r in cell["records"]] == [(200, 200)]
    # The same nodes without a certificate cannot connect: the hops above did go over TLS.
    cell, _ = _tls_ring(tmp_path, tmp_path / "missing.pem", procs)
    assert cell["status"] == "failed"
    # The driver's error is one line; what follows it in the reason is the driver's stderr, which the
    # orchestrator always keeps (here, at times, the TLS acceptor's report of the missing file).
    first = cell["reason"].partition("\n")[0]
    assert "could not connect" in first and "inet_tls" in first, cell["reason"]
    assert "erpc" not in cell["reason"]
    assert procs.left(10) == set()


def test_the_default_timeout_allows_for_hops_that_cross_nodes():
    """A hop to another node costs what the runtime's remoting and the loopback stack cost (Pekko's: over
    100 µs on a loaded machine), so a ring across nodes gets an allowance per crossing, the untimed proof
    lap included; a ring on one node keeps the per-hop one."""
    from ringbench.harness.spec import TIMEOUT_PER_CROSS_HOP_S, CellSpec

    pekko = drivers.discover()["pekko/stock"]
    ring = workloads.get("ring")
    one = CellSpec(pekko, ring, {"n": 10_000, "m": 2, "tokens": 1}, "1")
    across = CellSpec(pekko, ring, {"n": 10_000, "m": 2, "tokens": 1, "nodes": 2, "node_placement": 1}, "1")
    contiguous = CellSpec(pekko, ring, {"n": 10_000, "m": 2, "tokens": 1, "nodes": 2, "node_placement": 0}, "1")
    crossings = 10_000 * 2 + 10_000  # every edge (p9,999 is on node 1, p0 on node 0): two laps and the proof
    assert across.timeout(3, None) - one.timeout(3, None) == pytest.approx(3 * crossings * TIMEOUT_PER_CROSS_HOP_S)
    assert contiguous.timeout(3, None) - one.timeout(3, None) == pytest.approx(3 * 6 * TIMEOUT_PER_CROSS_HOP_S)
