"""scripts/fidelity.py: walks a catalogue of independent programs, runs `ringbench versus` for each pairing
(api.versus, in its own process), keeps every result as it ends, resumes, and renders the tables. The runs
here are real processes: a driver and a program that sleep for a known time per hop (the `sleepy` driver
of test_versus)."""

import functools
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from test_versus import sleepy  # noqa: F401  (a fixture: the driver that sleeps per hop)

from ringbench import api

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "scripts" / "fidelity.py"

_spec = importlib.util.spec_from_file_location("fidelity", SCRIPT)
fidelity = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fidelity)

# A written-here program: sleeps 100 µs per hop (the sleepy driver is set to 50 µs below).
PROGRAM = "import sys, time\ntime.sleep(int(sys.argv[1]) * int(sys.argv[2]) * 100e-6)\n"

CATALOGUE = f'''
[[program]]
id = "slow-ring"
title = "A ring that takes 100 µs a hop"
origin = "written here"
fetch = ""
change = ""
idiom = "sleep"
build = ""
cmd = "{sys.executable} -S {{dir}}/ring.py {{n}} {{m}}"
sizes = [10, 20]

[[program]]
id = "elsewhere"
title = "A third-party program that cannot be fetched"
origin = "third-party"
source = "https://example.invalid/ring.c"
fetch = "file:///nonexistent/ring.c"
file = "orig/ring.c"
change = "none"
idiom = "?"
build = ""
cmd = "{{dir}}/ring {{n}} {{m}}"
sizes = [10]

[[program]]
id = "slow-ring-again"
same_source = "slow-ring"
title = "The same ring from the same files"
origin = "written here"
fetch = ""
build = ""
cmd = "{sys.executable} -S {{dir}}/ring.py {{n}} {{m}}"
sizes = [10]

[[case]]
driver = "sleepy"
program = "slow-ring-again"
cores = ["1"]
sizes = [10]

[[case]]
driver = "sleepy"
program = "slow-ring"
cores = ["1"]
sizes = [10, 20]
hops = 4000
note = "same idiom"

[[case]]
driver = "sleepy"
program = "elsewhere"
cores = ["1", "all"]
sizes = [10]
hops = 4000

[[core]]
driver = "sleepy"
program = "slow-ring"
sizes = [10, 20]
'''


@pytest.fixture
def catalogue(tmp_path):
    root = tmp_path / "fidelity"
    (root / "programs" / "slow-ring").mkdir(parents=True)
    (root / "programs" / "slow-ring" / "ring.py").write_text(PROGRAM)
    (root / "programs.toml").write_text(CATALOGUE)
    return root / "programs.toml"


