"""`ringbench versus --nodes K`: a driver's ring across nodes against a program that spreads its own ring over K
nodes (docs/versus.md, "Across nodes"), and scripts/fidelity.py's cross-node cases.

The planning tests read the real erlang driver's manifest (nothing runs); the end-to-end test runs the real
erlang/stock driver against the plain two-node Erlang ring of scripts/fidelity/programs/erlang-two-node-ring/
at a tiny size, and checks that neither side leaves a node or a name service running."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import RINGBENCH, RingProcesses, run_cli, usable

from ringbench import api
from ringbench.catalogue.workloads import cross_hops
from ringbench.harness import cluster, versus

REPO = Path(__file__).resolve().parent.parent
TWO_NODE = REPO / "scripts" / "fidelity" / "programs" / "erlang-two-node-ring"
PROG = f"{sys.executable} -S -c pass {{n}} {{m}} {{nodes}} {{placement}}"


def test_the_plan_sends_the_driver_nodes_and_fills_the_programs_placeholders():
    req = versus.plan(
        versus.VersusRequest("erlang/stock", PROG, "100,1000", m="2,20", nodes=2, node_placement="interleaved")
    )
    assert [(p.n, p.nodes, p.node_placement) for p in req.points] == [(100, 2, 1), (1000, 2, 1)]
    p = req.points[0]
    # the driver gets the keys of a ring across nodes; the cell's parameters carry them (show, compare, report)
    assert p.driver_params(20) == {"n": 100, "m": 20, "tokens": 1, "burst": 0, "nodes": 2, "node_placement": 1}
    assert p.params["nodes"] == 2 and p.params["node_placement"] == 1
    argv = versus.sides(req, p)["program"].argv_for(2)
    assert argv[-4:] == ["100", "2", "2", "1"]  # {n} {m} {nodes} {placement}
    driver = versus.sides(req, p)["driver"].argv_for(2)
    assert "nodes=2" in driver and "node_placement=1" in driver
    # contiguous is the default layout; one node sends neither key (as `ringbench run`)
    contiguous = versus.plan(versus.VersusRequest("erlang/stock", PROG, "100", m="2,20", nodes=2)).points[0]
    assert contiguous.driver_params(2)["node_placement"] == 0
    one = versus.plan(versus.VersusRequest("erlang/stock", PROG, "100", m="2,20")).points[0]
    assert "nodes" not in one.driver_params(2) and versus.sides(
        versus.plan(versus.VersusRequest("erlang/stock", PROG, "100", m="2,20")), one
    )["program"].argv_for(2)[-2:] == ["1", "0"]


def test_a_driver_without_nodes_is_refused_in_the_line_run_gives_and_nothing_is_stored(fake, db):
    r = run_cli("versus", "-r", "fake", "-p", PROG, "-n", "10", "-m", "1,2", "--nodes", "2", "--db", db)
    assert r.exit_code == 2, r.output
    assert r.output.strip() == f"Error: {cluster.no_nodes('fake', 2)}", r.output
    assert "only " in r.output and "erlang" in r.output
    assert not db.exists()


def test_the_drivers_refusal_comes_before_a_missing_program_and_before_any_build(fake, db, tmp_path):
    """What the driver cannot do is said first: a program not yet built (or a typo in it) must not hide it, and
    `--build` must not run a build for a request that is refused anyway."""
    built = tmp_path / "built"
    r = run_cli(
        "versus", "-r", "fake", "-p", "no-such-program {n} {m}", "-n", "10", "-m", "1,2", "--nodes", "2",
        "--build", f"touch {built}", "--db", db,
    )  # fmt: skip
    assert r.exit_code == 2 and r.output.strip() == f"Error: {cluster.no_nodes('fake', 2)}", r.output
    assert not built.exists() and not db.exists()
    # without nodes the same request reaches the program check, and says so in one line
    r = run_cli("versus", "-r", "fake", "-p", "no-such-program {n} {m}", "-n", "10", "-m", "1,2", "--db", db)
    assert r.exit_code == 2 and "'no-such-program' not found or not executable" in r.output, r.output


def test_the_tree_is_not_spread_over_nodes():
    with pytest.raises(versus.BadRequest, match="the tree is measured on one node"):
        versus.plan(versus.VersusRequest("erlang/stock", "p {n}", "100", workload="tree", nodes=2))


@pytest.fixture
def two_node_ring(tmp_path):
    """The plain two-node Erlang ring, compiled into a folder of the test's own."""
    usable("erlang/stock")
    folder = tmp_path / "prog"
    shutil.copytree(TWO_NODE, folder)
    subprocess.run(["erlc", "ring2.erl"], cwd=folder, check=True, capture_output=True, timeout=120)
    return folder