@functools.cache
def clean_checkout() -> dict[str, str]:
    """The git variables of a clean repository of one commit. The script records the checkout's commit with
    each comparison and does not publish one measured with uncommitted changes (a test of its own): these
    tests run it as if on a clean checkout, whatever state the developer's checkout is in."""
    repo = Path(tempfile.mkdtemp(prefix="fidelity-checkout-"))
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    ident = ["-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run(["git", *ident, "-C", str(repo), "commit", "-q", "--allow-empty", "-m", "x"], check=True)
    return {"GIT_DIR": str(repo / ".git"), "GIT_WORK_TREE": str(repo)}


def fid(catalogue, *args, env=None):
    p = subprocess.run(
        [sys.executable, str(SCRIPT), "--catalogue", str(catalogue), *map(str, args)],
        capture_output=True,
        text=True,
        env={**(os.environ if env is None else env), **clean_checkout()},
        timeout=300,
    )
    return p.returncode, p.stdout, p.stderr


def test_core_list_picks_sizes_and_settings_and_takes_hops_from_its_case(catalogue, monkeypatch):
    monkeypatch.setattr(fidelity, "CATALOGUE", catalogue)
    _, cases, core = fidelity.load()
    todo = fidelity.plan(cases, core, (), (), ())
    assert [(t["program"], t["n"], t["cores"], t["hops"]) for t in todo] == [
        ("slow-ring", 10, "1", 4000),
        ("slow-ring", 20, "1", 4000),
    ]
    every = fidelity.plan(cases, None, (), (), ())
    assert sorted((t["program"], t["n"], t["cores"]) for t in every) == [
        ("elsewhere", 10, "1"),
        ("elsewhere", 10, "all"),
        ("slow-ring", 10, "1"),
        ("slow-ring", 20, "1"),
        ("slow-ring-again", 10, "1"),
    ]
    assert fidelity.plan(cases, None, ("elsewhere",), ("all",), ()) == [
        {
            "driver": "sleepy",
            "program": "elsewhere",
            "cores": "all",
            "n": 10,
            "tokens": 1,
            "placement": "spread",
            "hops": 4000,
            "note": "",
        }
    ]
    with pytest.raises(fidelity.Stop, match="has no"):
        fidelity.plan(cases, [{"driver": "sleepy", "program": "slow-ring", "sizes": [30]}], (), (), ())


def test_short_run_gets_at_least_one_lap_at_large_n(catalogue, monkeypatch, tmp_path):
    monkeypatch.setattr(fidelity, "CATALOGUE", catalogue)
    programs, _, _ = fidelity.load()
    item = {
        "driver": "sleepy",
        "program": "slow-ring",
        "cores": "all",
        "n": 1_000_000,
        "tokens": 1,
        "placement": "spread",
        "hops": 4000,
    }
    args = fidelity.versus_args(item, programs["slow-ring"], tmp_path, 5)
    assert args[args.index("--hops") + 1] == str(10_000_000)
    assert f"{tmp_path}/slow-ring/ring.py" in args[args.index("-p") + 1]


@pytest.mark.alone  # the programs' side is real sleeps timed on the wall clock: run alone (make test)
def test_prepare_run_resume_and_render(sleepy, fake, catalogue, tmp_path):  # noqa: F811
    fake(FAKE_NS_PER_HOP=50_000)
    progs, out, db = tmp_path / "progs", tmp_path / "out.jsonl", tmp_path / "store.db"
    env = {**__import__("os").environ}
    rc, _, err = fid(catalogue, "prepare", "--programs", progs, env=env)
    assert rc == 0, err
    assert (progs / "slow-ring" / "ring.py").read_text() == PROGRAM

    rc, _, err = fid(catalogue, "run", "--programs", progs, "--out", out, "--rounds", "1", "--db", db, env=env)
    assert rc == 0, err
    assert "[1/2] sleepy vs slow-ring, N=10" in err and "[2/2] sleepy vs slow-ring, N=20" in err
    recs = [json.loads(line) for line in out.read_text().splitlines()]
    assert "meta" in recs[0] and recs[0]["meta"]["commit"]
    cells = [r for r in recs if "driver" in r]
    assert [(r["n"], r["report"]["cells"][0]["n"]) for r in cells] == [(10, 10), (20, 20)]
    for r in cells:  # the program takes twice the driver's time per hop (0.5; a loaded machine only lowers it)
        assert 0.1 < r["report"]["cells"][0]["ratio"] < 0.95
        assert r["command"].startswith("ringbench versus -r sleepy -p ")
        # each comparison is a run in the store, with the figures the record keeps
        run = api.load(r["report"]["run_id"], db)
        assert run.command == r["command"] and run.options.mode == "versus"
        assert [c.runtime for c in run.cells] == ["sleepy", "program:slow-ring"]
        pair = api.versus_pairs(run)[0]
        assert pair.difference.ratio == r["report"]["cells"][0]["ratio"]
        assert pair.driver.headline.median == r["report"]["cells"][0]["driver"]["ns_per_hop"]

    # Everything measured: a second run measures nothing and says so.
    rc, _, err = fid(catalogue, "run", "--programs", progs, "--out", out, "--rounds", "1", "--db", db, env=env)
    assert rc == 0 and "nothing to measure" in err
    assert len(out.read_text().splitlines()) == 3

    rc, md, err = fid(catalogue, "render", "--out", out)
    assert rc == 0, err
    assert "**sleepy**" in md
    assert "| slow-ring | 1 core, 1 round | 10 |" in md and "| slow-ring | 1 core, 1 round | 20 |" in md
    assert "| slow-ring | A ring that takes 100 µs a hop | written here |" in md
    assert "- slow-ring: same idiom" in md and "ringbench versus -r sleepy" in md


def test_with_default_puts_the_default_figure_beside_the_program_in_a_table_of_its_own(
    sleepy,  # noqa: F811
    fake,
    catalogue,
    tmp_path,
):
    fake(FAKE_NS_PER_HOP=50_000)
    progs, out, db = tmp_path / "progs", tmp_path / "out.jsonl", tmp_path / "store.db"
    assert fid(catalogue, "prepare", "--programs", progs)[0] == 0
    args = ("run", "--programs", progs, "--out", out, "--db", db, "--size", "10")
    rc, _, err = fid(catalogue, *args, "--rounds", "1")
    assert rc == 0, err
    # the same comparison with the default run beside is another comparison, not one already done
    rc, _, err = fid(catalogue, *args, "--rounds", "2", "--with-default")
    assert rc == 0 and "nothing to measure" not in err, err
    assert "; default 50,000 ns/hop, ratio 0." in err, err  # the progress line names it
    plain, with_default = [json.loads(line) for line in out.read_text().splitlines() if '"driver"' in line]
    assert "with_default" not in plain and with_default["with_default"] is True
    assert with_default["command"].endswith("--with-default")
    c = with_default["report"]["cells"][0]
    # the default figure is the driver's own (the fake's 50 µs a hop), each round's, beside the program's
    assert c["driver"]["default_per_round"] == [50_000, 50_000]
    assert c["default_ratio"] == pytest.approx(50_000 / c["program"]["ns_per_hop"])
    assert "default_ratio" not in plain["report"]["cells"][0]
    rc, md, err = fid(catalogue, "render", "--out", out)
    assert rc == 0, err
    main, _, defaults = md.partition("### At the default settings")
    assert main.count("| slow-ring | 1 core, 1 round | 10 |") == 1 and "2 rounds" not in main
    row = next(ln for ln in defaults.splitlines() if ln.startswith("| sleepy | slow-ring |"))
    assert row.startswith("| sleepy | slow-ring | 1 core, 2 rounds | 10 | 50,000 | ")
    assert f"| {c['default_ratio']:.2f} (" in row


def test_programs_that_share_their_files_are_prepared_from_one_folder(catalogue, tmp_path):
    rc, _, err = fid(catalogue, "prepare", "--all", "--only", "slow-ring-again", "--programs", tmp_path / "p")
    assert rc == 0, err
    assert (tmp_path / "p" / "slow-ring-again" / "ring.py").read_text() == PROGRAM


def test_a_program_that_cannot_be_fetched_is_one_line_naming_where_to_put_it(catalogue, tmp_path):
    rc, _, err = fid(catalogue, "prepare", "--all", "--only", "elsewhere", "--programs", tmp_path / "p")
    assert rc == 1
    line = next(ln for ln in err.splitlines() if ln.startswith("fidelity: elsewhere:"))
    assert "cannot fetch file:///nonexistent/ring.c" in line
    assert f"save https://example.invalid/ring.c as {tmp_path}/p/elsewhere/orig/ring.c" in line
    assert "Traceback" not in err


def test_a_failed_comparison_is_kept_and_the_run_exits_1(sleepy, fake, catalogue, tmp_path):  # noqa: F811
    fake(FAKE_NS_PER_HOP=50_000)
    progs, out = tmp_path / "progs", tmp_path / "out.jsonl"
    (progs / "elsewhere").mkdir(parents=True)  # prepared, but the program fails
    (progs / "elsewhere" / "ring").write_text("#!/bin/sh\nexit 3\n")
    (progs / "elsewhere" / "ring").chmod(0o755)
    rc, _, err = fid(
        catalogue,
        "run",
        "--all",
        "--only",
        "elsewhere",
        "--cores",
        "1",
        "--programs",
        progs,
        "--out",
        out,
        "--rounds",
        "1",
        "--db",
        tmp_path / "store.db",
    )
    assert rc == 1
    rec = json.loads(out.read_text().splitlines()[-1])
    assert rec["program"] == "elsewhere" and "exit status 3" in rec["error"]
    assert err.splitlines()[-1].startswith("fidelity: 1 of 1 comparisons failed")


def test_a_program_not_prepared_is_skipped_by_name_and_nothing_is_recorded(catalogue, tmp_path):
    progs, out = tmp_path / "progs", tmp_path / "out.jsonl"
    (progs / "elsewhere").mkdir(parents=True)  # its folder, but not the program its command names
    args = ["run", "--all", "--only", "elsewhere", "--programs", progs, "--out", out, "--db", tmp_path / "s.db"]
    rc, _, err = fid(catalogue, *args)
    assert rc == 1
    assert f"not prepared in {progs}, skipped: elsewhere" in err
    assert err.splitlines()[-1] == "fidelity: not measured, not prepared: elsewhere"
    assert not any("driver" in json.loads(line) for line in out.read_text().splitlines())
    assert "Traceback" not in err


def test_render_replaces_only_its_block(tmp_path):
    doc = tmp_path / "README.md"
    doc.write_text("# title\n\ntext\n")
    assert fidelity.replace_block(doc, "first", "## Side by side")
    assert doc.read_text() == f"# title\n\ntext\n\n## Side by side\n\n{fidelity.BEGIN}\nfirst\n{fidelity.END}\n"
    doc.write_text(doc.read_text() + "\n## After\n")
    fidelity.replace_block(doc, "second", "## Side by side")
    text = doc.read_text()
    assert "first" not in text and "second" in text and text.count("## Side by side") == 1
    assert text.endswith("## After\n")


def test_the_results_files_do_not_make_the_commit_dirty(tmp_path, monkeypatch):
    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "results").mkdir()
    (tmp_path / "docs" / "results").mkdir(parents=True)
    out, code = tmp_path / "results" / "fidelity.jsonl", tmp_path / "driver.c"
    page = tmp_path / "docs" / "results" / "positions.md"  # a page scripts/results.py writes
    out.write_text("{}\n")
    code.write_text("int main;\n")
    page.write_text("a table\n")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x")
    monkeypatch.setattr(fidelity, "REPO", tmp_path)
    out.write_text("{}\n{}\n")  # the run's own appends
    page.write_text("another table\n")  # written by scripts/results.py while this runs
    assert "uncommitted" not in fidelity.head_commit(out)
    assert "uncommitted" not in fidelity.head_commit(tmp_path / "elsewhere.jsonl")  # a run with another --out
    notes = tmp_path / "notes.md"
    notes.write_text("x\n")
    git("add", "notes.md")  # any other tracked change counts
    assert "uncommitted" in fidelity.head_commit(out)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "y")
    code.write_text("int main = 1;\n")  # what is measured changed
    assert "uncommitted" in fidelity.head_commit(out)


def test_a_pairing_measured_with_more_hops_is_its_own_comparison_with_its_label(catalogue, monkeypatch):
    """A second case of one pairing with another hop count (e.g. past a JIT's warm-up): the [[core]]
    entry that names its hops picks it, resuming does not take one for the other, and its rows say
    which they are."""
    text = (
        catalogue.read_text()
        + """
[[case]]
driver = "sleepy"
program = "slow-ring"
cores = ["1"]
sizes = [10]
hops = 40000
label = "40k hops"
note = "the long one"

[[core]]
driver = "sleepy"
program = "slow-ring"
sizes = [10]
hops = 40000
"""
    )
    catalogue.write_text(text)
    monkeypatch.setattr(fidelity, "CATALOGUE", catalogue)
    _, cases, core = fidelity.load()
    todo = fidelity.plan(cases, core, (), (), ())
    assert [(t["n"], t["hops"], t.get("label")) for t in todo] == [
        (10, 4000, None),
        (10, 40000, "40k hops"),
        (20, 4000, None),
    ]
    assert len({fidelity.key_of(t) for t in todo}) == 3
    cell = {
        "driver": {"ns_per_hop": 50_000},
        "program": {"ns_per_hop": 100_000},
        "ratio": 0.5,
        "ratio_ci": [0.4, 0.6],
        "p_value": 0.01,
        "significant": True,
    }
    recs = [{**t, "commit": "abc1234", "command": "c", "report": {"rounds": 5, "cells": [cell]}} for t in todo]
    md = fidelity.render(recs, {"slow-ring": {"title": "t", "origin": "written here", "idiom": "i"}}, cases)
    assert "| slow-ring | 1 core | 10 |" in md and "| slow-ring | 1 core, 40k hops | 10 |" in md
    assert ", again" not in md
    assert "- slow-ring: same idiom" in md and "- slow-ring: the long one" in md