# Not `alone`: real BEAM nodes on both sides, but no figure is held to a bound (only that each is measured) and
# only this comparison's own processes are counted (conftest.RingProcesses).
@pytest.mark.timeout(180)
def test_erlang_across_two_nodes_against_the_plain_two_node_ring(two_node_ring, tmp_path):
    db = tmp_path / "db"
    procs = RingProcesses()
    program = f"{two_node_ring / 'run.sh'} {{n}} {{m}} {{nodes}} {{placement}} {{cores}}"
    cmd = RINGBENCH + ["versus", "-r", "erlang/stock", "-p", program, "-n", "100", "-m", "4,400", "--rounds", "1",
                       "--warmup-runs", "0", "--nodes", "2", "--node-placement", "interleaved",
                       "--db", str(db)]  # fmt: skip
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO, env=procs.env)
    procs.root = p.pid
    out, err = p.communicate(timeout=150)
    assert p.returncode == 0, out + err
    assert "the driver's ring across 2 nodes, interleaved" in " ".join(out.split()), out  # the header wraps
    run = api.load(run_id=1, db=db)
    assert run.settings["versus"]["nodes"] == 2 and run.settings["versus"]["node_placement"] == 1
    (pair,) = api.versus_pairs(run)
    for c in (pair.driver, pair.program):
        assert c.ok and c.params["nodes"] == 2 and c.params["node_placement"] == 1, c.reason
    # the driver proved its cross-node hops (interleaved over 2 nodes, n = 100: all 100 edges cross)
    want = cross_hops({"n": 100, "m": 400, "tokens": 1, "nodes": 2, "node_placement": 1})
    assert [r["cross_hops"] for r in pair.driver.records] == [want] and want == 40_000
    assert pair.program.extra["command_m2"].endswith("run.sh 100 400 2 1 1")
    assert pair.driver.headline.median > 0 and pair.program.headline.median > 0
    shown = run_cli("show", "1", "--db", db, "--json")
    assert shown.exit_code == 0 and json.loads(shown.output)["cells"][0]["params"]["nodes"] == 2
    assert procs.left(10) == set(), "a node or a name service outlived the comparison"