def test_a_comparison_measured_with_uncommitted_changes_is_not_published_and_is_measured_again(
    catalogue, monkeypatch, tmp_path
):
    """No checkout reproduces a figure measured with uncommitted changes: its row says it awaits
    re-measuring instead of showing it, the header counts it and names only committed states, and `run`
    plans it again (where a committed one is kept unless --again)."""
    monkeypatch.setattr(fidelity, "CATALOGUE", catalogue)
    _, cases, core = fidelity.load()
    todo = fidelity.plan(cases, core, (), (), ())
    cell = {
        "driver": {"ns_per_hop": 50_000},
        "program": {"ns_per_hop": 100_000},
        "ratio": 0.5,
        "ratio_ci": [0.4, 0.6],
        "p_value": 0.01,
        "significant": True,
    }
    clean, dirty = todo[0], todo[1]
    meta = {"meta": {"started": "2026-11-28 18:00 UTC", "load": [0.1, 0.1, 0.1]}}
    recs = [
        meta,
        {**clean, "commit": "abc1234", "command": "c", "report": {"rounds": 5, "cells": [cell]}},
        {**dirty, "commit": "def5678 (uncommitted changes)", "command": "c", "report": {"rounds": 5, "cells": [cell]}},
    ]
    md = fidelity.render(recs, {"slow-ring": {"title": "t", "origin": "written here", "idiom": "i"}}, cases)
    published = [line for line in md.splitlines() if line.startswith("| slow-ring") and "abc1234"[:7] in line]
    awaiting = [line for line in md.splitlines() if line.startswith("| slow-ring") and "def5678" in line]
    assert len(published) == 1 and "0.50" in published[0]
    assert len(awaiting) == 1 and "awaits re-measuring" in awaiting[0] and "0.50" not in awaiting[0]
    assert awaiting[0].count("|") == published[0].count("|")  # the same columns
    head = next(line for line in md.splitlines() if line.startswith("Measured by"))
    assert "abc1234" in head and "def5678" not in head
    assert "1 comparison(s) measured with uncommitted changes and not since" in head
    out = tmp_path / "f.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in recs))
    assert fidelity.kept_comparisons(out, again=False) == {fidelity.key_of(clean)}
    assert fidelity.kept_comparisons(out, again=True) == set()