# -- scripts/fidelity.py: a case across nodes is a comparison of its own ---------------------------------------
def _fidelity():
    import importlib.util

    spec = importlib.util.spec_from_file_location("fidelity_nodes", REPO / "scripts" / "fidelity.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CASES = """
[[program]]
id = "ring"
title = "a ring"
origin = "written here"
cmd = "{dir}/ring {n} {m} {nodes} {placement}"
sizes = [1000]

[[case]]
driver = "erlang/stock"
program = "ring"
cores = ["1"]
sizes = [1000]
note = "on one node"

[[case]]
driver = "erlang/stock"
program = "ring"
cores = ["1"]
sizes = [1000]
nodes = 2
placement = "interleaved"
note = "across two nodes"

[[core]]
driver = "erlang/stock"
program = "ring"
sizes = [1000]

[[core]]
driver = "erlang/stock"
program = "ring"
sizes = [1000]
nodes = 2
"""


def test_fidelity_keeps_a_cross_node_case_apart_from_the_in_node_one(tmp_path, monkeypatch):
    fidelity = _fidelity()
    (tmp_path / "programs.toml").write_text(CASES)
    monkeypatch.setattr(fidelity, "CATALOGUE", tmp_path / "programs.toml")
    programs, cases, core = fidelity.load()
    todo = fidelity.plan(cases, core, (), (), ())
    one, two = sorted(todo, key=lambda t: t.get("nodes", 1))
    assert "nodes" not in one and (two["nodes"], two["node_placement"], two["placement"]) == (
        2,
        "interleaved",
        "spread",
    )
    assert fidelity.key_of(one) != fidelity.key_of(two)
    # the in-node comparison measured and kept does not stand for the cross-node one (nor the reverse)
    cell = {"driver": {"ns_per_hop": 5000}, "program": {"ns_per_hop": 4000}, "ratio": 1.25,
            "ratio_ci": [1.1, 1.4], "p_value": 0.01, "significant": True}  # fmt: skip
    out = tmp_path / "f.jsonl"
    rec = {**one, "commit": "abc1234", "command": "c", "report": {"rounds": 5, "cells": [cell]}}
    out.write_text(json.dumps(rec) + "\n")
    assert fidelity.kept_comparisons(out, again=False) == {fidelity.key_of(one)}
    assert [t for t in todo if fidelity.key_of(t) not in fidelity.kept_comparisons(out, False)] == [two]
    # versus gets --nodes and --node-placement; the rows say which is which, each with its own note
    args = fidelity.versus_args(two, programs["ring"], tmp_path, 3)
    assert args[-4:] == ["--nodes", "2", "--node-placement", "interleaved"]
    assert "--nodes" not in fidelity.versus_args(one, programs["ring"], tmp_path, 3)
    kw = fidelity.versus_kwargs(two, programs["ring"], tmp_path, 3)
    assert (kw["nodes"], kw["node_placement"]) == (2, "interleaved")
    recs = [rec, {**two, "commit": "abc1234", "command": "c", "report": {"rounds": 5, "cells": [cell]}}]
    md = fidelity.render(recs, {"ring": {"title": "t", "origin": "written here", "idiom": "i"}}, cases)
    assert "| ring | 1 core | 1,000 |" in md and "| ring | 1 core, 2 nodes interleaved | 1,000 |" in md
    assert "- ring: on one node" in md and "- ring: across two nodes" in md


def test_fidelity_refuses_a_node_layout_without_nodes_in_one_line(tmp_path):
    bad = CASES.replace('sizes = [1000]\nnote = "on one node"', 'sizes = [1000]\nplacement = "contiguous"')
    (tmp_path / "programs.toml").write_text(bad)
    script, catalogue = REPO / "scripts" / "fidelity.py", tmp_path / "programs.toml"
    cmd = [sys.executable, script, "--catalogue", catalogue, "run", "--dry-run", "--out", tmp_path / "f.jsonl"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stdout == "", p.stderr
    assert p.stderr.strip() == (
        "fidelity: case erlang/stock vs ring: placement 'contiguous' lays a ring out over nodes: "
        "give nodes = K (K >= 2)"
    )


@pytest.mark.parametrize("program", ["erlang-two-node-ring", "elixir-two-node-ring"])
def test_the_catalogue_has_the_beams_two_node_rings_and_the_dry_run_passes_the_nodes(tmp_path, program):
    p = subprocess.run([sys.executable, str(REPO / "scripts" / "fidelity.py"), "run", "--dry-run", "--only",
                        program, "--out", tmp_path / "f.jsonl"], capture_output=True, text=True,
                       timeout=60)  # fmt: skip
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert len(lines) == 4  # N = 1,000 and 10,000 at one core and all cores
    assert all("--nodes 2 --node-placement interleaved" in ln and "{nodes} {placement}" in ln for ln in lines)
    assert all(f"-r {program.split('-')[0]}/stock " in ln and f"--label {program} " in ln for ln in lines)