PROGRAMS = {"slow-ring": {"title": "t", "origin": "written here", "idiom": "i"}}


def test_a_comparison_measured_again_at_a_committed_state_drops_its_awaiting_row(catalogue, monkeypatch):
    """Once a comparison measured with uncommitted changes has been measured at a committed state, its
    row no longer says it awaits re-measuring, nor does the header count it; both committed measurements
    of one comparison are still shown (the second marked "again")."""
    monkeypatch.setattr(fidelity, "CATALOGUE", catalogue)
    _, cases, core = fidelity.load()
    item = fidelity.plan(cases, core, (), (), ())[0]
    cell = {"driver": {"ns_per_hop": 50_000}, "program": {"ns_per_hop": 100_000}, "ratio": 0.5}
    cell |= {"ratio_ci": [0.4, 0.6], "p_value": 0.01, "significant": True}
    meta = {"meta": {"started": "2026-11-28 18:00 UTC", "load": [0.1, 0.1, 0.1]}}
    measured = {**item, "command": "c", "report": {"rounds": 5, "cells": [cell]}}
    recs = [meta, {**measured, "commit": "def5678 (uncommitted changes)"}, {**measured, "commit": "abc1234"}]
    md = fidelity.render(recs, PROGRAMS, cases)
    assert "awaits re-measuring" not in md and "uncommitted" not in md
    rows = [line for line in md.splitlines() if line.startswith("| slow-ring | 1 core")]
    assert len(rows) == 1 and "abc1234" in rows[0] and ", again" not in rows[0]
    md2 = fidelity.render(recs + [{**measured, "commit": "bcd2345"}], PROGRAMS, cases)
    rows = [line for line in md2.splitlines() if line.startswith("| slow-ring | 1 core")]
    assert len(rows) == 2 and sum(", again" in r for r in rows) == 1
